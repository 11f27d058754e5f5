#!/bin/bash
# OpenLDAP slapd 2.5 (-d stats,stats2,sync; one phase with acl, one with config): a provider with an mdb
# database (~450 people in department OUs, groups, service accounts, ppolicy, unique, syncprov) and a
# syncrepl consumer; ldap-utils and a raw-socket client drive good/bad binds, unknown DNs, ACL denials,
# schema violations, varied searches, paged / size-limited searches, abandons, garbage, abrupt
# disconnects, idle timeouts, bad configs, restarts (clean and kill -9). Both logs merged by time.
. "$(dirname "$0")/common.sh"
D=$W/slapd; rm -rf $D; mkdir -p $D/pdb $D/cdb
P=25389; C=25390
SUF="dc=example,dc=org"
mkconf() { # name port dbdir extra-db-lines
cat > $D/$1.conf <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/nis.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload syncprov
moduleload ppolicy
moduleload unique
pidfile $D/$1.pid
argsfile $D/$1.args
loglevel stats stats2 sync
sizelimit size.soft=40 size.hard=200
timelimit 10
idletimeout 6
database mdb
suffix "$SUF"
rootdn "cn=admin,$SUF"
rootpw secret
directory $D/$3
maxsize 104857600
index objectClass,uid,ou eq
index cn,sn,mail eq,sub
index entryCSN,entryUUID eq
limits dn.exact="cn=admin,$SUF" size=unlimited time=unlimited
limits dn.exact="uid=svc-sync,ou=Services,$SUF" size=unlimited time=unlimited
limits dn.exact="uid=svc-reports,ou=Services,$SUF" size.soft=500 size.hard=500 size.pr=50
access to attrs=userPassword
  by self write
  by anonymous auth
  by dn.exact="uid=svc-sync,ou=Services,$SUF" read
  by * none
access to dn.subtree="ou=Restricted,$SUF"
  by group.exact="cn=ldap-admins,ou=Groups,$SUF" write
  by * none
access to attrs=telephoneNumber,mobile,description,displayName,roomNumber
  by self write
  by group.exact="cn=ldap-admins,ou=Groups,$SUF" write
  by users read
  by * none
access to *
  by group.exact="cn=ldap-admins,ou=Groups,$SUF" write
  by users read
  by anonymous read
$4
CONF
}
mkconf provider $P pdb "overlay syncprov
syncprov-checkpoint 20 1
syncprov-sessionlog 200
overlay unique
unique_uri ldap:///ou=People,$SUF?uid,mail?sub
overlay ppolicy
ppolicy_default \"cn=default,ou=Policies,$SUF\"
ppolicy_use_lockout"
mkconf consumer $C cdb "syncrepl rid=001 provider=ldap://127.0.0.1:$P/ type=refreshAndPersist retry=\"2 6 5 +\" searchbase=\"$SUF\" bindmethod=simple binddn=\"uid=svc-sync,ou=Services,$SUF\" credentials=pw-svc-sync timeout=3 network-timeout=3
syncrepl rid=002 provider=ldap://127.0.0.1:25391/ type=refreshOnly interval=00:00:00:20 retry=\"3 4 10 +\" searchbase=\"ou=Archive,$SUF\" bindmethod=simple binddn=\"cn=admin,$SUF\" credentials=secret network-timeout=2
multiprovider on
overlay syncprov"
# a consumer replicating a subtree from a dead provider (rid=002) is legal only with multiprovider.

PLOG=$D/provider.log; CLOG=$D/consumer.log; : > $PLOG; : > $CLOG
startp() { slapd -f $D/provider.conf -h "ldap://127.0.0.1:$P/ ldap://127.0.1.1:$P/" -d "${1:-stats,stats2,sync}" >> $PLOG 2>&1 & SP=$!; waitport $P; }
startc() { slapd -f $D/consumer.conf -h "ldap://127.0.0.1:$C/" -d "${1:-stats,sync}" >> $CLOG 2>&1 & SC=$!; waitport $C; }

