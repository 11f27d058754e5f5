#!/bin/bash
# InfluxDB 1.6 (logfmt): HTTP API on a non-standard port, graphite / opentsdb / udp listeners; debug level in
# the first and last runs, info in the middle; auth off, then on (admin + per-database users, JWT shared
# secret). A python driver creates / drops databases and retention policies with varied names, writes good
# and malformed line protocol (type conflicts, series / tag-value limits, points beyond retention),
# runs good and bad queries, unknown databases, auth failures, continuous queries, KILL QUERY, shard drops;
# small cache / cold durations force snapshots and TSM compactions; a backup; three restarts.
. "$(dirname "$0")/common.sh"
D=$W/influxdb; rm -rf $D; mkdir -p $D
P=23086
mkconf() { cat > $D/influxdb.conf <<CONF
reporting-enabled = false
bind-address = "127.0.0.1:23088"
[meta]
  dir = "$D/meta"
  retention-autocreate = true
  logging-enabled = true
[data]
  dir = "$D/data"
  wal-dir = "$D/wal"
  index-version = "$3"
  query-log-enabled = true
  cache-max-memory-size = 8388608
  cache-snapshot-memory-size = 65536
  cache-snapshot-write-cold-duration = "4s"
  compact-full-write-cold-duration = "12s"
  max-series-per-database = 30000
  max-values-per-tag = 400
  trace-logging-enabled = $4
  max-index-log-file-size = 32768
[coordinator]
  write-timeout = "5s"
  query-timeout = "8s"
  log-queries-after = "300ms"
  max-select-point = 0
  max-select-series = 2500
[retention]
  enabled = true
  check-interval = "10s"
[shard-precreation]
  enabled = true
  check-interval = "15s"
  advance-period = "2h"
[monitor]
  store-enabled = true
  store-database = "_internal"
  store-interval = "10s"
[http]
  enabled = true
  bind-address = "127.0.0.1:$P"
  auth-enabled = $2
  log-enabled = true
  write-tracing = $5
  pprof-enabled = true
  shared-secret = "s3cr3t-jwt-k3y-for-tuning"
  max-row-limit = 5000
  max-body-size = 2000000
  max-connection-limit = 0
  max-concurrent-write-limit = 0
[logging]
  format = "logfmt"
  level = "$1"
  suppress-logo = true
[[graphite]]
  enabled = true
  bind-address = "127.0.0.1:23003"
  database = "graphite_metrics"
  protocol = "tcp"
  batch-size = 100
  batch-timeout = "1s"
  templates = ["servers.* .host.measurement.field", "apps.* .app.env.measurement*"]
[[opentsdb]]
  enabled = true
  bind-address = "127.0.0.1:23242"
  database = "tsdb_legacy"
  batch-size = 100
  batch-timeout = "1s"
  log-point-errors = true
[[udp]]
  enabled = true
  bind-address = "127.0.0.1:23089"
  database = "udp_ingest"
  batch-size = 100
  batch-timeout = "1s"
[continuous_queries]
  log-enabled = true
  enabled = true
  query-stats-enabled = true
  run-interval = "1s"
CONF
}
start() { influxd run -config $D/influxdb.conf -pidfile $D/influxd.pid >> $D/influxd.log 2>&1 & IX=$!; waitport $P; sleep 1; }

drive() {  # drive PHASE SEED N
$PY - "$@" <<'PYEOF'
import base64, http.client, json, random, socket, sys, time, urllib.parse
phase, seed, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed); PORT = 23086
DBS = ['telemetry', 'iot_sensors', 'k8s-prod', 'billing_2026', 'weather', 'appmetrics', 'edge_fleet', 'nginx_logs',
       'fleet-tracking', 'lab_bench', 'solar_farm', 'trading']
