#!/bin/bash
# ActiveMQ 5.17 (Debian build: slf4j-log4j12 + log4j 1.2, upstream's "%d | %-5p | %m | %c | %t%n" layout):
# broker run by hand with simple authentication + authorization, openwire/stomp connectors; ~500 STOMP
# sessions over plain sockets (good and bad credentials, sends/subscribes on varied queues and topics,
# durable subscriptions, transactions, acks, unsubscribes, protocol errors, abrupt disconnects,
# duplicate client ids, advisory topics, heart-beat timeouts, 4 kB floods to a 256 kB-limited queue), DEBUG for some
# loggers in the second run, two failed starts (port clash, a transport scheme this build lacks), five broker starts.
. "$(dirname "$0")/common.sh"
D=$W/activemq; rm -rf $D; mkdir -p $D/conf $D/data $D/tmp
users="admin:adminpw:admins,users olivia.chen:pw-oc1:users,billing svc-orders:so-9912:users svc_billing:sb-4410:billing etl-runner:etl-77:users,analytics mateo:mateo-pw:users priya.nair:pn-332:users,billing grafana-agent:ga-55:analytics kenji_t:kt-0:users ingrid.berg:ib-8:billing webhook-relay:wr-31:users ci-bot:cib-2:users fatima.o:fo-19:analytics,users"
{
echo '<beans xmlns="http://www.springframework.org/schema/beans" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
echo '  xsi:schemaLocation="http://www.springframework.org/schema/beans http://www.springframework.org/schema/beans/spring-beans-2.0.xsd http://activemq.apache.org/schema/core http://activemq.apache.org/schema/core/activemq-core.xsd">'
echo '  <bean class="org.springframework.beans.factory.config.PropertyPlaceholderConfigurer"/>'
echo '  <broker xmlns="http://activemq.apache.org/schema/core" useJmx="false" brokerName="tuner-broker" dataDirectory="${activemq.data}" schedulePeriodForDestinationPurge="3000">'
echo '    <destinationPolicy><policyMap><policyEntries>'
echo '      <policyEntry topic=">" advisoryForConsumed="true" advisoryForDelivery="true" advisoryForSlowConsumers="true" advisoryForDiscardingMessages="true"/>'
echo '      <policyEntry queue=">" gcInactiveDestinations="true" inactiveTimoutBeforeGC="6000" advisoryWhenFull="true" advisoryForFastProducers="true"/>'
echo '      <policyEntry queue="bulk.>" memoryLimit="256kb" producerFlowControl="true" gcInactiveDestinations="false"/>'
echo '    </policyEntries></policyMap></destinationPolicy>'
echo '    <persistenceAdapter><kahaDB directory="${activemq.data}/kahadb" journalMaxFileLength="512kb" checkpointInterval="2000" cleanupInterval="4000"/></persistenceAdapter>'
echo '    <plugins>'
echo '      <simpleAuthenticationPlugin anonymousAccessAllowed="false"><users>'
for u in $users; do IFS=: read n p g <<< "$u"; echo "        <authenticationUser username=\"$n\" password=\"$p\" groups=\"$g\"/>"; done
echo '      </users></simpleAuthenticationPlugin>'
echo '      <authorizationPlugin><map><authorizationMap><authorizationEntries>'
echo '        <authorizationEntry queue=">" read="admins" write="admins" admin="admins"/>'
echo '        <authorizationEntry queue="orders.>" read="users" write="users" admin="users"/>'
echo '        <authorizationEntry queue="bulk.>" read="users" write="users" admin="users"/>'
echo '        <authorizationEntry queue="billing.>" read="billing" write="billing" admin="billing"/>'
echo '        <authorizationEntry queue="metrics.>" read="analytics" write="analytics,users" admin="analytics,users"/>'
echo '        <authorizationEntry topic=">" read="admins" write="admins" admin="admins"/>'
echo '        <authorizationEntry topic="events.>" read="users,analytics" write="users" admin="users,analytics"/>'
echo '        <authorizationEntry topic="ActiveMQ.Advisory.>" read="admins,users,billing,analytics" write="admins,users,billing,analytics" admin="admins,users,billing,analytics"/>'
echo '      </authorizationEntries></authorizationMap></map></authorizationPlugin>'
echo '    </plugins>'
echo '    <systemUsage><systemUsage sendFailIfNoSpaceAfterTimeout="2000">'
echo '      <memoryUsage><memoryUsage limit="32 mb"/></memoryUsage><storeUsage><storeUsage limit="1 gb"/></storeUsage><tempUsage><tempUsage limit="256 mb"/></tempUsage>'
echo '    </systemUsage></systemUsage>'
echo '    <transportConnectors>'
echo '      <transportConnector name="openwire" uri="tcp://127.0.0.1:24616?maximumConnections=1000"/>'
echo '      <transportConnector name="stomp" uri="stomp://127.0.0.1:24613?maximumConnections=40"/>'
echo '      PORTCLASH'
echo '    </transportConnectors>'
echo '  </broker>'
echo '</beans>'
} > $D/conf/activemq.tmpl
sed 's/PORTCLASH//' $D/conf/activemq.tmpl > $D/conf/activemq.xml
mklog() { cat > $D/conf/log4j.properties <<EOF
log4j.rootLogger=INFO, logfile
log4j.logger.org.apache.activemq.spring=WARN
log4j.logger.org.apache.activemq.web.handler=WARN
log4j.logger.org.springframework=WARN
log4j.logger.org.apache.xbean=WARN
log4j.logger.org.eclipse.jetty=WARN
$1
log4j.appender.logfile=org.apache.log4j.RollingFileAppender
log4j.appender.logfile.file=\${activemq.data}/activemq.log
log4j.appender.logfile.maxFileSize=200MB
log4j.appender.logfile.append=true
log4j.appender.logfile.layout=org.apache.log4j.PatternLayout
log4j.appender.logfile.layout.ConversionPattern=%d | %-5p | %m | %c | %t%n
EOF
}
startamq() {
  (cd $D && exec java -Xms128M -Xmx256M --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.util=ALL-UNNAMED \
    --add-opens java.base/java.net=ALL-UNNAMED -Dactivemq.classpath=$D/conf -Dactivemq.home=/usr/share/activemq -Dactivemq.base=$D \
    -Dactivemq.conf=$D/conf -Dactivemq.data=$D/data -Djava.io.tmpdir=$D/tmp -Dlog4j.configuration=file:$D/conf/log4j.properties \
    -jar /usr/share/activemq/bin/activemq.jar start xbean:file:$D/conf/$1 >> $D/stdout.txt 2>&1) & APID=$!
}
drive() { $PY $D/stomp_drive.py "$@"; }
cat > $D/stomp_drive.py <<'PYEOF'
import random, socket, sys, time
seed, nsess = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed)
USERS = {'admin': 'adminpw', 'olivia.chen': 'pw-oc1', 'svc-orders': 'so-9912', 'svc_billing': 'sb-4410', 'etl-runner': 'etl-77',
         'mateo': 'mateo-pw', 'priya.nair': 'pn-332', 'grafana-agent': 'ga-55', 'kenji_t': 'kt-0', 'ingrid.berg': 'ib-8',
         'webhook-relay': 'wr-31', 'ci-bot': 'cib-2', 'fatima.o': 'fo-19'}
