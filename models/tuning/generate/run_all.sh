#!/bin/bash
# Regenerate the whole tuning set: drive every program (raw logs under /tmp/tuning-work/raw), sample and
# label. About 25 minutes on 2 cores; needs root and the Debian packages named in ../README.md.
# The committed data is what counts: a rerun gives different (random ports, pids, times) but equivalent logs.
set -e
cd "$(dirname "$0")"
. ./common.sh
for s in postfix dovecot bind9 proftpd nats influxdb rabbitmq activemq slapd uwsgi; do
  echo "== $s"; bash $s.sh
done
for S in Postfix Dovecot Bind9 ProFTPD NATS InfluxDB RabbitMQ ActiveMQ Slapd UWSGI; do
  $PY ../../validation/generate/sample.py $S
done
$PY ../../validation/label.py
$PY ../../validation/generate/check.py
