#!/bin/bash
# Postfix 3.7 (own config dir, maillog_file via postlogd): smtpd on 21025 and postscreen on 21026, virtual
# mailboxes for three domains, relay domains routed to a fake MX (per-recipient 250/450/550 replies), a 421
# greeter, a dead and a hanging next hop, an LMTP next hop; ~420 smtplib sessions with varied senders,
# recipients and HELO names (relay denied, unknown users, access-map rejects, header/body checks, oversize
# messages, bad/non-SMTP commands, pipelining, timeouts), sendmail submissions, postqueue/postsuper, reloads.
. "$(dirname "$0")/common.sh"
D=$W/postfix; C=$D/etc
[ -f $D/master.pid ] && kill $(cat $D/master.pid) 2>/dev/null
rm -rf $D; mkdir -p $C $D/spool $D/data $D/vmail
chown postfix: $D/data; chown mail:mail $D/vmail
cat > $C/main.cf <<CONF
compatibility_level = 3.6
queue_directory = $D/spool
data_directory = $D/data
mail_owner = postfix
setgid_group = postdrop
maillog_file_prefixes = $W
maillog_file = $D/postfix.log
myhostname = mx1.harborview.test
mydomain = harborview.test
myorigin = \$mydomain
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/30
smtpd_banner = \$myhostname ESMTP
biff = no
alias_maps =
alias_database =
local_recipient_maps =
virtual_mailbox_domains = harborview.test, quillmark.example, north-ridge.org
virtual_mailbox_base = $D/vmail
virtual_mailbox_maps = texthash:$C/vmailbox
virtual_alias_maps = texthash:$C/valias
virtual_uid_maps = static:8
virtual_gid_maps = static:8
virtual_minimum_uid = 8
virtual_mailbox_limit = 5000000
relay_domains = partner.example, tempfail.example, deadhost.example, slowmx.example, oddmx.example, lists.harborview.test, retired.example, sink.example
transport_maps = texthash:$C/transport
relayhost = [127.0.0.1]:21032
smtpd_helo_required = yes
smtpd_client_restrictions = check_client_access texthash:$C/client_access
smtpd_helo_restrictions = reject_invalid_helo_hostname, check_helo_access texthash:$C/helo_access
smtpd_sender_restrictions = reject_non_fqdn_sender, check_sender_access texthash:$C/sender_access
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
smtpd_recipient_restrictions = reject_non_fqdn_recipient, check_recipient_access texthash:$C/rcpt_access
smtpd_data_restrictions = reject_unauth_pipelining
smtpd_reject_unlisted_recipient = yes
smtpd_client_connection_rate_limit = 45
anvil_rate_time_unit = 60s
anvil_status_update_time = 120s
smtpd_timeout = 6s
smtpd_hard_error_limit = 8
smtpd_soft_error_limit = 4
smtpd_error_sleep_time = 0
message_size_limit = 1500000
header_checks = regexp:$C/header_checks
body_checks = regexp:$C/body_checks
smtp_connect_timeout = 3s
smtp_helo_timeout = 5s
lmtp_connect_timeout = 3s
queue_run_delay = 20s
minimal_backoff_time = 15s
maximal_backoff_time = 40s
maximal_queue_lifetime = 150s
bounce_queue_lifetime = 150s
delay_warning_time = 1m
notify_classes = resource, software
postscreen_greet_wait = 2s
postscreen_access_list = permit_mynetworks, cidr:$C/postscreen_access.cidr
postscreen_blacklist_action = drop
postscreen_greet_action = enforce
postscreen_pipelining_enable = yes
postscreen_non_smtp_command_enable = yes
postscreen_bare_newline_enable = yes
postscreen_cache_map = btree:\$data_directory/postscreen_cache
CONF
cat > $C/master.cf <<'CONF'
127.0.0.1:21025 inet n - n - - smtpd
127.0.0.1:21026 inet n - n - 1 postscreen
smtpd     pass  - - n - - smtpd
dnsblog   unix  - - n - 0 dnsblog
pickup    unix  n - n 60 1 pickup
cleanup   unix  n - n - 0 cleanup
qmgr      unix  n - n 300 1 qmgr
rewrite   unix  - - n - - trivial-rewrite
bounce    unix  - - n - 0 bounce
defer     unix  - - n - 0 bounce
trace     unix  - - n - 0 bounce
verify    unix  - - n - 1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n - - proxymap
proxywrite unix - - n - 1 proxymap
smtp      unix  - - n - - smtp
relay     unix  - - n - - smtp
showq     unix  n - n - - showq
error     unix  - - n - - error
retry     unix  - - n - - error
discard   unix  - - n - - discard
virtual   unix  - n n - - virtual
lmtp      unix  - - n - - lmtp
anvil     unix  - - n - 1 anvil
scache    unix  - - n - 1 scache
postlog   unix-dgram n - n - 1 postlogd
CONF
$PY - "$C" <<'PYEOF'
import random, sys, json
C = sys.argv[1]; rnd = random.Random(11)
first = ['alice','bruno','chen','dagny','emeka','farah','gustav','hana','ivan','jolene','kwame','leila','mateo','nadia','oskar',
         'priya','quentin','rosa','sven','tamsin','umar','vera','wendell','ximena','yusuf','zora','beatriz','colm','dmitri','elif',
         'fionn','greta','hamid','ingrid','jonas','keiko','lorcan','marisol','niamh','olu']