# bad configurations first: each fails at startup and logs why
cp $D/provider.conf $D/bad1.conf; sed -i "s/^index cn,sn,mail eq,sub/index cn,sn,mail,favouriteColour eq,sub/" $D/bad1.conf
cp $D/provider.conf $D/bad2.conf; sed -i 's/^database mdb/database mdbx/' $D/bad2.conf
cp $D/provider.conf $D/bad3.conf; sed -i 's/^timelimit 10/timelimit soon/' $D/bad3.conf
cp $D/provider.conf $D/bad4.conf; sed -i "s|^directory .*|directory $D/missing-dir|" $D/bad4.conf
cp $D/provider.conf $D/bad5.conf; sed -i 's/^moduleload unique/moduleload uniqueness/' $D/bad5.conf
cp $D/provider.conf $D/bad6.conf; sed -i "s/^index objectClass,uid,ou eq/index objectClass,uid,ou,cn eq/" $D/bad6.conf
for b in 1 2 3 4 5 6; do timeout 10 slapd -f $D/bad$b.conf -h "ldap://127.0.0.1:$P/" -d stats >> $PLOG 2>&1; done

$PY - "$D" <<'PYEOF'
import random, sys
D = sys.argv[1]
rnd = random.Random(25)
FIRST = ['alice', 'bob', 'carol', 'dmitri', 'elena', 'farid', 'greta', 'hiroshi', 'ines', 'jamal', 'katarzyna', 'liam', 'mei',
         'nikolai', 'olga', 'pedro', 'quentin', 'rosa', 'sven', 'tamara', 'ulrich', 'valentina', 'wei', 'ximena', 'yusuf', 'zoe',
         'aaron', 'bianca', 'chidi', 'dagny', 'emeka', 'fatima', 'gustavo', 'hannah', 'ivan', 'jolene', 'kenji', 'leila', 'marco',
         'noor', 'oscar', 'priya', 'rafael', 'sakura', 'thabo', 'uma', 'viktor', 'wanda', 'yara', 'zeynep', 'anders', 'beatriz',
         'ciaran', 'daniela', 'erik', 'francesca', 'gio', 'helga', 'isaac', 'juno']
LAST = ['smith', 'nguyen', 'garcia', 'mueller', 'kowalski', 'rossi', 'tanaka', 'okafor', 'silva', 'johansson', 'dubois', 'petrov',
        'haddad', 'oconnor', 'schmidt', 'yamamoto', 'fernandez', 'andersen', 'novak', 'kim', 'patel', 'cohen', 'moreau', 'ivanova',
        'lindqvist', 'bakker', 'costa', 'reyes', 'hansen', 'mendes', 'wojcik', 'osei', 'ahmed', 'lopez', 'fischer', 'ward', 'quinn',
        'brennan', 'sato', 'keller', 'varga', 'horvat', 'nakamura', 'eriksen', 'castillo', 'murphy', 'zhou', 'banerjee']
DEPTS = ['Engineering', 'Sales', 'Marketing', 'Finance', 'Support', 'Legal', 'Operations', 'Research', 'HumanResources',
         'Facilities', 'QualityAssurance', 'Procurement', 'DataScience', 'Security']
CITIES = ['Berlin', 'Lisbon', 'Osaka', 'Toronto', 'Nairobi', 'Austin', 'Krakow', 'Lyon', 'Dublin', 'Bangalore', 'Santiago']
SVCS = ['svc-sync', 'svc-reports', 'svc-backup', 'jenkins', 'grafana', 'nextcloud', 'gitlab-runner', 'mailrelay', 'keycloak',
        'zabbix', 'vault-agent', 'svc-hr-import', 'postfix', 'dovecot', 'wiki', 'svc-printers']
S = 'dc=example,dc=org'
out = []
def e(dn, *attrs):
    out.append('dn: %s\n%s\n' % (dn, '\n'.join(attrs)))
e(S, 'objectClass: dcObject', 'objectClass: organization', 'o: Example Org', 'dc: example')
for ou in ['People', 'Groups', 'Services', 'Policies', 'Restricted', 'Hosts']:
    e('ou=%s,%s' % (ou, S), 'objectClass: organizationalUnit', 'ou: %s' % ou)
e('cn=default,ou=Policies,%s' % S, 'objectClass: pwdPolicy', 'objectClass: device', 'cn: default', 'pwdAttribute: userPassword',
  'pwdMaxFailure: 4', 'pwdLockout: TRUE', 'pwdLockoutDuration: 20', 'pwdMinLength: 6', 'pwdCheckQuality: 1',
  'pwdFailureCountInterval: 60', 'pwdInHistory: 2')
