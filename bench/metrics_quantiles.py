#!/usr/bin/python3
"""Quantile upper bounds of a running server's latency histograms.

Usage: bench/metrics_quantiles.py HTTP_PORT
Reads /metrics once and prints, for logsift_http_request_duration_seconds and
logsift_stage_duration_seconds, each series' count and the bucket bound that
holds its p50, p99 and p999 ("p99<=0.001" means p99 is at most 1 ms).
"""
import re
import sys
import urllib.request

port = sys.argv[1]
body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
series = {}
for line in body.splitlines():
    m = re.match(r'^(\w+)_bucket\{(.*?)le="([^"]+)"\} (\S+)$', line)
    if not m or not m.group(1).endswith(("http_request_duration_seconds", "stage_duration_seconds")):
        continue
    le = float("inf") if m.group(3) == "+Inf" else float(m.group(3))
    series.setdefault((m.group(1), m.group(2).rstrip(",")), []).append((le, float(m.group(4))))
for (name, labels), buckets in sorted(series.items()):
    total = buckets[-1][1]
    if total == 0:
        continue
    bounds = [next(le for le, c in buckets if c >= q * total) for q in (0.5, 0.99, 0.999)]
    print(f"{name}{{{labels}}} n={int(total)} p50<={bounds[0]:g} p99<={bounds[1]:g} p999<={bounds[2]:g}")