last = ['okafor','lindqvist','moreau','tanaka','haddad','kowalski','reyes','brennan','novak','achebe','silva','fischer','park','oconnell','varga']
svc = ['postmaster','abuse','billing','noc','helpdesk','hr-team','devops','backup-bot','jenkins','grafana-alerts','payroll','sales']
doms = ['harborview.test', 'quillmark.example', 'north-ridge.org']
users = set()
while len(users) < 70:
    f = rnd.choice(first); l = rnd.choice(last)
    lp = rnd.choice([f, f + '.' + l, f[0] + l, f + '_' + l[:3], f + str(rnd.randint(1, 99))])
    users.add('%s@%s' % (lp, rnd.choice(doms)))
for s in svc: users.add('%s@%s' % (s, rnd.choice(doms)))
users = sorted(users)
with open(C + '/vmailbox', 'w') as f:
    for u in users:
        lp, d = u.split('@'); f.write('%s %s/%s/\n' % (u, d, lp))
aliases = {}
with open(C + '/valias', 'w') as f:
    for d in doms:
        for a in ['info', 'support', 'team', 'webmaster']:
            t = rnd.sample(users, rnd.randint(1, 3)); aliases['%s@%s' % (a, d)] = t
            f.write('%s@%s %s\n' % (a, d, ', '.join(t)))
    f.write('oldstaff@harborview.test departed@retired.example\n')
    f.write('forward-test@quillmark.example %s, friend@partner.example\n' % users[3])
