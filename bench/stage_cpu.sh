#!/usr/bin/env bash
# Where a seen line's server CPU goes, by thread (stage): a fresh server takes
# LINES once over TCP with replies (4 connections: every line seen), then the
# same lines REPEAT more times while each thread's CPU time is read from
# /proc/PID/task/*/stat. Prints CPU-us a line per thread name (ls-io-*,
# ls-analysis-*, ls-state, ...) and the lines/s of the measured pass; the
# single-threaded stages' figures give the ceiling each puts on the process
# (1e6 / us a line), whatever the core count. Several BINs run alternated.
#
# --connections C (default 4) sets the offered load: the state stage's group
# commit takes whatever arrived meanwhile, so its cost a line falls as lines
# per group rise (its fixed part is per commit and per distinct cluster).
#
# Usage: bench/stage_cpu.sh --lines FILE [--repeat 2] [--runs 2] [--connections 4] BIN [BIN...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
loadgen="${LOADGEN:-$here/../build/loadgen}"
lines="" repeat=2 runs=2 conns=4 bins=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --lines) lines="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --connections) conns="$2"; shift 2 ;;
    *) bins+=("$1"); shift ;;
  esac
done
[[ -n "$lines" && ${#bins[@]} -gt 0 ]] || { echo "usage: $0 --lines FILE [--repeat N] [--runs N] BIN..." >&2; exit 2; }
n_lines=$(wc -l < "$lines")

threads() {  # PID -> "comm ticks" per thread
  for t in /proc/"$1"/task/*; do
    awk '{ sub(/^[^(]*\(/, ""); comm = $0; sub(/\).*/, "", comm); rest = $0; sub(/^[^)]*\) /, "", rest);
           split(rest, f, " "); print comm, f[12] + f[13] }' "$t/stat"
  done
}

state_groups() {  # LOG -> group commits so far (logsift_stage_duration_seconds_count{stage="state"})
  curl -sf "http://127.0.0.1:$(grep -o "http=127.0.0.1:[0-9]*" "$1" | cut -d: -f2)/metrics" |
    awk '/^logsift_stage_duration_seconds_count\{stage="state"\}/ {print $2}'
}

for run in $(seq "$runs"); do
  for bin in "${bins[@]}"; do
    d=$(mktemp -d /tmp/logsift-stage-cpu.XXXXXX)
    "$bin" serve --http-port 0 --tcp-port 0 --syslog-port -1 --data-dir "$d/data" > "$d/log" 2>&1 &
    pid=$!
    for _ in $(seq 200); do grep -q "listening http=" "$d/log" && break; sleep 0.05; done
    port=$(grep -o "tcp=127.0.0.1:[0-9]*" "$d/log" | cut -d: -f2)
    "$loadgen" tcp --port "$port" --lines "$lines" --connections "$conns" --repeat 1 > /dev/null
    threads "$pid" > "$d/before"
    g0=$(state_groups "$d/log")
    lps=$("$loadgen" tcp --port "$port" --lines "$lines" --connections "$conns" --repeat "$repeat" | grep -o "lines_per_s=[0-9]*")
    threads "$pid" > "$d/after"
    g1=$(state_groups "$d/log")
    groups=$(( g1 - g0 ))
    kill "$pid"; wait "$pid" 2>/dev/null || true
    measured=$((n_lines * conns * repeat))
    echo "RESULT run=$run bin=$bin connections=$conns $lps lines_per_group=$(( measured / (groups > 0 ? groups : 1) )) $(
      awk -v n="$measured" 'NR == FNR { b[$1] += $2; next } { a[$1] += $2 }
           END { for (k in a) { us = (a[k] - b[k]) * 10000 / n; if (us >= 0.01) printf "%s_us=%.2f ", k, us; total += a[k] - b[k] }
                 printf "total_us=%.2f", total * 10000 / n }' "$d/before" "$d/after")"
    rm -rf "$d"
  done
done