UL = list(USERS)
def src(): return '127.0.%d.%d' % (rnd.randint(0, 3), rnd.randint(1, 254))
def frame(cmd, hdr, body=''):
    return (cmd + '\n' + ''.join('%s:%s\n' % kv for kv in hdr.items()) + '\n' + body + '\x00').encode()
class Conn:
    def __init__(self, s): self.s = s
    def send(self, cmd, hdr=None, body=''): self.s.sendall(frame(cmd, hdr or {}, body))
    def read(self, t=0.3):
        self.s.settimeout(t); out = b''
        try:
            while True:
                d = self.s.recv(65536)
                if not d: break
                out += d
        except Exception: pass
        return out
def connect(user=None, pw=None, extra=None, hb=None):
    s = socket.socket(); s.bind((src(), 0)); s.settimeout(5); s.connect(('127.0.0.1', 24613))
    c = Conn(s); h = {'accept-version': rnd.choice(['1.0,1.1,1.2', '1.1', '1.2']), 'host': rnd.choice(['tuner-broker', 'localhost', 'mq.internal'])}
    if user is not None: h['login'] = user; h['passcode'] = pw
    if hb: h['heart-beat'] = hb
    if extra: h.update(extra)
    c.send('CONNECT', h); r = c.read(0.5)
    return c, r