json.dump({'users': users, 'aliases': sorted(aliases), 'first': first, 'last': last}, open(C + '/users.json', 'w'))
PYEOF
cat > $C/transport <<'CONF'
partner.example      smtp:[127.0.0.1]:21030
tempfail.example     smtp:[127.0.0.1]:21031
deadhost.example     smtp:[127.0.0.1]:21032
slowmx.example       smtp:[127.0.0.1]:21034
oddmx.example        smtp:[127.0.0.1]:21035
lists.harborview.test lmtp:inet:[127.0.0.1]:21033
retired.example      error:5.1.2 this domain was retired in 2024
sink.example         discard:silently dropped by policy
CONF
cat > $C/client_access <<'CONF'
127.0.3.66   REJECT Your network is on our local blocklist
127.0.3.77   550 5.7.1 Listed as a compromised host
127.0.2.250  DEFER_IF_PERMIT Try again later
CONF
cat > $C/helo_access <<'CONF'
mx1.harborview.test  REJECT You are not me
localhost.localdomain  REJECT Use your real hostname
CONF
cat > $C/sender_access <<'CONF'
spammy-deals.biz     REJECT Sender domain is blocked
cheap-pills.example  550 5.7.1 We do not accept mail from this domain
growth-hacks.io      DISCARD
marketing@partner.example  HOLD quarantined for review
newsletter.example   WARN newsletter sender
CONF
cat > $C/rcpt_access <<'CONF'
payroll@harborview.test   REJECT This address accepts internal mail only
noc@north-ridge.org       DEFER Mailbox temporarily disabled
CONF
cat > $C/header_checks <<'CONF'
/^Subject:.*(viagra|casino)/     REJECT Spam subject rejected
/^Subject:.*URGENT WIRE/         HOLD possible fraud
/^Subject:.*\[digest\]/          DISCARD digest noise
/^Subject:.*invoice/             WARN invoice keyword
/^X-Mailer:.*MassMailer/         REJECT bulk mailer not accepted
/^Subject:.*password reset/      INFO password reset notice
CONF
cat > $C/body_checks <<'CONF'
/click here to claim your prize/   REJECT Body matches scam pattern
/wire the funds today/             WARN suspicious wording
CONF
cat > $C/postscreen_access.cidr <<'CONF'
127.0.3.66/32  reject
127.0.2.0/28   permit
CONF
# --- fake next hops: SMTP/LMTP server with per-recipient answers, a 421 greeter, a hanging one, a garbage one
cat > $D/fakemx.py <<'PYEOF'
import socket, sys, threading, zlib
port, mode = int(sys.argv[1]), sys.argv[2]
def verdict(addr):
    h = zlib.crc32(addr.lower().encode()) % 10
    return h
def serve(c):
    f = c.makefile('rb')
    def say(s): c.sendall((s + '\r\n').encode())
    try:
        if mode == '421': say('421 4.3.2 mx.tempfail.example Service shutting down, try later'); return
        say('220 mx.partner.example ESMTP fake')
        rcpts = []; ok = []
        while True:
            l = f.readline()
            if not l: return
            cmd = l.decode('latin-1').strip(); u = cmd.upper()
            if u.startswith('EHLO') or u.startswith('LHLO'): c.sendall(b'250-mx.partner.example\r\n250-PIPELINING\r\n250-SIZE 900000\r\n250 8BITMIME\r\n')
            elif u.startswith('HELO'): say('250 mx.partner.example')
            elif u.startswith('MAIL'):
                rcpts = []; ok = []
                if 'blocked' in cmd.lower(): say('553 5.7.1 Sender address rejected by policy')
                else: say('250 2.1.0 Ok')
            elif u.startswith('RCPT'):
                a = cmd.split(':', 1)[1].strip().strip('<>'); v = verdict(a)
                if v in (6, 7): say('550 5.1.1 <%s>: Recipient address rejected: User unknown' % a)
                elif v == 8: say('452 4.2.2 <%s>: Mailbox full, try again later' % a)
                else: rcpts.append(a); say('250 2.1.5 Ok')
            elif u == 'DATA':
                if not rcpts: say('554 5.5.1 Error: no valid recipients'); continue
                say('354 End data with <CR><LF>.<CR><LF>')
                while True:
                    d = f.readline()
                    if not d or d in (b'.\r\n', b'.\n'): break
                if mode == 'lmtp':
                    for a in rcpts:
                        if verdict(a) == 9: say('552 5.2.2 <%s> Quota exceeded (mailbox for user is full)' % a)
                        elif verdict(a) == 5: say('451 4.3.0 <%s> Temporary internal error' % a)
                        else: say('250 2.0.0 <%s> Saved' % a)
                else:
                    if any(verdict(a) == 9 for a in rcpts): say('554 5.7.1 Message rejected as spam by content filter')
                    else: say('250 2.0.0 Ok: queued as %X' % (zlib.crc32(repr(rcpts).encode()) & 0xfffffff))
            elif u == 'RSET': say('250 2.0.0 Ok')
            elif u == 'QUIT': say('221 2.0.0 Bye'); return
            else: say('502 5.5.2 Error: command not recognized')
    except Exception: pass
    finally: c.close()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', port)); s.listen(64)
while True:
    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
