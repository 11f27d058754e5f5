#!/bin/bash
# uWSGI 2.0 (Python 3 plugin): master + workers behind the HTTP router and an http-socket, a small WSGI
# shop app that logs through python logging to stderr, raises, sleeps past harakiri, streams large bodies,
# crashes its worker and spools tasks; varied requests (paths, methods, user agents, source addresses),
# client aborts, malformed requests, HTTP sent to the uwsgi socket; max-requests respawns, touch-reload,
# SIGHUP, chain / worker reloads through the master FIFO, brutal reload, cheaper mode, graceful stops;
# startup failures (unknown option, missing app, port clash).
. "$(dirname "$0")/common.sh"
D=$W/uwsgi; rm -rf $D; mkdir -p $D; cd $D
cat > $D/app.py <<'PYEOF'
import json, logging, os, random, sys, time
try:
    import uwsgi
except ImportError:
    uwsgi = None
logging.basicConfig(stream=sys.stderr, level=logging.DEBUG,
                    format='%(asctime)s %(levelname)s %(name)s[%(process)d]: %(message)s')
api = logging.getLogger('shop.api'); auth = logging.getLogger('shop.auth'); db = logging.getLogger('shop.db')
cache = logging.getLogger('shop.cache'); pay = logging.getLogger('shop.payments'); jobs = logging.getLogger('shop.jobs')
rnd = random.Random(os.getpid())
TABLES = ['orders', 'customers', 'line_items', 'invoices', 'inventory', 'shipments', 'coupons', 'sessions', 'audit_log']
CURR = ['EUR', 'USD', 'GBP', 'JPY', 'CHF', 'SEK']

def spool_task(args):
    t = args.get(b'task', b'?').decode(); who = args.get(b'user', b'?').decode()
    if t == 'fail':
        jobs.error('spooled task for %s failed: %s', who, 'mailbox unavailable')
        return uwsgi.SPOOL_OK if uwsgi else -2
    jobs.info('spooled task %s for %s done', t, who)
    return uwsgi.SPOOL_OK if uwsgi else -2
if uwsgi is not None:
    uwsgi.spooler = spool_task

def qs(env):
    out = {}
    for kv in env.get('QUERY_STRING', '').split('&'):
        if '=' in kv:
            k, v = kv.split('=', 1); out[k] = v
    return out

