#!/bin/bash
# BIND 9.18 (named -f, file channel with category + severity, querylog on, debug via rndc trace for part
# of the run): an authoritative view (many zones / names / record types, an inline-signed zone, dynamic
# zones, a broken zone, a secondary of a dead primary, AXFR allowed/refused) and a recursive view
# (127.0.3.0/24) forwarding to a dead and a silent forwarder and holding secondaries of the auth view.
# Driven with python UDP/TCP queries from 127.0.0.0/22, nsupdate (good, refused, bad TSIG), dig AXFR/IXFR,
# rndc reload/reconfig (good and bad)/flush/stats/freeze/thaw/querylog/trace/dumpdb, then rndc stop.
. "$(dirname "$0")/common.sh"
D=$W/bind9; rm -rf $D; mkdir -p $D/zones $D/keys
P=22053; RP=22953
tsig-keygen -a hmac-sha256 ddns-key > $D/ddns.key
tsig-keygen -a hmac-sha256 xfer-key > $D/xfer.key
tsig-keygen -a hmac-sha256 host-key > $D/host.key
tsig-keygen -a hmac-sha256 rndc-key > $D/rndc.key
secret() { sed -n 's/.*secret "\(.*\)";/\1/p' $1; }
cat > $D/rndc.conf <<EOF
include "$D/rndc.key";
options { default-key "rndc-key"; default-server 127.0.0.1; default-port $RP; };
EOF
R() { rndc -c $D/rndc.conf "$@" >/dev/null 2>&1; }

# ---- zones -------------------------------------------------------------------------------
$PY - "$D" <<'PYEOF'
import random, sys
D = sys.argv[1]; rnd = random.Random(91)
first = ['alice','bob','carol','dave','erin','frank','grace','heidi','ivan','judy','mallory','oscar','peggy','rupert','sybil','trent','victor','walter','yusuf','zara','mei','arjun','noor','ingrid','pablo','leila','tomas','akira','fatima','olga']
svc = ['www','mail','smtp','imap','vpn','git','ci','jenkins','grafana','kibana','ldap','db','pg','redis','cache','api','auth','sso','wiki','docs','cdn','static','files','backup','nas','printer','cam','ns1','ns2','mx1','mx2','proxy','edge','lb','k8s','node','worker','build','stage','dev','prod','shop','pay','billing','crm','erp','hr','intranet','portal','status']
zones = {'corp.example': 160, 'shop.test': 90, 'lab.internal': 110, 'campus.edu.test': 70, 'dyn.example': 20, 'policy.example': 15}
for z, n in zones.items():
    L = ['$TTL 300', '@ IN SOA ns1.%s. hostmaster.%s. (2026112601 3600 600 86400 300)' % (z, z), '@ IN NS ns1.%s.' % z, '@ IN NS ns2.%s.' % z,
         'ns1 IN A 127.0.0.1', 'ns2 IN A 127.0.0.2', '@ IN MX 10 mx1.%s.' % z, '@ IN MX 20 mx2.%s.' % z, 'mx1 IN A 127.0.1.25', 'mx2 IN A 127.0.1.26',
         '@ IN TXT "v=spf1 mx -all"', '@ IN CAA 0 issue "letsencrypt.org"']
    used = set(['ns1', 'ns2', 'mx1', 'mx2'])
    for i in range(n):
        k = rnd.random()
        name = rnd.choice([rnd.choice(svc) + str(rnd.randint(1, 40)), rnd.choice(first) + '-' + rnd.choice(['laptop','desktop','phone','tablet','ws']), rnd.choice(svc) + '.' + rnd.choice(['eu','us','ap','dc1','dc2']), rnd.choice(svc)])
        if name in used: continue
        used.add(name)
        if k < 0.45: L.append('%s IN A 127.%d.%d.%d' % (name, rnd.randint(0, 3), rnd.randint(0, 255), rnd.randint(1, 254)))
        elif k < 0.6: L.append('%s IN AAAA fd00:%x::%x' % (name, rnd.randint(1, 65535), rnd.randint(1, 65535)))
        elif k < 0.72: L.append('%s IN CNAME %s' % (name, rnd.choice(['www', 'api', 'ns1', 'mx1', 'gone.' + z + '.', 'cdn.elsewhere.test.'])))
        elif k < 0.8: L.append('%s IN TXT "%s=%08x"' % (name, rnd.choice(['owner', 'team', 'ticket', 'verify']), rnd.getrandbits(32)))
        elif k < 0.86: L.append('_%s._tcp.%s IN SRV %d %d %d %s' % (rnd.choice(['ldap','sip','xmpp','imaps','kerberos','http']), name, rnd.randint(0, 20), rnd.randint(0, 100), rnd.randint(1, 65535), 'ns1'))
        elif k < 0.9: L.append('%s IN HINFO "%s" "%s"' % (name, rnd.choice(['x86_64', 'arm64', 'PDP-11']), rnd.choice(['Linux', 'BSD', 'Plan9'])))
        elif k < 0.93: L.append('%s IN SSHFP 1 2 %064x' % (name, rnd.getrandbits(256)))
        elif k < 0.96: L.append('%s IN NAPTR 100 10 "S" "SIP+D2U" "" _sip._udp.%s.' % (name, z))
        else: L.append('%s IN MX %d mx1' % (name, rnd.randint(1, 50)))
    if z == 'lab.internal': L.append('old IN DNAME corp.example.')
    if z == 'corp.example': L.append('sub IN NS ns.sub.corp.example.'); L.append('ns.sub IN A 127.0.2.53')
    open('%s/zones/%s.db' % (D, z), 'w').write('\n'.join(L) + '\n')
    open('%s/names.txt' % D, 'a').write('\n'.join(x.split()[0] + '.' + z for x in L[4:] if not x.startswith('@')) + '\n')