RPS = ['one_week', 'autogen', 'raw_24h', 'downsampled-90d', 'forever', 'hot', 'rp_30d', 'short_lived']
MEAS = ['cpu', 'mem', 'disk_io', 'http_requests', 'temperature', 'humidity', 'net', 'power_kw', 'latency', 'queue_depth', 'trades']
HOSTS = ['web-%02d', 'db-%d', 'edge-gw-%d', 'rpi-%d', 'node%d.k8s.local', 'sensor-%03d', 'worker-%d', 'ams-cache-%d']
USERS = {'admin': 'Adm1n-p4ss', 'grafana': 'graf-ro-42', 'telegraf': 'tele-write-9', 'li.wei': 'Wei#2026', 'sofia_m': 'sofia-pw',
         'svc-billing': 'b1ll-1ng', 'ops-bot': 'opsbot!'}
GHOSTS = ['root', 'influx', 'guest', 'hacker', 'test', 'marcus', 'backup']
UAS = ['curl/7.88.1', 'Telegraf/1.25.0', 'Grafana/9.3.6', 'python-requests/2.28.1', 'influxdb-client-python/1.6', 'Go-http-client/1.1', 'InfluxDBShell/1.6.7~rc0', 'Kapacitor/1.6']
auth_on = phase in ('auth', 'last')
creds = None
def host(): h = rnd.choice(HOSTS); return h % rnd.randint(1, 60) if '%' in h else h
def src(): return '127.0.%d.%d' % (rnd.randint(0, 3), rnd.randint(1, 254))
def req(method, path, params=None, body=None, user=None, pw=None, bearer=None, ctype=None):
    q = ('?' + urllib.parse.urlencode(params)) if params else ''
    h = {'User-Agent': rnd.choice(UAS)}
    if user is not None:
        if rnd.random() < 0.5: h['Authorization'] = 'Basic ' + base64.b64encode(('%s:%s' % (user, pw)).encode()).decode()
        else: q += ('&' if q else '?') + urllib.parse.urlencode({'u': user, 'p': pw})
    if bearer: h['Authorization'] = 'Bearer ' + bearer
    if ctype: h['Content-Type'] = ctype
    try:
        c = http.client.HTTPConnection('127.0.0.1', PORT, timeout=10, source_address=(src(), 0))
        c.request(method, path + q, body=body, headers=h); r = c.getresponse(); d = r.read(); c.close(); return r.status, d
    except Exception as e:
        return 0, str(e).encode()
def cred(good=0.9):
    if not auth_on: return (None, None) if rnd.random() < 0.8 else (rnd.choice(list(USERS)), 'x')
    if rnd.random() < good:
        u = rnd.choice(list(USERS)); return u, USERS[u]
    return rnd.choice(GHOSTS + list(USERS)), rnd.choice(['password', 'admin', '123456', 'Summer2026', ''])
def Q(q, db=None, good=0.92, method=None, **kw):
    u, p = cred(good) if 'user' not in kw else (kw.pop('user'), kw.pop('pw'))
    params = {'q': q}
    if db: params['db'] = db
    if rnd.random() < 0.2: params['epoch'] = rnd.choice(['ms', 's', 'ns'])
    if rnd.random() < 0.1: params['chunked'] = 'true'
    m = method or ('POST' if q.split()[0].upper() in ('CREATE', 'DROP', 'ALTER', 'GRANT', 'REVOKE', 'DELETE', 'KILL', 'SET') else 'GET')
    return req(m, '/query', params, user=u, pw=p)
def pts(n, meas=None, t0=None, span=600):
    out = []
    now = int(time.time())
    for i in range(n):
        m = meas or rnd.choice(MEAS)
        tags = 'host=%s,region=%s' % (host(), rnd.choice(['eu-west', 'us-east', 'ap-south', 'sa-east']))
        f = 'value=%.3f,count=%di' % (rnd.uniform(0, 100), rnd.randint(0, 10000))
        if rnd.random() < 0.2: f += ',status="%s"' % rnd.choice(['ok', 'degraded', 'down'])
        ts = ((t0 if t0 is not None else now) - rnd.randint(0, span)) * 10**9
        out.append('%s,%s %s %d' % (m, tags, f, ts))
    return '\n'.join(out)
