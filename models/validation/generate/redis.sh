#!/bin/bash
# Redis 7.0 with loglevel verbose: clients, BGSAVE/BGREWRITEAOF, CONFIG, replica, shutdown.
. "$(dirname "$0")/common.sh"
D=$W/redis; rm -rf $D; mkdir -p $D
mk() { cat > $D/$1.conf <<CONF
port $2
bind 127.0.0.1
dir $D
dbfilename $1.rdb
logfile $D/$1.log
loglevel ${3:-verbose}
daemonize yes
pidfile $D/$1.pid
appendonly yes
appendfilename $1.aof
save 5 100
requirepass s3cret
masterauth s3cret
CONF
}
mk master 16379 verbose; mk replica 16380 verbose; echo "replicaof 127.0.0.1 16379" >> $D/replica.conf
redis-server $D/master.conf; waitport 16379
R="redis-cli -p 16379 -a s3cret --no-auth-warning"
$PY - <<'PYEOF'
import random, subprocess
rnd = random.Random(3)
cmds = []
for i in range(4000):
    k = 'user:%d' % rnd.randint(1, 5000)
    cmds.append(rnd.choice(['SET %s v%d' % (k, i), 'GET %s' % k, 'INCR ctr:%d' % rnd.randint(1, 50), 'LPUSH q:%d %d' % (rnd.randint(1, 9), i),
                            'HSET h:%d f%d %d' % (rnd.randint(1, 99), i % 7, i), 'EXPIRE %s %d' % (k, rnd.randint(1, 30))]))
open('/tmp/validation-work/redis/cmds.txt', 'w').write('\n'.join(cmds) + '\n')
PYEOF
$R < $D/cmds.txt > /dev/null
redis-server $D/replica.conf; sleep 3
for i in $(seq 1 40); do
  case $((i % 10)) in
    0) $R BGSAVE ;; 1) $R BGREWRITEAOF ;; 2) $R CONFIG SET maxmemory $((i*1000000)) ;; 3) $R CONFIG SET nosuchparam 1 ;;
    4) redis-cli -p 16379 -a wrong --no-auth-warning PING ;; 5) $R CLIENT KILL TYPE normal ;; 6) $R DEBUG SLEEP 0 ;;
    7) $R CONFIG REWRITE ;; 8) $R SAVE ;; 9) redis-cli -p 16380 -a s3cret --no-auth-warning REPLICAOF NO ONE; sleep 1; redis-cli -p 16380 -a s3cret --no-auth-warning REPLICAOF 127.0.0.1 16379 ;;
  esac >/dev/null 2>&1
  for j in $(seq 1 $((i % 4 + 1))); do redis-cli -p 16379 -a s3cret --no-auth-warning SET k$i$j $j >/dev/null & done; wait
  sleep 0.7
done
$R CONFIG SET loglevel debug >/dev/null
for i in $(seq 1 30); do $R SET d$i $i > /dev/null; redis-cli -p 16380 -a s3cret --no-auth-warning GET d$i >/dev/null; sleep 0.2; done
$R CONFIG SET loglevel verbose >/dev/null
kill $(cat $D/replica.pid); sleep 3   # master sees replica go away
redis-server $D/replica.conf; sleep 3
$R SHUTDOWN >/dev/null 2>&1; sleep 3    # replica sees master go away
redis-server $D/master.conf; sleep 3; $R SET again 1 > /dev/null
redis-cli -p 16380 -a s3cret --no-auth-warning SHUTDOWN NOSAVE >/dev/null 2>&1
$R SHUTDOWN >/dev/null 2>&1; sleep 1
for f in master replica; do [ -f $D/$f.pid ] && kill $(cat $D/$f.pid) 2>/dev/null; done
cat $D/master.log $D/replica.log > $RAW/Redis.log   # two instances, concatenated
wc -l $RAW/Redis.log
