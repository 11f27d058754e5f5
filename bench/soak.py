#!/usr/bin/python3
"""Soak: a real `logsift serve` under mixed load for a while, then the books.

Starts the server (ephemeral loopback ports, fresh data dir, loopback webhooks
allowed) and a webhook receiver in this process, subscribes the receiver to
new_cluster, then for --minutes runs at once:
  * --tcp connections streaming lines with replies (seen lines from --corpus
    mixed with --new-fraction brand-new templates of random words),
  * one HTTP client posting single lines,
  * a receiver that goes down (connection refused) for --down-for seconds
    every --down-every seconds, so alerts wait in the outbox and are retried,
  * a sampler that prints RSS, clusters and alerts every 30 s.
--rate caps the lines per second of all TCP connections together (0: as fast
as the server answers).
At the end it waits for the outbox to drain and prints one RESULT line:
lines sent and answered, error replies, HTTP errors, new clusters in the
catalog, alerts received, distinct webhook-ids, duplicates (redeliveries of
one id), clusters with no alert, RSS at start / max / end, the data directory's size (max / end), and the RSS growth per
new cluster after warm-up (the first --warmup-minutes), and the same growth
less what /metrics accounts for: the caches (logsift_cache_bytes, bounded by
the *_cache_bytes settings), SQLite's heap and the aggregator's clusters
(logsift_aggregator_bytes, bounded by aggregator_max_clusters). --new-fraction-after-warmup 0 stops new
templates after warm-up, to show the RSS flat without new clusters. Exit 1 if any
line or alert went missing or any error was seen.

Usage: bench/soak.py --bin build/logsift [--minutes 10] [--tcp 2] [--corpus FILE] [--rate N]
                     [--down-every 600 --down-for 60] [--warmup-minutes 5] [--new-fraction-after-warmup F]
"""
import argparse
import http.server
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

WORDS = [w for w in "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basil cedar dune ember fjord "
         "grove harbor island jungle karma lagoon meadow nectar orchid prairie quartz river summit tundra".split()]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Receiver(http.server.BaseHTTPRequestHandler):
    ids = {}
    lock = threading.Lock()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        wid = self.headers.get("webhook-id", "")
        with Receiver.lock:
            entry = Receiver.ids.setdefault(wid, {"n": 0, "cluster": None})
            entry["n"] += 1
            try:
                entry["cluster"] = json.loads(body).get("cluster_id")
            except ValueError:
                pass
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *a):
        pass


def dir_mb(path):
    total = 0
    for name in os.listdir(path):
        try:
            total += os.path.getsize(os.path.join(path, name))
        except OSError:
            pass
    return total / 1048576