BAD_LINES = ['cpu,host=a value=', 'cpu value=1 notatime', 'mem,host=web-01 used=abc', 'weird line without fields',
             'cpu,host=a,=bad value=1', 'disk_io,host=x read=1,read=2i', '"quoted" value=1', 'temperature,room=lab value=1i\ntemperature,room=lab value=1.5',
             'http_requests,host=web-03 status=200i,path=/api 1700000000000000000', 'net,iface=eth0 rx=1 tx=2 3 4',
             'power_kw,site=A value=tru', 'cpu,host=b value=1 99999999999999999999999']
def W(db, body, rp=None, precision=None, good=0.92):
    u, p = cred(good)
    params = {'db': db}
    if rp: params['rp'] = rp
    if precision: params['precision'] = precision
    if rnd.random() < 0.1: params['consistency'] = rnd.choice(['one', 'any', 'all', 'bogus'])
    return req('POST', '/write', params, body=body.encode(), user=u, pw=p)

def tcp(port, data):
    try:
        s = socket.create_connection(('127.0.0.1', port), timeout=3, source_address=(src(), 0)); s.sendall(data); time.sleep(0.05); s.close()
    except Exception: pass

if phase == 'setup':
    for db in DBS[:9]:
        Q('CREATE DATABASE "%s"' % db)
    Q('CREATE DATABASE "iot_sensors" WITH DURATION 30d REPLICATION 1 SHARD DURATION 1d NAME "rp_30d"')
    for db in DBS[:9]:
        for rp in rnd.sample(RPS, 2):
            Q('CREATE RETENTION POLICY "%s" ON "%s" DURATION %s REPLICATION 1 SHARD DURATION %s%s' % (rp, db, rnd.choice(['1d', '7d', '90d', 'INF', '2h']), rnd.choice(['1h', '1d']), rnd.choice(['', ' DEFAULT'])))
    Q('CREATE RETENTION POLICY "bad" ON "weather" DURATION 30m REPLICATION 1')
    Q('CREATE RETENTION POLICY "x" ON "nosuchdb" DURATION 1d REPLICATION 1')
    Q('CREATE RETENTION POLICY "shrinkme" ON "telemetry" DURATION 7d REPLICATION 1 SHARD DURATION 1h')
    for db in ['telemetry', 'k8s-prod', 'appmetrics', 'edge_fleet']:
        for m in rnd.sample(MEAS, 2):
            Q('CREATE CONTINUOUS QUERY "cq_%s_%s" ON "%s" RESAMPLE EVERY 5s BEGIN SELECT mean(value) AS value, max(count) INTO "%s"."autogen"."%s_5s" FROM "%s" GROUP BY time(5s), host END' % (m, rnd.choice(['5s', 'rollup', 'mean']), db, db, m, m))
    for sub, dest in [('kapacitor_main', "'http://127.0.0.1:23098'"), ('mirror-udp', "'udp://127.0.0.1:23097'"), ('bad_sub', "'ftp://nowhere'")]:
        Q('CREATE SUBSCRIPTION "%s" ON "telemetry"."autogen" DESTINATIONS ANY %s' % (sub, dest))
    Q('CREATE CONTINUOUS QUERY "cq_broken" ON "weather" BEGIN SELECT mean(value) INTO out FROM temperature END')
    Q('CREATE CONTINUOUS QUERY "cq_errs" ON "trading" BEGIN SELECT spread(nosuch) INTO "trading"."autogen"."x" FROM trades GROUP BY time(2s) END')
    # old points into the shrinkme RP (hours back), later the RP is shortened so retention deletes them
    for h in range(2, 7):
        W('telemetry', pts(30, 'cpu', int(time.time()) - h * 3600, 300), rp='shrinkme')
    sys.exit(0)

if phase == 'shrink':
    Q('ALTER RETENTION POLICY "shrinkme" ON "telemetry" DURATION 1h SHARD DURATION 1h', user='admin', pw=USERS['admin'])
    sys.exit(0)

