#!/usr/bin/env bash
# What TLS costs: the same server and load with TLS off and on, alternated
# (off, on, off, on, ...), on a fresh server each run.
#   TCP with replies: 4 long-lived connections stream LINES (real programs'
#   lines) REPEAT times; lines/s and the server's CPU-us a line.
#   HTTP: single-line POST /inferences, open loop at 1k req/s for 10 s over 4
#   keep-alive connections; p50/p99/max latency from the due time.
# Certificates (ECDSA P-256, the common modern choice) are made here.
#
# Usage: bench/tls_cost.sh [--bin build/logsift] [--loadgen build/loadgen] [--lines FILE] [--runs 3] [--repeat 2]
#   LINES defaults to a 200k-line real programs' stream from bench/gen_real_stream.py.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
bin="$root/build/logsift" loadgen="$root/build/loadgen" lines="" runs=3 repeat=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --loadgen) loadgen="$2"; shift 2 ;;
    --lines) lines="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
work="$(mktemp -d /tmp/logsift-tls-cost.XXXXXX)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
if [[ -z "$lines" ]]; then
  lines="$work/real200k.txt"
  /usr/bin/python3 "$here/gen_real_stream.py" stream 200000 42 > "$lines"
fi
(
  cd "$work"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt -days 1 -subj /CN=bench-ca
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout tls.key -out tls.csr -subj /CN=localhost
  printf "subjectAltName=DNS:localhost,IP:127.0.0.1\n" > ext
  openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out tls.crt -days 1 -extfile ext
) >/dev/null 2>&1

# start MODE -> sets pid, http, tcp
start() {
  local mode="$1" log="$work/server.log" data="$work/data-$RANDOM"
  local extra=()
  [[ "$mode" == tls ]] && extra=(--tls-cert-file "$work/tls.crt" --tls-key-file "$work/tls.key")
  "$bin" serve --http-port 0 --tcp-port 0 --syslog-port -1 --data-dir "$data" "${extra[@]}" > "$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 200); do grep -q "listening http=" "$log" && break; sleep 0.05; done
  http=$(grep -o "http=127.0.0.1:[0-9]*" "$log" | cut -d: -f2)
  tcp=$(grep -o "tcp=127.0.0.1:[0-9]*" "$log" | cut -d: -f2)
  local scheme=http opts=()
  [[ "$mode" == tls ]] && scheme=https opts=(--cacert "$work/ca.crt")
  for _ in $(seq 200); do curl -sf "${opts[@]}" "$scheme://localhost:$http/readyz" >/dev/null && break; sleep 0.05; done
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }

echo "# TCP with replies: 4 connections, $(wc -l < "$lines") lines x $repeat each; HTTP: 1 line a request, 1k req/s, 10 s"
for run in $(seq "$runs"); do
  for mode in plain tls; do
    tlsopt=()
    [[ "$mode" == tls ]] && tlsopt=(--tls "$work/ca.crt")
    start "$mode"
    c0=$(cpu_ticks "$pid")
    out=$("$loadgen" tcp --port "$tcp" --lines "$lines" --connections 4 --repeat "$repeat" "${tlsopt[@]}" | grep RESULT || true)
    c1=$(cpu_ticks "$pid")
    n=$(sed -E 's/.* lines=([0-9]+).*/\1/' <<< "$out")
    lps=$(sed -E 's/.*lines_per_s=([0-9]+).*/\1/' <<< "$out")
    us=$(echo "scale=2; ($c1 - $c0) * 10000 / $n" | bc)
    echo "RESULT tcp run=$run tls=$mode lines_per_s=$lps server_cpu_us_per_line=$us complete=$(sed -E 's/.*complete=([a-z]+).*/\1/' <<< "$out")"
    out=$("$loadgen" http --port "$http" --rate 1000 --duration 10 --connections 4 --lines "$lines" --max-lines 20000 \
          "${tlsopt[@]}" | grep RESULT || true)
    echo "RESULT http run=$run tls=$mode $(grep -oE 'achieved_rate=[0-9]+|p50_us=[0-9]+|p99_us=[0-9]+|max_us=[0-9]+|errors=[0-9]+|handshakes=[0-9]+' <<< "$out" | tr '\n' ' ')"
    stop
  done
done