PYEOF
$PY $D/fakemx.py 21030 smtp & F1=$!
$PY $D/fakemx.py 21031 421 & F2=$!
$PY $D/fakemx.py 21033 lmtp & F3=$!
$PY $GEN/blackhole.py 21034 & B1=$!
$PY $GEN/blackhole.py 21035 --garbage & B2=$!
PF="postfix -c $C"
$PF check
$PF start
waitport 21025; waitport 21026
$PY - "$C" <<'PYEOF'
import json, random, smtplib, socket, sys, threading, time
C = sys.argv[1]; rnd = random.Random(7)
J = json.load(open(C + '/users.json')); users = J['users']; first = J['first']; last = J['last']
localdoms = ['harborview.test', 'quillmark.example', 'north-ridge.org']
extdoms = ['mailbox.org', 'fastmail.com', 'outlook.example', 'acme-corp.com', 'univ-lyon.fr', 'kappa-labs.io', 'bluefin-logistics.net',
           'stadtwerke-kiel.de', 'riverbank.co.uk', 'sunhill.edu', 'orchard-coop.org']
badsend = ['offers@spammy-deals.biz', 'sales@cheap-pills.example', 'ceo@growth-hacks.io', 'marketing@partner.example', 'digest@newsletter.example', 'blocked-list@acme-corp.com']
helos = ['mail.%s', 'smtp%d.%s', 'mx%d.%s', 'relay-%s.%s', 'out.%s']
words = ['quarterly report', 'lunch on friday', 'invoice 2291 overdue', 'meeting notes', 'server maintenance window', 'password reset for your account',
         'Re: contract draft', 'holiday schedule', 'build #4411 failed', 'URGENT WIRE transfer needed', 'cheap viagra now', '[digest] weekly roundup',
         'Your casino bonus', 'shipment delayed', 'welcome aboard', 'access request', 'Fwd: travel plans', 'new invoice from vendor']
def person(): return rnd.choice([rnd.choice(first), rnd.choice(first) + '.' + rnd.choice(last), rnd.choice(first)[0] + rnd.choice(last), rnd.choice(first) + str(rnd.randint(1, 999))])
def src():
    r = rnd.random()
    if r < 0.18: return '127.0.0.%d' % rnd.randint(1, 3)
    if r < 0.22: return rnd.choice(['127.0.3.66', '127.0.3.77', '127.0.2.250'])
    return '127.0.%d.%d' % (rnd.randint(1, 3), rnd.randint(4, 254))
def helo():
    r = rnd.random()
    if r < 0.06: return rnd.choice(['bad_helo!name', 'localhost.localdomain', 'mx1.harborview.test', 'x..y', 'laptop-' + rnd.choice(first)])
    if r < 0.1: return '[%s]' % src()
    h = rnd.choice(helos); d = rnd.choice(extdoms)
    return h % ((d,) if h.count('%') == 1 else (rnd.randint(1, 9), d) if h.startswith(('smtp', 'mx')) else (rnd.choice(first), d))
def sender():
    r = rnd.random()
    if r < 0.08: return rnd.choice(badsend)
    if r < 0.12: return rnd.choice(['root', 'admin', 'www-data'])
    if r < 0.18: return ''
    if r < 0.45: return rnd.choice(users)
    return '%s@%s' % (person(), rnd.choice(extdoms))
def rcpt():
    r = rnd.random()
    if r < 0.40: return rnd.choice(users)
    if r < 0.50: return '%s@%s' % (person(), rnd.choice(localdoms))
    if r < 0.56: return rnd.choice(['info', 'support', 'team', 'webmaster']) + '@' + rnd.choice(localdoms)
    if r < 0.68: return '%s@partner.example' % person()
    if r < 0.78: return '%s@%s' % (person(), rnd.choice(extdoms))
    if r < 0.92: return '%s@%s' % (person(), rnd.choice(['tempfail.example', 'deadhost.example', 'slowmx.example', 'oddmx.example',
                                                         'lists.harborview.test', 'lists.harborview.test', 'retired.example', 'sink.example']))
    return rnd.choice(['payroll@harborview.test', 'noc@north-ridge.org', 'oldstaff@harborview.test', 'forward-test@quillmark.example', 'bob', 'postmaster'])