if phase == 'users':
    # first admin may be created with auth on and no users
    req('POST', '/query', {'q': "CREATE USER admin WITH PASSWORD '%s' WITH ALL PRIVILEGES" % USERS['admin']})
    a = dict(user='admin', pw=USERS['admin'])
    for u in USERS:
        if u != 'admin': Q("CREATE USER \"%s\" WITH PASSWORD '%s'" % (u, USERS[u]), **a)
    for u, db, pr in [('grafana', 'telemetry', 'READ'), ('grafana', 'k8s-prod', 'READ'), ('telegraf', 'telemetry', 'WRITE'), ('telegraf', 'k8s-prod', 'WRITE'),
                      ('li.wei', 'iot_sensors', 'ALL'), ('sofia_m', 'weather', 'ALL'), ('svc-billing', 'billing_2026', 'ALL'), ('ops-bot', 'edge_fleet', 'WRITE')]:
        Q('GRANT %s ON "%s" TO "%s"' % (pr, db, u), **a)
    Q("CREATE USER admin WITH PASSWORD 'again'", **a)
    Q('GRANT ALL ON "nosuchdb" TO "ghost"', **a)
    Q('REVOKE WRITE ON "edge_fleet" FROM "ops-bot"', **a)
    Q("SET PASSWORD FOR \"sofia_m\" = 'sofia-pw'", **a)
    sys.exit(0)

if phase == 'burst':
    # many new series in one database (tsi1 log files fill up and get compacted), then past the tag-value limit
    for b in range(8):
        body = '\n'.join('fleet_pos,vehicle=veh-%04d,depot=%s lat=%.5f,lon=%.5f' % (b * 450 + j, rnd.choice(['north', 'harbor', 'airport']), rnd.uniform(50, 54), rnd.uniform(3, 7)) for j in range(450))
        req('POST', '/write', {'db': 'fleet-tracking', 'u': 'admin', 'p': USERS['admin']}, body=body.encode()); time.sleep(0.3)
    sys.exit(0)