def application(env, start_response):
    p = env.get('PATH_INFO', '/'); m = env['REQUEST_METHOD']; q = qs(env)
    ua = env.get('HTTP_USER_AGENT', '-'); ip = env.get('REMOTE_ADDR', '-')
    api.debug('%s %s from %s (%s)', m, p, ip, ua)
    parts = [x for x in p.split('/') if x]
    if p in ('/', '/index.html'):
        start_response('200 OK', [('Content-Type', 'text/html')]); return [b'<h1>shop</h1>\n']
    if p == '/health':
        start_response('200 OK', [('Content-Type', 'text/plain')]); return [b'ok\n']
    if parts[:2] == ['api', 'login']:
        user = q.get('user', 'anonymous')
        if q.get('pw') == 'pw-' + user:
            auth.info('user %s logged in from %s', user, ip)
            start_response('200 OK', [('Content-Type', 'application/json')]); return [b'{"ok":true}']
        auth.warning('login failed for user %s from %s: %s', user, ip, rnd.choice(['bad password', 'account locked', 'unknown user', 'password expired']))
        start_response('401 Unauthorized', [('Content-Type', 'application/json')]); return [b'{"ok":false}']
    if parts[:2] == ['api', 'users'] and len(parts) == 3:
        u = parts[2]
        if rnd.random() < 0.3:
            cache.debug('cache miss for key user:%s', u)
        else:
            cache.debug('cache hit for key user:%s (ttl %ds)', u, rnd.randint(1, 600))
        if u.startswith('x'):
            api.info('user %s not found', u)
            start_response('404 Not Found', [('Content-Type', 'application/json')]); return [b'{}']
        start_response('200 OK', [('Content-Type', 'application/json')]); return [json.dumps({'user': u}).encode()]
    if parts[:2] == ['api', 'orders']:
        if m == 'POST':
            n = int(env.get('CONTENT_LENGTH') or 0); body = env['wsgi.input'].read(n)
            try:
                o = json.loads(body)
            except ValueError as e:
                api.error('invalid order payload from %s: %s', ip, e)
                start_response('400 Bad Request', [('Content-Type', 'text/plain')]); return [b'bad json\n']
            oid = rnd.randint(100000, 999999)
            api.info('order %d placed by %s total=%.2f %s', oid, o.get('user'), o.get('total', 0), o.get('currency', 'EUR'))
            if o.get('total', 0) > 900:
                pay.warning('payment declined for order %d: %s', oid, rnd.choice(['insufficient funds', 'card expired', 'fraud check', 'issuer unavailable']))
                start_response('402 Payment Required', [('Content-Type', 'text/plain')]); return [b'declined\n']
            if uwsgi is not None and hasattr(uwsgi, 'spool') and rnd.random() < 0.5:
                uwsgi.spool({b'task': b'confirmation-mail' if rnd.random() < 0.7 else b'fail', b'user': str(o.get('user')).encode()})
                jobs.debug('queued confirmation mail for order %d', oid)
            start_response('201 Created', [('Content-Type', 'application/json')]); return [json.dumps({'id': oid}).encode()]
        if len(parts) == 3 and not parts[2].isdigit():
            raise ValueError('invalid literal for int() with base 10: %r' % parts[2])
        t0 = time.time(); time.sleep(rnd.random() * 0.05); ms = (time.time() - t0) * 1000
        db.debug('query on table %s took %.1f ms', rnd.choice(TABLES), ms)
        start_response('200 OK', [('Content-Type', 'application/json')]); return [b'[]']
    if parts[:1] == ['report']:
        t = rnd.choice(TABLES)
        try:
            1 / 0 if rnd.random() < 0.5 else {}[t]
        except Exception:
            db.exception('report generation failed for table %s', t)
        start_response('500 Internal Server Error', [('Content-Type', 'text/plain')]); return [b'report failed\n']
    if parts[:1] == ['boom']:
        kind = q.get('kind', 'value')
        if kind == 'key': raise KeyError(rnd.choice(['session', 'cart_id', 'csrf_token']))
        if kind == 'zero': return [str(1 / 0).encode()]
        if kind == 'type': start_response(200, []); return [b'x']
        if kind == 'none': start_response('200 OK', [('Content-Type', 'text/plain')]); return None
        if kind == 'str': start_response('200 OK', [('Content-Type', 'text/plain')]); return ['not bytes']
        raise RuntimeError('backend %s unavailable' % rnd.choice(['redis-01', 'pg-primary', 'search-02']))
    if parts[:1] == ['slow']:
        ms = int(q.get('ms', '100')); time.sleep(ms / 1000.0)
        if ms > 1000: api.warning('slow request %s took %d ms', p, ms)
        start_response('200 OK', [('Content-Type', 'text/plain')]); return [b'slow\n']
    if parts[:1] == ['download']:
        kb = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 512
        api.info('streaming %d KiB export to %s', kb, ip)
        start_response('200 OK', [('Content-Type', 'application/octet-stream')])
        def gen():
            for i in range(kb // 64):
                yield b'x' * 65536
                if i % 8 == 7: time.sleep(0.01)
        return gen()
    if parts[:1] == ['admin']:
        auth.warning('access to %s denied for %s', p, ip)
        start_response('403 Forbidden', [('Content-Type', 'text/plain')]); return [b'forbidden\n']
    if parts[:1] == ['deprecated']:
        api.warning('deprecated endpoint %s called by %s', p, ua)
        start_response('410 Gone', [('Content-Type', 'text/plain')]); return [b'gone\n']
    if parts[:1] == ['ratelimit']:
        api.error('rate limit exceeded for %s (%d req/min)', ip, rnd.randint(120, 900))
        start_response('429 Too Many Requests', [('Retry-After', str(rnd.randint(1, 60)))]); return [b'slow down\n']
    if parts[:1] == ['crash']:
        api.critical('unrecoverable state in worker, exiting (%s)', rnd.choice(['heap corrupted', 'db pool exhausted', 'config vanished']))
        os._exit(3)
    if m not in ('GET', 'HEAD'):
        start_response('405 Method Not Allowed', [('Allow', 'GET, HEAD')]); return [b'']
    start_response('404 Not Found', [('Content-Type', 'text/plain')]); return [b'not found\n']
PYEOF
cat > $D/drive.py <<'PYEOF'
import http.client, json, random, socket, sys, time
PORTS = [int(x) for x in sys.argv[1].split(',')]; N = int(sys.argv[2]); SEED = int(sys.argv[3]); UPORT = int(sys.argv[4])
rnd = random.Random(SEED)
UAS = ['curl/7.88.1', 'Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0',
       'Mozilla/5.0 (Macintosh; Intel Mac OS X 13_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.5 Safari/605.1.15',
       'python-requests/2.28.1', 'Go-http-client/1.1', 'kube-probe/1.27', 'Wget/1.21.3', 'okhttp/4.9.3',
       'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'PostmanRuntime/7.32.3', 'k6/0.45.0']
USERS = ['alice', 'bob', 'chidi', 'dagny', 'emeka', 'fatima', 'greta', 'hiroshi', 'ines', 'jamal', 'kenji', 'leila', 'marco',
         'noor', 'olga', 'priya', 'rafael', 'sakura', 'thabo', 'viktor', 'xavier', 'xena', 'svc-batch', 'grafana', 'ops-bot']
def path():
    r = rnd.random(); u = rnd.choice(USERS)
    if r < 0.08: return 'GET', '/', None
    if r < 0.14: return 'GET', '/health', None
    if r < 0.26: return 'GET', '/api/users/%s' % u, None
    if r < 0.34: return 'GET', '/api/login?user=%s&pw=%s' % (u, 'pw-' + u if rnd.random() < 0.6 else rnd.choice(['123456', 'qwerty', 'Summer2024'])), None
    if r < 0.46:
        body = json.dumps({'user': u, 'total': round(rnd.uniform(1, 1200), 2), 'currency': rnd.choice(['EUR', 'USD', 'GBP', 'JPY', 'SEK'])})
        if rnd.random() < 0.1: body = body[:rnd.randint(3, 20)]
        return 'POST', '/api/orders', body
    if r < 0.54: return 'GET', '/api/orders/%s' % (rnd.randint(1, 99999) if rnd.random() < 0.8 else rnd.choice(['latest', 'abc', 'null'])), None
    if r < 0.58: return 'GET', '/report/%s' % rnd.choice(['daily', 'weekly', 'q3', 'tax']), None
    if r < 0.63: return 'GET', '/boom?kind=%s' % rnd.choice(['key', 'zero', 'type', 'none', 'str', 'value']), None
    if r < 0.67: return 'GET', '/slow?ms=%d' % rnd.choice([50, 300, 1200, 2500, 6000]), None
    if r < 0.70: return 'GET', '/download/%d' % rnd.choice([64, 256, 1024, 4096]), None
    if r < 0.74: return 'GET', '/admin/%s' % rnd.choice(['users', 'config', 'debug', 'flush']), None
    if r < 0.77: return 'GET', '/deprecated/v1/%s' % rnd.choice(['cart', 'items', 'search']), None
    if r < 0.80: return 'GET', '/ratelimit', None
    if r < 0.805: return 'GET', '/crash', None
    if r < 0.88: return rnd.choice(['PUT', 'DELETE', 'PATCH', 'OPTIONS']), '/api/users/%s' % u, None
    return rnd.choice(['GET', 'GET', 'HEAD']), '/%s/%s%s' % (rnd.choice(['static', 'img', 'wp-admin', 'blog', '.git', 'docs']), rnd.choice(['main', 'logo', 'config', 'index', 'feed']), rnd.choice(['.css', '.png', '.php', '', '.xml'])), None
def src(): return '127.0.%d.%d' % (rnd.randint(0, 3), rnd.randint(2, 250))
def raw(port, data, read=True):
    try:
        s = socket.create_connection(('127.0.0.1', port), timeout=3, source_address=(src(), 0)); s.sendall(data)
        if read:
            try: s.recv(65536)
            except Exception: pass
        s.close()
    except Exception: pass
def one():
    port = rnd.choice(PORTS); r = rnd.random()
    if r < 0.04:
        raw(port, rnd.choice([b'GARBAGE\r\n\r\n', b'GET\r\n\r\n', b'GET / HTTP/1.1\r\n' + b'X-Big: ' + b'a' * 9000 + b'\r\n\r\n',
                              b'\x16\x03\x01\x00\xa5\x01\x00', b'POST /api/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{"user"', b'']))
        return
    if r < 0.06:   # client gives up mid-request
        raw(port, b'GET /api/users/%s HTTP/1.1\r\nHost: shop.local\r\n' % rnd.choice(USERS).encode(), read=False); return
    if r < 0.08:   # HTTP spoken to the uwsgi-protocol socket
        raw(UPORT, rnd.choice([b'GET / HTTP/1.1\r\nHost: x\r\n\r\n', b'\x00\x10\x00\x00garbage-garbage!', b'PING\r\n'])); return
    if r < 0.10:   # download, then abort after the first bytes
        try:
            s = socket.create_connection(('127.0.0.1', port), timeout=3, source_address=(src(), 0))
            s.sendall(b'GET /download/%d HTTP/1.1\r\nHost: shop.local\r\nUser-Agent: %s\r\n\r\n' % (rnd.choice([2048, 8192]), rnd.choice(UAS).encode()))
            s.recv(4096); s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b'\x01\x00\x00\x00\x00\x00\x00\x00'); s.close()
        except Exception: pass
        return
    m, p, body = path()
    try:
        c = http.client.HTTPConnection('127.0.0.1', port, timeout=8, source_address=(src(), 0))
        h = {'User-Agent': rnd.choice(UAS), 'Host': rnd.choice(['shop.local', 'api.shop.local', 'localhost'])}
        if rnd.random() < 0.3: h['Referer'] = 'https://%s/%s' % (rnd.choice(['www.google.com', 'shop.local', 'news.ycombinator.com']), rnd.choice(['', 'search', 'cart']))
        if body: h['Content-Type'] = 'application/json'
        c.request(m, p, body=body, headers=h); resp = c.getresponse(); resp.read(); c.close()
    except Exception: pass
for i in range(N):
    one(); time.sleep(0.01)
PYEOF
U=$D/uwsgi.log; : > $U
BASE=(--plugins corerouter,http,python3 --master --http 127.0.0.1:25080 --uwsgi-socket 127.0.0.1:25081 --http-socket 127.0.0.1:25082
      --harakiri 4 --harakiri-verbose --log-date="%Y-%m-%d %H:%M:%S" --pidfile $D/uwsgi.pid --enable-threads
      --listen 64 --reload-mercy 8 --worker-reload-mercy 8 --master-fifo $D/fifo --stats 127.0.0.1:25083)
up() { uwsgi "${BASE[@]}" "$@" >> $U 2>&1 & UP=$!; waitport 25080; waitport 25082; sleep 1; }
fifo() { echo "$1" > $D/fifo; sleep "${2:-3}"; }
drive() { $PY $D/drive.py 25080,25082 $1 $2 25081 >/dev/null 2>&1; }
mkdir -p $D/spool; touch $D/reload.trigger

# startup failures: unknown option, missing app file (dynamic mode, requests refused), port clash
timeout 10 uwsgi "${BASE[@]}" --processes 2 --wsgi-file $D/app.py --no-such-option 1 >> $U 2>&1
up --processes 2 --wsgi-file $D/missing.py
drive 12 1
timeout 10 uwsgi --plugins python3 --master --http-socket 127.0.0.1:25082 --wsgi-file $D/app.py --log-date="%Y-%m-%d %H:%M:%S" >> $U 2>&1
kill -INT $UP; wait $UP

# main instance: 4 workers, max-requests respawns, spooler, touch-reload
up --processes 4 --wsgi-file $D/app.py --max-requests 45 --touch-reload $D/reload.trigger --spooler $D/spool --spooler-frequency 1
drive 420 2
touch $D/reload.trigger; sleep 4
drive 120 3
kill -HUP $UP; sleep 5                 # graceful reload (re-exec)
drive 120 4
fifo c 6                               # chain reload
drive 80 5
fifo w 5                               # reload workers
kill -TERM $UP; sleep 5                # brutal reload
drive 80 6
fifo q 8                               # graceful shutdown
wait $UP

# second life: cheaper workers, lazy apps, a custom request log format
up --processes 5 --cheaper 1 --cheaper-initial 2 --cheaper-step 1 --plugin cheaper_busyness --cheaper-algo busyness \
   --cheaper-overload 2 --cheaper-busyness-verbose --lazy-apps --wsgi-file $D/app.py --max-requests 70 \
   --log-format '%(addr) - %(user) [%(ltime)] "%(method) %(uri) %(proto)" %(status) %(size) "%(referer)" "%(uagent)" %(msecs)ms pid=%(pid) wid=%(wid)'
drive 160 7 & d1=$!; drive 120 11 & d2=$!; drive 100 12 & d3=$!; wait $d1 $d2 $d3   # three clients at once: the busyness algorithm spawns workers
drive 60 13
fifo + 2; fifo + 2; fifo - 2
drive 60 8
kill -INT $UP; wait $UP
cp $U $RAW/UWSGI.log; wc -l $RAW/UWSGI.log
