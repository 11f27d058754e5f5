#!/bin/bash
# Nginx: access + error log (info level) from a varied HTTP workload.
. "$(dirname "$0")/common.sh"
D=$W/nginx; rm -rf $D; mkdir -p $D/html/static $D/html/private $D/html/docs $D/logs
for f in index.html about.html static/app.js static/style.css docs/guide.txt robots.txt; do echo "content $f" > $D/html/$f; done
head -c 30000 /dev/urandom > $D/html/static/big.bin
chmod 000 $D/html/private; echo secret > $D/html/private/x.html 2>/dev/null; touch $D/html/noperm.html; chmod 000 $D/html/noperm.html
printf 'alice:%s\nbob:%s\n' "$(openssl passwd -apr1 secret)" "$(openssl passwd -apr1 hunter2)" > $D/htpasswd
cat > $D/nginx.conf <<CONF
worker_processes 2;
pid $D/nginx.pid;
error_log $D/logs/error.log info;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  access_log $D/logs/access.log combined;
  client_body_temp_path $D/body; proxy_temp_path $D/proxy; fastcgi_temp_path $D/fcgi; uwsgi_temp_path $D/uwsgi; scgi_temp_path $D/scgi;
  limit_req_zone \$binary_remote_addr zone=one:1m rate=5r/s;
  limit_conn_zone \$binary_remote_addr zone=addr:1m;
  upstream dead { server 127.0.0.1:18099; server 127.0.0.1:18098; }
  upstream slow { server 127.0.0.1:18097; }
  upstream junk { server 127.0.0.1:18096; }
  client_max_body_size 1m;
  large_client_header_buffers 2 1k;
  server {
    listen 127.0.0.1:18080 default_server;
    server_name localhost;
    root $D/html;
    location / { try_files \$uri \$uri/ =404; }
    location /private/ { }
    location /noperm.html { }
    location /docs/ { autoindex off; }
    location /api/ { proxy_pass http://dead; proxy_connect_timeout 1s; }
    location /v1/ { proxy_pass http://slow; proxy_read_timeout 1s; }
    location /v2/ { proxy_pass http://junk; }
    location /admin { auth_basic "restricted"; auth_basic_user_file $D/htpasswd; try_files \$uri =404; }
    location /search { limit_req zone=one burst=2 nodelay; try_files \$uri =404; }
    location /download/ { limit_conn addr 1; limit_rate 200k; alias $D/html/static/; }
    location /upload { client_max_body_size 4k; proxy_pass http://dead; }
    location /cart { fastcgi_pass unix:$D/php-fpm.sock; include /etc/nginx/fastcgi_params; }
    location /old { return 301 /index.html; }
    location /wp-admin { deny all; }
    location /health { access_log off; return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:18081;
    server_name api.local;
    location / { proxy_pass http://slow; proxy_read_timeout 2s; }
  }
}
CONF
cd $D
$PY $GEN/blackhole.py 18097 & BH1=$!
$PY $GEN/blackhole.py 18096 --garbage & BH2=$!
/usr/sbin/nginx -c $D/nginx.conf -p $D
waitport 18080
PATHS=/index.html,/about.html,/static/app.js,/static/style.css,/static/big.bin,/docs/,/docs/guide.txt,/robots.txt,/private/x.html,/noperm.html,/api/users,/v1/orders,/v2/items,/admin/,/search?q=a,/download/big.bin,/upload,/cart,/old,/wp-admin/,/health,/missing.php
for round in 1 2 3; do
  $PY $GEN/httpdrive.py 127.0.0.1 18080 600 $round --paths $PATHS
  $PY $GEN/httpdrive.py 127.0.0.1 18081 40 $((round+10))
  kill -HUP $(cat $D/nginx.pid); sleep 1
done
kill -USR1 $(cat $D/nginx.pid); sleep 0.5   # reopen logs
kill -QUIT $(cat $D/nginx.pid); sleep 2
stoppid $BH1; stoppid $BH2
# merge access + error logs by time (stable): both have 1 s resolution
$PY - $D/logs/access.log $D/logs/error.log > $RAW/Nginx.log <<'PYEOF'
import sys, re, datetime
out = []
M = {m: i for i, m in enumerate(['Jan','Feb','Mar','Apr','May','Jun','Jul','Aug','Sep','Oct','Nov','Dec'], 1)}
for i, line in enumerate(open(sys.argv[1], errors='replace')):
    m = re.search(r'\[(\d+)/(\w+)/(\d+):(\d+):(\d+):(\d+)', line)
    t = datetime.datetime(int(m[3]), M[m[2]], int(m[1]), int(m[4]), int(m[5]), int(m[6]))
    out.append((t, 0, i, line))
for i, line in enumerate(open(sys.argv[2], errors='replace')):
    m = re.match(r'(\d+)/(\d+)/(\d+) (\d+):(\d+):(\d+)', line)
    if not m: continue
    t = datetime.datetime(*map(int, m.groups()))
    out.append((t, 1, i, line))
out.sort(key=lambda x: (x[0], x[1], x[2]))
sys.stdout.write(''.join(x[3] for x in out))
PYEOF
wc -l $D/logs/*.log $RAW/Nginx.log