for i in range(N):
    k = rnd.random(); db = rnd.choice(DBS + ['nosuchdb', 'Telemetry', '_internal'] if rnd.random() < 0.1 else DBS[:9])
    if k < 0.38:
        body = pts(rnd.randint(1, 60))
        if rnd.random() < 0.12: body = rnd.choice(BAD_LINES) + ('\n' + pts(2) if rnd.random() < 0.5 else '')
        if rnd.random() < 0.05: body = pts(5, t0=int(time.time()) - 86400 * rnd.randint(100, 900))
        if rnd.random() < 0.04: body = '\n'.join('cpu,host=h%d,uid=%d value=1' % (j, rnd.getrandbits(40)) for j in range(rnd.randint(100, 500)))
        W(db, body, rp=rnd.choice([None, None, None, 'autogen', 'nope_rp']), precision=rnd.choice([None, None, 'ns', 's', 'ms', 'h', 'xx']))
    elif k < 0.62:
        m = rnd.choice(MEAS)
        Q(rnd.choice(['SELECT mean(value) FROM "%s" WHERE time > now() - %dm GROUP BY time(%ds), host' % (m, rnd.randint(1, 90), rnd.choice([10, 30, 60])),
                      'SELECT last(value), count FROM %s WHERE host = \'%s\'' % (m, host()),
                      'SELECT * FROM %s LIMIT %d' % (m, rnd.randint(1, 50)),
                      'SELECT max(count) FROM /.*/ WHERE time > now() - 1h GROUP BY time(1m)',
                      'SHOW MEASUREMENTS', 'SHOW TAG VALUES FROM %s WITH KEY = "host"' % m, 'SHOW SERIES CARDINALITY',
                      'SHOW FIELD KEYS FROM %s' % m, 'SELECT percentile(value, 95) FROM %s GROUP BY region' % m,
                      'SELECT count(value) FROM %s WHERE time > now() - 10d GROUP BY time(1s)' % m]), db=db)
    elif k < 0.75:
        Q(rnd.choice(['SELEC * FROM cpu', 'SELECT mean(value FROM cpu', 'SELECT * FROM', 'SHOW TAG KEYS FROM', 'SELECT value FROM cpu GROUP BY time(0s)',
                      'SELECT mean(status) FROM cpu', 'SELECT * FROM cpu WHERE time > \'yesterday\'', 'DROP MEASUREMENT', 'SELECT derivative(value) FROM cpu',
                      'SELECT nosuchfunc(value) FROM mem', 'SELECT value FROM "%s".."cpu"' % rnd.choice(['ghostdb', 'old_metrics', 'prod']),
                      'SELECT * FROM cpu; SELECT * FROM mem WHERE host=', 'DELETE FROM', 'SHOW GRANTS FOR "%s"' % rnd.choice(GHOSTS)]), db=db)
    elif k < 0.8:
        Q(rnd.choice(['SHOW DATABASES', 'SHOW RETENTION POLICIES ON "%s"' % db, 'SHOW USERS', 'SHOW CONTINUOUS QUERIES', 'SHOW SHARDS', 'SHOW SHARD GROUPS',
                      'SHOW QUERIES', 'SHOW STATS', 'SHOW DIAGNOSTICS', 'SHOW SUBSCRIPTIONS']), db=db)
    elif k < 0.85:
        d = rnd.choice(DBS[9:] + ['tmp_%d' % rnd.randint(1, 99), 'scratch-%s' % rnd.choice(['anna', 'raj', 'ops']), 'sandbox'])
        t = rnd.choice(['CREATE DATABASE "{d}"', 'DROP DATABASE "{d}"', 'CREATE RETENTION POLICY "rp_%d" ON "{d}" DURATION %dd REPLICATION 1' % (rnd.randint(1, 9), rnd.randint(1, 30)),
                        'DROP RETENTION POLICY "%s" ON "{d}"' % rnd.choice(RPS), 'DROP MEASUREMENT "%s"' % rnd.choice(MEAS), 'DROP SERIES FROM mem WHERE host = \'%s\'' % host(),
                        'DELETE FROM "%s" WHERE time < now() - %dd' % (rnd.choice(MEAS), rnd.randint(1, 9)), 'DROP CONTINUOUS QUERY "cq_broken" ON "{d}"', 'DROP SHARD %d' % rnd.randint(1, 60)])
        Q(t.replace('{d}', rnd.choice([d, db])), db=rnd.choice([db, d]))
    elif k < 0.88:
        # protocol-level oddities: unknown endpoints, ping, debug, wrong methods, bad tokens
        r = rnd.random()
        if r < 0.3: req(rnd.choice(['GET', 'HEAD']), rnd.choice(['/ping', '/ping?verbose=true', '/health', '/debug/vars', '/metrics', '/api/v2/write', '/admin', '/favicon.ico']))
        elif r < 0.5: req('PUT', '/write', {'db': db}, body=b'cpu value=1')
        elif r < 0.7: req('GET', '/query', {'q': 'SHOW DATABASES'}, bearer=rnd.choice(['eyJhbGciOiJIUzI1NiJ9.eyJ1c2VybmFtZSI6ImFkbWluIn0.bad', 'not-a-jwt', 'eyJhbGciOiJIUzI1NiJ9.e30.Zm9v']))
        else: req('POST', '/write', {'db': db}, body=b'x' * 2100000)
    elif k < 0.93:
        # graphite / opentsdb / udp listeners, good and bad lines
        now = int(time.time())
        if rnd.random() < 0.4:
            tcp(23003, '\n'.join(rnd.choice(['servers.%s.cpu.load %.2f %d' % (host().replace('.', '_'), rnd.uniform(0, 4), now),
                                             'apps.%s.%s.requests.count %d %d' % (rnd.choice(['shop', 'search', 'auth']), rnd.choice(['prod', 'stage']), rnd.randint(1, 999), now),
                                             'bad graphite line', 'servers.x.cpu.load notanumber %d' % now, 'servers.y.mem.free 12']) for _ in range(rnd.randint(1, 6))).encode() + b'\n')
        elif rnd.random() < 0.6:
            tcp(23242, '\n'.join(rnd.choice(['put sys.cpu.user %d %.1f host=%s cpu=%d' % (now, rnd.uniform(0, 100), host(), rnd.randint(0, 7)),
                                             'put sys.if.bytes %d %d iface=eth%d' % (now, rnd.randint(1, 10**6), rnd.randint(0, 3)),
                                             'put broken', 'put sys.disk 12x 5 host=a', 'version', 'get nothing']) for _ in range(rnd.randint(1, 5))).encode() + b'\n')
        else:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((src(), 0))
            s.sendto(rnd.choice([pts(3).encode(), b'garbage udp payload', b'cpu value=', pts(1).encode()]), ('127.0.0.1', 23089)); s.close()
    elif k < 0.95:
        # a long query and KILL QUERY
        Q('SELECT count(value) FROM /.*/ WHERE time > now() - 3650d GROUP BY time(1m), *', db=rnd.choice(DBS[:4]))
        Q('KILL QUERY %d' % rnd.randint(1, 400), user='admin', pw=USERS['admin']) if auth_on else Q('KILL QUERY %d' % rnd.randint(1, 400))
    else:
        if auth_on:   # deliberate authorization failures: users on databases they have no grant for
            u = rnd.choice(['grafana', 'telegraf', 'li.wei', 'sofia_m', 'ops-bot'])
            rr = rnd.random()
            if rr < 0.4: req('POST', '/write', {'db': rnd.choice(DBS[:9]), 'u': u, 'p': USERS[u]}, body=pts(2).encode())
            elif rr < 0.7: req('GET', '/query', {'q': 'SELECT * FROM cpu LIMIT 1', 'db': rnd.choice(DBS[:9]), 'u': u, 'p': USERS[u]})
            else: req('POST', '/query', {'q': rnd.choice(['DROP DATABASE "weather"', 'CREATE USER x WITH PASSWORD \'y\'', 'SHOW USERS']), 'u': u, 'p': USERS[u]})
        else:
            Q('SHOW DATABASES')
    time.sleep(rnd.uniform(0.01, 0.06))