for d in DEPTS:
    e('ou=%s,ou=People,%s' % (d, S), 'objectClass: organizationalUnit', 'ou: %s' % d, 'l: %s' % rnd.choice(CITIES))
people = []
seen = set()
uidn = 10000
while len(people) < 450:
    f, l = rnd.choice(FIRST), rnd.choice(LAST)
    uid = rnd.choice(['%s.%s' % (f, l), f[0] + l, f + l[0], '%s%d' % (f, rnd.randint(1, 99)), '%s_%s' % (l, f[:3])])
    if uid in seen: continue
    seen.add(uid); uidn += 1
    d = rnd.choice(DEPTS)
    people.append((uid, d, f, l))
    e('uid=%s,ou=%s,ou=People,%s' % (uid, d, S), 'objectClass: inetOrgPerson', 'objectClass: posixAccount',
      'uid: %s' % uid, 'cn: %s %s' % (f.capitalize(), l.capitalize()), 'sn: %s' % l.capitalize(), 'givenName: %s' % f.capitalize(),
      'mail: %s@example.org' % uid, 'uidNumber: %d' % uidn, 'gidNumber: %d' % (5000 + DEPTS.index(d)),
      'homeDirectory: /home/%s' % uid, 'loginShell: %s' % rnd.choice(['/bin/bash', '/bin/zsh', '/usr/bin/fish', '/bin/sh']),
      'telephoneNumber: +1 555 %04d' % rnd.randint(0, 9999), 'l: %s' % rnd.choice(CITIES), 'departmentNumber: %s' % d,
      'title: %s' % rnd.choice(['Engineer', 'Analyst', 'Manager', 'Director', 'Intern', 'Specialist', 'Consultant']),
      'userPassword: pw-%s' % uid)
for s in SVCS:
    e('uid=%s,ou=Services,%s' % (s, S), 'objectClass: account', 'objectClass: simpleSecurityObject', 'uid: %s' % s,
      'userPassword: pw-%s' % s, 'description: service account for %s' % s)
admins = rnd.sample(people, 6)
e('cn=ldap-admins,ou=Groups,%s' % S, 'objectClass: groupOfNames', 'cn: ldap-admins',
  *['member: uid=%s,ou=%s,ou=People,%s' % (p[0], p[1], S) for p in admins])
for g in ['developers', 'vpn-users', 'wiki-editors', 'oncall', 'finance-approvers', 'badge-access', 'gitlab-maintainers',
          'printer-admins', 'payroll', 'beta-testers', 'sre', 'helpdesk']:
    mem = rnd.sample(people, rnd.randint(3, 25))
    e('cn=%s,ou=Groups,%s' % (g, S), 'objectClass: groupOfNames', 'cn: %s' % g,
      *['member: uid=%s,ou=%s,ou=People,%s' % (p[0], p[1], S) for p in mem])
for i in range(40):
    h = '%s-%s%02d' % (rnd.choice(['web', 'db', 'cache', 'mq', 'build', 'mail', 'proxy', 'dns']), rnd.choice(['fra', 'ams', 'iad', 'sin', 'gru']), i)
    e('cn=%s,ou=Hosts,%s' % (h, S), 'objectClass: device', 'objectClass: ipHost', 'cn: %s' % h,
      'ipHostNumber: 10.%d.%d.%d' % (rnd.randint(0, 255), rnd.randint(0, 255), rnd.randint(1, 254)))
for i in range(8):
    e('cn=secret-%d,ou=Restricted,%s' % (i, S), 'objectClass: device', 'cn: secret-%d' % i, 'description: vault shard %d' % i)
