#!/bin/bash
# Caddy 2.6 (JSON logs, debug level): file server, access logs, reverse_proxy to dead/slow/garbage upstreams,
# internal TLS site, config reloads (good and bad) through the admin API.
# NOTE: the committed log was made without skip_install_trust, so it contains Caddy's "installing root
# certificate" lines and Caddy put its local root CA into the system trust store (removed again by hand
# afterwards). skip_install_trust was added after the run so that regenerating leaves the system alone.
. "$(dirname "$0")/common.sh"
D=$W/caddy; rm -rf $D; mkdir -p $D/site/static $D/data $D/config
for f in index.html about.html static/app.js robots.txt; do echo "page $f" > $D/site/$f; done
gen() { cat > $D/Caddyfile <<CONF
{
	debug
	skip_install_trust
	admin 127.0.0.1:12019
	http_port 18480
	https_port 18443
	auto_https disable_redirects
	storage file_system $D/data
	log default {
		output stderr
		format json
	}
}
http://localhost:18480, http://127.0.0.1:18480 {
	root * $D/site
	log {
		output stderr
		format json
	}
	handle /api/* {
		reverse_proxy 127.0.0.1:18491 127.0.0.1:18492 {
			lb_policy round_robin
			fail_duration 2s
			health_uri /health
			health_interval 3s
		}
	}
	handle /v1/* {
		reverse_proxy 127.0.0.1:18493 {
			transport http {
				response_header_timeout 1s
			}
		}
	}
	handle /v2/* {
		reverse_proxy 127.0.0.1:18494
	}
	handle /admin* {
		basicauth {
			alice \$2a\$14\$Zkx19XLiW6VYouLHR5NmfOFU0z2GTNmpkT/5qqR7hx4IjWJPDhjvG
		}
		respond "admin ok"
	}
	redir /old /index.html 301
	respond /health "ok" 200
	handle {
		file_server
	}
	encode gzip
	$1
}
https://localhost:18443 {
	tls internal
	respond "secure {remote_host}"
	log {
		output stderr
		format json
	}
}
CONF
}
gen ""
$PY $GEN/blackhole.py 18493 & BH1=$!
$PY $GEN/blackhole.py 18494 --garbage & BH2=$!
(cd $D/site && exec $PY -m http.server 18491 --bind 127.0.0.1 >/dev/null 2>&1) & UP=$!
export XDG_DATA_HOME=$D/data XDG_CONFIG_HOME=$D/config HOME=$D
caddy run --config $D/Caddyfile --adapter caddyfile > $D/caddy.log 2>&1 & C=$!
waitport 18480; sleep 2
P=/index.html,/about.html,/static/app.js,/robots.txt,/api/users,/api/orders/1,/v1/slow,/v2/junk,/admin,/old,/health,/nope.php
$PY $GEN/httpdrive.py 127.0.0.1 18480 350 21 --paths $P
$PY $GEN/httpdrive.py 127.0.0.1 18443 60 22 --tls
stoppid $UP; sleep 4
$PY $GEN/httpdrive.py 127.0.0.1 18480 150 23 --paths $P
gen "header X-Reload 2"; caddy reload --config $D/Caddyfile --adapter caddyfile --address 127.0.0.1:12019 >/dev/null 2>&1
gen "this_is_not_a_directive"; caddy reload --config $D/Caddyfile --adapter caddyfile --address 127.0.0.1:12019 >/dev/null 2>&1
curl -s -XPOST 127.0.0.1:12019/load -H 'Content-Type: application/json' -d '{"apps":{"http":{"servers":{"x":{"listen":["bad:addr:::"]}}}}}' >/dev/null
curl -s 127.0.0.1:12019/config/ >/dev/null; curl -s 127.0.0.1:12019/nope >/dev/null
(cd $D/site && exec $PY -m http.server 18491 --bind 127.0.0.1 >/dev/null 2>&1) & UP=$!; sleep 4
$PY $GEN/httpdrive.py 127.0.0.1 18480 150 24 --paths $P
curl -s -XPOST 127.0.0.1:12019/stop >/dev/null; sleep 1; stoppid $C
stoppid $UP; stoppid $BH1; stoppid $BH2
cp $D/caddy.log $RAW/Caddy.log; wc -l $RAW/Caddy.log