PYEOF
}

# run 1: debug, auth off, tsi1 index
mkconf debug false inmem true true; start
drive setup 1 0
drive main 2 500
drive shrink 3 0
sleep 14     # retention check deletes the old shard groups, cold shards get fully compacted
drive main 4 150
stoppid $IX
# run 2: info, auth on
mkconf info true tsi1 false false; start
drive users 5 0
drive burst 8 0
drive auth 6 500
sleep 14
influxd backup -portable -host 127.0.0.1:23088 -database telemetry $D/backup >/dev/null 2>&1
influxd backup -portable -host 127.0.0.1:23088 -database nosuchdb $D/backup2 >/dev/null 2>&1
stoppid $IX
# run 3: a config with an error (influxd refuses to start), then debug with auth on
mkconf debug true tsi1 false false; sed 's/index-version = "tsi1"/index-version = "tsi2"/; s/23086/23087/' $D/influxdb.conf > $D/bad.conf
influxd run -config $D/bad.conf -pidfile $D/bad.pid >> $D/influxd.log 2>&1 & BAD=$!; sleep 3; stoppid $BAD
# the HTTP port already taken by another process: influxd opens the store, then fails to listen
$PY $GEN/blackhole.py 23087 & BH=$!; sleep 0.5
sed 's/23086/23087/' $D/influxdb.conf > $D/busy.conf
influxd run -config $D/busy.conf -pidfile $D/busy.pid >> $D/influxd.log 2>&1 & BAD=$!; sleep 4; stoppid $BAD; stoppid $BH
start
drive last 7 200
sleep 6
stoppid $IX
cp $D/influxd.log $RAW/InfluxDB.log
wc -l $RAW/InfluxDB.log
