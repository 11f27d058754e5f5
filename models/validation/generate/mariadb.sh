#!/bin/bash
# MariaDB 10.11 error log (log_warnings=4): startups/shutdowns with different options, auth failures,
# aborted connections, failing statements, table checks.
. "$(dirname "$0")/common.sh"
D=$W/mariadb; rm -rf $D; mkdir -p $D/data $D/run; chown -R mysql: $D
mariadb-install-db --user=mysql --datadir=$D/data --auth-root-authentication-method=normal > $D/install.out 2>&1
run() {
  mariadbd --no-defaults --user=mysql --datadir=$D/data --socket=$D/run/s.sock --port=13306 --bind-address=127.0.0.1 \
   --log-error=$D/error.log --log-warnings=4 --pid-file=$D/run/m.pid --innodb-buffer-pool-size=${BP:-32M} --max-connections=${MC:-30} \
   --connect-timeout=2 --wait-timeout=${WT:-20} --max-allowed-packet=1M --general-log=0 "$@" &
  MPID=$!; waitport 13306
}
M="mariadb --no-defaults -S $D/run/s.sock -uroot"
run
$M -e "create database shop; create user 'app'@'localhost' identified by 'apppw'; create user 'app'@'127.0.0.1' identified by 'apppw'; grant all on shop.* to 'app'@'localhost'; grant all on shop.* to 'app'@'127.0.0.1';"
$PY - <<'PYEOF'
import random, subprocess, socket, time
rnd = random.Random(5)
sql = ["create table if not exists t%d (id int primary key auto_increment, v varchar(20))", "insert into t1(v) values ('a%d')",
       "select * from nosuch%d", "insert into t1(id, v) values (1, 'dup%d')", "select sleep(0.0%d)", "drop table if exists tmp%d",
       "select * from t1 where id=%d", "kill %d", "set global max_connections=%d", "select benchmark(%d, md5('x'))", "flush tables"]
for i in range(650):
    u, pw = rnd.choices([('app', 'apppw'), ('app', 'bad'), ('nobody', 'x'), ('root', None)], [60, 12, 8, 10])[0]
    args = ['mariadb', '--no-defaults', '-h', '127.0.0.1', '-P', '13306', '-u', u, 'shop', '--connect-timeout=2']
    if pw: args.append('-p' + pw)
    q = ';'.join((lambda t: t % rnd.randint(1, 40) if '%d' in t else t)(rnd.choice(sql)) for _ in range(rnd.randint(1, 4)))
    if rnd.random() < 0.25:
        args.append('--force')
    subprocess.run(args + ['-e', q], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
    r = rnd.random()
    if r < 0.06:   # connect and drop without handshake (aborted connection / bad handshake)
        s = socket.create_connection(('127.0.0.1', 13306)); s.recv(100); s.sendall(b'\x05\x00\x00\x01garbage'); s.close()
    elif r < 0.1:  # idle client killed by wait_timeout
        s = socket.create_connection(('127.0.0.1', 13306)); s.close()
PYEOF
$M -e "select 1" >/dev/null
( $M shop -e "set session wait_timeout=1; select sleep(3)"; $M shop -e "set session wait_timeout=1; do sleep(2)" ) >/dev/null 2>&1
$M -e "shutdown"; wait $MPID
BP=16M MC=5 run --innodb-log-file-size=8M --skip-name-resolve --event-scheduler=ON
$M -e "set global event_scheduler=OFF; check table mysql.user; analyze table mysql.db; optimize table mysql.db;" >/dev/null 2>&1
CL=""; for i in $(seq 1 8); do mariadb --no-defaults -h 127.0.0.1 -P 13306 -uapp -papppw -e "select sleep(1)" >/dev/null 2>&1 & CL="$CL $!"; done; wait $CL
kill $MPID; wait $MPID
WT=1 run --max-connect-errors=3 --plugin-load-add=nonexistent_plugin.so --innodb-nosuch-option=1 2>/dev/null || true
sleep 3; [ -f $D/run/m.pid ] && { $M -e "flush logs; flush privileges; set global read_only=1; set global read_only=0;" ; kill $MPID; wait $MPID; }
BP=8M run --skip-grant-tables --innodb-read-only=0 --character-set-server=latin1
$M -e "select 1" >/dev/null; kill -9 $MPID; wait $MPID 2>/dev/null
run   # crash recovery start
$M -e "select 1" >/dev/null; $M -e "shutdown"; wait $MPID
for bp in 24M 48M 64M; do   # a few more plain restarts with other sizes, idle clients timing out
  BP=$bp WT=2 run --innodb-log-file-size=$bp --log-warnings=9
  for k in 1 2 3; do $PY -c "import socket,time; s=socket.create_connection(('127.0.0.1',13306)); s.recv(200); time.sleep(3.5)" 2>/dev/null & done
  mariadb --no-defaults -h 127.0.0.1 -P 13306 -uapp -papppw shop -e "do sleep(3)" >/dev/null 2>&1
  sleep 1; kill $MPID; wait $MPID
done
cp $D/error.log $RAW/MariaDB.log; wc -l $RAW/MariaDB.log