open(D + '/base.ldif', 'w').write('\n'.join(out))
open(D + '/people.txt', 'w').write('\n'.join('%s %s %s %s' % p for p in people) + '\n')
open(D + '/admins.txt', 'w').write('\n'.join('%s %s' % (p[0], p[1]) for p in admins) + '\n')
# a second file with schema violations, duplicates and bad parents, loaded with ldapadd -c
bad = []
def b(dn, *attrs): bad.append('dn: %s\n%s\n' % (dn, '\n'.join(attrs)))
for i in range(30):
    f, l = rnd.choice(FIRST), rnd.choice(LAST); uid = '%s.%s%d' % (f, l, i); d = rnd.choice(DEPTS)
    dn = 'uid=%s,ou=%s,ou=People,%s' % (uid, d, S)
    k = i % 10
    if k == 0: b(dn, 'objectClass: inetOrgPerson', 'uid: %s' % uid, 'cn: %s' % f)                       # no sn
    elif k == 1: b(dn, 'objectClass: inetOrgPerson', 'uid: %s' % uid, 'cn: %s' % f, 'sn: %s' % l, 'shoeSize: 44')
    elif k == 2: b(dn, 'objectClass: wizardPerson', 'uid: %s' % uid, 'cn: %s' % f, 'sn: %s' % l)
    elif k == 3: p = rnd.choice(people); b('uid=%s,ou=%s,ou=People,%s' % (p[0], p[1], S), 'objectClass: inetOrgPerson', 'uid: %s' % p[0], 'cn: x', 'sn: y')
    elif k == 4: b('uid=%s,ou=%s,ou=People,%s' % (uid, rnd.choice(['Astrology', 'Catering', 'Alchemy']), S), 'objectClass: inetOrgPerson', 'uid: %s' % uid, 'cn: %s' % f, 'sn: %s' % l)
    elif k == 5: b(dn, 'objectClass: inetOrgPerson', 'uid: %s' % uid, 'cn: %s' % f, 'sn: %s' % l, 'mail: %s@example.org' % rnd.choice(people)[0])
    elif k == 6: b(dn, 'objectClass: posixAccount', 'uid: %s' % uid, 'cn: %s' % f)
    elif k == 7: b(dn, 'objectClass: inetOrgPerson', 'uid: %s' % uid, 'cn: %s' % f, 'sn: %s' % l, 'uidNumber: %d' % rnd.randint(1, 999))
    elif k == 8: b(dn, 'objectClass: inetOrgPerson', 'uid: other%d' % i, 'cn: %s' % f, 'sn: %s' % l, 'telephoneNumber: call-me-maybe')
    else: b(dn, 'objectClass: inetOrgPerson', 'objectClass: organizationalUnit', 'uid: %s' % uid, 'cn: %s' % f, 'sn: %s' % l, 'ou: x')
open(D + '/bad.ldif', 'w').write('\n'.join(bad))
PYEOF

# the workload driver: ldap-utils commands and a small raw BER client (varied source addresses)
cat > $D/drive.py <<'PYEOF'
import os, random, socket, subprocess, sys, time
D, PORT, MODE, N, SEED = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rnd = random.Random(SEED)
S = 'dc=example,dc=org'
URL = 'ldap://127.0.0.1:%d' % PORT
people = [l.split() for l in open(D + '/people.txt') if l.strip()]
admins = [l.split() for l in open(D + '/admins.txt') if l.strip()]
DEPTS = sorted({p[1] for p in people})
SVCS = ['svc-sync', 'svc-reports', 'svc-backup', 'jenkins', 'grafana', 'nextcloud', 'gitlab-runner', 'mailrelay', 'keycloak', 'zabbix']
CITIES = ['Berlin', 'Lisbon', 'Osaka', 'Toronto', 'Nairobi', 'Austin', 'Krakow', 'Lyon', 'Dublin', 'Bangalore', 'Santiago']
pw = {}
def pdn(p): return 'uid=%s,ou=%s,ou=People,%s' % (p[0], p[1], S)
def run(args, inp=None):
    try: subprocess.run(args, input=inp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=15)
    except subprocess.TimeoutExpired: pass
def who():
    r = rnd.random()
    if r < 0.25: return []
    if r < 0.55: p = rnd.choice(people); return ['-D', pdn(p), '-w', pw.get(p[0], 'pw-' + p[0])]
    if r < 0.65: p = rnd.choice(people); return ['-D', pdn(p), '-w', rnd.choice(['hunter2', 'Winter2024!', 'pw-' + p[0][::-1], 'letmein'])]
    if r < 0.72: return ['-D', 'uid=%s,ou=People,%s' % (rnd.choice(['ghost', 'root', 'oracle', 'test', 'admin', 'guest', 'deploy']), S), '-w', 'x']
    if r < 0.77: return ['-D', 'cn=admin,%s' % S, '-w', 'secret']
    if r < 0.80: return ['-D', 'cn=admin,%s' % S, '-w', 'Secret1']
    if r < 0.82: return ['-D', 'uid=%s,ou=People,%s,broken' % (rnd.choice(people)[0], S), '-w', 'x']   # invalid DN syntax
    s = rnd.choice(SVCS); return ['-D', 'uid=%s,ou=Services,%s' % (s, S), '-w', 'pw-' + s if rnd.random() < 0.85 else 'expired']
