#!/bin/bash
# RabbitMQ 3.10 (Erlang 25): one node run by hand; users/vhosts/permissions/policies via rabbitmqctl,
# ~300 pika AMQP sessions (good and wrong passwords, unknown vhosts, permission denials, channel errors,
# abrupt disconnects, missed heartbeats, garbage handshakes), management HTTP API with bad credentials,
# resource alarms, debug log level for a while, stop_app/start_app, a node restart.
. "$(dirname "$0")/common.sh"
D=$W/rabbitmq; rm -rf $D; mkdir -p $D/log $D/mnesia
cat > $D/env.sh <<EOF
export HOME=$D
export RABBITMQ_NODENAME=tuner@localhost
export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
export RABBITMQ_NODE_PORT=24672
export RABBITMQ_DIST_PORT=24673
export ERL_EPMD_PORT=24369
export ERL_EPMD_ADDRESS=127.0.0.1
export RABBITMQ_CONFIG_FILE=$D/rabbitmq.conf
export RABBITMQ_ADVANCED_CONFIG_FILE=$D/advanced.config
export RABBITMQ_MNESIA_BASE=$D/mnesia
export RABBITMQ_LOG_BASE=$D/log
export RABBITMQ_LOGS=$D/log/rabbit.log
export RABBITMQ_ENABLED_PLUGINS_FILE=$D/enabled_plugins
export RABBITMQ_PID_FILE=$D/rabbit.pid
export RABBITMQ_CONF_ENV_FILE=$D/rabbitmq-env.conf
EOF
touch $D/rabbitmq-env.conf
cat > $D/rabbitmq.conf <<'EOF'
listeners.tcp.default = 127.0.0.1:24672
log.file.level = info
log.console = false
management.tcp.port = 24675
management.tcp.ip = 127.0.0.1
loopback_users = none
handshake_timeout = 3000
heartbeat = 30
default_user = guest
default_pass = guest
EOF
echo '[rabbitmq_management].' > $D/enabled_plugins
. $D/env.sh
startnode() { /usr/lib/rabbitmq/bin/rabbitmq-server >> $D/stdout.txt 2>&1 & RPID=$!; waitport 24672; sleep 2; }
startnode
$PY - <<'PYEOF'
import random, socket, subprocess, sys, threading, time, urllib.request, base64, json
import pika
rnd = random.Random(11)
D = '/tmp/tuning-work/rabbitmq'
PORT = 24672
def ctl(*a, timeout=60):
    try: return subprocess.run(['/usr/lib/rabbitmq/bin/rabbitmqctl'] + list(a), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout).returncode
    except subprocess.TimeoutExpired: return -1

# source addresses over 127.0.0.0/22
SRC = [None]
_S = socket.socket
class BoundSocket(_S):
    def _b(self):
        if self.family == socket.AF_INET and SRC[0] and self.getsockname()[1] == 0:
            try: self.bind((SRC[0], 0))
            except OSError: pass
    def connect(self, a): self._b(); return super().connect(a)
    def connect_ex(self, a): self._b(); return super().connect_ex(a)
socket.socket = BoundSocket
def newsrc(): SRC[0] = '127.0.%d.%d' % (rnd.randint(0, 3), rnd.randint(1, 254))

first = ['olivia', 'liam', 'priya', 'mateo', 'chen', 'fatima', 'jonas', 'amara', 'noah', 'sofia', 'kenji', 'elena', 'ravi', 'ingrid', 'diego', 'hannah', 'yusuf', 'clara']
last = ['martin', 'nguyen', 'kowalski', 'silva', 'okafor', 'berg', 'rossi', 'tanaka', 'dubois', 'schmidt']
svc = ['svc-billing', 'svc_orders', 'etl-runner', 'reporting', 'inventory-sync', 'mailer', 'webhook-relay', 'fraud.scoring', 'ci-bot', 'grafana-agent']
users = {}
for i in range(16):
    f = rnd.choice(first)
    u = rnd.choice(['%s.%s' % (f, rnd.choice(last)), f, '%s%s' % (f[0], rnd.choice(last)), '%s_%d' % (f, rnd.randint(1, 99))])
    users[u] = 'pw-%06x' % rnd.randint(0, 1 << 24)
