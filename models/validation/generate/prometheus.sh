#!/bin/bash
# Prometheus 2.42 + Alertmanager 0.25 (both logfmt, debug level). Prometheus scrapes up/down/broken targets,
# evaluates good and failing rules, remote-writes to a dead endpoint, sends alerts to an Alertmanager
# that is stopped for a while, and is reloaded with good and bad configs. Alertmanager notifies dead
# and live webhooks, gets API alerts/silences, and reloads.
. "$(dirname "$0")/common.sh"
D=$W/prometheus; rm -rf $D; mkdir -p $D/t1 $D/t2 $D/t3 $D/data $D/am
printf '# HELP foo A foo\n# TYPE foo counter\nfoo{a="1"} 3\nfoo{a="2"} 5\nbar 1.5\n' > $D/t1/metrics
printf 'this is { not valid exposition\n' > $D/t2/metrics
for i in $(seq 1 300); do echo "many_series{i=\"$i\"} $i"; done > $D/t3/metrics
cat > $D/rules.yml <<'CONF'
groups:
- name: good
  interval: 3s
  rules:
  - record: job:up:sum
    expr: sum by (job) (up)
  - alert: TargetDown
    expr: up == 0
    for: 5s
    labels: {severity: page}
    annotations: {summary: "{{ $labels.instance }} down"}
  - alert: AlwaysFiring
    expr: vector(1)
    labels: {severity: info}
- name: broken
  interval: 4s
  rules:
  - record: bad:many_to_many
    expr: up * on() group_left() up
  - record: bad:dup
    expr: label_replace(up, "__name__", "x", "", "")
  - alert: BadTemplate
    expr: vector(2)
    annotations: {summary: "{{ .Nope.Field }}"}
CONF
cat > $D/bad-rules.yml <<'CONF'
groups:
- name: oops
  rules:
  - record: bad
    expr: sum(
CONF
gencfg() { cat > $D/prometheus.yml <<CONF
global: {scrape_interval: 2s, evaluation_interval: 3s, external_labels: {dc: test$1}}
alerting: {alertmanagers: [{static_configs: [{targets: ['127.0.0.1:19093', '127.0.0.1:19094']}], timeout: 1s}]}
rule_files: ['$D/rules.yml'$2]
remote_write: [{url: 'http://127.0.0.1:19099/api/v1/write', remote_timeout: 1s, queue_config: {min_backoff: 500ms, max_backoff: 2s}}]
scrape_configs:
- job_name: prometheus
  static_configs: [{targets: ['127.0.0.1:19090']}]
- job_name: good
  static_configs: [{targets: ['127.0.0.1:19081', '127.0.0.1:19084']}]
- job_name: broken
  static_configs: [{targets: ['127.0.0.1:19082']}]
- job_name: limited
  sample_limit: 100
  static_configs: [{targets: ['127.0.0.1:19083']}]
- job_name: down
  scrape_timeout: 1s
  static_configs: [{targets: ['127.0.0.1:19085', '127.0.0.1:19086']}]
- job_name: files
  file_sd_configs: [{files: ['$D/sd/*.json'], refresh_interval: 5s}]
$3
CONF
}
mkdir -p $D/sd; echo '[{"targets":["127.0.0.1:19081"],"labels":{"env":"a"}}]' > $D/sd/a.json
cat > $D/am/am.yml <<'CONF'
route:
  receiver: dead
  group_by: [alertname]
  group_wait: 1s
  group_interval: 4s
  repeat_interval: 8s
  routes:
  - matchers: [severity="info"]
    receiver: live
inhibit_rules:
- source_matchers: [severity="page"]
  target_matchers: [severity="info"]
  equal: [instance]
receivers:
- name: dead
  webhook_configs: [{url: 'http://127.0.0.1:19098/hook', send_resolved: true}]
- name: live
  webhook_configs: [{url: 'http://127.0.0.1:19097/hook'}]
CONF
srv() { (cd $D/$1 && exec $PY -m http.server $2 --bind 127.0.0.1 >/dev/null 2>&1) & echo $!; }
S1=$(srv t1 19081); S2=$(srv t2 19082); S3=$(srv t3 19083); S4=$(srv t1 19084)
$PY $GEN/blackhole.py 19086 & BH=$!
$PY - <<'PYEOF' & HOOK=$!
import http.server
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get('Content-Length', 0))); self.send_response(200); self.end_headers()
    def log_message(self, *a): pass