def body(subj, frm, to, big=False):
    lines = ['From: %s' % (frm or 'MAILER-DAEMON'), 'To: %s' % to, 'Subject: %s' % subj,
             'Message-ID: <%08x.%d@%s>' % (rnd.getrandbits(32), rnd.randint(1, 99999), rnd.choice(extdoms)), 'Date: Thu, 26 Nov 2026 10:00:00 +0000']
    if rnd.random() < 0.05: lines.append('X-Mailer: MassMailer 5.%d' % rnd.randint(0, 9))
    lines.append('')
    txt = rnd.choice(['Hi,\nplease see below.\n', 'Reminder: the report is due.\n', 'click here to claim your prize\n', 'please wire the funds today\n', 'Thanks!\n'])
    if big: txt += ('x' * 998 + '\n') * rnd.randint(1600, 2200)
    return '\r\n'.join(lines) + '\r\n' + txt.replace('\n', '\r\n')
def session(i):
    s = src(); sm = smtplib.SMTP(timeout=15, source_address=(s, 0))
    try:
        sm.connect('127.0.0.1', 21025)
        h = helo()
        (sm.helo if rnd.random() < 0.2 else sm.ehlo)(h)
        for k in range(rnd.choice([1, 1, 1, 2])):
            if rnd.random() < 0.1: sm.docmd(rnd.choice(['VRFY %s' % rnd.choice(users), 'VRFY %s@harborview.test' % person(), 'STARTTLS', 'AUTH PLAIN dGVzdAB0ZXN0AHRlc3Q=', 'XCLIENT NAME=x', 'ETRN deadhost.example', 'HELP', 'NOOP', 'BDAT 10']))
            f = sender(); tos = [rcpt() for _ in range(rnd.choice([1, 1, 1, 2, 3, 5]))]
            code, _ = sm.docmd('MAIL FROM:<%s>' % f)
            if code >= 400: sm.rset(); continue
            good = []
            for t in tos:
                c, _ = sm.docmd('RCPT TO:<%s>' % t)
                if c < 400: good.append(t)
            if rnd.random() < 0.04: sm.close(); return   # drop after RCPT
            if not good: sm.rset(); continue
            big = rnd.random() < 0.03
            c, _ = sm.docmd('DATA')
            if c != 354: sm.rset(); continue
            if rnd.random() < 0.02: sm.sock.sendall(b'Subject: half\r\n\r\nhalf a mess'); sm.close(); return
            sm.sock.sendall(body(rnd.choice(words), f, good[0], big).encode() + b'\r\n.\r\n'); sm.getreply()
        if rnd.random() < 0.9: sm.quit()
        else: sm.close()
    except (smtplib.SMTPException, OSError): pass
    finally:
        try: sm.close()
        except Exception: pass
def raw(port, chunks, s=None, wait=0.3):
    c = socket.socket(); c.settimeout(12)
    try:
        c.bind((s or src(), 0)); c.connect(('127.0.0.1', port))
        for ch in chunks:
            if isinstance(ch, (int, float)): time.sleep(ch); continue
            c.sendall(ch.encode() if isinstance(ch, str) else ch); time.sleep(wait)
            try: c.recv(65536)
            except Exception: pass
    except OSError: pass
    finally: c.close()
