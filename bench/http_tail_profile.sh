#!/usr/bin/env bash
# Where the HTTP latency tail comes from, on this machine.
#
# Usage: bench/http_tail_profile.sh [RATE] [CONNECTIONS] [LINES_FILE]
#   (defaults 10000, 8, a 64-line built-in set; run as root: perf needs it)
#
# Starts a fresh `build/logsift serve` (loopback, port 0, scratch data dir),
# posts every line once (warm-up: all later lines are cache hits), then runs
# `build/loadgen http` open-loop at RATE for 10 s with nothing else attached
# (the client's percentiles and the server's histograms are from this run),
# then again for 12 s while:
#   1. 4 s of `perf stat`: syscalls and context switches per request;
#   2. 4 s of `perf record`: the server's flat profile, user vs kernel;
#   3. 3 s of `perf sched record`: CPU share and scheduling delay per thread
#      (server threads are named ls-io-N, ls-state, ...; loadgen is the client).
# From the server's own histograms (/metrics, warm-up subtracted) it prints
# the share of requests over 0.5/1/2.5/5 ms between reading the request and
# writing the reply, and of state-thread groups (aggregator + catalog commit).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rate="${1:-10000}"
conns="${2:-8}"
lines=()
[[ -n "${3:-}" ]] && lines=(--lines "$3")
work="$(mktemp -d /tmp/logsift-tail.XXXXXX)"
"$root/build/logsift" serve --http-port 0 --tcp-port 0 --syslog-port -1 --data-dir "$work/data" \
  > "$work/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; while kill -0 $pid 2>/dev/null; do sleep 0.1; done; rm -rf "$work"' EXIT
port=""
for _ in $(seq 1 150); do
  port="$(grep -ao 'listening http=[^ ]*' "$work/server.log" | sed -E 's/.*:([0-9]+)$/\1/' || true)"
  [[ -n "$port" ]] && break
  sleep 0.2
done
[[ -n "$port" ]] || { echo "server did not start"; cat "$work/server.log"; exit 1; }

"$root/build/loadgen" http --port "$port" --rate 1000 --duration 2 --connections "$conns" "${lines[@]}" \
  --warmup-pass > /dev/null
curl -s "http://127.0.0.1:$port/metrics" > "$work/metrics.before"
"$root/build/loadgen" http --port "$port" --rate "$rate" --duration 10 --connections "$conns" "${lines[@]}" \
  | grep RESULT
curl -s "http://127.0.0.1:$port/metrics" > "$work/metrics.after"
"$root/build/loadgen" http --port "$port" --rate "$rate" --duration 12 --connections "$conns" "${lines[@]}" \
  > "$work/loadgen.out" &
lg=$!
sleep 0.5
perf stat -x, -e raw_syscalls:sys_enter,context-switches -p "$pid" -- sleep 4 2> "$work/stat.csv" > /dev/null
perf record -q -F 1999 -o "$work/perf.data" -p "$pid" -- sleep 4 > /dev/null 2>&1
perf sched record -q -o "$work/sched.data" -- sleep 3 > /dev/null 2>&1
wait $lg
sed 's/^RESULT/while profiled:/' "$work/loadgen.out"
perf report -i "$work/perf.data" --no-children --sort dso --stdio 2> /dev/null | grep -E '^ +[0-9]' | head -5 |
  sed 's/^ */server cpu by dso: /' || true
perf report -i "$work/perf.data" --no-children --sort sym --stdio 2> /dev/null | grep -E '^ +[0-9]' | head -5 |
  sed 's/^ */server top symbol: /' || true
perf sched timehist -i "$work/sched.data" 2> /dev/null > "$work/timehist.txt"
/usr/bin/python3 - "$work" "$rate" <<'EOF'
import collections, re, sys
work, rate = sys.argv[1], float(sys.argv[2])
stat = {l.split(",")[2]: float(l.split(",")[0]) for l in open(f"{work}/stat.csv") if l.count(",") > 3 and l[0].isdigit()}
req = rate * 4
print(f"per request: syscalls={stat.get('raw_syscalls:sys_enter', 0) / req:.1f} "
      f"context_switches={stat.get('context-switches', 0) / req:.1f}")
delays, cpu = collections.defaultdict(list), collections.defaultdict(float)
for l in open(f"{work}/timehist.txt"):
    m = re.match(r"\s*[\d.]+\s+\[\d+\]\s+(\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", l)
    if m:
        name = re.sub(r"\[\d+(/\d+)?\]", "", m.group(1))
        delays[name].append(float(m.group(3)))
        cpu[name] += float(m.group(4))
total = sum(cpu.values()) or 1
def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]
for name, v in sorted(delays.items(), key=lambda kv: -cpu[kv[0]])[:8]:
    print(f"thread {name:14s} cpu_share={100 * cpu[name] / total:5.1f}% sched_delay_ms "
          f"p50={q(v, .5):.3f} p99={q(v, .99):.3f} max={max(v):.3f}")
def buckets(path, series):
    b = {}
    for l in open(path):
        if l.startswith(series):
            b[re.search(r'le="([^"]+)"', l).group(1)] = float(l.split()[-1])
    return b
for series in ('logsift_http_request_duration_seconds_bucket{route="inferences",',
               'logsift_stage_duration_seconds_bucket{stage="state",'):
    a, b = buckets(f"{work}/metrics.after", series), buckets(f"{work}/metrics.before", series)
    d = {k: a[k] - b.get(k, 0) for k in a}
    n = d["+Inf"] or 1
    print(f"server {series.split('{')[1][:-1]} n={int(n)} " +
          " ".join(f">{float(k) * 1000:g}ms={100 * (1 - d[k] / n):.2f}%" for k in ("0.0005", "0.001", "0.0025", "0.005")))
EOF
