#!/usr/bin/python3
"""Migration cost: how long a catalog of N clusters takes to move to another
cluster-id contract.

Builds a catalog under one contract (--lsh-seed 4242): starts
`BUILD_DIR/logsift serve` on loopback ephemeral ports with a fresh data dir
and posts the lines of `bench/gen_cold.py N SEED` (every line a new
template) in batches of 1,000, then stops it by PID (SIGTERM). Then:

  1. `logsift migrate --data-dir DIR` (the default seed: another contract),
     timed from the outside; prints its report;
  2. the same store moved back while serving: `logsift serve --lsh-seed
     4242` cannot (the store moved on: an older release refuses), so a
     third contract is served (--lsh-seed 777) and the time from start to
     /readyz 200 is measured (the migration runs while reads are answered).

Prints
    clusters=.. lines=.. offline_s=.. serve_ready_s=.. (report fields)
Exit status 0 if both migrations kept every line counted.

usage: /usr/bin/python3 bench/migrate_bench.py BUILD_DIR [N] [SEED]
Standard library only.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


STARTS = [0]


def start(binary, data_dir, *flags):
    STARTS[0] += 1
    log_path = f"{data_dir}.{STARTS[0]}.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen([binary, "serve", "--http-port", "0", "--tcp-port", "0", "--syslog-port", "-1",
                             "--data-dir", data_dir, *flags], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline:
        with open(log_path, "rb") as f:
            m = re.search(rb"listening http=127\.0\.0\.1:(\d+)", f.read())
        if m:
            return proc, int(m.group(1))
        if proc.poll() is not None:
            sys.exit("logsift exited at start: " + open(log_path).read()[-2000:])
        time.sleep(0.05)
    sys.exit("logsift did not start")


def get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def post(port, texts):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/inferences", data=json.dumps({"texts": texts}).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.load(r)


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    if proc.wait(timeout=120) != 0:
        sys.exit("logsift did not stop cleanly")


def total(port):
    status, page = get(port, "/clusters?limit=1")
    return page.get("total", -1)


def counted(data_dir, binary):
    # Lines counted in the catalog: summed from its pages.
    proc, port = start(binary, data_dir, "--lsh-seed", "777")
    while get(port, "/readyz")[0] != 200:
        time.sleep(0.1)
    n, offset = 0, 0
    while True:
        status, page = get(port, f"/clusters?limit=1000&offset={offset}")
        rows = page.get("clusters", [])
        n += sum(r["count"] for r in rows)
        offset += len(rows)
        if len(rows) < 1000:
            break
    stop(proc)
    return n


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    seed = sys.argv[3] if len(sys.argv) > 3 else "7"
    binary = os.path.join(build, "logsift")
    work = tempfile.mkdtemp(prefix="logsift-migrate-bench-")
    try:
        lines = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "gen_cold.py"), str(n), seed],
                               check=True, capture_output=True, text=True).stdout.splitlines()
        data = os.path.join(work, "data")
        proc, port = start(binary, data, "--lsh-seed", "4242")
        while get(port, "/readyz")[0] != 200:
            time.sleep(0.05)
        t0 = time.time()
        for i in range(0, len(lines), 1000):
            post(port, lines[i:i + 1000])
        build_s = time.time() - t0
        clusters = total(port)
        stop(proc)

        t0 = time.time()
        out = subprocess.run([binary, "migrate", "--data-dir", data], check=True, capture_output=True, text=True)
        offline_s = time.time() - t0
        report = json.loads(out.stdout)["report"]

        t0 = time.time()
        proc, port = start(binary, data, "--lsh-seed", "777")
        while get(port, "/readyz")[0] != 200:
            time.sleep(0.05)
        serve_s = time.time() - t0
        status, info = get(port, "/info")
        served = info["migrations"][-1]
        stop(proc)
        lines_counted = counted(data, binary)
        print(f"clusters={clusters} lines={len(lines)} build_s={build_s:.1f} offline_s={offline_s:.1f} "
              f"serve_ready_s={serve_s:.1f} lines_counted={lines_counted}")
        print("offline report: " + json.dumps(report, sort_keys=True))
        print("serve report: " + json.dumps(served, sort_keys=True))
        return 0 if lines_counted == len(lines) else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