def badclient(i):
    h = helo(); f = sender() or 'x@y.example'; t = rcpt()
    v = rnd.choice([
        [b'GET / HTTP/1.1\r\nHost: mx1\r\n\r\n'],
        ['EHLO %s\r\n' % h, 'USER %s\r\n' % rnd.choice(first), 'PASS secret\r\n'],
        ['EHLO %s\r\n' % h] + ['XYZZY%d\r\n' % n for n in range(9)],
        ['HELO %s\r\nMAIL FROM:<%s>\r\nRCPT TO:<%s>\r\nDATA\r\n' % (h, f, t)],
        ['EHLO %s\r\n' % h, 'MAIL FROM:<%s>\r\n' % f, 'RCPT TO:<%s>\r\n' % t],
        ['EHLO %s\r\n' % h, 'MAIL FROM:<%s>\r\n' % f],
        ['MAIL FROM:<%s>\r\n' % f, 'QUIT\r\n'],
        ['EHLO %s\r\n' % h, 'MAIL FROM:<%s> SIZE=9000000\r\n' % f, 'QUIT\r\n'],
        ['EHLO %s\r\n' % h, 'MAIL FROM:<%s>\r\n' % f, 'RCPT TO:<%s>\r\n' % rnd.choice(users), 'DATA\r\n', 'Subject: lf\nbare newline body\n.\n', 'QUIT\r\n'],
        ['EHLO %s\r\n' % h, 'RCPT TO:<%s>\r\n' % t, 'DATA\r\n', 'QUIT\r\n'],
        ['EHLO\r\n', 'HELO\r\n', 'MAIL FROM:<broken\r\n', 'QUIT\r\n'],
        ['EHLO %s\r\n' % h, 'MAIL FROM:<%s>\r\n' % f] + ['RCPT TO:<%s@harborview.test>\r\n' % person() for _ in range(8)] + ['QUIT\r\n']])
    raw(21025, v, wait=0.05)
def idle(i):
    raw(21025, [rnd.choice(['', 'EHLO %s\r\n' % helo(), 'EHLO %s\r\nMAIL FROM:<%s>\r\n' % (helo(), rnd.choice(users))]), 8.5], wait=0.2)
def pscreen(i):
    s = '127.0.%d.%d' % (rnd.randint(1, 3), rnd.randint(4, 254)) if rnd.random() < 0.85 else rnd.choice(['127.0.3.66', '127.0.2.5', '127.0.2.9'])
    k = rnd.random()
    if k < 0.25: raw(21026, ['EHLO %s\r\n' % helo(), 3], s, wait=0.01)          # pregreet
    elif k < 0.35: raw(21026, [0.5], s)                                           # hangup during greet wait
    elif k < 0.45: raw(21026, [2.6, 'GET /index.html HTTP/1.0\r\n'], s)             # non-smtp after banner
    elif k < 0.55: raw(21026, [2.6, 'EHLO %s\r\nMAIL FROM:<%s>\r\nRCPT TO:<%s>\r\n' % (helo(), sender(), rcpt())], s)   # pipelining
    elif k < 0.62: raw(21026, [2.6, 'EHLO %s\r\n' % helo(), 'MAIL FROM:<%s>\r\n' % rnd.choice(users), 'RCPT TO:<%s>\r\n' % rnd.choice(users), 'DATA\r\n', 'Subject: x\nbare\n.\n'], s, wait=0.3)
    else:
        for rep in range(2):   # PASS NEW, then come back (PASS OLD) and deliver through smtpd
            sm = smtplib.SMTP(timeout=15, source_address=(s, 0))
            try:
                sm.connect('127.0.0.1', 21026); sm.ehlo(helo())
                to = rcpt(); f = sender()
                sm.sendmail(f, [to], body(rnd.choice(words), f, to)); sm.quit()
                break
            except (smtplib.SMTPException, OSError): pass
            finally:
                try: sm.close()
                except Exception: pass
            time.sleep(0.3)
def run(fn, n, par):
    ths = []
    for i in range(n):
        t = threading.Thread(target=fn, args=(i,)); t.start(); ths.append(t)
        if len(ths) >= par: ths.pop(0).join(30)
        time.sleep(0.02)
    for t in ths: t.join(30)
t0 = time.time()
idl = [threading.Thread(target=idle, args=(i,)) for i in range(6)]
for t in idl: t.start()
run(session, 220, 3)
run(badclient, 70, 3)
run(pscreen, 60, 8)
for i in range(52):  # connection-rate burst from one client
    raw(21025, ['QUIT\r\n'], '127.0.1.200', wait=0.01)