def rfilter():
    p = rnd.choice(people); f = rnd.randint(0, 17)
    return ['(uid=%s)' % p[0], '(&(objectClass=inetOrgPerson)(l=%s))' % rnd.choice(CITIES), '(|(cn=%s*)(sn=%s*))' % (p[2][:3].capitalize(), p[3][:2].capitalize()),
            '(mail=%s@example.org)' % p[0], '(!(title=%s))' % rnd.choice(['Intern', 'Manager', 'Engineer']), '(member=%s)' % pdn(p),
            '(uidNumber>=%d)' % rnd.randint(10000, 10450), '(cn~=%s)' % p[2], '(departmentNumber=%s)' % p[1], '(objectClass=*)',
            '(favouriteColour=%s)' % rnd.choice(['blue', 'green']), '(&(objectClass=posixAccount)(loginShell=/bin/zsh))',
            '(cn=*%s*)' % p[3][1:4], '(objectClass=groupOfNames)', '(ipHostNumber=10.*)', '(&(uid=%s)(objectClass=inetOrgPerson))' % p[0],
            '(|(uid=%s)(uid=%s)(uid=%s))' % (p[0], rnd.choice(people)[0], rnd.choice(people)[0]), '(title=%s*)' % rnd.choice(['Eng', 'Dir', 'Spec', 'An'])][f]
def rbase():
    r = rnd.random()
    if r < 0.35: return S
    if r < 0.55: return 'ou=People,' + S
    if r < 0.75: return 'ou=%s,ou=People,%s' % (rnd.choice(DEPTS), S)
    if r < 0.82: return 'ou=Groups,' + S
    if r < 0.86: return 'ou=Hosts,' + S
    if r < 0.90: return 'ou=Restricted,' + S
    if r < 0.95: return 'ou=%s,ou=People,%s' % (rnd.choice(['Astrology', 'Catering', 'Alchemy', 'Marketting']), S)
    return rnd.choice(['dc=example,dc=com', 'o=corp', 'dc=example,dc=org,', ''])
def search():
    a = ['ldapsearch', '-x', '-LLL', '-H', URL] + who() + ['-b', rbase(), '-s', rnd.choice(['sub', 'sub', 'one', 'base'])]
    r = rnd.random()
    if r < 0.15: a += ['-z', str(rnd.randint(1, 30))]
    elif r < 0.27: a += ['-E', 'pr=%d/noprompt' % rnd.choice([5, 10, 25, 50, 100])]
    elif r < 0.31: a += ['-l', str(rnd.randint(1, 3))]
    elif r < 0.34: a += ['-e', '!1.3.6.1.4.1.%d.%d' % (rnd.randint(1000, 60000), rnd.randint(1, 9))]
    elif r < 0.37: a += ['-a', rnd.choice(['always', 'search', 'find'])]
    elif r < 0.40: a += ['-A']
    elif r < 0.43: a += ['-E', '!sss=%s' % rnd.choice(['cn', 'sn', '-uidNumber'])]
    a.append(rfilter())
    a += rnd.sample(['cn', 'mail', 'uid', 'sn', 'title', 'l', 'telephoneNumber', 'member', 'userPassword', 'entryUUID', '+', '*', '1.1', 'modifyTimestamp'], rnd.randint(0, 3))
    run(a)
