#!/bin/bash
# memcached -vv (stderr): connections, commands, responses, errors, slab info at start.
. "$(dirname "$0")/common.sh"
D=$W/memcached; rm -rf $D; mkdir -p $D
memcached -u nobody -l 127.0.0.1 -p 11311 -U 0 -m 8 -c 64 -vv -o slab_reassign,slab_automove=1 > $D/mc.log 2>&1 & MC=$!
waitport 11311
$PY - <<'PYEOF'
import random, socket, time
rnd = random.Random(11)
def sess(cmds):
    s = socket.create_connection(('127.0.0.1', 11311)); s.settimeout(1)
    for c in cmds:
        s.sendall(c)
        try: s.recv(1 << 20)
        except Exception: pass
    if rnd.random() < 0.8: s.sendall(b'quit\r\n')
    s.close()
for i in range(450):
    cmds = []
    for _ in range(rnd.randint(1, 5)):
        k = ('key%d' % rnd.randint(1, 300)).encode()
        v = b'x' * rnd.choice([1, 10, 100, 2000, 60000])
        r = rnd.random()
        if r < 0.3: cmds.append(b'set %s %d %d %d\r\n%s\r\n' % (k, rnd.randint(0, 9), rnd.choice([0, 60, 3600]), len(v), v))
        elif r < 0.55: cmds.append(b'get %s\r\n' % k)
        elif r < 0.6: cmds.append(b'gets %s key%d\r\n' % (k, rnd.randint(1, 300)))
        elif r < 0.65: cmds.append(b'add %s 0 0 1\r\nz\r\n' % k)
        elif r < 0.7: cmds.append(b'incr counter%d %d\r\n' % (rnd.randint(1, 5), rnd.randint(1, 9)))
        elif r < 0.73: cmds.append(b'decr %s 1\r\n' % k)
        elif r < 0.77: cmds.append(b'delete %s\r\n' % k)
        elif r < 0.8: cmds.append(b'touch %s %d\r\n' % (k, rnd.randint(1, 99)))
        elif r < 0.82: cmds.append(b'append %s 0 0 2\r\nab\r\n' % k)
        elif r < 0.84: cmds.append(b'replace %s 0 0 1\r\nq\r\n' % k)
        elif r < 0.86: cmds.append(b'cas %s 0 0 1 %d\r\nc\r\n' % (k, rnd.randint(1, 999)))
        elif r < 0.88: cmds.append(b'bogus_command %d\r\n' % rnd.randint(1, 99))
        elif r < 0.89: cmds.append(b'set %s 0 0 notanumber\r\n' % k)
        elif r < 0.9: cmds.append(b'set %s 0 0 2000000\r\n' % k)
        elif r < 0.92: cmds.append(b'stats\r\n')
        elif r < 0.93: cmds.append(b'stats slabs\r\n')
        elif r < 0.94: cmds.append(b'version\r\n')
        elif r < 0.95: cmds.append(b'flush_all\r\n')
        elif r < 0.96: cmds.append(b'verbosity 2\r\n')
        elif r < 0.97: cmds.append(b'mg %s v t\r\n' % k)
        elif r < 0.98: cmds.append(b'ms %s 3 T60\r\nabc\r\n' % k)
        else: cmds.append(b'md %s\r\n' % k)
    sess(cmds)
PYEOF
stoppid $MC
cp $D/mc.log $RAW/Memcached.log; wc -l $RAW/Memcached.log
