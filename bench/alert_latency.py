#!/usr/bin/python3
"""Alert delivery latency: line in -> new_cluster webhook received.

Starts `BUILD_DIR/logsift serve` on loopback ephemeral ports with a fresh data
dir, runs a webhook receiver (http.server) on 127.0.0.1:0 in a thread,
subscribes it with rules ["new_cluster"], sends N lines that each open a new
cluster at a modest rate, and for every received alert computes

    latency = receive time - created_at (the time the alert was raised)

Prints
    alerts sent=N received=M lost=K p50_ms=.. p90_ms=.. p99_ms=.. max_ms=..
then stops the server by PID with SIGTERM and checks that it exits 0.
Exit status 0 only if nothing was lost, every signature verified and the
server exited 0.

With --hung-receivers K, K more subscriptions point at receivers that hang
(every other one never answers; the rest send a status line and headers,
then one byte a second of a body they never finish), and the latency is
still measured at the healthy receiver: a hung receiver must not delay
another receiver's alerts.

usage: /usr/bin/python3 bench/alert_latency.py BUILD_DIR [N] [--rate LINES_PER_S] [--hung-receivers K]
Standard library only.
"""

import argparse
import base64
import hashlib
import hmac
import http.client
import http.server
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone

SECRET = "bench-s3cret"

# Same line scheme as tests/integration/alerts_test.cpp: 4..8 distinct words of
# 64 picked by splitmix64, so every line is its own cluster (nearly always;
# lines whose reply says new=false are skipped and do not count as sent).
WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november "
    "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu cache queue "
    "socket worker shard ledger router scheduler indexer mailer gateway balancer resolver "
    "compactor replicator watcher tracker planner stalled drained rebuilt evicted throttled "
    "rotated paused flushed migrated reset apple banana cherry grape lemon mango olive peach "
    "pear plum"
).split()
assert len(WORDS) == 64
M64 = (1 << 64) - 1


def distinct_line(seed, i):
    st = (seed * 1000003 + i) & M64
    k = 4 + i % 5
    picked = []
    while len(picked) < k:
        st = (st + 0x9E3779B97F4A7C15) & M64
        z = st
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        z ^= z >> 31
        idx = z % len(WORDS)
        if idx not in picked:
            picked.append(idx)
    return " ".join(WORDS[j] for j in picked)


