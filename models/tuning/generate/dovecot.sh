#!/bin/bash
# Dovecot 2.3 (imap, pop3, lmtp; passwd-file users with varied names, a deny passdb, maildir quota):
# ~300 imaplib/poplib sessions (good and bad logins, unknown and denied users, mailbox create/select/
# rename/delete, append/copy/expunge, aborted connections, too many connections), LMTP deliveries
# (unknown users, over quota), auth_verbose throughout, auth_debug + mail_debug for part of the run
# (switched by reload), a bad config reload, doveadm commands, stop.
. "$(dirname "$0")/common.sh"
D=$W/dovecot
[ -f $D/run/master.pid ] && kill $(cat $D/run/master.pid) 2>/dev/null && sleep 2
rm -rf $D; mkdir -p $D/run $D/mail $D/home; chown mail:mail $D/mail $D/home
$PY - "$D" <<'PYEOF'
import json, random, sys
D = sys.argv[1]; rnd = random.Random(17)
first = ['amara','bjorn','camila','dev','elena','felix','giulia','hiro','isla','jamal','katya','luis','mei','nikolai','olga','pablo',
         'rania','soren','thandiwe','ugo','valentina','wei','yara','zeynep','arjun','brigid','cosmin','daria','eamon','fatima']
last = ['nguyen','schmidt','kaur','rossi','ivanova','mensah','larsen','duarte','yilmaz','obrien','takahashi','petrov']
doms = ['harborview.test', 'quillmark.example', 'north-ridge.org', 'saltmarsh.net']
users = set()
while len(users) < 45:
    f = rnd.choice(first); l = rnd.choice(last)
    users.add('%s@%s' % (rnd.choice([f, f + '.' + l, f[0] + l, f + str(rnd.randint(2, 99))]), rnd.choice(doms)))
users = sorted(users) + ['svc-backup', 'nagios', 'imapsync-bot', 'helpdesk@saltmarsh.net']
with open(D + '/users', 'w') as f:
    for u in users: f.write('%s:{PLAIN}pw-%s:::::\n' % (u, u.split('@')[0]))
    # a user only allowed from one network, a user with a per-user quota rule
    f.write('restricted@harborview.test:{PLAIN}pw-restricted:::::allow_nets=127.0.0.1/32\n')
    f.write('tiny@quillmark.example:{PLAIN}pw-tiny::::::userdb_quota_rule=*:storage=5k\n')
denied = rnd.sample(users[:40], 3)
open(D + '/denied', 'w').write(''.join('%s:::::::\n' % u for u in denied))
json.dump({'users': users + ['restricted@harborview.test', 'tiny@quillmark.example'], 'denied': denied, 'first': first, 'last': last}, open(D + '/users.json', 'w'))
PYEOF
conf() { cat > $D/dovecot.conf <<CONF
base_dir = $D/run
state_dir = $D/state
log_path = $D/dovecot.log
instance_name = dovecot-tuning
protocols = imap pop3 lmtp
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
auth_verbose = yes
auth_verbose_passwords = ${VPW:-no}
auth_debug = ${DBG:-no}
mail_debug = ${DBG:-no}
verbose_proctitle = yes
first_valid_uid = 8
last_valid_uid = 8
default_internal_user = dovecot
default_login_user = dovenull
mail_location = maildir:$D/mail/%d/%n
mail_uid = mail
mail_gid = mail
mail_plugins = quota
mail_max_userip_connections = 3
login_trusted_networks =
namespace inbox {
  inbox = yes
  separator = /
  mailbox Drafts {
    special_use = \Drafts
    auto = subscribe
  }
  mailbox Sent {
    special_use = \Sent
    auto = subscribe
  }
  mailbox Trash {
    special_use = \Trash
    auto = create
  }
  mailbox Junk {
    special_use = \Junk
  }
}
passdb {
  driver = passwd-file
  args = $D/denied
  deny = yes
}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u $D/users
}
userdb {
  driver = passwd-file
  args = username_format=%u $D/users
  default_fields = home=$D/home/%d/%n
}
plugin {
  quota = maildir:User quota
  quota_rule = *:storage=60k
  quota_grace = 0%%
}
service imap-login {
  inet_listener imap {
    port = 21143
  }
  inet_listener imaps {
    port = 0
  }
}
service pop3-login {
  inet_listener pop3 {
    port = 21110
  }
  inet_listener pop3s {
    port = 0
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = 21024
  }
}
service submission-login {
  inet_listener submission {
    port = 0
  }
}
protocol lmtp {
  mail_plugins = \$mail_plugins
}
protocol imap {
  mail_plugins = \$mail_plugins imap_quota
}
${EXTRA:-}
CONF
}
conf
dovecot -c $D/dovecot.conf; waitport 21143; waitport 21110; waitport 21024
DRIVE=$D/drive.py
cat > $DRIVE <<'PYEOF'
import imaplib, json, poplib, random, smtplib, socket, sys, threading, time
D, phase, n = sys.argv[1], sys.argv[2], int(sys.argv[3]); rnd = random.Random(phase + '42')
J = json.load(open(D + '/users.json')); users = J['users']; first = J['first']; last = J['last']
def pw(u): return 'pw-' + u.split('@')[0]
def src():
    return '127.0.%d.%d' % (rnd.randint(0, 3), rnd.randint(2, 254)) if rnd.random() < 0.85 else '127.0.0.1'
