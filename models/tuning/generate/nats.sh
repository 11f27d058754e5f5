#!/bin/bash
# NATS server 2.9: 3-node local cluster with JetStream, accounts/users with permissions, max_payload /
# max_connections / max_pending limits; node 1 runs at info and is reloaded (SIGHUP) into debug+trace and
# back, node 2 runs with debug, node 3 at info. A python driver speaks the NATS text protocol from varied
# loopback addresses: good and bad credentials, PUB/SUB/HPUB/UNSUB, permission violations, oversized
# payloads, garbage, auth timeouts, stale and slow consumers, abrupt disconnects, JetStream API requests
# (streams / consumers created, queried, deleted). Routes come and go (node 3 stopped, node 2 killed,
# lame-duck mode); reloads with good configs, a bad config and a non-reloadable change. All three logs
# concatenated.
. "$(dirname "$0")/common.sh"
D=$W/nats; rm -rf $D; mkdir -p $D
CP=(0 23222 23223 23224); RP=(0 23622 23623 23624); HP=(0 23822 23823 23824)
# mkconf N DEBUG TRACE MAX_PAYLOAD EXTRA
mkconf() { local n=$1; cat > $D/n$n.conf <<CONF
server_name: "nats-$( [ $n = 1 ] && echo ams || ([ $n = 2 ] && echo fra || echo lon))-0$n"
listen: "127.0.0.1:${CP[$n]}"
http: "127.0.0.1:${HP[$n]}"
pid_file: "$D/n$n.pid"
log_file: "$D/n$n.log"
logtime: true
debug: $2
trace: $3
max_payload: $4
max_connections: 48
max_control_line: 1024
max_pending: 262144
write_deadline: "2s"
ping_interval: "3s"
ping_max: 2
authorization { timeout: 1.5 }
lame_duck_duration: "30s"
lame_duck_grace_period: "2s"
jetstream {
  store_dir: "$D/js$n"
  max_memory_store: 64MB
  max_file_store: 256MB
}
cluster {
  name: "edge-west"
  listen: "127.0.0.1:${RP[$n]}"
  routes: [ "nats-route://127.0.0.1:${RP[1]}", "nats-route://127.0.0.1:${RP[2]}", "nats-route://127.0.0.1:${RP[3]}" ]
  connect_retries: 30
}
system_account: SYS
accounts {
  SYS: { users: [ { user: "sysop", password: "Ohw4-sys!op" } ] }
  ORDERS: {
    jetstream: enabled
    users: [
      { user: "maria.gonzalez", password: "tango-42-lima",
        permissions: { publish: { allow: ["orders.>", "\$JS.API.>", "_INBOX.>"] }, subscribe: { allow: ["orders.>", "_INBOX.>"] } } }
      { user: "svc-checkout", password: "c9f1e0d2b7",
        permissions: { publish: ["orders.created.>", "orders.paid.>"], subscribe: { allow: ["_INBOX.>", "orders.ack.*"], deny: ["orders.audit.>"] } } }
      { user: "kwame.asante", password: "Kw@me2026" }
      { user: "fulfil_worker", password: "w0rker-pass",
        permissions: { publish: { deny: ["orders.created.>", "\$JS.API.STREAM.DELETE.>"] }, subscribe: ["orders.>", "_INBOX.>", "\$JS.API.>"] } }
    ]
  }
  TELEMETRY: {
    jetstream: enabled
    users: [
      { user: "telegraf-edge", password: "t3l3graf", permissions: { publish: ["metrics.>", "logs.>"], subscribe: ["_INBOX.>"] } }
      { user: "priya.nair", password: "pr1ya-N" }
      { user: "grafana_reader", password: "gr4f4na", permissions: { publish: ["_INBOX.>", "\$JS.API.>"], subscribe: ["metrics.>", "logs.>", "_INBOX.>"] } }
      { user: "oliver", password: "olive-oil-7" }
    ]
  }
  BILLING: {
    jetstream: { max_mem: 8MB, max_file: 32MB, max_streams: 3, max_consumers: 6 }
    users: [
      { user: "svc_invoicer", password: "inv-0ic3r" }
      { user: "jean-luc", password: "Picard!47", permissions: { publish: { deny: ["billing.refunds.>"] } } }
    ]
    exports: [ { stream: "billing.events.>" } ]
  }
  PARTNERS: {
    users: [ { user: "acme-integration", password: "acme-5af0" } ]
    imports: [ { stream: { account: BILLING, subject: "billing.events.>" }, prefix: "acme" } ]
  }
}
$5
CONF
}
mkconf 1 false false 8192 ""; mkconf 2 true false 8192 ""; mkconf 3 false false 8192 ""
start() { nats-server -c $D/n$1.conf >> $D/n$1.out 2>&1 & eval "N$1=\$!"; }
start 1; start 2; start 3
waitport ${CP[1]}; waitport ${CP[2]}; waitport ${CP[3]}
sleep 6   # JetStream meta leader election