def parse_utc_ms(text):
    """'2024-05-01T12:00:00.123Z' -> unix seconds (float)."""
    m = re.match(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$", text)
    if not m:
        raise ValueError("not ISO 8601 UTC: %r" % text)
    y, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
    frac = m.group(7) or "0"
    base = datetime(y, mo, d, h, mi, s, tzinfo=timezone.utc).timestamp()
    return base + int(frac) / (10 ** len(frac))


def percentile(sorted_values, p):
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return float("nan")
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


def verify_signature(secret, headers, body):
    msg_id = headers.get("webhook-id", "")
    ts = headers.get("webhook-timestamp", "")
    sig_header = headers.get("webhook-signature", "")
    if not msg_id or not ts or not sig_header:
        return False
    if secret.startswith("whsec_"):
        key = base64.b64decode(secret[len("whsec_"):])
    else:
        key = secret.encode()
    want = base64.b64encode(
        hmac.new(key, msg_id.encode() + b"." + ts.encode() + b"." + body, hashlib.sha256).digest()
    ).decode()
    for entry in sig_header.split():
        version, _, sig = entry.partition(",")
        if version == "v1" and hmac.compare_digest(sig, want):
            return True
    return False


class Receiver:
    """Webhook receiver on 127.0.0.1:0; records (wall time, headers, body)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.records = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                now = time.time()
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                with receiver.cond:
                    receiver.records.append((now, headers, body))
                    receiver.cond.notify_all()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self):
        return "http://127.0.0.1:%d/hook" % self.port

    def snapshot(self):
        with self.lock:
            return list(self.records)

    def wait(self, pred, timeout):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not pred(self.records):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class HungReceiver:
    """Accepts connections on 127.0.0.1:0 and never completes a reply: silent,
    or (trickle) a status line and headers, then one body byte a second."""

    def __init__(self, trickle):
        self.trickle = trickle
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.held = []
        self.accepted = 0
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            self.held.append(conn)
            if self.trickle:
                threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn):
        try:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
            while not self.closed:
                conn.sendall(b"x")
                time.sleep(1.0)  # the trickle itself: one byte a second
        except OSError:
            pass

    def url(self):
        return "http://127.0.0.1:%d/hook" % self.port

    def close(self):
        self.closed = True
        self.sock.close()
        for c in self.held:
            c.close()


class Server:
    """A `logsift serve` child; output drained by a thread."""

    LISTENING = re.compile(r"listening http=(\S+):(\d+) tcp=(\S+):(\d+)")

    def __init__(self, binary, data_dir, extra):
        args = [binary, "serve", "--http-port", "0", "--tcp-port", "0", "--data-dir", data_dir] + extra
        env = {k: v for k, v in os.environ.items() if not k.startswith("LOGSIFT_")}
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=env)
        self.log = []
        self.http_port = None
        self.tcp_port = None
        self.found = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace")
            self.log.append(line)
            m = self.LISTENING.search(line)
            if m and not self.found.is_set():
                self.http_port, self.tcp_port = int(m.group(2)), int(m.group(4))
                self.found.set()

    def _ports_from_proc(self):
        """Listening loopback ports of the child, from /proc (fallback when
        the listening line is filtered out by the log level)."""
        inodes = set()
        fd_dir = "/proc/%d/fd" % self.proc.pid
        for fd in os.listdir(fd_dir):
            try:
                target = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue
            m = re.match(r"socket:\[(\d+)\]", target)
            if m:
                inodes.add(m.group(1))
        ports = []
        with open("/proc/%d/net/tcp" % self.proc.pid) as f:
            next(f)
            for row in f:
                cols = row.split()
                local, state, inode = cols[1], cols[3], cols[9]
                if state == "0A" and inode in inodes:
                    ports.append(int(local.split(":")[1], 16))
        return ports

    def wait_listening(self, timeout):
        start = time.monotonic()
        deadline = start + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            if self.found.wait(0.05):
                return True
            if time.monotonic() - start < 1.0:
                continue
            # No listening line (it is an info-level log line): find the HTTP
            # port among the child's listening sockets (see probe_http).
            try:
                ports = self._ports_from_proc()
            except OSError:
                ports = []
            for p in ports:
                if probe_http(p):
                    self.http_port = p
                    others = [q for q in ports if q != p]
                    self.tcp_port = others[0] if others else None
                    print("note: no 'listening' line in the server output (log level?); "
                          "found http port %d via /proc" % p, file=sys.stderr)
                    return True
        return self.found.is_set()

    def stop(self, timeout=20.0):
        """SIGTERM by PID; returns the exit code (None if it had to be killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            return None
        finally:
            self.reader.join(2)

    def log_tail(self, n=30):
        return "".join(self.log[-n:])


def probe_http(port):
    """True if `port` is the HTTP API, without feeding a log line to the TCP
    ingest: the request line is not valid UTF-8, so the TCP side answers
    with errors and clusters nothing, while HTTP still answers /healthz."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"GET /healthz?\xff HTTP/1.0\r\n\r\n")
            data = b""
            while b"\r\n" not in data and len(data) < 4096:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return False
    first = data.split(b"\r\n", 1)[0]
    return first.startswith(b"HTTP/1.") and b" 200 " in first + b" "


def http_call(port, method, target, body=None, timeout=10, conn=None):
    own = conn is None
    if own:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn.request(method, target, body=data, headers=headers)
        resp = conn.getresponse()
        payload = resp.read()
        return resp.status, payload
    finally:
        if own:
            conn.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build_dir")
    ap.add_argument("n", nargs="?", type=int, default=500, help="alerts to raise (default 500)")
    ap.add_argument("--rate", type=float, default=100.0, help="lines per second (default 100)")
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--hung-receivers", type=int, default=0,
                    help="subscriptions whose receivers hang or trickle, beside the measured one (default 0)")
    ap.add_argument("--wait", type=float, default=30.0,
                    help="seconds to wait for the last alerts after sending (default 30)")
    args = ap.parse_args()

    binary = os.path.join(args.build_dir, "logsift")
    if not os.access(binary, os.X_OK):
        print("no executable %s" % binary, file=sys.stderr)
        return 2

    data_dir = tempfile.mkdtemp(prefix="logsift-bench-alerts-")
    receiver = Receiver()
    hung = [HungReceiver(trickle=k % 2 == 1) for k in range(args.hung_receivers)]
    # The receivers are on loopback, which the SSRF guard refuses unless allowed.
    server = Server(binary, data_dir, ["--log-level", "warn", "--webhook-allow-cidrs", "127.0.0.0/8"])
    ok = True
    try:
        if not server.wait_listening(20.0):
            print("server did not start:\n" + server.log_tail(), file=sys.stderr)
            return 1
        port = server.http_port
        deadline = time.monotonic() + 20
        while True:
            try:
                if http_call(port, "GET", "/readyz", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                print("GET /readyz never answered 200", file=sys.stderr)
                return 1
            time.sleep(0.02)

        status, payload = http_call(port, "POST", "/subscriptions",
                                    {"url": receiver.url(), "secret": SECRET, "rules": ["new_cluster"]})
        if status != 201:
            print("POST /subscriptions -> %d %s" % (status, payload[:300]), file=sys.stderr)
            return 1
        for h in hung:
            status, payload = http_call(port, "POST", "/subscriptions",
                                        {"url": h.url(), "secret": SECRET, "rules": ["new_cluster"]})
            if status != 201:
                print("POST /subscriptions (hung) -> %d %s" % (status, payload[:300]), file=sys.stderr)
                return 1

        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        new_clusters = set()
        lines_sent = 0
        interval = 1.0 / args.rate if args.rate > 0 else 0.0
        t_start = time.monotonic()
        i = 0
        while len(new_clusters) < args.n and i < 3 * args.n:
            text = distinct_line(args.seed, i)
            i += 1
            status, payload = http_call(port, "POST", "/inferences", {"text": text}, conn=conn)
            lines_sent += 1
            if status != 200:
                print("POST /inferences -> %d %s" % (status, payload[:300]), file=sys.stderr)
                return 1
            reply = json.loads(payload)
            if reply.get("new"):
                new_clusters.add(reply["cluster_id"])
            next_at = t_start + lines_sent * interval
            pause = next_at - time.monotonic()
            if pause > 0:
                time.sleep(pause)  # pacing the offered load, not waiting for readiness
        conn.close()
        send_s = time.monotonic() - t_start

        def distinct_clusters(records):
            seen = set()
            for _, _, body in records:
                try:
                    seen.add(json.loads(body).get("cluster_id"))
                except ValueError:
                    pass
            return seen

        receiver.wait(lambda recs: new_clusters <= distinct_clusters(recs), args.wait)
        records = receiver.snapshot()

        first_by_id = {}
        bad_sig = 0
        bad_body = 0
        for t, headers, body in records:
            if not verify_signature(SECRET, headers, body):
                bad_sig += 1
            wid = headers.get("webhook-id", "")
            if wid in first_by_id:
                continue
            try:
                alert = json.loads(body)
                created = parse_utc_ms(alert["created_at"])
            except (ValueError, KeyError, TypeError):
                bad_body += 1
                continue
            first_by_id[wid] = (t, alert, created)
        latencies = []
        received_clusters = set()
        for t, alert, created in first_by_id.values():
            if alert.get("rule") == "new_cluster" and alert.get("cluster_id") in new_clusters:
                received_clusters.add(alert["cluster_id"])
                latencies.append((t - created) * 1000.0)
        latencies.sort()
        sent = len(new_clusters)
        received = len(received_clusters)
        lost = sent - received
        redeliveries = len(records) - len(first_by_id)
        print("alerts sent=%d received=%d lost=%d p50_ms=%.1f p90_ms=%.1f p99_ms=%.1f max_ms=%.1f"
              % (sent, received, lost, percentile(latencies, 50), percentile(latencies, 90),
                 percentile(latencies, 99), latencies[-1] if latencies else float("nan")))
        print("lines=%d send_s=%.1f rate=%.0f/s requests=%d redeliveries=%d bad_signatures=%d bad_bodies=%d"
              % (lines_sent, send_s, lines_sent / send_s if send_s > 0 else 0, len(records),
                 redeliveries, bad_sig, bad_body))
        if hung:
            print("hung_receivers=%d connections_they_held=%d"
                  % (len(hung), sum(h.accepted for h in hung)))
        if sent < args.n:
            print("only %d of %d lines opened a new cluster" % (sent, args.n), file=sys.stderr)
        if lost or bad_sig or bad_body or sent < args.n:
            ok = False
    finally:
        code = server.stop()
        receiver.close()
        for h in hung:
            h.close()
        shutil.rmtree(data_dir, ignore_errors=True)
        print("server exit=%s" % code)
        if code != 0:
            ok = False
            print("server did not exit 0 on SIGTERM:\n" + server.log_tail(), file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