for s in svc: users[s] = 'S3cr3t-%04d' % rnd.randint(0, 9999)
vhosts = ['/', 'orders', 'billing-prod', 'analytics', 'iot.devices', 'staging', 'payments_eu', 'crm', 'logistics-us-east', 'dev-sandbox']
for v in vhosts[1:]: ctl('add_vhost', v)
ulist = list(users)
for u in ulist:
    ctl('add_user', u, users[u])
    if rnd.random() < 0.3: ctl('set_user_tags', u, rnd.choice(['monitoring', 'management', 'administrator', 'policymaker']))
perm = {}
for u in ulist:
    for v in rnd.sample(vhosts, rnd.randint(1, 4)):
        conf = rnd.choice(['.*', '.*', '^%s\\..*' % u.split('.')[0], '^$', '^(amq\\.gen.*|tmp\\..*)$'])
        wr = rnd.choice(['.*', '.*', '^$', '^events.*'])
        rd = rnd.choice(['.*', '.*', '^$'])
        ctl('set_permissions', '-p', v, u, conf, wr, rd)
        perm.setdefault(u, []).append(v)
ctl('set_permissions', '-p', '/', 'guest', '.*', '.*', '.*')
for v in vhosts[1:]: ctl('set_permissions', '-p', v, 'guest', '.*', '.*', '.*')
ctl('add_user', ulist[0], 'again')            # already exists
ctl('set_permissions', '-p', 'no-such-vhost', ulist[1], '.*', '.*', '.*')
ctl('change_password', ulist[2], 'rotated-pass'); users[ulist[2]] = 'rotated-pass'
ctl('set_policy', '-p', 'orders', 'ttl-orders', '^orders\\.', '{"message-ttl":60000}', '--apply-to', 'queues')
ctl('set_policy', '-p', 'analytics', 'cap-len', '^metrics', '{"max-length":50,"overflow":"reject-publish"}', '--apply-to', 'queues')
ctl('set_policy', 'lazy-all', '^lazy', '{"queue-mode":"lazy"}', '--priority', '3')
ctl('set_policy', '-p', 'crm', 'expire', '.*', '{"expires":4000}')
ctl('set_policy', 'broken', '.*', '{"no-such-key":1}')
ctl('set_vhost_limits', '-p', 'dev-sandbox', '{"max-connections": 2, "max-queues": 3}')
ctl('set_user_limits', ulist[3], '{"max-connections": 1}')

words = ['orders', 'invoices', 'email', 'sms', 'audit', 'metrics', 'shipments', 'payments', 'refunds', 'telemetry', 'thumbnails', 'search-index', 'notifications', 'lazy-reports', 'tmp']
def qname():
    w = rnd.choice(words)
    return rnd.choice([w, '%s.%s' % (w, rnd.choice(['created', 'retry', 'dlq', 'eu', 'v2', 'high', 'batch'])), '%s-%d' % (w, rnd.randint(1, 40)), '%s_%s' % (rnd.choice(first), w)])
def xname():
    return rnd.choice(['events', 'billing.topic', 'audit-fanout', 'orders.direct', 'telemetry_headers', 'amq.topic', 'amq.fanout', 'dlx', 'notify-%d' % rnd.randint(1, 9)])

def params(u, pw, v, **k):
    cp = {'connection_name': rnd.choice(['%s@%s' % (rnd.choice(['worker', 'api', 'cron', 'consumer', 'publisher']), rnd.choice(['web-01', 'web-02', 'batch-7', 'k8s-node-3', 'laptop-ines', 'edge-fra1'])), '%s-%d' % (u, rnd.randint(1, 999)), 'pid-%d' % rnd.randint(1000, 60000)])}
    return pika.ConnectionParameters('127.0.0.1', PORT, v, pika.PlainCredentials(u, pw), client_properties=cp, connection_attempts=1, socket_timeout=5, blocked_connection_timeout=5, **k)

