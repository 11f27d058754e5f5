#!/usr/bin/python3
"""Multi-line events over TCP: a labelled events set sent line by line to a real `logsift serve`.

Usage:
    bench/events_over_tcp.py SET_DIR [--binary build/logsift] [--systems Mixed,JavaOrders]

Why: `logsift eval` measures the assembler through the same code `logsift cluster` runs (one file, one
source). A TCP client is another path: its lines arrive in reads of whatever size the kernel hands over,
events wait across reads, and a quiet time ends the last one. This sends every physical line of each
System of a models/events set (README there) over one TCP connection, without waiting for replies (as a
shipper pipelines), reads the one reply per line, and scores the replies' cluster ids against the set's
labels exactly as `logsift eval` does: grouping accuracy over the lines of multi-line events ("trace
lines"), over the single lines, and the number of ids the trace lines got against the number of faults.
It also reports how many lines got a different id than `logsift cluster` gives the same file.

Each System gets a fresh server (its own temp data dir), stopped by PID afterwards. Prints one row per
System and the time the replies took.
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time


def grouping_accuracy(ids, truth):
    by_id, by_event = collections.defaultdict(set), collections.defaultdict(set)
    for i, (c, t) in enumerate(zip(ids, truth)):
        by_id[c].add(i)
        by_event[t].add(i)
    if not ids:
        return 0.0
    ok = sum(len(lines) for lines in by_event.values() if by_id[ids[min(lines)]] == lines)
    return ok / len(ids)


def ga_over(ids, truth, pick):
    return grouping_accuracy([i for i, p in zip(ids, pick) if p], [t for t, p in zip(truth, pick) if p])


def start_server(binary, data_dir):
    p = subprocess.Popen([binary, "serve", "--http-port", "0", "--tcp-port", "0", "--syslog-port", "-1",
                          "--data-dir", data_dir], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 30
    while time.time() < deadline:
        line = p.stdout.readline()
        m = re.search(r"tcp=127\.0\.0\.1:(\d+)", line)
        if m:
            # Keep draining the server's output so it never blocks on a full pipe.
            threading.Thread(target=lambda: [None for _ in p.stdout], daemon=True).start()
            return p, int(m.group(1))
        if not line and p.poll() is not None:
            break
    p.kill()
    raise SystemExit("logsift serve did not report its TCP port")


def send_and_read(port, lines):
    s = socket.create_connection(("127.0.0.1", port))
    payload = ("\n".join(lines) + "\n").encode()

    def send():
        s.sendall(payload)

    t = threading.Thread(target=send)
    start = time.time()
    t.start()
    buf = b""
    replies = []
    s.settimeout(60)
    while len(replies) < len(lines):
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        buf += chunk
        *done, buf = buf.split(b"\n")
        replies.extend(done)
    elapsed = time.time() - start
    t.join()
    s.close()
    return [json.loads(r) for r in replies], elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("set_dir")
    ap.add_argument("--binary", default=os.path.join(os.path.dirname(__file__), "..", "build", "logsift"))
    ap.add_argument("--systems", default="")
    a = ap.parse_args()
    datasets = json.load(open(os.path.join(a.set_dir, "datasets.json")))
    systems = a.systems.split(",") if a.systems else sorted(datasets)
    print(f"{'System':14} {'lines':>6} {'GA(trace lines)':>15} {'GA(single)':>10} {'ids/faults':>10} "
          f"{'differ from cluster':>19} {'seconds':>7}")
    for name in systems:
        rows = list(csv.DictReader(open(os.path.join(a.set_dir, name, f"{name}.log_structured.csv"))))
        lines = [r["Content"] for r in rows]
        truth = [r["EventId"] for r in rows]
        size = collections.Counter(r["Event"] for r in rows)
        in_trace = [size[r["Event"]] > 1 for r in rows]
        with tempfile.TemporaryDirectory(prefix="logsift-events-tcp-") as data:
            server, port = start_server(a.binary, data)
            try:
                replies, elapsed = send_and_read(port, lines)
            finally:
                server.terminate()
                server.wait(timeout=30)
        if len(replies) != len(lines):
            raise SystemExit(f"{name}: {len(replies)} replies for {len(lines)} lines")
        ids = [r.get("cluster_id", "error") for r in replies]
        log = os.path.join(a.set_dir, name, f"{name}.log")
        out = subprocess.run([a.binary, "cluster", log], capture_output=True, text=True, check=True).stdout
        cli = [json.loads(l).get("cluster_id", "error") for l in out.splitlines()]
        differ = sum(1 for x, y in zip(ids, cli) if x != y)
        faults = {t for t, p in zip(truth, in_trace) if p}
        trace_ids = {i for i, p in zip(ids, in_trace) if p}
        print(f"{name:14} {len(lines):6} {ga_over(ids, truth, in_trace):15.4f} "
              f"{ga_over(ids, truth, [not p for p in in_trace]):10.4f} {len(trace_ids):>4}/{len(faults):<5} "
              f"{differ:19} {elapsed:7.2f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