drive() {  # drive PHASE SEED N
$PY - "$@" <<'PYEOF'
import json, random, socket, sys, threading, time
phase, seed, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)
PORTS = {'1': 23222, '2': 23223, '3': 23224}
alive = [p for p in sys.argv[4:]] or ['1', '2', '3']
USERS = {'maria.gonzalez': 'tango-42-lima', 'svc-checkout': 'c9f1e0d2b7', 'kwame.asante': 'Kw@me2026',
         'fulfil_worker': 'w0rker-pass', 'telegraf-edge': 't3l3graf', 'priya.nair': 'pr1ya-N',
         'grafana_reader': 'gr4f4na', 'oliver': 'olive-oil-7', 'svc_invoicer': 'inv-0ic3r',
         'jean-luc': 'Picard!47', 'acme-integration': 'acme-5af0', 'sysop': 'Ohw4-sys!op'}
GHOSTS = ['admin', 'root', 'guest', 'deploy', 'nats', 'test-user', 'elena.petrova', 'backup_svc', 'jenkins']
NAMES = ['order-api', 'checkout-web', 'inventory-sync', 'edge-gw-%d', 'telegraf', 'grafana-live', 'billing-cron',
         'invoice-%d', 'nats-cli', 'mobile-bff', 'fraud-scorer', 'ledger-%d', 'shipping-worker', '']
LANGS = [('python', '2.2.0'), ('go', '1.25.0'), ('java', '2.16.8'), ('node', '2.10.2'), ('rust', '0.24.0'), ('.NET', '1.0.7')]
SUBJ = {'ORDERS': ['orders.created.eu.%d', 'orders.paid.us.%d', 'orders.ack.%d', 'orders.audit.log', 'orders.shipped.%d',
                   'orders.cancelled.apac', 'orders.refund.%d'],
        'TELEMETRY': ['metrics.cpu.host%d', 'metrics.mem.db-%d', 'logs.nginx.access', 'logs.app.error', 'metrics.disk.sda%d'],
        'BILLING': ['billing.events.invoice.%d', 'billing.refunds.%d', 'billing.events.payment', 'billing.ledger.close'],
        'PARTNERS': ['partner.acme.ping', 'acme.billing.events.invoice.%d'],
        'SYS': ['$SYS.REQ.SERVER.PING', '$SYS.REQ.ACCOUNT.ORDERS.CONNZ']}
ACCT = {'maria.gonzalez': 'ORDERS', 'svc-checkout': 'ORDERS', 'kwame.asante': 'ORDERS', 'fulfil_worker': 'ORDERS',
        'telegraf-edge': 'TELEMETRY', 'priya.nair': 'TELEMETRY', 'grafana_reader': 'TELEMETRY', 'oliver': 'TELEMETRY',
        'svc_invoicer': 'BILLING', 'jean-luc': 'BILLING', 'acme-integration': 'PARTNERS', 'sysop': 'SYS'}
