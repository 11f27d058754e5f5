#!/usr/bin/env bash
# store: sqlite vs store: redis: TCP lines/s of one replica on each
# store, then of three replicas on one Redis driven at once.
#
# Usage: bench/redis_store.sh CORPUS [CONNECTIONS] [REPEAT]
#   CORPUS: lines to stream (e.g. the first 200k of bench/gen_corpus.py's);
#   each connection streams it REPEAT times (default 4 connections, 2 times),
#   with a reply per line (build/loadgen tcp).
# Starts a redis-server on a unix socket in a scratch directory (no
# persistence) and each logsift on ephemeral loopback ports; stops them all.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="${1:?usage: $0 CORPUS [CONNECTIONS] [REPEAT]}"
conns="${2:-4}"
repeat="${3:-2}"
work="$(mktemp -d /tmp/logsift-redis-bench.XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.1; done; done
  rm -rf "$work"
}
trap cleanup EXIT

/usr/bin/redis-server --port 0 --unixsocket "$work/redis.sock" --dir "$work" --save "" --appendonly no \
  > "$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do [[ -S "$work/redis.sock" ]] && break; sleep 0.1; done

# start NAME FLAGS...: starts a server, sets $port to its TCP port.
start() {
  local name=$1; shift
  "$root/build/logsift" serve --http-port 0 --tcp-port 0 --syslog-port -1 --data-dir "$work/$name" "$@" \
    > "$work/$name.log" 2>&1 &
  pids+=($!)
  port=""
  for _ in $(seq 1 150); do
    port="$(grep -ao 'tcp=[^ ]*' "$work/$name.log" | sed -E 's/.*:([0-9]+)$/\1/' || true)"
    [[ -n "$port" ]] && return 0
    sleep 0.2
  done
  echo "$name did not start"; cat "$work/$name.log"; exit 1
}
rate() { grep -o 'lines_per_s=[0-9]*' | cut -d= -f2; }
lines=$(( $(wc -l < "$corpus") * conns * repeat ))
redis=(--store redis --redis-url "unix://$work/redis.sock")

start sqlite
sqlite_rate=$("$root/build/loadgen" tcp --port "$port" --lines "$corpus" --connections "$conns" --repeat "$repeat" | rate)
start redis1 "${redis[@]}" --redis-key-prefix one:
redis_rate=$("$root/build/loadgen" tcp --port "$port" --lines "$corpus" --connections "$conns" --repeat "$repeat" | rate)
echo "RESULT redis_store replicas=1 store=sqlite lines=$lines lines_per_s=$sqlite_rate"
echo "RESULT redis_store replicas=1 store=redis lines=$lines lines_per_s=$redis_rate vs_sqlite=$(
  echo "scale=2; $redis_rate / $sqlite_rate" | bc)"

# Three replicas, one shared catalog (prefix three:), all driven at once.
ports=()
for r in a b c; do start "replica-$r" "${redis[@]}" --redis-key-prefix three:; ports+=("$port"); done
t0=$(date +%s.%N)
loads=()
for p in "${ports[@]}"; do
  "$root/build/loadgen" tcp --port "$p" --lines "$corpus" --connections "$conns" --repeat "$repeat" \
    > "$work/load-$p.out" &
  loads+=($!)
done
wait "${loads[@]}"
t1=$(date +%s.%N)
total=$(( lines * 3 ))
echo "RESULT redis_store replicas=3 store=redis lines=$total wall_s=$(echo "$t1 - $t0" | bc) lines_per_s=$(
  echo "$total / ($t1 - $t0)" | bc)"
for p in "${ports[@]}"; do grep -o 'lines_per_s=[0-9]*' "$work/load-$p.out" | sed "s/^/  replica port $p: /"; done
# The shared catalog counted every line once.
counted=$(/usr/bin/redis-cli -s "$work/redis.sock" --raw eval \
  "local t=redis.call('ZRANGE',KEYS[1],0,-1,'WITHSCORES') local n=0 for i=2,#t,2 do n=n+tonumber(t[i]) end return n" \
  1 three:by_count)
echo "RESULT redis_store shared_catalog_count=$counted expected=$total"