# reverse zone
L = ['$TTL 300', '@ IN SOA ns1.corp.example. hostmaster.corp.example. (1 3600 600 86400 300)', '@ IN NS ns1.corp.example.']
for i in range(1, 80): L.append('%d IN PTR %s-%d.corp.example.' % (i, rnd.choice(first), i))
open('%s/zones/127.0.1.rev' % D, 'w').write('\n'.join(L) + '\n')
# broken zones: bad syntax, missing SOA, CNAME and other data, out-of-zone
open('%s/zones/broken.example.db' % D, 'w').write('$TTL 300\n@ IN SOA ns1 host (1 2 3 4 5)\n@ IN NS ns1\nns1 IN A 127.0.0.1\nwww IN A 300.1.2.3\nftp IN CNAME www\nftp IN A 127.0.0.9\nbad IN MX mail\n$INCLUDE missing-file.db\n')
open('%s/zones/nosoa.test.db' % D, 'w').write('$TTL 300\n@ IN NS ns1.nosoa.test.\nns1 IN A 127.0.0.1\n')
open('%s/zones/outside.test.db' % D, 'w').write('$TTL 300\n@ IN SOA ns1 host 1 2 3 4 5\n@ IN NS ns1\nns1 IN A 127.0.0.1\nwww.other.test. IN A 127.0.0.3\nmail IN MX 10 mail\n')
PYEOF