JSUSERS = ['maria.gonzalez', 'kwame.asante', 'priya.nair', 'oliver', 'svc_invoicer', 'jean-luc', 'grafana_reader', 'fulfil_worker']
STREAMS = ['ORDERS_EU', 'orders-archive', 'METRICS_1M', 'logs_raw', 'INVOICES', 'dlq-payments', 'KV_sessions', 'audit_trail']

def src():
    return '127.0.%d.%d' % (rnd.randint(0, 3), rnd.randint(1, 254))
def subj(acct):
    s = rnd.choice(SUBJ[acct])
    return s % rnd.randint(1, 999) if '%d' in s else s
def conn(node=None, user=None, pw=None, name=None, extra=None, send_connect=True, bind=None):
    port = PORTS[node or rnd.choice(alive)]
    s = socket.socket(); s.settimeout(3)
    s.bind((bind or src(), 0)); s.connect(('127.0.0.1', port))
    f = s.makefile('rb')
    f.readline()  # INFO
    if send_connect:
        lang, ver = rnd.choice(LANGS)
        nm = name if name is not None else rnd.choice(NAMES)
        if '%d' in nm: nm = nm % rnd.randint(1, 40)
        c = {'verbose': rnd.random() < 0.2, 'pedantic': rnd.random() < 0.2, 'tls_required': False, 'name': nm,
             'lang': lang, 'version': ver, 'protocol': 1, 'echo': rnd.random() < 0.8, 'headers': True, 'no_responders': True}
        if user is not None: c['user'] = user; c['pass'] = pw
        if extra: c.update(extra)
        s.sendall(('CONNECT %s\r\nPING\r\n' % json.dumps(c, separators=(',', ':'))).encode())
    return s, f
def drain(s, t=0.2):
    s.settimeout(t); out = b''
    try:
        while True:
            d = s.recv(65536)
            if not d: break
            out += d
    except Exception: pass
    s.settimeout(3); return out
def close(s):
    if rnd.random() < 0.35:  # abrupt: RST
        import struct
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
    try: s.close()
    except Exception: pass
def pw_for(u):
    return USERS[u] if rnd.random() < 0.85 else rnd.choice(['password', 'letmein', USERS[u][:-1], 'Winter2026!', ''])

def js_req(s, f, api, body, sid):
    inbox = '_INBOX.%016x' % rnd.getrandbits(64)
    b = json.dumps(body).encode() if body is not None else b''
    s.sendall(b'SUB ' + inbox.encode() + b' ' + str(sid).encode() + b'\r\nPUB ' + api.encode() + b' ' + inbox.encode() +
              b' ' + str(len(b)).encode() + b'\r\n' + b + b'\r\n')
    return drain(s, 0.4)

def session_good():
    u = rnd.choice([x for x in USERS if x != 'sysop'])
    acct = ACCT[u]
    s, f = conn(user=u, pw=pw_for(u))
    r = drain(s)
    if b'-ERR' in r: close(s); return
    sid = 1
    for _ in range(rnd.randint(1, 8)):
        op = rnd.random()
        if op < 0.35:
            sj = subj(acct); q = (' ' + rnd.choice(['workers', 'q-%d' % rnd.randint(1, 9), 'etl'])) if rnd.random() < 0.3 else ''
            s.sendall(('SUB %s%s %d\r\n' % (sj, q, sid)).encode()); sid += 1
        elif op < 0.7:
            sj = subj(acct); pl = json.dumps({'id': rnd.randint(1, 10**6), 'v': round(rnd.uniform(0, 500), 2)}) * rnd.randint(1, 4)
            rep = (' _INBOX.%012x' % rnd.getrandbits(48)) if rnd.random() < 0.2 else ''
            s.sendall(('PUB %s%s %d\r\n%s\r\n' % (sj, rep, len(pl), pl)).encode())
        elif op < 0.8:
            h = 'NATS/1.0\r\nNats-Msg-Id: %08x\r\nX-Trace: %d\r\n\r\n' % (rnd.getrandbits(32), rnd.randint(1, 9999))
            pl = 'payload-%d' % rnd.randint(1, 99999)
            s.sendall(('HPUB %s %d %d\r\n%s%s\r\n' % (subj(acct), len(h), len(h) + len(pl), h, pl)).encode())
        elif op < 0.9 and sid > 1:
            s.sendall(('UNSUB %d%s\r\n' % (rnd.randint(1, sid - 1), (' %d' % rnd.randint(1, 5)) if rnd.random() < 0.4 else '')).encode())
        else:
            s.sendall(b'PING\r\n')
        time.sleep(rnd.uniform(0, 0.03))
    drain(s, 0.1)
    close(s)

