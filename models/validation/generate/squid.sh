#!/bin/bash
# Squid 5.7: access.log (native format) + cache.log (debug ALL,1 plus a few sections at 2),
# proxying to live / missing / dead / garbage origins, ACL denials, cache hits, CONNECT, reconfigure.
. "$(dirname "$0")/common.sh"
D=$W/squid; rm -rf $D; mkdir -p $D/www/static $D/logs; for f in index.html a.css b.js static/img.png; do echo "obj $f $RANDOM" > $D/www/$f; done
chown -R proxy: $D/logs
cat > $D/squid.conf <<CONF
http_port 127.0.0.1:13128
pid_filename $D/squid.pid
access_log stdio:$D/logs/access.log squid
cache_log $D/logs/cache.log
cache_store_log none
cache_mem 16 MB
maximum_object_size_in_memory 512 KB
coredump_dir $D
debug_options ALL,1 33,2 28,2
acl localnet src 127.0.0.0/24
acl blocked dstdomain .blocked.test
acl SSL_ports port 443 18443 18997
acl Safe_ports port 80 18990-18999 443
acl CONNECT method CONNECT
acl auth_lan src 127.0.1.0/24
http_access deny blocked
http_access deny !Safe_ports
http_access deny CONNECT !SSL_ports
http_access allow localnet
http_access allow auth_lan
http_access deny all
connect_timeout 2 seconds
read_timeout 3 seconds
request_timeout 5 seconds
refresh_pattern . 1 50% 5
dns_nameservers 127.0.0.1
hosts_file $D/hosts
forwarded_for off
client_db on
shutdown_lifetime 1 seconds
CONF
printf '127.0.0.1 localhost origin.test cdn.test\n127.0.0.1 dead.test junk.test slow.test\n' > $D/hosts
(cd $D/www && exec $PY -m http.server 18990 --bind 127.0.0.1 >/dev/null 2>&1) & O1=$!
$PY $GEN/blackhole.py 18992 --garbage & BH1=$!
$PY $GEN/blackhole.py 18993 & BH2=$!
squid -N -f $D/squid.conf > $D/stdout.log 2>&1 & SQ=$!
waitport 13128; sleep 1
drive() { $PY - $1 <<'PYEOF'
import random, socket, sys, urllib.request
rnd = random.Random(int(sys.argv[1]))
urls = ['http://origin.test:18990/index.html', 'http://origin.test:18990/a.css', 'http://cdn.test:18990/b.js', 'http://cdn.test:18990/static/img.png',
        'http://origin.test:18990/missing/%d.html', 'http://dead.test:18991/x', 'http://junk.test:18992/y', 'http://slow.test:18993/z',
        'http://www.blocked.test/ads/%d', 'http://origin.test:25/smtp', 'http://nxdomain%d.invalid/', 'http://127.0.0.1:18990/index.html?v=%d']
w = [20, 10, 10, 8, 10, 5, 4, 2, 4, 2, 4, 8]
for i in range(int(sys.argv[2]) if len(sys.argv) > 2 else 300):
    u = rnd.choices(urls, w)[0]
    if '%d' in u: u = u % rnd.randint(1, 9999)
    src = '127.0.%d.%d' % (rnd.choice([0, 0, 1, 2]), rnd.randint(2, 250))
    r = rnd.random()
    try:
        s = socket.create_connection(('127.0.0.1', 13128), timeout=6, source_address=(src, 0))
        if r < 0.05:
            s.sendall(b'CONNECT origin.test:%d HTTP/1.1\r\nHost: origin.test\r\n\r\n' % rnd.choice([18997, 22, 18990]))
        elif r < 0.08:
            s.sendall(rnd.choice([b'GARBAGE\r\n\r\n', b'GET /relative HTTP/1.1\r\n\r\n', b'GET http://origin.test:18990/ HTTP/3.7\r\n\r\n']))
        else:
            m = rnd.choices(['GET', 'HEAD', 'POST', 'PURGE', 'OPTIONS'], [80, 8, 8, 2, 2])[0]
            hdr = 'Cache-Control: no-cache\r\n' if rnd.random() < 0.1 else ''
            body = 'a=1' if m == 'POST' else ''
            s.sendall(('%s %s HTTP/1.1\r\nHost: x\r\nUser-Agent: t/%d\r\n%sContent-Length: %d\r\n\r\n%s' % (m, u, i, hdr, len(body), body)).encode())
        data = b''
        while True:
            c = s.recv(65536)
            if not c: break
            data += c
            if b'\r\n\r\n' in data and len(data) > 60: break
        s.close()
    except Exception:
        pass
PYEOF
}
drive 1; squid -k reconfigure -f $D/squid.conf 2>/dev/null; sleep 2
drive 2; stoppid $O1; drive 3
squid -k rotate -f $D/squid.conf 2>/dev/null; sleep 1
kill -TERM $SQ; wait $SQ
stoppid $BH1; stoppid $BH2
cat $D/logs/access.log* > $D/access.all
$PY - $D/access.all $D/logs/cache.log > $RAW/Squid.log <<'PYEOF'
import sys, re, datetime, calendar
out = []
for i, line in enumerate(open(sys.argv[1], errors='replace')):
    out.append((float(line.split()[0]), 0, i, line))
for i, line in enumerate(open(sys.argv[2], errors='replace')):
    m = re.match(r'(\d+)/(\d+)/(\d+) (\d+):(\d+):(\d+)', line)
    if not m: continue   # continuation lines of multi-line messages are dropped
    out.append((calendar.timegm(tuple(map(int, m.groups()))), 1, i, line))
out.sort(key=lambda x: (x[0], x[1], x[2]))
sys.stdout.write(''.join(x[3] for x in out))
PYEOF
wc -l $RAW/Squid.log $D/logs/*