def cred():
    r = rnd.random()
    if r < 0.70: u = rnd.choice(users); return u, pw(u)
    if r < 0.82: u = rnd.choice(users); return u, rnd.choice(['wrong', 'Password1', pw(u) + 'x', 'letmein'])
    if r < 0.92: return '%s@%s' % (rnd.choice(first) + rnd.choice(['', '.' + rnd.choice(last)]), rnd.choice(['harborview.test', 'saltmarsh.net', 'gmail.example'])), 'secret'
    return rnd.choice(J['denied']), pw(rnd.choice(J['denied']))
boxes = ['Projects/%s' % rnd.choice(['alpha', 'kestrel', 'q3-budget', 'migration']), 'Receipts %d' % rnd.randint(2019, 2026), 'Clients/%s' % rnd.choice(last).title(),
         'Archive/%d' % rnd.randint(2015, 2026), 'Newsletters', 'Travel', 'Family/%s' % rnd.choice(first).title()]
def msg(u):
    size = rnd.choice([200, 400, 900, 3000, 30000])
    return ('From: %s@%s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%08x@%s>\r\n\r\n' % (rnd.choice(first), rnd.choice(['acme-corp.com', 'fastmail.com', 'univ-lyon.fr']), u,
            rnd.choice(['status update', 'photos', 'invoice', 'hello', 'minutes']), rnd.getrandbits(32), rnd.choice(['mail.acme-corp.com', 'mx.fastmail.com'])) + 'x' * size + '\r\n').encode()
class IMAP(imaplib.IMAP4):
    def __init__(self, s): self.src = s; imaplib.IMAP4.__init__(self, '127.0.0.1', 21143, timeout=10)
    def _create_socket(self, timeout): return socket.create_connection((self.host, self.port), timeout, source_address=(self.src, 0))
class POP(poplib.POP3):
    def __init__(self, s): self.src = s; poplib.POP3.__init__(self, '127.0.0.1', 21110, timeout=10)
    def _create_socket(self, timeout): return socket.create_connection((self.host, self.port), timeout, source_address=(self.src, 0))
def imap_session(i):
    u, p = cred(); s = src()
    try:
        M = IMAP(s)
        if rnd.random() < 0.05: M.sock.close(); return           # connect and vanish before login
        if rnd.random() < 0.05: M.sock.sendall(b'a1 LOGIN\r\nGARBAGE\r\nb2 NOSUCH\r\n'); time.sleep(0.2); M.sock.close(); return
        try: M.login(u, p)
        except imaplib.IMAP4.error:
            if rnd.random() < 0.3:
                try: M.login(u, 'again-wrong')
                except imaplib.IMAP4.error: pass
            M.logout(); return
        M.list(); M.select('INBOX')
        for k in range(rnd.randint(1, 4)):
            op = rnd.random(); b = rnd.choice(boxes)
            if op < 0.2: M.create(b)
            elif op < 0.35: M.append(rnd.choice(['INBOX', 'Sent', 'Drafts', b]), '(\\Seen)', None, msg(u))
            elif op < 0.45: M.select(b); M.search(None, 'ALL')
            elif op < 0.55: M.delete(rnd.choice([b, 'NoSuchBox', 'INBOX']))
            elif op < 0.62: M.rename(b, b + '-old')
            elif op < 0.72:
                M.select('INBOX'); typ, d = M.search(None, 'ALL'); ids = d[0].split()
                if ids:
                    M.fetch(ids[0], '(RFC822.HEADER)'); M.copy(ids[0], rnd.choice(['Trash', 'Junk', b]))
                    M.store(ids[-1], '+FLAGS', '\\Deleted'); M.expunge()
            elif op < 0.8: M.getquotaroot('INBOX')
            elif op < 0.86: M.subscribe(b); M.lsub()
            else: M.status('INBOX', '(MESSAGES UNSEEN)')
        r = rnd.random()
        if r < 0.12: M.sock.close(); return                      # disconnect without LOGOUT
        if r < 0.16:
            M.select('INBOX'); M.send(b'i1 IDLE\r\n'); time.sleep(0.5); M.sock.close(); return
        M.logout()
    except (imaplib.IMAP4.error, OSError, EOFError): pass
