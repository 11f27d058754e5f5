#!/usr/bin/python3
"""Chaos harness for logsift: a fleet on Redis and a SQLite server under load
and a seeded fault schedule, then the books (tests/chaos/checker.py).

What runs (all on loopback inside a network namespace the harness makes, so
netem can slow and drop its traffic without touching the machine's):
  * redis-server with appendonly yes + appendfsync always (a restart keeps
    the data; "Redis restarted empty" deletes its files on purpose);
  * three replicas r0 r1 r2 (store: redis, redis_buffer_bytes 0: a write
    Redis cannot take is refused, never acknowledged from memory);
  * one SQLite server s0 whose data dir is an ext4 image loop-mounted by the
    harness (filled to make it full; an ext4 error makes it read-only);
  * four webhook receivers, each subscribed to new_cluster on the fleet and
    on s0: healthy, slow (0.3 s a request), flapping (503 for 2 s in every
    6 s), and "hangable" (healthy until a receiver_hang fault);
  * a load generator in this process, over HTTP ({"texts": [...]}), TCP
    lines with replies and TCP syslog (RFC 5424, octet-counted), at
    --load-fraction (0.5) of the capacity it measures first, with a trickle
    of brand-new templates so new_cluster alerts keep flowing;
  * samplers: /readyz of every server every 0.2 s, /metrics + RSS every 1 s.

Acknowledgements: an HTTP or TCP line is acknowledged by its reply (a
cluster id). Syslog has no replies; a syslog batch is one connection of 50
lines of one template, half-closed after sending; the server closes it only
once every line is committed or refused, and counts each refusal in
logsift_syslog_rejected_total. With one syslog sender, the batch's
acknowledged lines are 50 less that counter's delta on that server (a
failure anywhere: the batch's fate is unknown, allowed 0..50).

Fault kinds (--faults, comma-separated; default all):
  redis_wipe      Redis killed, its files deleted, started empty
  redis_restart   Redis killed and restarted on its append-only file
  redis_pause     SIGSTOP Redis, SIGCONT later
  replica_kill    kill -9 a replica, restart it
  replica_stop    SIGSTOP a replica (longer than redis_claim_idle_ms), SIGCONT
  disk_full       s0's data dir filled to the last block, then freed
  disk_ro         s0's data dir and its files made immutable (chattr +i): every
                  write and create fails (EPERM) as on a read-only mount; undone
                  live. (A tmpfs or bind mount cannot be remounted read-only while
                  SQLite holds its files open for writing: EBUSY.)
  fs_error        s0's ext4 fails (/sys/fs/ext4/DEV/trigger_fs_error with
                  errors=remount-ro: the journal aborts, the mount turns
                  read-only, like a disk error); to clear it s0 is stopped, the
                  filesystem checked (e2fsck) and remounted, s0 started again (an
                  aborted ext4 cannot be made writable live). What was written but
                  not yet fsynced is gone, as after a power loss.
  receiver_hang   the hangable receiver holds every request, then drops it
  netem           tc netem delay 50ms loss 5% on the namespace's loopback
  contract_upgrade  the fleet (then s0) rolled, one server at a time, to the
                  next lsh_seed: a new cluster-id contract, migrated at start

The schedule comes from --seed alone (kinds, order, targets, durations,
gaps); the load's lines come from the seed too (timings of course vary).
With a run of <= 5 minutes every selected kind occurs at least once.

Self-test (--self-test): the checker must FAIL on a service that
acknowledges before committing. This run uses redis_buffer_bytes 64 MB (a
replica acknowledges lines while Redis is away by holding them in memory:
"new": null) and one fault, buffered_kill: Redis is stopped, the load goes
on for a few seconds, then a replica is killed -9 with acknowledged lines
only in its memory, Redis comes back, the replica is restarted. Those lines
are acknowledged and never committed; the harness exits 0 only when the
checker reports them lost.

Usage:
  /usr/bin/python3 tests/chaos/chaos.py --bin build/logsift --seed 7 --minutes 2 --out /tmp/chaos-out
  /usr/bin/python3 tests/chaos/chaos.py --bin build/logsift --seed 7 --minutes 60 --out /tmp/chaos-1h
  /usr/bin/python3 tests/chaos/chaos.py --bin build/logsift --self-test
Needs root (netns, tc, mount, losetup), redis-server, iproute2, e2fsprogs.
Exit: 0 checker passed (self-test: checker failed as it must), 1 checker
failed, 2 harness error, 77 skipped (not root, or a tool missing).
"""
import argparse
import atexit
import http.client
import http.server
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checker  # noqa: E402

ALL_KINDS = ["redis_wipe", "redis_restart", "redis_pause", "replica_kill", "replica_stop", "disk_full",
             "disk_ro", "fs_error", "receiver_hang", "netem", "contract_upgrade"]
TAG = "chaosharness"
WORDS = ("walrus harbor ember quartz lagoon basil cedar dune orchid prairie summit river tundra meadow "
         "nectar grove island jungle karma fjord amber willow falcon granite copper silver marble canyon "
         "glacier maple spruce birch aspen hazel thistle clover saffron pepper ginger nutmeg cobalt indigo "
         "crimson scarlet violet russet ochre sepia linen velvet satin cotton wool denim tweed flannel "
         "anchor beacon bridge castle tower fortress citadel harbor lantern mirror prism compass ledger "
         "parcel basket bucket candle kettle ladder mallet needle pillow ribbon saddle trowel whistle "
         "badger beaver bison camel condor coyote dingo donkey ferret gazelle heron jackal lemur lynx "
         "marmot narwhal ocelot otter panther pelican puffin raven salmon seal sparrow stork tapir toucan "
         "viper weasel wombat yak zebra").split()
SHAPES = [
    "{tag} {a} {b} worker {n} finished job 0x{h} in {m} ms",
    "{tag} {a} {b} cache lookup for key user-{n} took {m} ms",
    "{tag} {a} {b} {c} {d} reported {n} items",
    "{tag} {a} {b} connection from 10.{n}.{m}.{k} port {p} closed",
    "{tag} {a} {b} {c} queue depth is {n} after {m} retries",
    "{tag} {a} {b} {c} {d} {e} handshake completed for session {h}",
]

PROCS = {}          # pid -> (name, Popen)
CLEANUPS = []       # callables, run last-in first-out
_cleaned = False


