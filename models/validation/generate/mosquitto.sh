#!/bin/bash
# Mosquitto 2.0 (log_type all): many clients with varied ids/QoS/retain/will, auth failures,
# ACL denials, client-id takeover, keepalive timeouts, config reload.
. "$(dirname "$0")/common.sh"
D=$W/mosquitto; rm -rf $D; mkdir -p $D; chown mosquitto: $D 2>/dev/null || true
for u in alice bob sensor1 sensor2 admin; do mosquitto_passwd -b -c $D/pw.tmp $u pw-$u >/dev/null 2>&1; cat $D/pw.tmp >> $D/passwd; done; rm -f $D/pw.tmp
cat > $D/acl <<'CONF'
user admin
topic readwrite #
pattern readwrite sensors/%u/#
user alice
topic read sensors/#
topic readwrite chat/#
user bob
topic readwrite chat/#
CONF
cat > $D/m.conf <<CONF
pid_file $D/m.pid
user root
log_dest file $D/mosquitto.log
log_type all
log_timestamp true
log_timestamp_format %Y-%m-%dT%H:%M:%S
connection_messages true
per_listener_settings false
allow_anonymous false
password_file $D/passwd
acl_file $D/acl
persistence true
persistence_location $D/
autosave_interval 10
max_keepalive 60
listener 11883 127.0.0.1
listener 11884 127.0.0.1
protocol websockets
CONF
mosquitto -c $D/m.conf & MQ=$!
waitport 11883
$PY - <<'PYEOF'
import random, subprocess, time
rnd = random.Random(4)
users = ['alice', 'bob', 'sensor1', 'sensor2', 'admin', 'ghost']
procs = []
for i in range(260):
    u = rnd.choice(users)
    pw = 'pw-' + u if rnd.random() < 0.88 else 'wrong'
    cid = rnd.choice(['%s-%04x' % (u, rnd.randint(0, 65535)), 'dev%d' % rnd.randint(1, 30), 'app-%d' % rnd.randint(100, 999), 'shared-id'])
    topic = rnd.choice(['sensors/%s/temp' % u, 'sensors/%s/hum' % u, 'chat/room%d' % rnd.randint(1, 5), 'admin/cmd', '$SYS/x', 'sensors/sensor1/temp'])
    q = str(rnd.choice([0, 0, 1, 2]))
    base = ['-p', '11883', '-u', u, '-P', pw, '-i', cid, '-q', q]
    if rnd.random() < 0.2: base += ['-V', rnd.choice(['mqttv31', 'mqttv311', 'mqttv5'])]
    if rnd.random() < 0.15: base += ['--will-topic', 'status/%s' % cid, '--will-payload', 'gone']
    if rnd.random() < 0.1: base += ['-c']
    if rnd.random() < 0.7:
        args = ['mosquitto_pub'] + base + ['-t', topic, '-m', '%.2f' % rnd.uniform(-10, 40)]
        if rnd.random() < 0.1: args.append('-r')
        if rnd.random() < 0.1: args = ['mosquitto_pub'] + base + ['-t', topic, '-l']
        try: subprocess.run(args, input=b'a\nb\n', stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5)
        except subprocess.TimeoutExpired: pass
    else:
        args = ['mosquitto_sub'] + base + ['-t', topic, '-C', str(rnd.randint(1, 3)), '-W', str(rnd.randint(1, 3))]
        procs.append(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    if i % 40 == 0:
        # a client that connects with a short keepalive and is then frozen (SIGSTOP) so the broker times it out
        p = subprocess.Popen(['mosquitto_sub', '-p', '11883', '-u', 'bob', '-P', 'pw-bob', '-i', 'frozen-%d' % i, '-k', '5', '-t', 'chat/#'],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5); p.send_signal(19); procs.append(p)
    time.sleep(0.05)
time.sleep(9)
for p in procs:
    try: p.kill(); p.wait()
    except Exception: pass
PYEOF
kill -HUP $MQ; sleep 1
for i in 1 2 3; do mosquitto_sub -p 11884 -u alice -P pw-alice -t 'chat/#' -C 1 -W 1 >/dev/null 2>&1; done
mosquitto_pub -p 11883 -u admin -P pw-admin -t 'x' -m y -i 'toolong-'$(printf 'x%.0s' $(seq 1 70)) >/dev/null 2>&1
stoppid $MQ
cp $D/mosquitto.log $RAW/Mosquitto.log; wc -l $RAW/Mosquitto.log