def pop_session(i):
    u, p = cred()
    try:
        P = POP(src())
        try: P.user(u); P.pass_(p)
        except poplib.error_proto: P.quit(); return
        n, _ = P.stat(); P.list()
        if n: P.retr(1); P.top(n, 3)
        if n and rnd.random() < 0.3: P.dele(n)
        if rnd.random() < 0.85: P.quit()
        else: P.sock.close()
    except (poplib.error_proto, OSError, EOFError): pass
def lmtp_batch(i):
    try:
        L = smtplib.LMTP('127.0.0.1', 21024, timeout=10); L.ehlo('mx1.harborview.test')
        rc = [rnd.choice(users) for _ in range(rnd.randint(1, 3))]
        if rnd.random() < 0.25: rc.append('%s@harborview.test' % rnd.choice(first))
        if rnd.random() < 0.3: rc.append('tiny@quillmark.example')
        try: L.sendmail('%s@%s' % (rnd.choice(first), rnd.choice(['acme-corp.com', 'fastmail.com', 'kappa-labs.io'])), rc, msg(rc[0]))
        except smtplib.SMTPException: pass
        L.quit()
    except (smtplib.SMTPException, OSError): pass
def flood(i):   # more than mail_max_userip_connections for one user
    u = rnd.choice(users); ms = []; src_u = src()
    for k in range(5):
        try: M = IMAP(src_u); M.login(u, pw(u)); ms.append(M)
        except (imaplib.IMAP4.error, OSError): pass
    for M in ms:
        try: M.logout()
        except Exception: pass
def run(fn, n, par=3):
    ths = []
    for i in range(n):
        t = threading.Thread(target=fn, args=(i,)); t.start(); ths.append(t)
        if len(ths) >= par: ths.pop(0).join(30)
        time.sleep(0.02)
    for t in ths: t.join(30)
run(lmtp_batch, n // 3)
run(imap_session, n)
run(pop_session, n // 3)
run(flood, 3, 1)
PYEOF
$PY $DRIVE $D a 120
# debug logging on for a while (reload), with password logging of failures
DBG=yes VPW=plain conf; kill -HUP $(cat $D/run/master.pid); sleep 1
$PY $DRIVE $D b 35
DBG=no conf; kill -HUP $(cat $D/run/master.pid); sleep 1
doveadm -c $D/dovecot.conf who >/dev/null 2>&1
doveadm -c $D/dovecot.conf quota recalc -A >/dev/null 2>&1
doveadm -c $D/dovecot.conf mailbox create -u $(head -1 $D/users | cut -d: -f1) Reports/weekly >/dev/null 2>&1
doveadm -c $D/dovecot.conf log reopen >/dev/null 2>&1
doveadm -c $D/dovecot.conf kick '*' >/dev/null 2>&1
# a broken config: reload is refused, the running config stays
EXTRA='protocol imap {
  imap_idle_notify_interval = soon
}' conf; kill -HUP $(cat $D/run/master.pid); sleep 1
EXTRA='service imap {
  no_such_setting = 1
}' conf; doveadm -c $D/dovecot.conf reload >/dev/null 2>&1; sleep 1
conf; kill -HUP $(cat $D/run/master.pid); sleep 1
$PY $DRIVE $D c 60
doveadm -c $D/dovecot.conf stop >/dev/null 2>&1; sleep 2
[ -f $D/run/master.pid ] && stoppid $(cat $D/run/master.pid)
# start again with a port clash (postfix-like listener held by python), then a clean start/stop
$PY -c 'import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1",21110)); s.listen(1); time.sleep(4)' & HOLD=$!
sleep 0.5; dovecot -c $D/dovecot.conf; sleep 2; wait $HOLD
[ -f $D/run/master.pid ] && stoppid $(cat $D/run/master.pid)
dovecot -c $D/dovecot.conf; waitport 21143
$PY $DRIVE $D d 15
kill $(cat $D/run/master.pid); sleep 2
[ -f $D/run/master.pid ] && stoppid $(cat $D/run/master.pid)
cp $D/dovecot.log $RAW/Dovecot.log; wc -l $RAW/Dovecot.log