def modify():
    p = rnd.choice(people); me = rnd.random() < 0.6
    tgt = p if me else rnd.choice(people)
    auth = ['-D', pdn(p), '-w', pw.get(p[0], 'pw-' + p[0])]
    if rnd.random() < 0.15: a0 = rnd.choice(admins); auth = ['-D', 'uid=%s,ou=%s,ou=People,%s' % (a0[0], a0[1], S), '-w', pw.get(a0[0], 'pw-' + a0[0])]
    if rnd.random() < 0.1: auth = ['-D', 'cn=admin,' + S, '-w', 'secret']
    if rnd.random() < 0.05: auth = []
    k = rnd.randint(0, 11)
    body = ['dn: %s\nchangetype: modify\nreplace: telephoneNumber\ntelephoneNumber: +%d %d %04d\n' % (pdn(tgt), rnd.randint(1, 49), rnd.randint(100, 999), rnd.randint(0, 9999)),
            'dn: %s\nchangetype: modify\nreplace: description\ndescription: %s\n' % (pdn(tgt), rnd.choice(['on leave', 'remote', 'back in May', 'team lead', 'new hire'])),
            'dn: %s\nchangetype: modify\nreplace: mail\nmail: %s@example.net\n' % (pdn(tgt), tgt[0]),
            'dn: %s\nchangetype: modify\nadd: shoeSize\nshoeSize: 43\n' % pdn(tgt),
            'dn: %s\nchangetype: modify\ndelete: sn\n' % pdn(tgt),
            'dn: %s\nchangetype: modify\nreplace: roomNumber\nroomNumber: %s-%d\n' % (pdn(tgt), rnd.choice('ABCDE'), rnd.randint(100, 499)),
            'dn: uid=%s,ou=%s,ou=People,%s\nchangetype: modify\nreplace: title\ntitle: Boss\n' % (rnd.choice(['ghost', 'nobody', 'jdoe']), rnd.choice(DEPTS), S),
            'dn: %s\nchangetype: modify\nreplace: uidNumber\nuidNumber: many\n' % pdn(tgt),
            'dn: %s\nchangetype: modify\nreplace: mail\nmail: %s@example.org\n' % (pdn(tgt), rnd.choice(people)[0]),
            'dn: %s\nchangetype: modify\nadd: telephoneNumber\ntelephoneNumber: +1 555 0000\ntelephoneNumber: +1 555 0000\n' % pdn(tgt),
            'dn: cn=%s,ou=Groups,%s\nchangetype: modify\nadd: member\nmember: %s\n' % (rnd.choice(['developers', 'vpn-users', 'oncall', 'sre']), S, pdn(tgt)),
            'dn: cn=secret-%d,ou=Restricted,%s\nchangetype: modify\nreplace: description\ndescription: pwned\n' % (rnd.randint(0, 7), S)][k]
    run(['ldapmodify', '-x', '-H', URL] + auth, body.encode())
def admin_ops():
    k = rnd.randint(0, 6); A = ['-x', '-H', URL, '-D', 'cn=admin,' + S, '-w', 'secret']
    h = 'cn=%s-%s%02d,ou=Hosts,%s' % (rnd.choice(['web', 'db', 'cache', 'mq', 'build', 'kafka']), rnd.choice(['fra', 'ams', 'iad', 'sin']), rnd.randint(0, 99), S)
    if k == 0: run(['ldapadd'] + A, ('dn: %s\nobjectClass: device\nobjectClass: ipHost\ncn: %s\nipHostNumber: 10.%d.%d.%d\n' % (h, h[3:].split(',')[0], rnd.randint(0, 255), rnd.randint(0, 255), rnd.randint(1, 254))).encode())
    elif k == 1: run(['ldapdelete'] + A + [h])
    elif k == 2: run(['ldapmodrdn'] + A + ['-r', h, 'cn=%s-%s%02d' % (rnd.choice(['web', 'api', 'edge']), rnd.choice(['lhr', 'nrt', 'syd']), rnd.randint(0, 99))])
    elif k == 3: run(['ldapdelete'] + A + ['ou=%s,ou=People,%s' % (rnd.choice(DEPTS), S)])     # non-leaf
    elif k == 4: p = rnd.choice(people); run(['ldapdelete', '-x', '-H', URL, '-D', pdn(p), '-w', pw.get(p[0], 'pw-' + p[0]), pdn(rnd.choice(people))])
    elif k == 5: p = rnd.choice(people); run(['ldapmodrdn'] + A + [pdn(p), 'uid=%s' % rnd.choice(people)[0]])
    else:
        f, l = rnd.choice(people)[2], rnd.choice(people)[3]; uid = '%s.%s%d' % (f, l, rnd.randint(100, 999)); d = rnd.choice(DEPTS)
        run(['ldapadd'] + A, ('dn: uid=%s,ou=%s,ou=People,%s\nobjectClass: inetOrgPerson\nuid: %s\ncn: %s %s\nsn: %s\nmail: %s@example.org\nuserPassword: pw-%s\n' % (uid, d, S, uid, f, l, l, uid, uid)).encode())
        people.append([uid, d, f, l])