words = ['created', 'updated', 'cancelled', 'refund', 'retry', 'eu-west', 'us-east', 'priority', 'batch', 'v2']
def qn():
    return rnd.choice(['orders.%s' % rnd.choice(words), 'orders.%s.%d' % (rnd.choice(words), rnd.randint(1, 30)), 'billing.invoices.%s' % rnd.choice(words),
                       'billing.%s' % rnd.choice(['payouts', 'ledger', 'dunning']), 'metrics.%s' % rnd.choice(['cpu', 'disk', 'latency', 'jvm']),
                       'bulk.%s' % rnd.choice(['import', 'export']), 'legacy.%s' % rnd.choice(['crm', 'erp', 'fax']), 'tmp-%04x' % rnd.randint(0, 65535),
                       'mail.outbound', 'sms_gateway'])
def tn():
    return rnd.choice(['events.%s' % rnd.choice(['user.signup', 'user.login', 'cart.updated', 'price.changed', 'stock.%s' % rnd.choice(words)]),
                       'events.audit.%s' % rnd.choice(['eu', 'us', 'apac']), 'alerts.%s' % rnd.choice(['pager', 'slack', 'ops']), 'news.%s' % rnd.choice(['sport', 'tech']),
                       'ActiveMQ.Advisory.Connection', 'ActiveMQ.Advisory.Queue', 'ActiveMQ.Advisory.Consumer.Queue.orders.>',
                       'ActiveMQ.Advisory.Producer.Topic.events.>', 'ActiveMQ.Advisory.Topic'])
def dest():
    return '/queue/' + qn() if rnd.random() < 0.6 else '/topic/' + tn()
def session(i):
    r = rnd.random()
    u = rnd.choice(UL); pw = USERS[u]
    if r < 0.1: pw = rnd.choice(['wrong', 'Summer2024!', '', 'letmein'])
    elif r < 0.15: u = rnd.choice(['root', 'guest', 'test', 'nagios', 'jenkins', 'deploy-%d' % rnd.randint(1, 9)]); pw = 'x'
    elif r < 0.18: u = None
    try:
        c, resp = connect(u, pw, extra={'client-id': '%s-%d' % (rnd.choice(['web', 'worker', 'sync', 'ingest']), rnd.randint(1, 40))} if rnd.random() < 0.3 else None)
    except Exception: return
    try:
        if b'CONNECTED' not in resp:
            c.s.close(); return
        a = rnd.random()
        if a < 0.4:
            d = dest()
            tx = rnd.random() < 0.2
            if tx: c.send('BEGIN', {'transaction': 'tx-%d' % i})
            for j in range(rnd.randint(1, 8)):
                h = {'destination': d, 'content-type': 'application/json', 'receipt': 'r%d' % j}
                if rnd.random() < 0.3: h['persistent'] = 'true'
                if rnd.random() < 0.15: h['expires'] = str(int(time.time() * 1000) + 500)
                if tx: h['transaction'] = 'tx-%d' % i
                c.send('SEND', h, '{"n":%d,"user":"%s"}' % (j, u))
            if tx: c.send(rnd.choice(['COMMIT', 'COMMIT', 'ABORT']), {'transaction': 'tx-%d' % i})
            c.read(0.2)
        elif a < 0.65:
            d = dest(); sid = 'sub-%d' % rnd.randint(1, 999)
            h = {'destination': d, 'id': sid, 'ack': rnd.choice(['auto', 'client', 'client-individual'])}
            if d.startswith('/topic/') and rnd.random() < 0.3:
                h['activemq.subscriptionName'] = 'durable-%s' % rnd.choice(['audit', 'billing', 'search', 'mobile'])
            if rnd.random() < 0.2: h['selector'] = rnd.choice(["region = 'eu'", 'priority > 4', "type IN ('a','b')", 'bad selector ((('])
            c.send('SUBSCRIBE', h); r = c.read(0.4)
            if rnd.random() < 0.6: c.send('UNSUBSCRIBE', {'id': sid})
            if rnd.random() < 0.2: c.send('UNSUBSCRIBE', {'id': 'nope-%d' % rnd.randint(1, 99)})
        elif a < 0.72:
            c.send(rnd.choice(['COMMIT', 'ABORT']), {'transaction': 'tx-ghost-%d' % rnd.randint(1, 999)})
        elif a < 0.78:
            c.send('ACK', {'message-id': 'ID:ghost-%d' % rnd.randint(1, 99999), 'subscription': 'sub-%d' % rnd.randint(1, 9), 'id': 'x%d' % i})
        elif a < 0.84:
            c.send(rnd.choice(['PUBLISH', 'GARBAGE', 'HELLO', 'DELETE']), {'destination': dest()})
        elif a < 0.88:
            c.send('SEND', {'content-type': 'text/plain'}, 'no destination')
        elif a < 0.92:
            c.send('SUBSCRIBE', {'destination': '/queue/%s' % qn(), 'ack': 'sideways'})
        elif a < 0.95:
            c.send('SEND', {'destination': '/%s/%s' % (rnd.choice(['bogus', 'temp-queue', 'q']), qn())}, 'x')
        c.read(0.2)
        if rnd.random() < 0.2:
            c.s.close(); return        # abrupt
        c.send('DISCONNECT', {'receipt': 'bye'}); c.read(0.2)
    except Exception: pass
    try: c.s.close()
    except Exception: pass
