#!/bin/bash
# Regenerate the whole validation set: drive every program (raw logs under /tmp/validation-work/raw),
# sample and label. Takes ~30 minutes on 2 cores; needs root and the Debian packages listed in ../README.md.
# The committed data is what counts: a rerun gives different (random ports, pids, times) but equivalent logs.
set -e
cd "$(dirname "$0")"
for s in nginx postgresql redis memcached mariadb haproxy prometheus etcd caddy tomcat mosquitto squid dnsmasq cron dpkg; do
  echo "== $s"; bash $s.sh
done
for S in Nginx PostgreSQL Redis Memcached MariaDB HAProxy Prometheus Alertmanager Etcd Caddy Tomcat Mosquitto Squid Dnsmasq Dpkg Cron; do
  /usr/bin/python3 sample.py $S
done
/usr/bin/python3 ../label.py
/usr/bin/python3 check.py