def log(msg):
    print(f"[chaos {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run_cmd(argv, check=True, quiet=False):
    r = subprocess.run(argv, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.strip()}")
    return r


def spawn(name, argv, logfile, **kw):
    f = open(logfile, "ab")
    p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, **kw)
    f.close()
    PROCS[p.pid] = (name, p)
    return p


def stop_proc(p, grace=5.0, sig=signal.SIGTERM):
    """Stop one process we started, by its pid."""
    if p is None or p.poll() is not None:
        PROCS.pop(getattr(p, "pid", None), None)
        return
    p.expected_exit = True
    try:
        os.kill(p.pid, signal.SIGCONT)
        os.kill(p.pid, sig)
        p.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
    except ProcessLookupError:
        pass
    PROCS.pop(p.pid, None)


def cleanup():
    global _cleaned
    if _cleaned:
        return
    _cleaned = True
    for pid, (name, p) in list(PROCS.items()):
        try:
            if p.poll() is None:
                os.kill(pid, signal.SIGCONT)
                os.kill(pid, signal.SIGKILL)
                p.wait(timeout=10)
        except Exception:
            pass
    PROCS.clear()
    while CLEANUPS:
        fn = CLEANUPS.pop()
        try:
            fn()
        except Exception as e:
            log(f"cleanup: {e}")


PORT_RANGE = [20000, 32000]  # listeners: below the ephemeral range, so a restarted server's port is
_ports_used = set()          # never taken meanwhile by some client connection's local port


def set_port_range(in_netns):
    if in_netns:  # our own namespace: move its ephemeral range up, listeners below it
        with open("/proc/sys/net/ipv4/ip_local_port_range", "w") as f:
            f.write("40000 60999")
        PORT_RANGE[:] = [20000, 39999]
    else:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            lo = int(f.read().split()[0])
        PORT_RANGE[:] = [max(1024, lo - 12000), lo - 1]


def free_port():
    r = random.Random()
    for _ in range(1000):
        p = r.randrange(PORT_RANGE[0], PORT_RANGE[1])
        if p in _ports_used:
            continue
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", p))
        except OSError:
            continue
        finally:
            s.close()
        _ports_used.add(p)
        return p
    raise RuntimeError("no free port")