def garbage():
    s = socket.socket(); s.bind((src(), 0)); s.settimeout(3)
    try:
        s.connect(('127.0.0.1', rnd.choice([24613, 24613, 24616])))
        s.sendall(rnd.choice([b'GET / HTTP/1.1\r\nHost: x\r\n\r\n', b'\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03', b'CONNECT\nlogin:a\n', b'\x00\x00\x00\x05hello']))
        s.recv(100)
    except Exception: pass
    s.close()
def dup_client():
    cid = 'singleton-%s' % rnd.choice(['pricing', 'scheduler', 'leader'])
    u = rnd.choice(UL)
    try:
        a, _ = connect(u, USERS[u], extra={'client-id': cid}); b, _ = connect(u, USERS[u], extra={'client-id': cid})
        a.send('DISCONNECT'); a.s.close(); b.s.close()
    except Exception: pass
def heartbeat_victims(n):
    cs = []
    for i in range(n):
        u = rnd.choice(UL)
        try: c, _ = connect(u, USERS[u], hb='1000,1000'); cs.append(c)
        except Exception: pass
    time.sleep(6)
    for c in cs: c.s.close()
def flood():
    u = 'svc-orders'
    try:
        c, _ = connect(u, USERS[u])
        d = '/queue/bulk.%s' % rnd.choice(['import', 'export'])
        for j in range(300):
            c.send('SEND', {'destination': d, 'persistent': 'false', 'receipt': 'f%d' % j}, 'x' * 4000)
        c.read(4)
        c.s.close()
    except Exception: pass
def too_many():
    cs = []
    for i in range(45):
        try: s = socket.socket(); s.bind((src(), 0)); s.connect(('127.0.0.1', 24613)); cs.append(s)
        except Exception: pass
    time.sleep(1)
    for s in cs: s.close()
mode = sys.argv[3] if len(sys.argv) > 3 else 'main'
if mode == 'main':
    for i in range(nsess):
        session(i)
        if i % 25 == 0: garbage()
        if i % 60 == 10: dup_client()
        if i % 100 == 50: heartbeat_victims(3)
        if i % 150 == 70: flood()
        if i % 180 == 90: too_many()
        time.sleep(0.02)
PYEOF
# run 1: INFO
mklog ""
startamq activemq.xml; waitport 24613; sleep 1
drive 7 260
sleep 8   # inactive queues garbage-collected
stoppid $APID
# run 2: DEBUG for some loggers
mklog "log4j.logger.org.apache.activemq.broker=DEBUG
log4j.logger.org.apache.activemq.transport.stomp=DEBUG
log4j.logger.org.apache.activemq.transport.tcp=DEBUG
log4j.logger.org.apache.activemq.transport.AbstractInactivityMonitor=DEBUG
log4j.logger.org.apache.activemq.security=DEBUG
log4j.logger.org.apache.activemq.advisory=DEBUG
log4j.logger.org.apache.activemq.store.kahadb=DEBUG"
startamq activemq.xml; waitport 24613; sleep 1
drive 8 160
sleep 3
stoppid $APID
# run 3: port clash (a connector on a port already used by openwire) -> startup failure
mklog ""
sed 's#PORTCLASH#<transportConnector name="mqtt" uri="mqtt://127.0.0.1:24616"/>#' $D/conf/activemq.tmpl > $D/conf/clash.xml
startamq clash.xml; sleep 15; stoppid $APID
# run 4: a transport scheme this build lacks (amqp) -> startup failure
sed 's#PORTCLASH#<transportConnector name="amqp" uri="amqp://127.0.0.1:24672"/>#' $D/conf/activemq.tmpl > $D/conf/badproto.xml
startamq badproto.xml; sleep 12; stoppid $APID
# run 5: normal again (recovers the store), a few sessions
startamq activemq.xml; waitport 24613; sleep 1
drive 9 80
stoppid $APID
cp $D/data/activemq.log $RAW/ActiveMQ.log; wc -l $RAW/ActiveMQ.log