def misc():
    k = rnd.randint(0, 9); p = rnd.choice(people)
    if k == 0: run(['ldapwhoami', '-x', '-H', URL] + who())
    elif k == 1: run(['ldapcompare', '-x', '-H', URL] + who() + [pdn(p), 'title:%s' % rnd.choice(['Engineer', 'Manager', 'Analyst'])])
    elif k == 2: run(['ldapcompare', '-x', '-H', URL] + who() + [pdn(p), 'userPassword:pw-%s' % p[0]])
    elif k == 3:
        new = rnd.choice(['abc', 'Correct-Horse-%d' % rnd.randint(1, 999), 'pw-' + p[0], 'Tr0ub4dor&%d' % rnd.randint(1, 99)])
        run(['ldappasswd', '-x', '-H', URL, '-D', pdn(p), '-w', pw.get(p[0], 'pw-' + p[0]), '-a', pw.get(p[0], 'pw-' + p[0]), '-s', new])
        if len(new) >= 6 and new != pw.get(p[0], 'pw-' + p[0]): pw[p[0]] = new
    elif k == 4: run(['ldappasswd', '-x', '-H', URL, '-D', 'cn=admin,' + S, '-w', 'secret', '-s', 'pw-' + p[0], pdn(p)]); pw.pop(p[0], None)
    elif k == 5: run(['ldapwhoami', '-x', '-ZZ', '-H', URL] + who())                           # StartTLS without TLS
    elif k == 6: run(['ldapsearch', '-x', '-LLL', '-H', URL, '-b', '', '-s', 'base', '+'])       # root DSE
    elif k == 7: run(['ldapsearch', '-x', '-LLL', '-H', URL, '-b', 'cn=Subschema', '-s', 'base', '(objectClass=subschema)', 'objectClasses'])
    elif k == 8:   # lockout: hammer one account
        for _ in range(rnd.randint(3, 6)): run(['ldapwhoami', '-x', '-H', URL, '-D', pdn(p), '-w', 'guess%d' % rnd.randint(0, 99)])
        run(['ldapwhoami', '-x', '-H', URL, '-D', pdn(p), '-w', pw.get(p[0], 'pw-' + p[0])])
    else: run(['ldapsearch', '-x', '-LLL', '-H', URL, '-D', 'uid=svc-sync,ou=Services,' + S, '-w', 'pw-svc-sync', '-b', 'ou=%s,ou=People,%s' % (rnd.choice(DEPTS), S), '-E', 'sync=ro', '(objectClass=*)', 'uid'])
# --- raw BER client -------------------------------------------------------------------------------
def L(n):
    if n < 128: return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, 'big'); return bytes([0x80 | len(b)]) + b