def session_bad():
    k = rnd.random(); u = rnd.choice([x for x in USERS if x != 'sysop']); acct = ACCT[u]
    if k < 0.15:   # unknown user / bad password
        s, f = conn(user=rnd.choice(GHOSTS + [u]), pw=rnd.choice(['secret', 'hunter2', 'changeme', 'x' * rnd.randint(3, 12)]))
    elif k < 0.2:  # no credentials at all
        s, f = conn()
    elif k < 0.35:  # publish permission violation
        s, f = conn(user=u, pw=USERS[u]); forb = rnd.choice(['admin.shutdown', 'orders.created.eu.%d' % rnd.randint(1, 99), 'billing.refunds.%d' % rnd.randint(1, 99),
                                                           '$JS.API.STREAM.DELETE.%s' % rnd.choice(STREAMS), 'secrets.vault.%s' % rnd.choice(['db', 'api', 'tls']), 'orders.audit.log'])
        s.sendall(('PUB %s 5\r\nhello\r\n' % forb).encode())
    elif k < 0.45:  # subscribe permission violation
        s, f = conn(user=u, pw=USERS[u]); s.sendall(('SUB %s %d\r\n' % (rnd.choice(['>', 'orders.audit.>', 'billing.>', 'metrics.*.host%d' % rnd.randint(1, 9), '$SYS.>', 'logs.secure']), rnd.randint(1, 50))).encode())
    elif k < 0.55:  # payload too big
        s, f = conn(user=u, pw=USERS[u]); n = rnd.randint(9000, 40000)
        s.sendall(('PUB %s %d\r\n' % (subj(acct), n)).encode() + b'x' * n + b'\r\n')
    elif k < 0.65:  # garbage / unknown op
        s, f = conn(user=u, pw=USERS[u]); drain(s)
        s.sendall(rnd.choice([b'HELLO world\r\n', b'GET / HTTP/1.1\r\nHost: nats\r\n\r\n', b'PUB\r\n', b'SUB\r\n',
                              b'PUB foo bar baz 3\r\nabc\r\n', b'MSG foo 1 2\r\nhi\r\n', b'\x16\x03\x01\x02\x00\x01', b'UNSUB\r\n',
                              b'PUB orders.x -5\r\n', b'SUB foo bar baz qux\r\n', b'CONNECT {bad json\r\n']))
    elif k < 0.72:  # invalid subjects
        s, f = conn(user=u, pw=USERS[u], extra={'pedantic': True}); s.sendall(('PUB %s 2\r\nhi\r\n' % rnd.choice(['orders..created', 'orders.*.eu', 'metrics.>.cpu', 'foo.>']) ).encode())
    elif k < 0.78:  # control line too long
        s, f = conn(user=u, pw=USERS[u]); s.sendall(('SUB ' + '.'.join('seg%d' % i for i in range(rnd.randint(200, 400))) + ' 1\r\n').encode())
    elif k < 0.85:  # garbage CONNECT / bad protocol version
        s, f = conn(send_connect=False)
        s.sendall(rnd.choice([b'CONNECT {"user":"oliver","pass":1234}\r\n', b'CONNECT {"protocol":7,"user":"oliver","pass":"olive-oil-7"}\r\n',
                              b'CONNECT {"verbose":false,\r\n', b'PING\r\n']))
    elif k < 0.92:  # connect and send nothing: authentication timeout
        s, f = conn(send_connect=False); time.sleep(rnd.uniform(1.7, 2.2))
    else:  # TLS demanded by client / headers off + HPUB
        s, f = conn(user=u, pw=USERS[u], extra=rnd.choice([{'tls_required': True}, {'headers': False}, {'no_responders': True, 'headers': False}]))
        s.sendall(('HPUB %s 12 14\r\nNATS/1.0\r\n\r\nhi\r\n' % subj(acct)).encode())
    drain(s, 0.3); close(s)

