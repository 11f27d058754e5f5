"""Small deterministic HTTP workload driver (stdlib only).
usage: httpdrive.py HOST PORT N SEED [--paths a,b,...] [--tls]
Sends N varied requests from varied loopback source addresses, user agents,
methods and paths; some raw malformed requests too."""
import http.client, random, socket, sys, ssl, time
host, port, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
extra = []
if '--paths' in sys.argv:
    extra = sys.argv[sys.argv.index('--paths') + 1].split(',')
tls = '--tls' in sys.argv
rnd = random.Random(seed)
UAS = ['curl/7.88.1', 'Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0',
       'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
       'Wget/1.21.3', 'python-requests/2.28.1', 'Go-http-client/1.1', 'Prometheus/2.42.0', 'kube-probe/1.27',
       'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'facebookexternalhit/1.1',
       'Apache-HttpClient/4.5.13 (Java/17.0.2)', 'okhttp/4.9.3', '-']
WORDS = ['api', 'v1', 'v2', 'users', 'orders', 'static', 'img', 'css', 'js', 'admin', 'login', 'search',
         'cart', 'items', 'health', 'metrics', 'docs', 'blog', 'post', 'feed', 'wp-admin', 'phpmyadmin', '.env',
         'config', 'backup', 'download', 'upload', 'assets', 'report', 'export']
EXT = ['', '', '.html', '.php', '.json', '.png', '.js', '.css', '.txt', '.xml', '.gz']
def rpath():
    if extra and rnd.random() < 0.45:
        p = rnd.choice(extra)
    else:
        p = '/' + '/'.join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 3))) + rnd.choice(EXT)
        if rnd.random() < 0.3:
            p += '/' + str(rnd.randint(1, 99999))
    if rnd.random() < 0.25:
        p += '?%s=%s&page=%d' % (rnd.choice(['q', 'id', 'ref', 'sort', 'token']), rnd.choice(WORDS) + str(rnd.randint(0, 999)), rnd.randint(1, 50))
    return p
def raw(src, data):
    try:
        s = socket.create_connection((host, port), timeout=3, source_address=(src, 0))
        if tls:
            ctx = ssl._create_unverified_context(); s = ctx.wrap_socket(s, server_hostname='localhost')
        s.sendall(data)
        try: s.recv(65536)
        except Exception: pass
        s.close()
    except Exception as e:
        pass
for i in range(n):
    src = '127.0.%d.%d' % (rnd.randint(0, 3), rnd.randint(2, 250))
    r = rnd.random()
    if r < 0.05:
        raw(src, rnd.choice([b'GARBAGE\r\n\r\n', b'GET\r\n\r\n', b'GET / HTTP/9.9\r\n\r\n', b'\x16\x03\x01\x00\xa5\x01\x00',
                             b'GET /' + b'a' * 9000 + b' HTTP/1.1\r\nHost: x\r\n\r\n', b'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n',
                             b'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', b'']))
        continue
    if r < 0.07:  # client that connects and goes away mid-request
        raw(src, b'GET /slow HTTP/1.1\r\nHost: localhost\r\n')
        continue
    method = rnd.choices(['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'PROPFIND', 'TRACE'],
                         [60, 15, 6, 4, 4, 3, 2, 1, 1])[0]
    try:
        if tls:
            c = http.client.HTTPSConnection(host, port, timeout=5, source_address=(src, 0), context=ssl._create_unverified_context())
        else:
            c = http.client.HTTPConnection(host, port, timeout=5, source_address=(src, 0))
        body = None
        hdr = {'User-Agent': rnd.choice(UAS)}
        if rnd.random() < 0.3:
            hdr['Referer'] = 'http://%s/%s' % (rnd.choice(['example.com', 'localhost', 'shop.local', 'intranet.corp']), rnd.choice(WORDS))
        if rnd.random() < 0.1:
            hdr['Authorization'] = 'Basic ' + __import__('base64').b64encode(('%s:%s' % (rnd.choice(['alice', 'bob', 'admin', 'carol', 'root']), rnd.choice(['secret', 'wrong', 'hunter2']))).encode()).decode()
        if method in ('POST', 'PUT', 'PATCH'):
            body = b'x' * rnd.choice([0, 12, 300, 5000, 200000, 1500000])
            hdr['Content-Type'] = rnd.choice(['application/json', 'application/x-www-form-urlencoded', 'text/plain'])
        if rnd.random() < 0.15:
            hdr['Host'] = rnd.choice(['www.example.com', 'api.local', 'unknown.host', 'localhost'])
        c.request(method, rpath(), body=body, headers=hdr)
        resp = c.getresponse(); resp.read(); c.close()
    except Exception as e:
        pass
    if rnd.random() < 0.02:
        time.sleep(rnd.choice([0.2, 1.1]))