def memory_mb(port):
    """(cache MB, SQLite heap MB, aggregator MB) from /metrics: the bounded parts of the RSS."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as r:
            text = r.read().decode()
    except Exception:
        return -1.0, -1.0, -1.0
    cache = sum(float(m.group(1)) for m in re.finditer(r"^logsift_cache_bytes\{[^}]*\} (\S+)$", text, re.M))
    def gauge(name):
        m = re.search(rf"^{name} (\S+)$", text, re.M)
        return float(m.group(1)) / 1048576 if m else -1.0
    return cache / 1048576, gauge("logsift_sqlite_heap_bytes"), gauge("logsift_aggregator_bytes")


def http_json(port, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status, json.loads(r.read() or b"null")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--tcp", type=int, default=2)
    ap.add_argument("--corpus", default="")
    ap.add_argument("--new-fraction", type=float, default=0.005)
    ap.add_argument("--new-fraction-after-warmup", type=float, default=None,
                    help="switch to this new-template fraction after --warmup-minutes (0: is RSS flat without new clusters?)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", type=float, default=0, help="TCP lines/s, all connections together (0: unpaced)")
    ap.add_argument("--down-every", type=float, default=600, help="seconds between receiver outages (0: never)")
    ap.add_argument("--down-for", type=float, default=60, help="seconds each outage lasts")
    ap.add_argument("--warmup-minutes", type=float, default=5)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    seen = []
    if a.corpus:
        with open(a.corpus, errors="replace") as f:
            seen = [l.rstrip("\n") for _, l in zip(range(50000), f) if l.strip()]
    if not seen:
        seen = [f"Connection from 10.0.{i % 250}.{i % 200} port {1000 + i} closed" for i in range(1000)]

    recv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    recv_port = recv.server_port
    threading.Thread(target=recv.serve_forever, daemon=True).start()
    outages = []
    tmp = tempfile.mkdtemp(prefix="logsift-soak-")
    proc = subprocess.Popen([a.bin, "serve", "--http-port", "0", "--tcp-port", "0", "--syslog-port", "-1",
                             "--data-dir", tmp, "--webhook-allow-cidrs", "127.0.0.0/8"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    m = re.search(r"http=\S+:(\d+) tcp=\S+:(\d+)", line)
    if not m:
        print("soak: no listening line: " + line, file=sys.stderr)
        proc.kill()
        return 2
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    hport, tport = int(m.group(1)), int(m.group(2))
    time.sleep(0.5)
    http_json(hport, "POST", "/subscriptions",
              {"url": f"http://127.0.0.1:{recv_port}/hook", "rules": ["new_cluster"]})
    rss_start = rss_mb(proc.pid)
    stop = threading.Event()
    stats = {"sent": 0, "answered": 0, "error_replies": 0, "http_ok": 0, "http_err": 0, "rss_max": rss_start,
             "disk_max": 0.0}
    samples = []  # (seconds, rss_mb, clusters, cache_mb, sqlite_mb, aggregator_mb)
    lock = threading.Lock()

    def make_line(r):
        frac = a.new_fraction
        if a.new_fraction_after_warmup is not None and time.time() - t0 >= a.warmup_minutes * 60:
            frac = a.new_fraction_after_warmup
        if r.random() < frac:
            return " ".join(r.choice(WORDS) + str(r.randrange(0, 3)) if r.random() < 0.1 else
                            "".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randrange(4, 9)))
                            for _ in range(r.randrange(4, 9)))
        return r.choice(seen)

    def tcp_worker(k):
        r = random.Random(a.seed * 100 + k)
        s = socket.create_connection(("127.0.0.1", tport))
        f = s.makefile("rb")
        per_batch_s = 500 * a.tcp / a.rate if a.rate > 0 else 0.0
        next_t = time.time()
        while not stop.is_set():
            if per_batch_s:
                next_t += per_batch_s
                stop.wait(max(0.0, next_t - time.time()))
            batch = [make_line(r) for _ in range(500)]
            s.sendall(("\n".join(batch) + "\n").encode())
            errs = 0
            for _ in batch:
                reply = f.readline()
                errs += b'"error"' in reply
            with lock:
                stats["sent"] += len(batch)
                stats["answered"] += len(batch)
                stats["error_replies"] += errs
        s.close()

    def http_worker():
        r = random.Random(a.seed * 1000)
        while not stop.is_set():
            try:
                st, _ = http_json(hport, "POST", "/inferences", {"text": make_line(r)})
                ok = st == 200
            except Exception:
                ok = False
            with lock:
                stats["http_ok" if ok else "http_err"] += 1
            time.sleep(0.002)

    def receiver_outages():
        nonlocal recv
        if a.down_every <= 0:
            return
        while not stop.wait(a.down_every):
            recv.shutdown()
            recv.server_close()
            down_at = time.time() - t0
            stop.wait(a.down_for)
            recv = http.server.ThreadingHTTPServer(("127.0.0.1", recv_port), Receiver)
            threading.Thread(target=recv.serve_forever, daemon=True).start()
            outages.append((down_at, time.time() - t0))
            print(f"soak: receiver was down {outages[-1][0]:.0f}-{outages[-1][1]:.0f} s", flush=True)

    def sampler():
        while not stop.wait(30):
            rss = rss_mb(proc.pid)
            disk = dir_mb(tmp)
            try:
                _, c = http_json(hport, "GET", "/clusters?limit=1")
                _, p = http_json(hport, "GET", "/alerts?status=pending&limit=1")
                n, pending = c["total"], p["total"]
            except Exception:
                n, pending = -1, -1
            with Receiver.lock:
                got = len(Receiver.ids)
            with lock:
                stats["rss_max"] = max(stats["rss_max"], rss)
                stats["disk_max"] = max(stats["disk_max"], disk)
                lines = stats["sent"]
            t = time.time() - t0
            cache, sq, agg = memory_mb(hport)
            samples.append((t, rss, n, cache, sq, agg))
            print(f"soak: t={t:.0f}s rss_mb={rss:.0f} data_dir_mb={disk:.0f} clusters={n} tcp_lines={lines} alerts_pending={pending} "
                  f"cache_mb={cache:.0f} sqlite_mb={sq:.1f} aggregator_mb={agg:.1f} "
                  f"webhook_ids={got}", flush=True)

    threads = [threading.Thread(target=tcp_worker, args=(k,)) for k in range(a.tcp)]
    threads += [threading.Thread(target=http_worker), threading.Thread(target=sampler),
                threading.Thread(target=receiver_outages)]
    t0 = time.time()
    for t in threads:
        t.start()
    time.sleep(a.minutes * 60)
    stop.set()
    for t in threads:
        t.join()
    wall = time.time() - t0
    # Let the outbox drain (an alert that failed during the last outage may
    # wait up to the backoff cap before its next attempt).
    deadline = time.time() + 120
    while time.time() < deadline:
        _, pend = http_json(hport, "GET", "/alerts?status=pending&limit=1")
        if pend["total"] == 0:
            break
        time.sleep(0.5)
    _, clusters = http_json(hport, "GET", "/clusters?limit=1")
    _, failed = http_json(hport, "GET", "/alerts?status=failed&limit=1")
    rss_end = rss_mb(proc.pid)
    cache_end, sqlite_end, agg_end = memory_mb(hport)
    disk_end = dir_mb(tmp)
    stats["rss_max"] = max(stats["rss_max"], rss_end)
    proc.terminate()
    code = proc.wait(timeout=60)
    with Receiver.lock:
        ids = dict(Receiver.ids)
    alerted = {v["cluster"] for v in ids.values()}
    dup = sum(v["n"] - 1 for v in ids.values())
    missing = clusters["total"] - len(alerted)
    warm = [x for x in samples if x[0] >= a.warmup_minutes * 60 and x[2] >= 0]
    per_cluster = "n/a"
    if warm and clusters["total"] > warm[0][2]:
        per_cluster = f"{(rss_end - warm[0][1]) * 1048576 / (clusters['total'] - warm[0][2]):.0f}"
    warm_rss = f"{warm[0][1]:.0f}" if warm else "n/a"
    # What the RSS grew by beyond what /metrics accounts for: the caches (bounded
    # by *_cache_bytes), SQLite's heap and the aggregator's clusters (bounded by
    # aggregator_max_clusters). Near 0: the growth is explained.
    beyond = agg_per = "n/a"
    if warm and clusters["total"] > warm[0][2] and warm[0][3] >= 0 and cache_end >= 0:
        new = clusters["total"] - warm[0][2]
        grew = (rss_end - warm[0][1]) - (cache_end - warm[0][3]) - (sqlite_end - warm[0][4]) - (agg_end - warm[0][5])
        beyond = f"{grew * 1048576 / new:.0f}"
        agg_per = f"{(agg_end - warm[0][5]) * 1048576 / new:.0f}"
    warm_cache = f"{warm[0][3]:.0f}" if warm else "n/a"
    print(f"RESULT soak minutes={a.minutes} wall_s={wall:.0f} tcp_lines={stats['sent']} answered={stats['answered']} "
          f"error_replies={stats['error_replies']} http_ok={stats['http_ok']} http_err={stats['http_err']} "
          f"clusters={clusters['total']} alerts_received={sum(v['n'] for v in ids.values())} webhook_ids={len(ids)} "
          f"redeliveries={dup} clusters_without_alert={missing} dead_lettered={failed['total']} "
          f"rss_start_mb={rss_start:.0f} rss_warm_mb={warm_rss} rss_max_mb={stats['rss_max']:.0f} rss_end_mb={rss_end:.0f} "
          f"rss_bytes_per_new_cluster_after_warmup={per_cluster} cache_warm_mb={warm_cache} cache_end_mb={cache_end:.0f} "
          f"sqlite_heap_end_mb={sqlite_end:.1f} aggregator_end_mb={agg_end:.1f} aggregator_bytes_per_new_cluster={agg_per} "
          f"rss_bytes_per_new_cluster_unaccounted={beyond} data_dir_mb_max={stats['disk_max']:.0f} "
          f"data_dir_mb_end={disk_end:.0f} receiver_outages={len(outages)} exit={code}",
          flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
    bad = stats["error_replies"] or stats["http_err"] or missing or failed["total"] or code != 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