def session_js():
    u = rnd.choice(JSUSERS); s, f = conn(user=u, pw=USERS[u]); drain(s)
    acct = ACCT[u]; sid = 1
    for _ in range(rnd.randint(2, 6)):
        st = rnd.choice(STREAMS); k = rnd.random()
        subjects = {'ORDERS': ['orders.>'], 'TELEMETRY': ['metrics.>', 'logs.>'], 'BILLING': ['billing.>']}.get(acct, ['x.>'])
        subjects = [rnd.choice(subjects)] if rnd.random() < 0.8 else ['%s.%s.>' % (st.lower(), rnd.choice(['in', 'out']))]
        if k < 0.3:
            js_req(s, f, '$JS.API.STREAM.CREATE.' + st, {'name': st, 'subjects': subjects, 'storage': rnd.choice(['file', 'memory']),
                   'num_replicas': rnd.choice([1, 1, 3]), 'max_msgs': rnd.choice([-1, 1000, 50000]), 'retention': rnd.choice(['limits', 'interest', 'workqueue'])}, sid)
        elif k < 0.4:
            js_req(s, f, '$JS.API.STREAM.CREATE.' + st, {'name': st + rnd.choice(['', '.bad', ' x']), 'subjects': ['>'] if rnd.random() < 0.5 else subjects, 'num_replicas': rnd.choice([2, 5, 1])}, sid)
        elif k < 0.55:
            js_req(s, f, '$JS.API.STREAM.INFO.' + st, None, sid)
        elif k < 0.7:
            cname = rnd.choice(['worker', 'audit-reader', 'dash_%d' % rnd.randint(1, 9), 'replay-%s' % rnd.choice(['eu', 'us']), 'billing_export'])
            js_req(s, f, '$JS.API.CONSUMER.DURABLE.CREATE.%s.%s' % (st, cname), {'stream_name': st, 'config': {'durable_name': cname,
                   'ack_policy': rnd.choice(['explicit', 'none', 'all']), 'deliver_policy': rnd.choice(['all', 'new', 'last']),
                   'max_deliver': rnd.choice([-1, 5]), 'ack_wait': 5000000000}}, sid)
        elif k < 0.78:
            js_req(s, f, '$JS.API.CONSUMER.DELETE.%s.%s' % (st, rnd.choice(['worker', 'audit-reader', 'ghost'])), None, sid)
        elif k < 0.88:
            js_req(s, f, '$JS.API.STREAM.DELETE.' + st, None, sid)
        elif k < 0.94:
            js_req(s, f, '$JS.API.INFO', None, sid)
        else:
            js_req(s, f, '$JS.API.STREAM.PURGE.' + st, {}, sid)
        sid += 1
        # publish a few messages into the stream subjects
        for _ in range(rnd.randint(0, 3)):
            sj = subjects[0].replace('>', '%s.%d' % (rnd.choice(['eu', 'us', 'cpu']), rnd.randint(1, 99)))
            s.sendall(('PUB %s 4\r\nping\r\n' % sj).encode())
    drain(s, 0.2); close(s)

