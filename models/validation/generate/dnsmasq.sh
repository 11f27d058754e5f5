#!/bin/bash
# dnsmasq 2.90 with log-queries=extra: local names, forwarding to a second dnsmasq / a dead server,
# cache dumps (SIGUSR1), hosts reloads (SIGHUP), varied record types.
. "$(dirname "$0")/common.sh"
D=$W/dnsmasq; rm -rf $D; mkdir -p $D
printf '127.0.0.10 web.lan web\n127.0.0.11 db.lan db\n::1 six.lan\n127.0.0.12 mail.lan\n' > $D/hosts
printf 'address=/corp.test/127.0.0.20\nmx-host=lan,mail.lan,10\nsrv-host=_ldap._tcp.lan,db.lan,389\ntxt-record=lan,"v=spf1 -all"\ncname=www.lan,web.lan\nlocal=/lan/\ndomain=lan\nptr-record=13.0.0.127.in-addr.arpa,printer.lan\n' > $D/extra.conf
dnsmasq -k --conf-file=$D/extra.conf --port=15353 --listen-address=127.0.0.1 --bind-interfaces --no-resolv --no-hosts --addn-hosts=$D/hosts \
  --server=/up.test/127.0.0.1#15354 --server=/dead.test/127.0.0.1#15355 --server=/mixed.test/127.0.0.1#15354 --server=/mixed.test/127.0.0.1#15355 \
  --log-queries=extra --log-facility=$D/dnsmasq.log --cache-size=64 --pid-file=$D/d1.pid --user=root --log-async=25 & DM=$!
dnsmasq -k --port=15354 --listen-address=127.0.0.1 --bind-interfaces --no-resolv --no-hosts --address=/up.test/127.0.0.30 --address=/mixed.test/127.0.0.31 \
  --pid-file=$D/d2.pid --user=root --log-facility=$D/upstream.log & UP=$!
sleep 1
$PY - <<'PYEOF'
import random, socket, struct, time, os, signal
rnd = random.Random(8)
T = {'A': 1, 'AAAA': 28, 'MX': 15, 'TXT': 16, 'PTR': 12, 'SRV': 33, 'ANY': 255, 'CNAME': 5, 'SOA': 6, 'NS': 2, 'HTTPS': 65, 'CAA': 257}
names = ['web.lan', 'db.lan', 'six.lan', 'mail.lan', 'www.lan', 'lan', '_ldap._tcp.lan', 'nohost.lan', 'x%d.corp.test', 'corp.test',
         'api.up.test', 'h%d.up.test', 'srv.dead.test', 'a.mixed.test', 'www.zone.test', 'zone.test', 'unknown%d.example', '10.0.0.127.in-addr.arpa',
         '13.0.0.127.in-addr.arpa', 'web', 'localhost']
def q(name, t, src):
    pkt = struct.pack('>HHHHHH', rnd.randint(0, 65535), 0x0100, 1, 0, 0, 0)
    for part in name.split('.'):
        pkt += bytes([len(part)]) + part.encode()
    pkt += b'\x00' + struct.pack('>HH', T[t], 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((src, 0)); s.settimeout(0.3)
    s.sendto(pkt, ('127.0.0.1', 15353))
    try: s.recv(4096)
    except Exception: pass
    s.close()
pid = int(open('/tmp/validation-work/dnsmasq/d1.pid').read())
for i in range(700):
    n = rnd.choice(names)
    if '%d' in n: n = n % rnd.randint(1, 500)
    t = rnd.choices(list(T), [40, 15, 6, 5, 6, 4, 3, 3, 3, 3, 2, 1])[0]
    if n.endswith('in-addr.arpa'): t = 'PTR'
    q(n, t, '127.0.%d.%d' % (rnd.randint(0, 2), rnd.randint(1, 250)))
    if rnd.random() < 0.02:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b'\x00\x01garbage', ('127.0.0.1', 15353)); s.close()
    if i % 150 == 149:
        os.kill(pid, signal.SIGUSR1); time.sleep(0.2)
    if i == 400:
        open('/tmp/validation-work/dnsmasq/hosts', 'a').write('127.0.0.14 new.lan\n'); os.kill(pid, signal.SIGHUP); time.sleep(0.2)
PYEOF
kill -USR1 $DM; sleep 1; stoppid $DM; stoppid $UP
cp $D/dnsmasq.log $RAW/Dnsmasq.log; wc -l $RAW/Dnsmasq.log