cat > $D/named.conf <<EOF
include "$D/ddns.key"; include "$D/xfer.key"; include "$D/host.key"; include "$D/rndc.key";
controls { inet 127.0.0.1 port $RP allow { 127.0.0.1; } keys { rndc-key; }; };
options {
  directory "$D"; pid-file "$D/named.pid"; session-keyfile "$D/session.key"; managed-keys-directory "$D";
  statistics-file "$D/named.stats"; dump-file "$D/cache.db";
  listen-on port $P { 127.0.0.1; }; listen-on-v6 { none; };
  querylog yes; notify explicit; minimal-responses no;
  resolver-query-timeout 10; max-cache-size 8m;
};
logging {
  channel main { file "$D/named.log"; severity dynamic; print-time yes; print-category yes; print-severity yes; };
  category default { main; }; category queries { main; }; category query-errors { main; };
  category lame-servers { main; }; category unmatched { main; };
};
acl xfer-ok { 127.0.1.0/24; key xfer-key; };
view "resolver" {
  match-clients { 127.0.3.0/24; };
  recursion yes; allow-recursion { any; }; dnssec-validation auto;
  forwarders { 127.0.0.1 port 22054; }; forward only;
  zone "slow.test" { type forward; forward only; forwarders { 127.0.0.1 port 22055; }; };
  zone "corp.example" { type secondary; file "zones/r-corp.example.bk"; primaries { 127.0.0.1 port $P; }; transfer-source 127.0.0.5; };
  zone "shop.test" { type secondary; file "zones/r-shop.test.bk"; primaries { 127.0.0.1 port $P key xfer-key; }; transfer-source 127.0.2.7; };
  zone "gone.example" { type secondary; file "zones/r-gone.bk"; primaries { 127.0.0.1 port 22056; }; };
};
view "auth" {
  match-clients { any; };
  recursion no; allow-transfer { xfer-ok; };
  zone "corp.example" { type primary; file "zones/corp.example.db"; dnssec-policy default; inline-signing yes; key-directory "$D/keys";
                        allow-transfer { xfer-ok; 127.0.0.5; }; also-notify { 127.0.3.1 port $P; }; notify-source 127.0.3.9; notify yes; };
  zone "shop.test" { type primary; file "zones/shop.test.db"; allow-transfer { key xfer-key; 127.0.1.0/24; }; };
  zone "lab.internal" { type primary; file "zones/lab.internal.db"; };
  zone "campus.edu.test" { type primary; file "zones/campus.edu.test.db"; allow-query { !127.0.2.0/24; any; }; };
  zone "dyn.example" { type primary; file "zones/dyn.example.db"; allow-update { key ddns-key; }; notify yes; also-notify { 127.0.0.1 port 22057; }; };
  zone "policy.example" { type primary; file "zones/policy.example.db"; update-policy { grant host-key subdomain hosts.policy.example. A AAAA TXT; grant ddns-key zonesub ANY; }; };
  zone "1.0.127.in-addr.arpa" { type primary; file "zones/127.0.1.rev"; };
  zone "broken.example" { type primary; file "zones/broken.example.db"; };
  zone "nosoa.test" { type primary; file "zones/nosoa.test.db"; };
  zone "outside.test" { type primary; file "zones/outside.test.db"; };
  zone "missing.test" { type primary; file "zones/missing.test.db"; };
  zone "sec.example" { type secondary; file "zones/sec.example.bk"; primaries { 127.0.0.1 port 22056; }; };
};
EOF
cp $D/named.conf $D/named.conf.good
chown -R bind: $D
$PY - 22055 <<'PYEOF' & SINK=$!
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', int(sys.argv[1]))); s.settimeout(1)
end = time.time() + 900
while time.time() < end:
    try: s.recv(4096)
    except Exception: pass