for t in idl: t.join(20)
print('postfix workload phase 1 done in %.0fs' % (time.time() - t0))
PYEOF
# --- phase 2: local submissions, queue administration, reloads (good and bad), restart, stop
$PY - "$C" <<'PYEOF'
import json, random, subprocess, sys
C = sys.argv[1]; rnd = random.Random(21); J = json.load(open(C + '/users.json'))
for i in range(24):
    u = rnd.choice(['nobody', 'www-data', 'mail', 'daemon', 'root', 'backup', 'list'])
    to = rnd.choice(J['users'] + ['%s@harborview.test' % rnd.choice(J['first']), '%s@partner.example' % rnd.choice(J['first']), '%s@deadhost.example' % rnd.choice(J['first'])])
    msg = 'To: %s\nSubject: cron report %d from %s\n\nall good\n' % (to, i, u)
    args = ['runuser', '-u', u, '--', '/usr/sbin/sendmail', '-C', C, '-t'] if u != 'root' else ['/usr/sbin/sendmail', '-C', C, '-t']
    if rnd.random() < 0.2: args += ['-f', rnd.choice(J['users'])]
    subprocess.run(args, input=msg.encode(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
PYEOF
sleep 3
PQ="postqueue -c $C"; PS="postsuper -c $C"
ids() { $PQ -j 2>/dev/null | $PY -c 'import sys,json
for l in sys.stdin:
    j=json.loads(l)
    if j["queue_name"]==sys.argv[1]: print(j["queue_id"])' "$1"; }
$PQ -f; sleep 5
for q in $(ids deferred | head -4); do $PS -h $q; done
$PS -h ALL deferred >/dev/null; sleep 2; $PS -H ALL >/dev/null; sleep 1
for q in $(ids deferred | head -3); do $PS -d $q; done
$PS -r ALL deferred; sleep 4
$PF reload; sleep 2
# bad restriction list: smtpd dies at startup until fixed
postconf -c $C -e 'smtpd_recipient_restrictions = reject_non_fqdn_recipient, reject_bogus_thing'
$PF reload; sleep 2
$PY -c 'import smtplib
for i in range(2):
    try: s = smtplib.SMTP("127.0.0.1", 21025, timeout=5); s.ehlo("probe.acme-corp.com"); s.sendmail("ops@acme-corp.com", ["priya@harborview.test"], "Subject: probe\r\n\r\nx\r\n"); s.quit()
    except Exception as e: pass' ; sleep 2
postconf -c $C -e "smtpd_recipient_restrictions = reject_non_fqdn_recipient, check_recipient_access texthash:$C/rcpt_access"
# virtual(8) refuses to start with a mailbox limit below the message size limit
postconf -c $C -e 'virtual_mailbox_limit = 100000'
$PF reload; sleep 2
$PY - "$C" <<'PYEOF'
import json, smtplib, sys, random
J = json.load(open(sys.argv[1] + '/users.json')); rnd = random.Random(5)
for i in range(4):
    try:
        s = smtplib.SMTP('127.0.0.1', 21025, timeout=10, source_address=('127.0.0.2', 0)); s.ehlo('build-%d.kappa-labs.io' % i)
        to = [rnd.choice(J['users'])]; s.sendmail('ci@kappa-labs.io', to, 'Subject: nightly build %d\r\n\r\nok\r\n' % i); s.quit()
    except Exception: pass
PYEOF
sleep 4; postconf -c $C -e 'virtual_mailbox_limit = 5000000'; $PF reload
$PF check; $PF flush; sleep 40
$PQ -f; sleep 60
$PQ -f; sleep 45
$PS -d ALL deferred; $PS -d ALL hold
$PF stop; sleep 2
$PF start; waitport 21025
$PY -c 'import smtplib
s = smtplib.SMTP("127.0.0.1", 21025, timeout=5); s.ehlo("restart-check.acme-corp.com"); s.sendmail("ops@acme-corp.com", ["team@harborview.test"], "Subject: after restart\r\n\r\nx\r\n"); s.quit()'
sleep 4; $PF stop; sleep 2
[ -f $D/spool/pid/master.pid ] && stoppid $(cat $D/spool/pid/master.pid)
for p in $F1 $F2 $F3 $B1 $B2; do stoppid $p; done
cp $D/postfix.log $RAW/Postfix.log; wc -l $RAW/Postfix.log