def session(i):
    newsrc()
    u = rnd.choice(ulist + ['guest', 'guest'])
    pw = users.get(u, 'guest')
    r = rnd.random()
    v = rnd.choice(perm.get(u, ['/'])) if u != 'guest' else rnd.choice(vhosts)
    if r < 0.08: pw = rnd.choice(['wrong', 'hunter2', 'Password1', ''])
    elif r < 0.12: u = rnd.choice(['admin', 'root', 'test', 'deploy', 'nagios', 'backup_%d' % rnd.randint(1, 9)]); pw = 'x'
    elif r < 0.17: v = rnd.choice(['ordres', 'prod', 'billing', 'qa-%d' % rnd.randint(1, 5), 'legacy'])
    elif r < 0.22 and u != 'guest': v = rnd.choice([x for x in vhosts if x not in perm.get(u, [])] or ['/'])
    try:
        c = pika.BlockingConnection(params(u, pw, v))
    except Exception:
        return
    try:
        ch = c.channel()
        act = rnd.random()
        q = qname()
        if act < 0.45:
            ex = xname()
            try:
                if not ex.startswith('amq.'):
                    ch.exchange_declare(ex, exchange_type=rnd.choice(['topic', 'direct', 'fanout']) if ex != 'telemetry_headers' else 'headers', durable=rnd.random() < 0.5)
                args = {}
                if rnd.random() < 0.3: args['x-max-length'] = rnd.choice([10, 100, 1000])
                if rnd.random() < 0.2: args['x-message-ttl'] = rnd.choice([5000, 60000])
                if rnd.random() < 0.06: args['x-queue-type'] = 'quorum'
                ch.queue_declare(q, durable=('x-queue-type' in args) or rnd.random() < 0.5, arguments=args)
                ch.queue_bind(q, ex, routing_key=q)
                for j in range(rnd.randint(1, 20)):
                    ch.basic_publish(ex, q, ('{"id":%d}' % j).encode())
                if rnd.random() < 0.5:
                    for j in range(rnd.randint(1, 5)): ch.basic_get(q, auto_ack=True)
            except Exception:
                pass
        elif act < 0.6:
            # same queue re-declared with different arguments -> PRECONDITION_FAILED
            try:
                ch.queue_declare(q, durable=True, arguments={'x-max-length': 10})
                ch.queue_declare(q, durable=True, arguments={'x-max-length': rnd.choice([20, 500])})
            except Exception: pass
        elif act < 0.7:
            try: ch.basic_publish(rnd.choice(['nonexistent', 'legacy.events', 'billing-v1', 'tmp-%d' % rnd.randint(1, 99)]), 'k', b'x'); ch.queue_declare('', exclusive=True)
            except Exception: pass
        elif act < 0.76:
            try: ch.queue_declare(rnd.choice(['amq.reserved', 'amq.%s' % q]))
            except Exception: pass
        elif act < 0.82:
            try: ch.exchange_declare(rnd.choice(['amq.direct', 'amq.topic']), exchange_type='fanout')
            except Exception: pass
        elif act < 0.86:
            try: ch.queue_delete('missing-%s' % q); ch.basic_consume('no-such-%s' % q, lambda *a: None)
            except Exception: pass
        elif act < 0.9:
            try: ch.basic_ack(delivery_tag=rnd.randint(5, 500)); ch.queue_declare('', exclusive=True)
            except Exception: pass
        elif act < 0.94:
            try:
                ch.queue_declare(q)
                ch.basic_consume(q, lambda *a: None)
                c.process_data_events(0.2)
                ch.queue_delete(q)
            except Exception: pass
        else:
            try: ch.exchange_delete(rnd.choice(['events', 'ghost-exchange', 'dlx'])); ch.queue_purge(q)
            except Exception: pass
        if rnd.random() < 0.15:
            sock = c._impl._transport._sock
            sock.shutdown(socket.SHUT_RDWR); sock.close()
            return
        try: c.close()
        except Exception: pass
    except Exception:
        pass

def garbage():
    newsrc()
    s = socket.socket(); s.settimeout(6)
    try:
        s.connect(('127.0.0.1', PORT))
        k = rnd.random()
        if k < 0.3: s.sendall(b'GET / HTTP/1.1\r\nHost: mq\r\n\r\n')
        elif k < 0.5: s.sendall(b'AMQP\x01\x01\x00\x09')
        elif k < 0.7: s.sendall(b'AMQP\x00\x00\x09\x01' + b'\xff' * 20)
        elif k < 0.85: time.sleep(4)   # handshake timeout
        s.recv(100)
    except Exception: pass
    s.close()