def http_req(port, method, path, body=None, timeout=5.0, headers=None):
    """(status, bytes) or raises."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def http_json(port, method, path, body=None, timeout=5.0):
    st, data = http_req(port, method, path, json.dumps(body).encode() if body is not None else None, timeout)
    try:
        return st, json.loads(data or b"null")
    except ValueError:
        return st, data.decode(errors="replace")


def metric_values(port, names, timeout=2.0):
    st, data = http_req(port, "GET", "/metrics", timeout=timeout)
    if st != 200:
        raise RuntimeError(f"metrics {st}")
    out = {n: 0.0 for n in names}
    for line in data.decode().splitlines():
        if line.startswith("#"):
            continue
        for n in names:
            if line.startswith(n + " ") or line.startswith(n + "{"):
                try:
                    out[n] += float(line.rsplit(" ", 1)[1])
                except ValueError:
                    pass
    return out


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


# ------------------------------------------------------------------ servers

class Redis:
    def __init__(self, work):
        self.port = free_port()
        self.dir = os.path.join(work, "redis")
        self.log = os.path.join(work, "redis.log")
        self.proc = None
        os.makedirs(self.dir, exist_ok=True)

    def start(self):
        self.proc = spawn("redis", ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
                                    "--appendonly", "yes", "--appendfsync", "always", "--save", "",
                                    "--protected-mode", "no"], self.log)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                s = socket.create_connection(("127.0.0.1", self.port), timeout=0.5)
                s.sendall(b"PING\r\n")
                if s.recv(64).startswith(b"+PONG"):
                    s.close()
                    return
                s.close()
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("redis did not start")

    def kill(self):
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        PROCS.pop(self.proc.pid, None)

    def wipe_files(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir, exist_ok=True)


class Server:
    def __init__(self, name, group, work, bin_path, common, extra):
        self.name, self.group, self.bin = name, group, bin_path
        self.http, self.tcp, self.syslog = free_port(), free_port(), free_port()
        self.data = os.path.join(work, name + "-data")
        self.log = os.path.join(work, name + ".log")
        self.common, self.extra = common, extra
        self.lsh_seed = 1337
        self.proc = None
        self.lock = threading.Lock()
        os.makedirs(self.data, exist_ok=True)

    def argv(self):
        a = [self.bin, "serve", "--http-port", str(self.http), "--tcp-port", str(self.tcp),
             "--syslog-port", str(self.syslog), "--data-dir", self.data, "--lsh-seed", str(self.lsh_seed)]
        return a + self.common + self.extra

    def start(self, wait_ready=True, timeout=60):
        with open(self.log, "a") as f:
            f.write(f"\n==== start {time.time():.3f} lsh_seed={self.lsh_seed}\n")
        self.proc = spawn(self.name, self.argv(), self.log)
        if wait_ready:
            self.wait_ready(timeout)
        return self.proc

    def wait_ready(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited {self.proc.returncode}: see {self.log}")
            try:
                st, _ = http_req(self.http, "GET", "/readyz", timeout=1)
                if st == 200:
                    return True
            except OSError:
                pass
            time.sleep(0.05)
        return False

    def alive(self):
        return self.proc is not None and self.proc.poll() is None


# ------------------------------------------------------------------ receivers

class Receivers:
    """Four webhook receivers in this process; every POST is logged."""

    KINDS = ["healthy", "slow", "flapping", "hangable"]

    def __init__(self, seed):
        self.log = []  # [t, receiver, group, webhook_id, cluster_id, rule, status]
        self.lock = threading.Lock()
        self.hang = threading.Event()
        self.unhang = threading.Event()
        self.phase = random.Random(seed).uniform(0, 6)
        self.servers = {}
        self.ports = {}

    def start(self):
        outer = self
        for kind in self.KINDS:
            class H(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                rkind = kind

                def do_POST(self):
                    n = int(self.headers.get("Content-Length", 0))
                    body = self.rfile.read(n)
                    wid = self.headers.get("webhook-id", "")
                    group = self.path.strip("/").split("/")[-1]
                    try:
                        j = json.loads(body)
                        cid, rule = j.get("cluster_id"), j.get("rule")
                    except ValueError:
                        cid, rule = None, None
                    status = 204
                    if self.rkind == "slow":
                        time.sleep(0.3)
                    elif self.rkind == "flapping":
                        if (time.time() + outer.phase) % 6 < 2:
                            status = 503
                    elif self.rkind == "hangable" and outer.hang.is_set():
                        outer.unhang.wait(120)
                        with outer.lock:
                            outer.log.append([time.time(), self.rkind, group, wid, cid, rule, None])
                        self.close_connection = True
                        return  # dropped: no response
                    with outer.lock:
                        outer.log.append([time.time(), self.rkind, group, wid, cid, rule, status])
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()

                def log_message(self, *a):
                    pass

            srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
            srv.daemon_threads = True
            self.servers[kind] = srv
            self.ports[kind] = srv.server_port
            threading.Thread(target=srv.serve_forever, daemon=True, name="recv-" + kind).start()

    def stop(self):
        self.unhang.set()
        for srv in self.servers.values():
            srv.shutdown()
            srv.server_close()


# ------------------------------------------------------------------ load

class Family:
    __slots__ = ("name", "group", "shape", "words", "introduced")

    def __init__(self, name, group, shape, words):
        self.name, self.group, self.shape, self.words, self.introduced = name, group, shape, words, False

    def line(self, r):
        a, b, c, d, e = self.words
        return SHAPES[self.shape].format(tag=TAG, a=a, b=b, c=c, d=d, e=e, n=r.randrange(1, 250),
                                         m=r.randrange(1, 250), k=r.randrange(1, 250), p=r.randrange(1024, 65000),
                                         h="%d%07x" % (r.randrange(10), r.getrandbits(28)))  # a digit: never a word


class Load:
    """The load generator and its records (see checker.py for the formats)."""

    def __init__(self, h, seed):
        self.h = h
        self.rnd = random.Random(seed * 7919 + 1)
        self.batches = []
        self.news = []
        self.families = {}        # name -> Family
        self.fam_ids = {}         # name -> set of cluster ids
        self.pools = {"fleet": [], "sqlite": []}
        self.intro_q = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.rate = 0.0           # lines/s of all protocols, 0 = unpaced
        self.shares = {"http": 0.5, "tcp": 0.3, "syslog": 0.2}
        self.tokens = {p: 0.0 for p in self.shares}
        self.tlast = {p: time.time() for p in self.shares}
        self.tlock = threading.Lock()
        self.fam_count = 0
        self.syslog_lock = threading.Lock()
        self.threads = []

    # -- families
    def new_family(self, group, r):
        with self.lock:
            self.fam_count += 1
            k = self.fam_count
        words = tuple(r.choice(WORDS) for _ in range(5))
        f = Family(f"{group}:{k}", group, r.randrange(len(SHAPES)), words)
        with self.lock:
            self.families[f.name] = f
            self.fam_ids[f.name] = set()
            self.intro_q.append(f)
        return f

    def pick_family(self, group, r):
        with self.lock:
            pool = self.pools[group]
            if not pool:
                return None
            return pool[r.randrange(len(pool))]

    def servers_of(self, group):
        return [s for s in self.h.servers if s.group == group]

    # -- pacing
    def take(self, n, proto):
        """Pacing: each protocol its share of the rate (a token bucket each)."""
        while not self.stop.is_set():
            with self.tlock:
                if self.rate <= 0:
                    return True
                rate = self.rate * self.shares[proto]
                now = time.time()
                self.tokens[proto] = min(self.tokens[proto] + (now - self.tlast[proto]) * rate, rate * 0.5 + n)
                self.tlast[proto] = now
                if self.tokens[proto] >= n:
                    self.tokens[proto] -= n
                    return True
                wait = (n - self.tokens[proto]) / rate
            time.sleep(min(wait, 0.2))
        return False

    # -- recording
    def record(self, t0, t1, server, proto, fam, acked, refused, unknown, reason, results=()):
        with self.lock:
            self.batches.append([round(t0, 4), round(t1, 4), server.name, proto, fam.name, acked, refused, unknown,
                                 reason])
            ids = self.fam_ids[fam.name]
            for cid, new in results:
                ids.add(cid)
                if new is True or new is None:
                    self.news.append([round(t1, 4), fam.group, fam.name, cid, new])
            if acked and not fam.introduced:
                fam.introduced = True
                pool = self.pools[fam.group]
                pool.append(fam)
                if len(pool) > 80:
                    pool.pop(self.rnd.randrange(40))  # keep the stable first ones mostly

    @staticmethod
    def classify(status, body):
        text = body.decode(errors="replace") if isinstance(body, bytes) else str(body)
        if "store unavailable" in text or "migrating" in text:
            return "store"
        if status == 503 and ("pipeline is full" in text or "shutting down" in text or "connection" in text):
            return "overload"
        return f"other: {status} {text[:160]}"

    # -- HTTP
    def http_worker(self, k):
        r = random.Random(self.h.seed * 1000 + k)
        conns = {}
        while not self.stop.is_set():
            fam = None
            with self.lock:
                if self.intro_q and k == 0:
                    fam = self.intro_q.pop(0)
            n = 1 if fam is not None else 10
            if fam is None:
                group = "fleet" if r.random() < 0.75 else "sqlite"
                fam = self.pick_family(group, r)
                if fam is None:
                    time.sleep(0.05)
                    continue
            if not self.take(n, "http"):
                break
            srvs = self.servers_of(fam.group)
            s = srvs[r.randrange(len(srvs))]
            body = json.dumps({"texts": [fam.line(r) for _ in range(n)]}).encode()
            t0 = time.time()
            c = conns.get(s.name)
            sent = False
            try:
                if c is None:
                    c = http.client.HTTPConnection("127.0.0.1", s.http, timeout=15)
                    c.connect()
                    conns[s.name] = c
                c.request("POST", "/inferences", body=body, headers={"Content-Type": "application/json"})
                sent = True
                resp = c.getresponse()
                data = resp.read()
                t1 = time.time()
                if resp.status == 200:
                    res = json.loads(data)["results"]
                    out = [(x["cluster_id"], x.get("new")) for x in res if "cluster_id" in x]
                    self.record(t0, t1, s, "http", fam, len(out), n - len(out), 0,
                                f"other: 200 {data[:160]!r}" if len(out) < n else "", out)
                else:
                    self.record(t0, t1, s, "http", fam, 0, n, 0, self.classify(resp.status, data))
                    if resp.getheader("Connection", "").lower() == "close":
                        c.close()
                        conns.pop(s.name, None)
            except ConnectionRefusedError:
                conns.pop(s.name, None)
                self.record(t0, time.time(), s, "http", fam, 0, n, 0, "down")
                time.sleep(0.05)
            except (OSError, http.client.HTTPException, ValueError) as e:
                try:
                    c.close()
                except Exception:
                    pass
                conns.pop(s.name, None)
                if not sent and isinstance(e, (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)):
                    # a kept-alive connection the server had closed: nothing of ours was read
                    self.record(t0, time.time(), s, "http", fam, 0, n, 0, "down")
                else:
                    self.record(t0, time.time(), s, "http", fam, 0, 0, n, "")
            if n == 1 and not fam.introduced:
                with self.lock:
                    self.intro_q.append(fam)  # try the introduction again later
                time.sleep(0.05)

    # -- TCP lines with replies
    def tcp_worker(self, s, k):
        r = random.Random(self.h.seed * 2000 + k)
        sock = None
        f = None
        while not self.stop.is_set():
            fam = self.pick_family(s.group, r)
            if fam is None:
                time.sleep(0.05)
                continue
            n = 50
            if not self.take(n, "tcp"):
                break
            lines = [fam.line(r) for _ in range(n)]
            t0 = time.time()
            if sock is None:
                try:
                    sock = socket.create_connection(("127.0.0.1", s.tcp), timeout=15)
                    f = sock.makefile("rb")
                except OSError:
                    sock = None
                    self.record(t0, time.time(), s, "tcp", fam, 0, n, 0, "down")
                    time.sleep(0.1)
                    continue
            got = []
            refused = 0
            reason = ""
            try:
                sock.sendall(("\n".join(lines) + "\n").encode())
                for _ in range(n):
                    reply = f.readline()
                    if not reply:
                        raise ConnectionResetError("eof")
                    j = json.loads(reply)
                    if "cluster_id" in j:
                        got.append((j["cluster_id"], j.get("new")))
                    else:
                        refused += 1
                        reason = "store" if "store unavailable" in j.get("error", "") or "migrating" in j.get(
                            "error", "") else ("overload" if "shutting down" in j.get("error", "")
                                               else "other: " + reply[:160].decode(errors="replace"))
                self.record(t0, time.time(), s, "tcp", fam, len(got), refused, 0, reason, got)
            except (OSError, ValueError):
                self.record(t0, time.time(), s, "tcp", fam, len(got), refused, n - len(got) - refused, reason, got)
                try:
                    sock.close()
                except OSError:
                    pass
                sock = None

    # -- syslog over TCP, octet-counted RFC 5424
    def syslog_worker(self):
        r = random.Random(self.h.seed * 3000)
        while not self.stop.is_set():
            group = "fleet" if r.random() < 0.75 else "sqlite"
            fam = self.pick_family(group, r)
            if fam is None:
                time.sleep(0.05)
                continue
            n = 50
            if not self.take(n, "syslog"):
                break
            srvs = self.servers_of(group)
            s = srvs[r.randrange(len(srvs))]
            frames = []
            for i in range(n):
                msg = fam.line(r)
                fr = f"<134>1 2026-11-29T12:00:00.000Z chaoshost chaosapp {i} - - {msg}".encode()
                frames.append(str(len(fr)).encode() + b" " + fr)
            payload = b"".join(frames)
            t0 = time.time()
            names = ["logsift_syslog_rejected_total", "logsift_syslog_frames_total"]
            try:
                before = metric_values(s.http, names)
            except (OSError, RuntimeError, http.client.HTTPException):
                self.record(t0, time.time(), s, "syslog", fam, 0, n, 0, "down")
                time.sleep(0.1)
                continue
            pid_before = s.proc.pid if s.proc else None
            try:
                sock = socket.create_connection(("127.0.0.1", s.syslog), timeout=20)
            except OSError:
                self.record(t0, time.time(), s, "syslog", fam, 0, n, 0, "down")
                time.sleep(0.1)
                continue
            try:
                sock.sendall(payload)
                sock.shutdown(socket.SHUT_WR)
                while sock.recv(4096):
                    pass
                sock.close()
                after = metric_values(s.http, names)
                if s.proc is None or s.proc.pid != pid_before:
                    raise RuntimeError("restarted meanwhile")
                frames_d = after["logsift_syslog_frames_total"] - before["logsift_syslog_frames_total"]
                rej = int(after["logsift_syslog_rejected_total"] - before["logsift_syslog_rejected_total"])
                if frames_d != n or rej < 0 or rej > n:
                    raise RuntimeError(f"metrics delta frames {frames_d} rejected {rej}")
                self.record(t0, time.time(), s, "syslog", fam, n - rej, rej, 0, "store" if rej else "")
            except (OSError, RuntimeError, http.client.HTTPException, ValueError):
                try:
                    sock.close()
                except OSError:
                    pass
                self.record(t0, time.time(), s, "syslog", fam, 0, 0, n, "")

    def newfam_worker(self, per_s):
        r = random.Random(self.h.seed * 4000)
        while not self.stop.wait(1.0 / per_s):
            self.new_family("fleet" if r.random() < 0.6 else "sqlite", r)

    def start(self, new_per_s):
        r = random.Random(self.h.seed * 5000)
        for group in ("fleet", "sqlite"):
            for _ in range(12):
                self.new_family(group, r)
        ts = [threading.Thread(target=self.http_worker, args=(k,), daemon=True) for k in range(2)]
        ts += [threading.Thread(target=self.tcp_worker, args=(s, i), daemon=True) for i, s in enumerate(self.h.servers)]
        ts += [threading.Thread(target=self.syslog_worker, daemon=True)]
        ts += [threading.Thread(target=self.newfam_worker, args=(new_per_s,), daemon=True)]
        self.threads = ts
        for t in ts:
            t.start()

    def join(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=60)


# ------------------------------------------------------------------ harness

class Harness:
    def __init__(self, a):
        self.a = a
        self.seed = a.seed
        self.work = a.out
        self.readiness = []
        self.memory = []
        self.faults = []
        self.wipes = []
        self.detections = []
        self.deaths = []
        self.stop_samplers = threading.Event()
        self.sample_threads = []
        self.netem_ok = False
        self.loop = None
        self.mnt = None
        self.img = None
        self.contract_seed = 1337
        self.servers = []

    # -- setup
    def setup_disk(self):
        """s0's data dir on an ext4 image (no reserved blocks): full and read-only faults."""
        self.img = os.path.join(self.work, "s0.ext4")
        self.mnt = os.path.join(self.work, "s0-mnt")
        os.makedirs(self.mnt, exist_ok=True)
        with open(self.img, "wb") as f:
            f.truncate(self.a.disk_mb * 1048576)
        CLEANUPS.append(lambda: os.path.exists(self.img) and os.unlink(self.img))  # runs last
        run_cmd(["mkfs.ext4", "-q", "-m", "0", "-F", self.img])
        self.loop = run_cmd(["losetup", "--find", "--show", self.img]).stdout.strip()
        CLEANUPS.append(lambda: run_cmd(["losetup", "-d", self.loop], check=False))
        run_cmd(["mount", "-o", "errors=remount-ro", self.loop, self.mnt])
        CLEANUPS.append(lambda: run_cmd(["umount", "-l", self.mnt], check=False))
        CLEANUPS.append(lambda: run_cmd(["chattr", "-R", "-i", self.mnt], check=False))
        return os.path.join(self.mnt, "data")

    def start_all(self):
        a = self.a
        self.redis = Redis(self.work)
        self.redis.start()
        self.recv = Receivers(self.seed)
        self.recv.start()
        common = ["--webhook-allow-cidrs", "127.0.0.0/8", "--delivery-timeout-ms", "2000",
                  "--delivery-first-retry-ms", "200", "--delivery-max-backoff-ms", "1000",
                  "--delivery-max-attempts", "1000", "--shutdown-grace-ms", "3000",
                  "--memory-trim-interval-ms", "10000"]
        buf = str(64 << 20) if a.self_test else "0"
        fleet = ["--store", "redis", "--redis-url", f"redis://127.0.0.1:{self.redis.port}",
                 "--redis-buffer-bytes", buf, "--redis-timeout-ms", "1000", "--redis-claim-idle-ms", "3000"]
        for i in range(3):
            self.servers.append(Server(f"r{i}", "fleet", self.work, a.bin, common, fleet))
        # catalog_sync "full": an acknowledged line survives the filesystem
        # failing under it (fs_error); "normal" promises only a process crash.
        s0 = Server("s0", "sqlite", self.work, a.bin, common, ["--catalog-sync", "full"])
        if {"disk_full", "disk_ro", "fs_error"} & set(self.kinds):
            s0.data = self.setup_disk()
            os.makedirs(s0.data, exist_ok=True)
        self.servers.append(s0)
        for s in self.servers:
            s.start(wait_ready=False)
        for s in self.servers:
            if not s.wait_ready(30):
                raise RuntimeError(f"{s.name} not ready: see {s.log}")
        # subscriptions: each receiver to new_cluster on the fleet (one replica: shared) and on s0
        self.subs = {"fleet": {}, "sqlite": {}}
        for group, srv in (("fleet", self.servers[0]), ("sqlite", s0)):
            for kind, port in self.recv.ports.items():
                st, j = http_json(srv.http, "POST", "/subscriptions",
                                  {"url": f"http://127.0.0.1:{port}/hook/{group}", "rules": ["new_cluster"]})
                if st != 201:
                    raise RuntimeError(f"subscribe {group}/{kind}: {st} {j}")
                self.subs[group][kind] = j["id"]
        time.sleep(1.5)  # subscriptions reach every replica within about a second

    # -- samplers
    def readiness_sampler(self, s):
        while not self.stop_samplers.wait(0.2):
            t0 = time.time()
            try:
                st, _ = http_req(s.http, "GET", "/readyz", timeout=0.5)
            except (OSError, http.client.HTTPException):
                st = None
            self.readiness.append([round(t0, 4), round(time.time(), 4), s.name, st])

    def memory_sampler(self):
        while not self.stop_samplers.wait(1.0):
            for s in self.servers:
                p = s.proc
                if p is not None and p.poll() is not None and not getattr(p, "expected_exit", False) \
                        and not getattr(p, "reported", False):
                    # a server exited that no fault stopped: a finding; start it again to go on
                    p.reported = True
                    self.deaths.append({"server": s.name, "t": time.time(), "returncode": p.returncode,
                                        "pid": p.pid})
                    log(f"{s.name} (pid {p.pid}) exited by itself with {p.returncode}: restarting it")
                    with s.lock:
                        if s.proc is p:
                            s.start(wait_ready=False)
                if s.alive():
                    m = rss_mb(s.proc.pid)
                    if m is not None:
                        self.memory.append([round(time.time(), 2), s.name, round(m, 1)])
            if self.redis.proc and self.redis.proc.poll() is None:
                m = rss_mb(self.redis.proc.pid)
                if m is not None:
                    self.memory.append([round(time.time(), 2), "redis", round(m, 1)])

    def start_samplers(self):
        ts = [threading.Thread(target=self.readiness_sampler, args=(s,), daemon=True) for s in self.servers]
        ts.append(threading.Thread(target=self.memory_sampler, daemon=True))
        self.sample_threads = ts
        for t in ts:
            t.start()

    # -- schedule
    def schedule(self, minutes):
        r = random.Random(self.seed)
        total = minutes * 60
        kinds = list(self.kinds)
        out = []
        t = 8.0
        short = minutes <= 5
        order = kinds[:]
        r.shuffle(order)
        if "contract_upgrade" in order:  # at most once per run: put it mid-way
            order.remove("contract_upgrade")
            order.insert(len(order) // 2, "contract_upgrade")
        est_of = {"contract_upgrade": 6, "fs_error": 3}
        if short:  # every kind once, the gaps shared out over what is left (at least 4 s each)
            durs = [round(r.uniform(2.5, 3.5), 2) for _ in order]
            spare = total - t - 6 - sum(durs) - sum(est_of.get(k, 0) for k in order)
            short_gap = max(4.0, spare / max(1, len(order)))
        i = 0
        while True:
            if i < len(order):
                kind = order[i]
            else:
                kind = r.choice([k for k in kinds if k != "contract_upgrade"] or kinds)
            dur = durs[i] if short and i < len(order) else (r.uniform(2.5, 3.5) if short else r.uniform(3, 15))
            i += 1
            gap = short_gap if short else r.uniform(30, 120)
            est = est_of.get(kind, 0)
            if t + dur + est > total - (6 if short else 20):
                break
            target = r.randrange(3)
            out.append({"at": round(t, 2), "kind": kind, "duration": round(dur, 2), "replica": target})
            t += dur + est + gap
        return out

    # -- faults
    def fault(self, spec, t_base):
        kind, dur = spec["kind"], spec["duration"]
        rep = self.servers[spec["replica"]]
        s0 = self.servers[3]
        fleet = [s.name for s in self.servers[:3]]
        rec = {"kind": kind, "start": time.time(), "clear": None, "targets": [], "groups": [], "receivers": []}
        log(f"fault {kind} ({dur:.1f} s) {rep.name if kind.startswith('replica') else ''}")
        if kind == "redis_wipe":
            rec.update(targets=fleet, groups=["fleet"])
            base = {}
            for s in self.servers[:3]:
                try:
                    base[s.name] = metric_values(s.http, ["logsift_redis_data_lost_total"])[
                        "logsift_redis_data_lost_total"]
                except Exception:
                    base[s.name] = None
            ws = time.time()
            self.redis.kill()
            self.redis.wipe_files()
            time.sleep(dur)
            self.redis.start()
            we = time.time()
            self.wipes.append([ws, we])
            rec["clear"] = we
            det = {"ws": ws, "we": we, "replica": {}}
            pending = dict(base)
            deadline = we + 10
            while pending and time.time() < deadline:
                for name in list(pending):
                    s = next(x for x in self.servers if x.name == name)
                    try:
                        v = metric_values(s.http, ["logsift_redis_data_lost_total"], timeout=1)[
                            "logsift_redis_data_lost_total"]
                    except Exception:
                        continue
                    if pending[name] is None:
                        pending[name] = v
                        continue
                    if v > pending[name]:
                        det["replica"][name] = round(time.time() - we, 3)
                        del pending[name]
                time.sleep(0.05)
            for name in pending:
                det["replica"][name] = None
            self.detections.append(det)
            log(f"  data loss counted after (s): {det['replica']}")
        elif kind == "redis_restart":
            rec.update(targets=fleet, groups=["fleet"])
            self.redis.kill()
            time.sleep(dur)
            self.redis.start()
            rec["clear"] = time.time()
        elif kind == "redis_pause":
            rec.update(targets=fleet, groups=["fleet"])
            os.kill(self.redis.proc.pid, signal.SIGSTOP)
            time.sleep(dur)
            os.kill(self.redis.proc.pid, signal.SIGCONT)
            rec["clear"] = time.time()
        elif kind == "replica_kill":
            rec.update(targets=[rep.name], groups=["fleet"])
            rep.proc.expected_exit = True
            os.kill(rep.proc.pid, signal.SIGKILL)
            rep.proc.wait()
            PROCS.pop(rep.proc.pid, None)
            time.sleep(min(dur, 2.0))
            rep.start(wait_ready=False)
            rec["clear"] = time.time()
        elif kind == "replica_stop":
            rec.update(targets=[rep.name], groups=["fleet"])
            os.kill(rep.proc.pid, signal.SIGSTOP)
            time.sleep(max(dur, 3.5))  # past redis_claim_idle_ms: its alerts are taken over
            os.kill(rep.proc.pid, signal.SIGCONT)
            rec["clear"] = time.time()
        elif kind == "disk_full":
            rec.update(targets=[s0.name], groups=["sqlite"])
            filler = os.path.join(self.mnt, "filler")
            with open(filler, "wb") as f:
                st = os.statvfs(self.mnt)
                size = st.f_bavail * st.f_frsize
                while size > 0:
                    try:
                        os.posix_fallocate(f.fileno(), 0, size)
                        break
                    except OSError:
                        size -= 65536
            k = 0
            while True:  # the last blocks, one small file at a time
                try:
                    with open(filler + f".{k}", "wb") as g:
                        g.write(b"x" * 4096)
                        g.flush()
                        os.fsync(g.fileno())
                    k += 1
                except OSError:
                    break
                if k > 4096:
                    break
            time.sleep(dur)
            for name in os.listdir(self.mnt):
                if name.startswith("filler"):
                    os.unlink(os.path.join(self.mnt, name))
            rec["clear"] = time.time()
        elif kind == "disk_ro":
            # the data dir and every file in it made immutable (chattr +i): writes and creates fail
            # with EPERM, nothing already written is disturbed; undone live
            # SQLite's WAL index (*-shm) is left writable: it is mmapped shared memory, not data, and
            # an immutable mmapped file kills its writer with SIGBUS at the next page fault (observed),
            # which no real read-only data dir does (a mount cannot turn read-only while files are open
            # for writing).
            rec.update(targets=[s0.name], groups=["sqlite"])
            names = [n for n in sorted(os.listdir(s0.data)) if not n.endswith("-shm")]
            paths = [os.path.join(s0.data, n) for n in names] + [s0.data]
            run_cmd(["chattr", "+i"] + paths)
            rec["immutable"] = names
            time.sleep(dur)
            run_cmd(["chattr", "-i"] + paths[::-1])
            rec["clear"] = time.time()
        elif kind == "fs_error":
            rec.update(targets=[s0.name], groups=["sqlite"])
            dev = os.path.basename(self.loop)
            with open(f"/sys/fs/ext4/{dev}/trigger_fs_error", "w") as f:
                f.write("1")
            time.sleep(dur)
            # a read-only ext4 cannot be made writable live: stop s0, check, remount, start
            stop_proc(s0.proc, grace=5)
            run_cmd(["umount", self.mnt])
            fsck = run_cmd(["e2fsck", "-fy", self.loop], check=False)
            rec["fsck_exit"] = fsck.returncode
            run_cmd(["mount", "-o", "errors=remount-ro", self.loop, self.mnt])
            s0.start(wait_ready=False)
            rec["clear"] = time.time()
        elif kind == "receiver_hang":
            rec.update(receivers=["hangable"])
            self.recv.unhang.clear()
            self.recv.hang.set()
            time.sleep(dur)
            self.recv.hang.clear()
            self.recv.unhang.set()
            rec["clear"] = time.time()
        elif kind == "netem":
            rec.update(targets=[s.name for s in self.servers], groups=["fleet", "sqlite"])
            # netem where the kernel has it (CONFIG_NET_SCH_NETEM); else a slow link made by tbf:
            # packets queue up to 50 ms behind an 8 Mbit/s token bucket and beyond that are dropped
            r = run_cmd(["tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "50ms", "loss", "5%"],
                        check=False)
            rec["qdisc"] = "netem delay 50ms loss 5%"
            if r.returncode != 0:
                run_cmd(["tc", "qdisc", "add", "dev", "lo", "root", "tbf", "rate", "8mbit", "burst", "32kb",
                         "latency", "50ms"])
                rec["qdisc"] = "tbf rate 8mbit burst 32kb latency 50ms (no netem in this kernel)"
            time.sleep(dur)
            run_cmd(["tc", "qdisc", "del", "dev", "lo", "root"])
            rec["clear"] = time.time()
        elif kind == "contract_upgrade":
            rec.update(targets=[s.name for s in self.servers], groups=["fleet", "sqlite"])
            self.contract_seed += 1
            rec["lsh_seed"] = self.contract_seed
            for s in self.servers:  # r0, r1, r2, then s0: one at a time
                stop_proc(s.proc, grace=5)
                s.lsh_seed = self.contract_seed
                s.start(wait_ready=False)
                s.wait_ready(30)
            rec["clear"] = time.time()
        elif kind == "buffered_kill":  # self-test only: acknowledge-before-commit made visible
            rec.update(targets=fleet, groups=["fleet"])
            self.redis.kill()
            time.sleep(dur)
            rep.proc.expected_exit = True
            os.kill(rep.proc.pid, signal.SIGKILL)
            rep.proc.wait()
            PROCS.pop(rep.proc.pid, None)
            self.redis.start()
            rep.start(wait_ready=False)
            rec["clear"] = time.time()
        rec["start_rel"] = round(rec["start"] - t_base, 2)
        self.faults.append(rec)

    # -- end
    def drain(self, timeout):
        """Wait for every outbox to be empty and deliveries to stop."""
        deadline = time.time() + timeout
        last = -1
        quiet_since = time.time()
        while time.time() < deadline:
            pend = 0
            for s in (self.servers[0], self.servers[3]):
                try:
                    st, j = http_json(s.http, "GET", "/alerts?status=pending&limit=1", timeout=3)
                    pend += j["total"] if st == 200 else 1
                except Exception:
                    pend += 1
            n = len(self.recv.log)
            if n != last:
                last, quiet_since = n, time.time()
            if pend == 0 and time.time() - quiet_since > 2.0:
                return True
            time.sleep(0.5)
        return False

    def final_state(self, load):
        final = {}
        all_ids = {"fleet": set(), "sqlite": set()}
        for f, ids in load.fam_ids.items():
            all_ids[load.families[f].group] |= ids
        for d in self.recv.log:
            if d[4] and d[2] in all_ids:
                all_ids[d[2]].add(d[4])
        for n in load.news:
            all_ids[n[1]].add(n[3])
        for group, srv in (("fleet", self.servers[0]), ("sqlite", self.servers[3])):
            catalog = {}
            off = 0
            while True:
                st, j = http_json(srv.http, "GET", f"/clusters?q={TAG}&limit=1000&offset={off}", timeout=30)
                if st != 200:
                    raise RuntimeError(f"final /clusters on {srv.name}: {st} {j}")
                for c in j["clusters"]:
                    catalog[c["cluster_id"]] = c["count"]
                off += len(j["clusters"])
                if not j["clusters"] or off >= j["total"]:
                    break
            resolve = {}
            for cid in sorted(all_ids[group]):
                if cid in catalog:
                    resolve[cid] = cid
                    continue
                st, j = http_json(srv.http, "GET", f"/clusters/{cid}", timeout=10)
                resolve[cid] = j.get("cluster_id") if st == 200 and isinstance(j, dict) else None
            failed = []
            st, j = http_json(srv.http, "GET", "/alerts?status=failed&limit=1000", timeout=30)
            if st == 200 and isinstance(j, dict):
                failed = [{k: x.get(k) for k in ("id", "subscription_id", "cluster_id", "attempts", "last_status",
                                                  "last_error", "created_at")} for x in j.get("alerts", [])]
            final[group] = {"catalog": catalog, "resolve": resolve, "dead_lettered": failed}
        return final

    def run(self):
        a = self.a
        self.kinds = ["buffered_kill"] if a.self_test else [k for k in a.faults.split(",") if k]
        if "netem" in self.kinds and not a.in_netns:
            log("netem needs the network namespace: dropped from the schedule")
            self.kinds.remove("netem")
        self.start_all()
        self.start_samplers()
        load = Load(self, self.seed)
        self.load = load
        load.start(new_per_s=a.new_per_s)
        # warm-up: every stable family introduced
        time.sleep(2.0)
        # capacity: unpaced for a few seconds
        with load.lock:
            n0 = sum(b[5] for b in load.batches)
        tc0 = time.time()
        time.sleep(a.measure_s)
        with load.lock:
            n1 = sum(b[5] for b in load.batches)
        cap = (n1 - n0) / (time.time() - tc0)
        with load.tlock:
            load.rate = max(50.0, cap * a.load_fraction)
            load.tlast = {p: time.time() for p in load.shares}
        log(f"capacity measured {cap:.0f} lines/s over 3 protocols; load at {load.rate:.0f} lines/s")
        t_base = time.time()
        sched = [{"at": 4.0, "kind": "buffered_kill", "duration": 3.0, "replica": 1}] if a.self_test else \
            self.schedule(a.minutes)
        log(f"schedule: {len(sched)} faults: " + ", ".join(f"{x['at']:.0f}s {x['kind']}" for x in sched))
        end = t_base + a.minutes * 60
        for spec in sched:
            while time.time() < t_base + spec["at"]:
                time.sleep(0.05)
            self.fault(spec, t_base)
            if time.time() > end + 30:
                break
        while time.time() < end:
            time.sleep(0.2)
        log("load stops; draining the outboxes")
        load.join()
        drained = self.drain(a.drain_s)
        self.stop_samplers.set()
        for t in self.sample_threads:
            t.join(timeout=5)
        final = self.final_state(load)
        rec = {
            "seed": self.seed, "minutes": a.minutes, "self_test": a.self_test, "t_start": t_base,
            "capacity_lines_per_s": cap, "load_lines_per_s": load.rate, "drained": drained,
            "rss_bound_mb": a.rss_limit_mb, "schedule": sched,
            "batches": load.batches, "families": {k: {"group": load.families[k].group, "ids": sorted(v)}
                                                  for k, v in load.fam_ids.items()},
            "final": final, "wipes": self.wipes, "servers": {s.name: s.group for s in self.servers},
            "news": load.news, "deliveries": self.recv.log, "subscriptions": self.subs,
            "readiness": self.readiness, "memory": [m for m in self.memory if m[1] != "redis"],
            "redis_memory": [m for m in self.memory if m[1] == "redis"],
            "faults": self.faults, "detections": self.detections, "deaths": self.deaths,
        }
        for s in self.servers:
            stop_proc(s.proc, grace=8)
        self.recv.stop()
        return rec


OUR_ENTRIES = re.compile(r"^(redis|redis\.log|[rs]\d+(-data|-mnt|\.log|\.ext4)|report\.json|summary\.txt|check\.json)$")


def inner_main(a):
    os.makedirs(a.out, exist_ok=True)
    for name in os.listdir(a.out):  # a previous run in the same --out: start afresh (only what we made)
        if OUR_ENTRIES.match(name):
            path = os.path.join(a.out, name)
            if os.path.ismount(path):
                run_cmd(["umount", "-l", path], check=False)
            if os.path.isdir(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
    atexit.register(cleanup)

    def on_signal(sig, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if a.in_netns:
        # a 1500-byte MTU, so that a token-bucket link (the netem fallback) passes every packet
        run_cmd(["ip", "link", "set", "lo", "mtu", "1500"])
        run_cmd(["ip", "link", "set", "lo", "up"])
        CLEANUPS.append(lambda: run_cmd(["tc", "qdisc", "del", "dev", "lo", "root"], check=False))
    set_port_range(a.in_netns)
    h = Harness(a)
    try:
        rec = h.run()
    except KeyboardInterrupt:
        log("interrupted")
        cleanup()
        return 2
    except Exception:
        traceback.print_exc()
        cleanup()
        return 2
    cleanup()
    with open(os.path.join(a.out, "report.json"), "w") as f:
        json.dump(rec, f)
    res = checker.check_all(rec)
    lines = checker.summary_lines(rec, res)
    head = [f"seed {a.seed}, {a.minutes} min, capacity {rec['capacity_lines_per_s']:.0f} lines/s, load "
            f"{rec['load_lines_per_s']:.0f} lines/s, outboxes drained: {rec['drained']}"]
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write("\n".join(head + lines) + "\n")
    with open(os.path.join(a.out, "check.json"), "w") as f:
        json.dump(res, f, indent=1)
    print("\n".join(head + lines), flush=True)
    if a.self_test:
        lost = res["counts"]["stats"]["lost"]
        ok = not res["ok"] and lost > 0
        print(f"SELF-TEST {'PASS' if ok else 'FAIL'}: the checker {'caught' if ok else 'did NOT catch'} "
              f"{lost} acknowledged lines lost with a replica that acknowledged before committing", flush=True)
        return 0 if ok else 1
    return 0 if res["ok"] else 1


def outer_main(a, argv):
    """Make a network namespace, run the harness inside it, remove it."""
    missing = [t for t in ("redis-server", "ip", "tc", "mkfs.ext4", "losetup", "e2fsck", "chattr")
               if not shutil.which(t)]
    if os.geteuid() != 0 or missing:
        print(f"chaos.py: skipped: needs root (netns, tc, mount, losetup) and {missing or 'its tools'}",
              file=sys.stderr)
        return 77
    ns = f"lschaos{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", ns], capture_output=True, text=True)
    if made.returncode != 0 or subprocess.run(["losetup", "--find"], capture_output=True).returncode != 0:
        # A container without CAP_SYS_ADMIN or loop devices: the faults cannot be made here.
        print(f"chaos.py: skipped: cannot make a network namespace or find a loop device "
              f"({made.stderr.strip() or 'losetup --find failed'})", file=sys.stderr)
        run_cmd(["ip", "netns", "del", ns], check=False)
        return 77
    child = None
    try:
        child = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, os.path.abspath(__file__), "--in-netns"]
                                 + argv, start_new_session=True)
        try:
            return child.wait()
        except KeyboardInterrupt:
            os.kill(child.pid, signal.SIGTERM)
            try:
                return child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.kill(child.pid, signal.SIGKILL)
                child.wait()
            return 2
    finally:
        if child is not None and child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        run_cmd(["ip", "netns", "del", ns], check=False)


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the logsift binary")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=2.0)
    ap.add_argument("--out", default="")
    ap.add_argument("--faults", default=",".join(ALL_KINDS))
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--load-fraction", type=float, default=0.5)
    ap.add_argument("--measure-s", type=float, default=4.0)
    ap.add_argument("--new-per-s", type=float, default=2.0, help="brand-new templates per second (alerts)")
    ap.add_argument("--rss-limit-mb", type=float, default=300.0)
    ap.add_argument("--disk-mb", type=int, default=64)
    ap.add_argument("--drain-s", type=float, default=60.0)
    ap.add_argument("--no-netns", action="store_true", help="run in this namespace (no netem fault)")
    ap.add_argument("--in-netns", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    a.bin = os.path.abspath(a.bin)
    if not a.out:
        a.out = tempfile.mkdtemp(prefix=f"logsift-chaos-{a.seed}-", dir="/tmp")
    a.out = os.path.abspath(a.out)
    if a.self_test:
        a.minutes = min(a.minutes, 0.5)
    bad = [k for k in a.faults.split(",") if k and k not in ALL_KINDS]
    if bad:
        ap.error(f"unknown fault kinds {bad}; known: {ALL_KINDS}")
    return a


def main():
    argv = sys.argv[1:]
    a = parse(argv)
    if a.in_netns or a.no_netns:
        return inner_main(a)
    if not a.out or "--out" not in argv:
        argv = argv + ["--out", a.out]
    return outer_main(a, argv)


if __name__ == "__main__":
    sys.exit(main())
