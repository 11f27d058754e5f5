#!/usr/bin/python3
"""Adversarial requests against a real `logsift serve` (the figures in bench/RESULTS.md, "Adversarial requests").

Starts the server (ephemeral loopback ports, fresh data dir) and prints:
  * the time of one POST /inferences carrying one 64 KB line of "1 1 1 ..."
    (every token a number: the pre-mask's worst case), median of --repeat;
  * while one request of 120 such lines runs, the latency of small single-line
    requests sent meanwhile (every 50 ms), and the big request's own time;
  * the same small-request latency with nothing else running, for reference.
The server must answer every request with 200.

Usage: bench/adversarial.py --bin build/logsift [--repeat 5]
"""
import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


def post(port, body, timeout=120):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/inferences", data=json.dumps(body).encode(),
                                 method="POST", headers={"Content-Type": "application/json"})
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=timeout) as r:
        r.read()
        status = r.status
    return status, (time.perf_counter() - t0) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="logsift-adv-")
    proc = subprocess.Popen([a.bin, "serve", "--http-port", "0", "--tcp-port", "0", "--syslog-port", "-1",
                             "--data-dir", tmp], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = re.search(r"http=\S+:(\d+)", proc.stderr.readline())
    if not m:
        proc.kill()
        print("adversarial: server did not start", file=sys.stderr)
        return 2
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    port = int(m.group(1))
    bad = 0
    try:
        line = ("1 " * (32 * 1024))[: 64 * 1024 - 1]
        for i in range(3):  # warm-up: models, caches
            post(port, {"text": f"warm up request number {i}"})
        idle = []
        for i in range(20):
            st, ms = post(port, {"text": f"small request alone {i}"})
            bad += st != 200
            idle.append(ms)
        one = []
        for _ in range(a.repeat):
            st, ms = post(port, {"text": line})
            bad += st != 200
            one.append(ms)
        big = {"texts": [line] * 120}
        result = {}

        def heavy():
            result["status"], result["ms"] = post(port, big)

        t = threading.Thread(target=heavy)
        t.start()
        during = []
        time.sleep(0.05)
        i = 0
        while t.is_alive():
            st, ms = post(port, {"text": f"small request while a big one runs {i}"})
            bad += st != 200
            if t.is_alive():
                during.append(ms)
            i += 1
            time.sleep(0.05)
        t.join()
        bad += result["status"] != 200
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)
    print("during:", [round(x, 1) for x in during], file=sys.stderr)
    print(f"RESULT adversarial one_64kb_line_ms_median={statistics.median(one):.1f} "
          f"one_64kb_line_ms_max={max(one):.1f} big_request_120x64kb_ms={result['ms']:.0f} "
          f"small_during_big_n={len(during)} small_during_big_ms_median="
          f"{statistics.median(during) if during else float('nan'):.1f} "
          f"small_during_big_ms_max={max(during) if during else float('nan'):.1f} "
          f"small_idle_ms_median={statistics.median(idle):.2f} non_200={bad}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