def heartbeat_victims(n):
    cs = []
    for i in range(n):
        newsrc()
        u = rnd.choice(ulist); v = perm[u][0]
        try: cs.append(pika.BlockingConnection(params(u, users[u], v, heartbeat=2)))
        except Exception: pass
    time.sleep(9)
    for c in cs:
        try: c.close()
        except Exception: pass

def http(user, pw, path, method='GET', body=None):
    req = urllib.request.Request('http://127.0.0.1:24675' + path, method=method, data=body)
    req.add_header('Authorization', 'Basic ' + base64.b64encode(('%s:%s' % (user, pw)).encode()).decode())
    if body: req.add_header('content-type', 'application/json')
    try: urllib.request.urlopen(req, timeout=5).read()
    except Exception: pass

for i in range(120):
    session(i)
    if i % 15 == 0: garbage()
    if i % 20 == 5: http(rnd.choice(ulist + ['admin', 'guest']), rnd.choice(['nope', 'guest']), rnd.choice(['/api/overview', '/api/queues', '/api/users', '/api/vhosts/%2F']))
heartbeat_victims(4)
# debug log level for a while
ctl('set_log_level', 'debug')
for i in range(60):
    session(i)
    if i % 12 == 0: garbage()
    if i % 10 == 3: http(rnd.choice(ulist), 'wrong', '/api/connections')
ctl('set_log_level', 'info')
# resource alarms
ctl('set_vm_memory_high_watermark', '0.00001')
for i in range(4): session(i)
time.sleep(2)
ctl('set_vm_memory_high_watermark', '0.4')
ctl('set_disk_free_limit', '100000GB')
time.sleep(12)
ctl('set_disk_free_limit', '50MB')
time.sleep(12)
# admin actions with clients connected
keep = []
for i in range(5):
    newsrc(); u = rnd.choice(ulist)
    try: keep.append(pika.BlockingConnection(params(u, users[u], perm[u][0])))
    except Exception: pass
out = subprocess.run(['/usr/lib/rabbitmq/bin/rabbitmqctl', 'list_connections', '-q', 'pid'], capture_output=True, text=True).stdout.split()
for p in out[:3]: ctl('close_connection', p, rnd.choice(['maintenance window', 'rotating credentials', 'kicked by ops']))
for u in rnd.sample(ulist, 3): ctl('clear_permissions', '-p', perm[u][0], u)
for u in rnd.sample(ulist, 2): ctl('delete_user', u)
ctl('delete_user', 'nobody-%d' % rnd.randint(1, 99))
ctl('clear_policy', 'lazy-all'); ctl('clear_policy', '-p', 'orders', 'ttl-orders')
ctl('trace_on', '-p', 'orders'); ctl('trace_off', '-p', 'orders')
ctl('delete_vhost', 'staging'); ctl('delete_vhost', 'dev-sandbox')
for c in keep:
    try: c.close()
    except Exception: pass
for i in range(40): session(i)
ctl('stop_app'); time.sleep(1); ctl('start_app')
for i in range(40):
    session(i)
    if i % 10 == 0: garbage()
for i in range(5): newsrc(); http('guest', 'guest', '/api/queues/orders/' + qname(), 'DELETE')
ctl('add_vhost', 'reporting-%d' % rnd.randint(10, 99))
PYEOF
/usr/lib/rabbitmq/bin/rabbitmqctl stop >/dev/null 2>&1; stoppid $RPID
startnode
$PY - <<'PYEOF'
import pika, random
rnd = random.Random(5)
for i in range(30):
    try:
        c = pika.BlockingConnection(pika.ConnectionParameters('127.0.0.1', 24672, '/', pika.PlainCredentials('guest', rnd.choice(['guest', 'guest', 'bad'])), connection_attempts=1))
        ch = c.channel(); q = 'after-restart-%d' % rnd.randint(1, 9)
        ch.queue_declare(q, durable=True); ch.basic_publish('', q, b'x'); c.close()
    except Exception: pass
PYEOF
/usr/lib/rabbitmq/bin/rabbitmqctl stop >/dev/null 2>&1; stoppid $RPID
/usr/lib/erlang/bin/epmd -port 24369 -kill >/dev/null 2>&1   # the epmd our node started on its own port
cp $D/log/rabbit.log $RAW/RabbitMQ.log; wc -l $RAW/RabbitMQ.log
