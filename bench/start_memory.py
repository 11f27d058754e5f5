#!/usr/bin/python3
"""Start time and memory of logsift, side by side with another build.

For each binary (--bin, then each --peer, alternated run by run):
  * `logsift cluster` on an empty input: wall time of the whole process and
    its max RSS (median of --runs);
  * `serve` on a fresh data dir until GET /readyz answers 200 (polled every
    2 ms; median of --runs), and the fresh server's RSS once ready;
  * with --clusters FILE: the server fed FILE over TCP by --loadgen (one new
    template a line, e.g. bench/gen_cold.py 100000 7), then its RSS after a
    heap trim pass and its peak (VmHWM), and the catalog's cluster count.
Prints one table row per binary. Loopback only; every process it starts it
stops by PID.

Usage: bench/start_memory.py --bin build/logsift [--peer OLD/logsift ...] [--runs 7]
                             [--clusters cold100k.txt --loadgen build/loadgen]
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def status_kb(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def cluster_empty(binary):
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", binary, "cluster", "/dev/null"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    wall = time.perf_counter() - t0
    return wall, int(p.stderr.strip().splitlines()[-1])


def get(port, path, timeout=1.0):
    with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=timeout) as r:
        return r.status, r.read()


class Server:
    def __init__(self, binary, extra=()):
        self.dir = tempfile.mkdtemp(prefix="logsift-startmem-")
        self.http, self.tcp = free_port(), free_port()
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [binary, "serve", "--data-dir", self.dir, "--http-port", str(self.http), "--tcp-port", str(self.tcp),
             "--syslog-port", "-1", *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.ready_s = None
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if get(self.http, "/readyz", 0.2)[0] == 200:
                    self.ready_s = time.perf_counter() - self.t0
                    break
            except OSError:
                pass
            time.sleep(0.002)
        if self.ready_s is None:
            self.stop()
            raise RuntimeError("%s did not become ready in 30 s" % binary)

    def rss_mb(self):
        return status_kb(self.proc.pid, "VmRSS") / 1024

    def hwm_mb(self):
        return status_kb(self.proc.pid, "VmHWM") / 1024

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def clusters_run(binary, corpus, loadgen):
    s = Server(binary, ["--memory-trim-interval-ms", "1000"])
    try:
        subprocess.run([loadgen, "tcp", "--port", str(s.tcp), "--lines", corpus, "--connections", "2"],
                       stdout=subprocess.DEVNULL, check=True)
        time.sleep(2.5)  # at least one trim pass after the load
        n = json.loads(get(s.http, "/clusters?limit=1")[1]).get("total")
        return s.rss_mb(), s.hwm_mb(), n
    finally:
        s.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--peer", action="append", default=[])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--clusters")
    ap.add_argument("--loadgen")
    a = ap.parse_args()
    bins = [a.bin] + a.peer
    res = {b: {"cluster_s": [], "cluster_kb": [], "ready_s": [], "rss": []} for b in bins}
    for _ in range(a.runs):
        for b in bins:
            wall, kb = cluster_empty(b)
            res[b]["cluster_s"].append(wall)
            res[b]["cluster_kb"].append(kb)
            s = Server(b)
            time.sleep(0.3)
            res[b]["ready_s"].append(s.ready_s)
            res[b]["rss"].append(s.rss_mb())
            s.stop()
    print("| binary | `cluster` on an empty input (median, range) | its max RSS | `serve` to /readyz 200 (median, range) | fresh server RSS |"
          + (" RSS with the clusters, after a trim | peak | clusters |" if a.clusters else ""))
    print("| --- | --- | --- | --- | --- |" + (" --- | --- | --- |" if a.clusters else ""))
    for b in bins:
        r = res[b]
        row = "| %s | %.1f ms (%.1f-%.1f) | %.1f MB | %.1f ms (%.1f-%.1f) | %.1f MB |" % (
            b, 1000 * statistics.median(r["cluster_s"]), 1000 * min(r["cluster_s"]), 1000 * max(r["cluster_s"]),
            statistics.median(r["cluster_kb"]) / 1024, 1000 * statistics.median(r["ready_s"]),
            1000 * min(r["ready_s"]), 1000 * max(r["ready_s"]), statistics.median(r["rss"]))
        if a.clusters:
            rss, hwm, n = clusters_run(b, a.clusters, a.loadgen)
            row += " %.1f MB | %.1f MB | %s |" % (rss, hwm, n)
        print(row, flush=True)


if __name__ == "__main__":
    main()