def slow_consumer():
    u = 'kwame.asante'; sub, _ = conn(user=u, pw=USERS[u]); drain(sub)
    sub.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sj = 'orders.firehose.%d' % rnd.randint(1, 99)
    sub.sendall(('SUB %s 1\r\nPING\r\n' % sj).encode()); time.sleep(0.2)
    pub, _ = conn(user=u, pw=USERS[u]); drain(pub)
    blob = b'y' * 6000
    msg = ('PUB %s %d\r\n' % (sj, len(blob))).encode() + blob + b'\r\n'
    try:
        for i in range(400):
            pub.sendall(msg)
            if i % 50 == 0: drain(pub, 0.01)
    except Exception: pass
    time.sleep(3); close(pub); close(sub)

def stale():
    u = rnd.choice(['oliver', 'priya.nair', 'svc_invoicer']); s, f = conn(user=u, pw=USERS[u], name='stale-%d' % rnd.randint(1, 99))
    s.sendall(b'SUB logs.quiet 1\r\n'); time.sleep(11); close(s)

def flood_conns():
    socks = []
    node = rnd.choice(alive)
    for i in range(60):
        try:
            s, f = conn(node=node, user='oliver', pw=USERS['oliver'], name='pool-%d' % i); socks.append(s)
        except Exception: pass
    time.sleep(0.5)
    for s in socks: drain(s, 0.01); close(s)

if phase == 'main':
    ths = [threading.Thread(target=stale) for _ in range(3)]
    for t in ths: t.start()
    for i in range(N):
        k = rnd.random()
        try:
            if k < 0.45: session_good()
            elif k < 0.8: session_bad()
            else: session_js()
        except Exception as e:
            pass
        if i % 90 == 45:
            try: slow_consumer()
            except Exception: pass
        if i % 120 == 60:
            try: flood_conns()
            except Exception: pass
        time.sleep(0.02)
    for t in ths: t.join()
elif phase == 'sys':
    s, f = conn(user='sysop', pw=USERS['sysop'])
    drain(s)
    for sj in ['$SYS.REQ.SERVER.PING', '$SYS.REQ.SERVER.PING.VARZ', '$SYS.REQ.ACCOUNT.ORDERS.CONNZ', '$SYS.REQ.SERVER.PING.JSZ']:
        js_req(s, f, sj, {}, 1)
    close(s)
PYEOF
}

drive main 11 140
drive sys 1 0
# node 1: reload into debug + trace
mkconf 1 true true 8192 ""; kill -HUP $N1; sleep 1
drive main 12 160
drive sys 2 0
# route goes away: stop node 3 gracefully, drive while it is down, restart
stoppid $N3; sleep 2
drive main 13 60 1 2
start 3; waitport ${CP[3]}; sleep 4
# reload with a bad config (syntax error), then a non-reloadable change, then a good one (smaller payload)
cp $D/n1.conf $D/n1.good; printf 'max_payload: = oops {\n' >> $D/n1.conf; kill -HUP $N1; sleep 1
cp $D/n1.good $D/n1.conf; sed -i 's/"127.0.0.1:23622"/"127.0.0.1:23625"/' $D/n1.conf; kill -HUP $N1; sleep 1
mkconf 1 true true 4096 "max_subscriptions: 20"; kill -HUP $N1; sleep 1
drive main 14 70
# node 2 killed hard and restarted
kill -9 $N2; sleep 3
drive main 15 50 1 3
start 2; waitport ${CP[2]}; sleep 5
mkconf 2 false false 8192 ""; kill -HUP $N2; sleep 1
# node 1 back to info
mkconf 1 false false 8192 ""; kill -HUP $N1; sleep 1
drive main 16 100
# lame duck mode on node 3, then plain stops
nats-server --signal ldm=$N3 >/dev/null 2>&1; sleep 5
stoppid $N3; stoppid $N2; stoppid $N1
cat $D/n1.log $D/n2.log $D/n3.log > $RAW/NATS.log
wc -l $RAW/NATS.log