http.server.HTTPServer(('127.0.0.1', 19097), H).serve_forever()
PYEOF
amstart() { prometheus-alertmanager --config.file=$D/am/am.yml --storage.path=$D/am --web.listen-address=127.0.0.1:19093 \
  --cluster.listen-address= --log.level=debug >> $D/alertmanager.log 2>&1 & AM=$!; }
amstart
gencfg 1 "" ""
prometheus --config.file=$D/prometheus.yml --storage.tsdb.path=$D/data --web.listen-address=127.0.0.1:19090 \
  --web.enable-lifecycle --log.level=debug --storage.tsdb.min-block-duration=1m --storage.tsdb.max-block-duration=2m \
  --storage.tsdb.retention.time=4m > $D/prometheus.log 2>&1 & PR=$!
waitport 19090; waitport 19093
sleep 20
# API alerts, invalid alerts and silences to alertmanager
for i in $(seq 1 12); do
  curl -s -XPOST -H 'Content-Type: application/json' 127.0.0.1:19093/api/v2/alerts -d "[{\"labels\":{\"alertname\":\"Api$((i%4))\",\"instance\":\"host$i\",\"severity\":\"$([ $((i%3)) = 0 ] && echo info || echo page)\"},\"annotations\":{\"summary\":\"test $i\"}}]" >/dev/null
  curl -s -XPOST -H 'Content-Type: application/json' 127.0.0.1:19093/api/v2/alerts -d "[{\"labels\":{},\"annotations\":{}}]" >/dev/null
  sleep 1
done
amtool --alertmanager.url=http://127.0.0.1:19093 silence add alertname=Api1 -c "maint $RANDOM" -d 1m >/dev/null 2>&1
SIL=$(amtool --alertmanager.url=http://127.0.0.1:19093 silence add alertname=Api2 -c "temp" -d 2m 2>/dev/null)
sleep 5; amtool --alertmanager.url=http://127.0.0.1:19093 silence expire $SIL >/dev/null 2>&1
echo '[{"targets":["127.0.0.1:19081","127.0.0.1:19087"],"labels":{"env":"b"}}]' > $D/sd/a.json
echo 'not json' > $D/sd/b.json
sleep 10
kill $AM; wait $AM; sleep 15      # alertmanager down: prometheus fails to send alerts
echo "route: {receiver: nope}" > $D/am/bad.yml; cp $D/am/am.yml $D/am/good.yml; amstart; sleep 5
cp $D/am/bad.yml $D/am/am.yml; kill -HUP $AM; sleep 2; cp $D/am/good.yml $D/am/am.yml; kill -HUP $AM
gencfg 2 ", '$D/bad-rules.yml'" ""; kill -HUP $PR; sleep 5
gencfg 3 "" "- job_name: [broken"; curl -s -XPOST 127.0.0.1:19090/-/reload >/dev/null; sleep 5
gencfg 4 "" "- job_name: extra
  static_configs: [{targets: ['127.0.0.1:19081']}]"; curl -s -XPOST 127.0.0.1:19090/-/reload >/dev/null
stoppid $S4; sleep 20
S4=$(srv t1 19084); rm -f $D/sd/b.json
curl -s -XPOST '127.0.0.1:19090/api/v1/admin/tsdb/snapshot' >/dev/null
sleep 120   # let head compaction / block creation / retention happen
curl -s -XPOST 127.0.0.1:19090/-/quit >/dev/null; wait $PR
kill $AM; wait $AM
for p in $S1 $S2 $S3 $S4 $BH $HOOK; do stoppid $p; done
cp $D/prometheus.log $RAW/Prometheus.log; cp $D/alertmanager.log $RAW/Alertmanager.log
wc -l $RAW/Prometheus.log $RAW/Alertmanager.log