PYEOF
# start-up messages only reach the file channel after the config is read: two short runs with -g
# (everything on stderr, "DD-Mon-YYYY HH:MM:SS.mmm message"): a config with errors, then a good config
# while another process holds the DNS port; their stderr goes first into the raw log.
sed 's/querylog yes;/querylog yes; listen-on port 22058 { 127.0.0.1; }; zone-statistics bogus;/; s/type primary; file "zones\/lab.internal.db";/type primary;/' $D/named.conf > $D/bad.conf
named -g -u bind -n 2 -c $D/bad.conf > $D/g.log 2>&1
$PY -c "
import socket, time
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('127.0.0.1', $P))
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(('127.0.0.1', $P)); t.listen(1)
time.sleep(6)" & HOLD=$!
sleep 0.5
named -g -u bind -n 2 -c $D/named.conf >> $D/g.log 2>&1 & G=$!
sleep 3; R stop; sleep 1; stoppid $G; stoppid $HOLD; wait $HOLD 2>/dev/null
rm -f $D/zones/*.jnl $D/zones/*.signed* $D/zones/r-*; rm -rf $D/keys/*; rm -f $D/*.mkeys* $D/named.log
named -f -u bind -n 2 -c $D/named.conf & NAMED=$!
waitport $P; sleep 3
R querylog on

# ---- driver ------------------------------------------------------------------------------
cat > $D/drive.py <<'PYEOF'
import random, socket, struct, subprocess, sys, time, os
D, P, mode, seed, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
rnd = random.Random(seed)
T = {'A': 1, 'AAAA': 28, 'MX': 15, 'TXT': 16, 'PTR': 12, 'SRV': 33, 'ANY': 255, 'CNAME': 5, 'SOA': 6, 'NS': 2, 'HTTPS': 65, 'CAA': 257, 'SSHFP': 44, 'NAPTR': 35, 'DNSKEY': 48, 'DS': 43, 'HINFO': 13, 'AXFR': 252, 'IXFR': 251}
names = [l.strip() for l in open(D + '/names.txt') if l.strip()]
words = ['alpha','bravo','kilo','zulu','oslo','lima','quebec','sierra','tango','nobody','ghost','printer9','backup-old','test','tmp','x']
other = ['example.com', 'debian.org', 'wikipedia.org', 'github.com', 'foo.slow.test', 'www.slow.test', 'unknown.invalid', 'intranet.local', 'cdn.elsewhere.test', 'version.bind', 'hostname.bind']
def src():
    a = rnd.choices([0, 1, 2, 3], [3, 3, 2, 2])[0]
    return '127.0.%d.%d' % (a, rnd.randint(1, 254))
def qname():
    k = rnd.random()
    if k < 0.55: return rnd.choice(names)
    if k < 0.75: return '%s%s.%s' % (rnd.choice(words), rnd.choice(['', str(rnd.randint(1, 999))]), rnd.choice(['corp.example', 'shop.test', 'lab.internal', 'dyn.example', 'campus.edu.test', 'broken.example', 'sec.example', 'old.lab.internal']))
    if k < 0.85: return '%d.1.0.127.in-addr.arpa' % rnd.randint(1, 120)
    return rnd.choice(other)
def build(name, t, edns=True, do=False, rd=True, cls=1):
    flags = 0x0100 if rd else 0
    pkt = struct.pack('>HHHHHH', rnd.randint(0, 65535), flags, 1, 0, 0, 1 if edns else 0)
    for part in name.split('.'):
        if part: pkt += bytes([len(part)]) + part.encode()
    pkt += b'\x00' + struct.pack('>HH', T[t], cls)
    if edns:
        pkt += b'\x00' + struct.pack('>HHIH', 41, 1232, 0x8000 if do else 0, 0)
    return pkt
def udp(pkt, s_addr, wait=0.4):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((s_addr, 0)); s.settimeout(wait)
    s.sendto(pkt, ('127.0.0.1', P))
    try: s.recv(65535)
    except Exception: pass
    s.close()
def tcp(pkt, s_addr):
    try:
        s = socket.create_connection(('127.0.0.1', P), timeout=2, source_address=(s_addr, 0))
        s.sendall(struct.pack('>H', len(pkt)) + pkt)
        s.recv(65535); s.close()
    except Exception: pass
if mode == 'queries':
    for i in range(count):
        n = qname(); a = src()
        t = rnd.choices(list(T)[:17], [30, 12, 8, 8, 6, 4, 3, 3, 4, 3, 2, 2, 1, 1, 2, 1, 1])[0]
        if n.endswith('in-addr.arpa'): t = 'PTR'
        cls = 1
        if n.endswith('.bind'): cls, t = 3, 'TXT'
        pkt = build(n, t, edns=rnd.random() < 0.8, do=rnd.random() < 0.3, rd=rnd.random() < 0.7, cls=cls)
        if rnd.random() < 0.1: tcp(pkt, a)
        else: udp(pkt, a, 0.05 if a.startswith('127.0.3.') else 0.4)
        r = rnd.random()
        if r < 0.01:   # garbage / truncated packets
            udp(rnd.choice([b'\x00\x01garbage', pkt[:15], pkt + b'\xff\xff\xff', struct.pack('>HHHHHH', 7, 0x0100, 2, 0, 0, 0) + b'\x03abc\x00\x00\x01\x00\x01']), src(), 0.1)
        elif r < 0.02:   # NOTIFY from a non-primary
            z = rnd.choice(['corp.example', 'shop.test', 'sec.example', 'lab.internal', 'nozone.test'])
            p = struct.pack('>HHHHHH', rnd.randint(0, 65535), 0x2000 | 0x0400, 1, 0, 0, 0)
            for part in z.split('.'): p += bytes([len(part)]) + part.encode()
            p += b'\x00' + struct.pack('>HH', 6, 1)
            udp(p, src(), 0.2)
        elif r < 0.025:  # unknown opcode / EDNS version 1
            p = build(rnd.choice(names), 'A'); p = p[:-11] + b'\x00' + struct.pack('>HHIH', 41, 1232, 0x00010000, 0)
            udp(p, src(), 0.2)
            udp(struct.pack('>HHHHHH', 9, 0x3000, 0, 0, 0, 0), src(), 0.2)
        time.sleep(0.005)
elif mode == 'xfer':
    key = open(D + '/xfer.key').read().split('"')[-2]
    bad = 'c2VjcmV0LXRoYXQtaXMtd3Jvbmc='
    for i in range(count):
        z = rnd.choice(['corp.example', 'shop.test', 'lab.internal', 'dyn.example', 'campus.edu.test', 'nozone.test', 'broken.example'])
        a = src()
        args = ['dig', '-p', str(P), '@127.0.0.1', '-b', a, '+tries=1', '+time=2', z]
        k = rnd.random()
        if k < 0.6: args.append('AXFR')
        else: args.append('IXFR=%d' % rnd.choice([1, 2026112601, 2026112605]))
        if rnd.random() < 0.25: args[1:1] = ['-y', 'hmac-sha256:xfer-key:' + (key if rnd.random() < 0.7 else bad)]
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
elif mode == 'update':
    keys = {k + '-key': open('%s/%s.key' % (D, k)).read().split('"')[-2] for k in ['ddns', 'host']}
    for i in range(count):
        z = rnd.choice(['dyn.example', 'dyn.example', 'policy.example', 'policy.example', 'corp.example', 'nozone.test'])
        host = rnd.choice(['alice','bob','carol','printer','kiosk','build','ci','cam','pos','laptop','db','mx']) + str(rnd.randint(1, 60))
        if z == 'policy.example' and rnd.random() < 0.6: host += '.hosts'
        fq = '%s.%s' % (host, z)
        cmds = ['server 127.0.0.1 %d' % P, 'local %s' % src(), 'zone %s' % z]
        k = rnd.random()
        if k < 0.5: cmds.append('update add %s %d %s' % (fq, rnd.choice([60, 300, 3600]), rnd.choice(['A 127.0.%d.%d' % (rnd.randint(0, 3), rnd.randint(1, 254)), 'AAAA fd00::%x' % rnd.randint(1, 65535), 'TXT "seen %d"' % rnd.randint(1, 9999), 'MX 10 mx1.dyn.example.', 'CNAME www.' + z + '.'])))
        elif k < 0.7: cmds.append('update delete %s' % fq)
        elif k < 0.8: cmds += ['prereq nxdomain %s' % fq, 'update add %s 300 A 127.0.1.%d' % (fq, rnd.randint(1, 254))]
        elif k < 0.9: cmds += ['prereq yxrrset %s A' % fq, 'update delete %s A' % fq]
        else: cmds += ['prereq yxdomain %s' % fq, 'update add %s 300 TXT "x"' % fq]
        cmds.append('send')
        args = ['nsupdate', '-t', '3']
        kr = rnd.random()
        if kr < 0.55: args += ['-y', 'hmac-sha256:ddns-key:' + keys['ddns-key']]
        elif kr < 0.75: args += ['-y', 'hmac-sha256:host-key:' + keys['host-key']]
        elif kr < 0.87: args += ['-y', 'hmac-sha256:ddns-key:' + 'AAAAbm90LXRoZS1yZWFsLWtleQ==']
        elif kr < 0.93: args += ['-y', 'hmac-sha256:stranger-key:' + keys['host-key']]
        subprocess.run(args, input='\n'.join(cmds) + '\n', text=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=15)
PYEOF
chown bind: $D/drive.py
Q() { $PY $D/drive.py $D $P "$@"; }
Q queries 1 700
Q update 2 60
Q xfer 3 30
R stats; R status; R dumpdb -all
R trace 1
Q queries 4 300
R trace 3
Q queries 5 120
Q update 6 25
R trace 1
# freeze / thaw with a hand edit, reloads
R freeze dyn.example
sed -i 's/2026112601/2026112690/' $D/zones/dyn.example.db; echo 'handedit IN A 127.0.1.200' >> $D/zones/dyn.example.db
Q update 7 6
R thaw dyn.example
R freeze
R thaw
R notrace
R reload lab.internal
sed -i 's/2026112601/2026112602/' $D/zones/shop.test.db; echo 'newhost IN A 127.0.1.201' >> $D/zones/shop.test.db
R reload shop.test
sleep 1; R notify shop.test; R retransfer -in resolver shop.test 2>/dev/null; R refresh corp.example in resolver; R refresh sec.example
R reload nozone.test
printf '$TTL 300\n@ IN SOA ns1 host 1 2 3 4 5\n@ IN NS ns1\nns1 IN A 127.0.0.1\nwww IN A 127.0.0.4\n' > $D/zones/missing.test.db; chown bind: $D/zones/missing.test.db
R reload
R flush; R flushname www.example.com; R flushtree example.com; R flush resolver
R zonestatus corp.example in auth; R sign corp.example in auth; R loadkeys corp.example in auth
R sync -clean dyn.example
# a bad reconfig, then back to good
sed -i 's/querylog yes;/querylog yes; no-such-option 1;/' $D/named.conf
R reconfig
cp $D/named.conf.good $D/named.conf
sed -i 's/zone "missing.test"/zone "lab.internal" { type primary; file "zones\/lab.internal.db"; };\n  zone "missing.test"/' $D/named.conf
R reload
cp $D/named.conf.good $D/named.conf
sed -i 's/resolver-query-timeout 10;/resolver-query-timeout 10; recursive-clients 50;/' $D/named.conf
R reconfig
# rndc with a wrong key and unknown commands
printf 'key "rndc-key" { algorithm hmac-sha256; secret "d3JvbmctcmVuZGMta2V5LXNlY3JldA=="; };\noptions { default-key "rndc-key"; default-server 127.0.0.1; default-port %s; };\n' $RP > $D/bad-rndc.conf
rndc -c $D/bad-rndc.conf status >/dev/null 2>&1
R no-such-command; R freeze nozone.test; R thaw nozone.test; R reload broken.example; R retransfer corp.example
R querylog off
Q queries 8 80
R querylog on
Q queries 9 300
Q xfer 10 15
R stats; R dumpdb -cache
R stop
for i in $(seq 1 50); do kill -0 $NAMED 2>/dev/null || break; sleep 0.2; done; stoppid $NAMED
stoppid $SINK
cat $D/g.log $D/named.log > $RAW/Bind9.log; wc -l $RAW/Bind9.log