def T(tag, body): return bytes([tag]) + L(len(body)) + body
def I(v, tag=0x02): b = v.to_bytes(max(1, (v.bit_length() + 8) // 8), 'big', signed=True); return T(tag, b)
def O(s, tag=0x04): return T(tag, s.encode() if isinstance(s, str) else s)
def msg(mid, op): return T(0x30, I(mid) + op)
def bindreq(dn, pw, ver=3): return T(0x60, I(ver) + O(dn) + O(pw, 0x80))
def saslbind(dn, mech): return T(0x60, I(3) + O(dn) + T(0xa3, O(mech)))
def srch(base, attr='objectClass', scope=2, size=0): return T(0x63, O(base) + I(scope, 0x0a) + I(0, 0x0a) + I(size) + I(0) + T(0x01, b'\x00') + O(attr, 0x87) + T(0x30, b''))
def abandon(mid): b = I(mid); return T(0x50, b[2:])
UNBIND = T(0x42, b'')
def rawconn():
    s = socket.socket(); s.settimeout(3)
    s.bind(('127.0.%d.%d' % (rnd.randint(0, 3), rnd.randint(2, 250)), 0)); s.connect(('127.0.0.1', PORT)); return s
def drain(s, t=0.3):
    s.settimeout(t)
    try:
        while s.recv(65536): pass
    except Exception: pass
held = []
def raw():
    k = rnd.randint(0, 10)
    try:
        s = rawconn()
        if k == 0:   # search everything, abandon it at once
            s.sendall(msg(1, bindreq('cn=admin,' + S, 'secret')) + msg(2, srch(S)) + msg(3, abandon(2))); drain(s); s.sendall(msg(4, UNBIND))
        elif k == 1: s.sendall(msg(1, srch(S))); s.close(); return                                # abrupt close mid-search
        elif k == 2: s.sendall(rnd.choice([b'GET / HTTP/1.1\r\nHost: ldap\r\n\r\n', b'\x00\x01\x02\x03garbage', b'SSH-2.0-OpenSSH_9.2\r\n', b'\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03']))
        elif k == 3: s.sendall(msg(1, bindreq(pdn(rnd.choice(people)), 'x', ver=2)))            # LDAPv2 bind
        elif k == 4: s.sendall(msg(1, saslbind('', rnd.choice(['GSSAPI', 'DIGEST-MD5', 'NTLM', 'SCRAM-SHA-256', 'OAUTHBEARER']))))
        elif k == 5: held.append(s); s.sendall(msg(1, bindreq(pdn(rnd.choice(people)), 'x'))); drain(s, 0.1); return   # left idle
        elif k == 6: s.sendall(msg(7, T(0x7f, b'\x01\x02')))                                         # unknown op
        elif k == 7: s.sendall(msg(1, bindreq('', '')) + msg(2, srch(rnd.choice([S, 'ou=People,' + S]), 'uid', 2, 3)) + msg(3, abandon(99)))
        elif k == 8: s.sendall(msg(1, srch(S))[:9]); time.sleep(0.2); s.close(); return          # truncated PDU
        elif k == 9: s.sendall(msg(1, bindreq(pdn(rnd.choice(people)), '')))                    # unauthenticated bind
        else: s.sendall(msg(1, srch('uid=%s,ou=%s,ou=People,%s' % (rnd.choice(people)[0], rnd.choice(DEPTS), S), 'cn', 0)) + msg(2, UNBIND))
        drain(s); s.close()
    except Exception:
        pass
if MODE == 'acl':
    for i in range(N):
        rnd.choice([search, modify, modify, misc])(); time.sleep(0.05)
else:
    for i in range(N):
        r = rnd.random()
        if r < 0.42: search()
        elif r < 0.62: modify()
        elif r < 0.72: admin_ops()
        elif r < 0.86: misc()
        else: raw()
        time.sleep(0.01)
    time.sleep(0.5)
for s in held:
    try: s.close()
    except Exception: pass
PYEOF

# load online, so the adds are logged
startp
ldapadd -x -c -H ldap://127.0.0.1:$P -D "cn=admin,$SUF" -w secret -f $D/base.ldif >/dev/null 2>&1
ldapadd -x -c -H ldap://127.0.0.1:$P -D "cn=admin,$SUF" -w secret -f $D/bad.ldif >/dev/null 2>&1
startc; sleep 3

$PY $D/drive.py $D $P main 700 7 >/dev/null 2>&1
sleep 7   # idle raw clients are closed by idletimeout

# provider restart while the consumer keeps retrying; then one phase with ACL debugging
stoppid $SP; sleep 5
startp stats,acl
$PY $D/drive.py $D $P acl 25 8 >/dev/null 2>&1
stoppid $SP
startp stats,stats2,sync,config
$PY $D/drive.py $D $P main 250 9 >/dev/null 2>&1
sleep 2
kill -9 $SP; wait $SP 2>/dev/null; sleep 4
startp
$PY $D/drive.py $D $P main 120 10 >/dev/null 2>&1
sleep 2
stoppid $SC; sleep 1
stoppid $SP
# merge both logs by their hex timestamp; continuation lines stay with their line
$PY - $PLOG $CLOG > $RAW/Slapd.log <<'PYEOF'
import heapq, re, sys
def recs(fi, p):
    out = []
    for n, l in enumerate(open(p, encoding='utf-8', errors='replace').read().split('\n')):
        if not l: continue
        m = re.match(r'([0-9a-f]{8})\.([0-9a-f]{8}) ', l)
        if m or not out: out.append(((int(m.group(1), 16), int(m.group(2), 16)) if m else (0, 0), [l]))
        else: out[-1][1].append(l)
    return out
for key, ls in heapq.merge(*[recs(i, p) for i, p in enumerate(sys.argv[1:])], key=lambda r: r[0]):
    print('\n'.join(ls))
PYEOF
wc -l $RAW/Slapd.log
