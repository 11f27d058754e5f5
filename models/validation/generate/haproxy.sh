#!/bin/bash
# HAProxy 2.6: httplog/tcplog traffic lines plus health-check / server state events while backends go up and down.
. "$(dirname "$0")/common.sh"
D=$W/haproxy; rm -rf $D; mkdir -p $D/www; echo hi > $D/www/index.html; echo ok > $D/www/health
cat > $D/haproxy.cfg <<CONF
global
  log stdout format rfc3164 local0 info
  stats socket $D/admin.sock mode 600 level admin
  pidfile $D/haproxy.pid
defaults
  log global
  mode http
  option httplog
  option dontlognull
  timeout connect 500ms
  timeout client 3s
  timeout server 2s
  retries 1
frontend web
  bind 127.0.0.1:18280
  acl is_api path_beg /api
  acl is_admin path_beg /admin
  http-request deny if is_admin
  use_backend api if is_api
  default_backend app
backend app
  balance roundrobin
  option httpchk GET /health
  default-server inter 1s fall 2 rise 2
  server app1 127.0.0.1:18291 check
  server app2 127.0.0.1:18292 check
  server app3 127.0.0.1:18293 check backup
backend api
  balance leastconn
  server api1 127.0.0.1:18294 check inter 1500ms
  server api2 127.0.0.1:18295 check inter 1500ms
frontend db
  mode tcp
  option tcplog
  bind 127.0.0.1:18281
  default_backend dbs
backend dbs
  mode tcp
  server db1 127.0.0.1:18296 check inter 2s
  server db2 127.0.0.1:18297 check inter 2s
listen stats
  bind 127.0.0.1:18282
  stats enable
  stats uri /stats
CONF
declare -A BK
up() { (cd $D/www && exec $PY -m http.server $1 --bind 127.0.0.1 >/dev/null 2>&1) & BK[$1]=$!; }
down() { [ -n "${BK[$1]:-}" ] && stoppid ${BK[$1]}; BK[$1]=; }
up 18291; up 18292; up 18294; up 18296
haproxy -f $D/haproxy.cfg -db > $D/haproxy.log 2>&1 & HP=$!
waitport 18280; sleep 3
S() { echo "$1" | socat - UNIX-CONNECT:$D/admin.sock >/dev/null 2>&1 || echo "$1" | $PY -c "import socket,sys;s=socket.socket(socket.AF_UNIX);s.connect('$D/admin.sock');s.sendall(sys.stdin.read().encode());s.recv(9999)"; }
tcpd() { $PY - <<'PYEOF'
import socket, random
rnd = random.Random()
for i in range(15):
    try:
        s = socket.create_connection(('127.0.0.1', 18281), timeout=2, source_address=('127.0.%d.%d' % (rnd.randint(0,3), rnd.randint(2,250)), 0))
        s.sendall(b'GET /index.html HTTP/1.0\r\n\r\n'); s.recv(999); s.close()
    except Exception: pass
PYEOF
}
for step in 1 2 3 4 5 6 7 8; do
  $PY $GEN/httpdrive.py 127.0.0.1 18280 120 $((step+100)) --paths /index.html,/api/v1/users,/admin/x,/health,/stats
  tcpd
  case $step in
    1) down 18291 ;; 2) up 18291; down 18294; up 18295 ;; 3) down 18292; down 18291; up 18297 ;;
    4) up 18293; up 18292; S "disable server app/app2"; down 18296 ;;
    5) S "enable server app/app2"; S "set server api/api2 state drain"; S "set weight app/app1 50" ;; 6) down 18295; up 18296; S "set server api/api2 state ready" ;;
    7) up 18291; up 18294; S "shutdown sessions server app/app1"; kill -USR2 $HP ;; 8) down 18293 ;;
  esac
  sleep 4
done
kill -USR1 $HP; sleep 2; stoppid $HP
for p in "${!BK[@]}"; do down $p; done
cp $D/haproxy.log $RAW/HAProxy.log; wc -l $RAW/HAProxy.log
