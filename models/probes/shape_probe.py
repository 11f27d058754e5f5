#!/usr/bin/python3
"""Value-shape probe: does one log statement keep one cluster id whatever
shape its values take?

    /usr/bin/python3 models/probes/shape_probe.py [--bin build/logsift] [--min-one-id N] [-- extra logsift flags]

Each statement below was written for this probe (it comes from no dataset);
its slots are filled five or six times, with fixed seeds, from small tables of
the value shapes that real programs put in their lines (hosts, host:port, users and services, paths
and URLs, ids, sizes and durations with units, quoted strings, key=value and
JSON fragments, class and function names, enum-like words, versions, MACs,
IPv6, e-mail, hashes, dates, percentages, Kubernetes names, images, ...).
The lines go through `logsift cluster`; the probe prints, per statement, how
many ids its renderings got and their templates, then how many statements
kept one id. A statement may legitimately split when its values change what
it says (different keys of a key=value list); those are listed, not hidden.

It is a probe, not a score to tune on: the pair suite and the validation set
are the measures. It found the unit and JSON-fragment shapes of slots-v3.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import subprocess
import sys

V = {
    "host": ["db-01.prod.example.com", "cache7", "10.0.3.17", "ip-172-31-4-9.ec2.internal",
             "api.payments.svc.cluster.local", "node3"],
    "port": ["5432", "6379", "8080", "443"],
    "user": ["alice", "bob.smith", "svc_backup", "root", "jenkins", "k8s-admin"],
    "svc": ["checkout", "payments-api", "user_service", "Gateway", "auth", "inventory-worker"],
    "path": ["/var/lib/app/data.db", "/etc/nginx/conf.d/site.conf", "/tmp/x", "./config.yaml",
             "/home/alice/.ssh/id_rsa"],
    "url": ["https://api.example.com/v1/users?id=42", "http://10.0.0.5:8080/health",
            "https://s3.amazonaws.com/bucket/key.tar.gz", "/api/v2/orders/123/items"],
    "id": ["order-12345", "a231d9e5-1b2c-4d5e-8f90-123456789abc", "txn_9f8e7d", "job42", "0x7ffd5a3c",
           "req-7f3a9b2c"],
    "size": ["1.5 GB", "830 KB", "12 B", "4096 bytes", "64 MiB", "2.1 TB"],
    "dur": ["12 s", "250 ms", "3 minutes", "1.5s", "2m3s", "17.003µs", "45 seconds", "1 hour"],
    "quoted": ['"hello world"', "'users'", '"SELECT 1"', "`main`"],
    "kvs": ["retries=3", "mode=fast", "timeout=30s", "user=alice"],
    "cls": ["com.acme.OrderService", "UserController", "io.netty.channel.DefaultChannelPipeline", "HttpClient"],
    "fn": ["handleRequest()", "main.go:42", "process_batch", "Foo::bar"],
    "enum": ["RUNNING", "stopped", "PENDING", "Active", "degraded", "CrashLoopBackOff"],
    "win": [r"C:\Windows\System32\drivers\etc\hosts", r"D:\data\backup\2024\db.bak",
            r"C:\Users\alice\AppData\Local\Temp\x.tmp"],
    "json": ['{"id":42,"name":"x"}', '{"user":"bob","roles":["admin","dev"]}', '{"ok":false}', "[1,2,3]"],
    "kvlist": ["a=1 b=2", "user=alice id=7", "mode=fast retries=3"],
    "ver": ["v1.2.3", "2.0.0-rc1", "1.14.2", "v0.9.0+build.7"],
    "mac": ["00:1a:2b:3c:4d:5e", "aa:bb:cc:dd:ee:ff", "de:ad:be:ef:00:01"],
    "ipv6": ["2001:db8::1", "fe80::1ff:fe23:4567:890a", "::1"],
    "email": ["alice@example.com", "ops+alerts@corp.io", "bob.smith@mail.example.org"],
    "hex": ["0xdeadbeef", "0x7f3a", "0x0"],
    "sha": ["3f786850e387550fdab836ed7e6dc881de23001b", "e3b0c44298fc1c149afbf4c8996fb924",
            "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"],
    "date": ["2024-01-05", "05/01/2024", "Jan 5 2024"],
    "time": ["12:00:01", "23:59:59.999", "00:00:00"],
    "pct": ["45%", "99.9%", "0.5%"],
    "neg": ["-5", "-0.25", "-1200"],
    "k8s": ["default/web-7d9f8c6b5-x2x9z", "kube-system/coredns-5d78c9869d-abcde", "prod/api-0"],
    "arn": ["arn:aws:s3:::my-bucket", "arn:aws:iam::123456789012:role/Admin"],
    "img": ["nginx:1.25", "ghcr.io/acme/api:v2.3.1", "redis@sha256:3f78685"],
    "num": ["1,024", "12,345,678", "7"],
    "list": ["[a, b, c]", "[x]", "[]"],
    "sql": ["SELECT * FROM users WHERE id = 5", "UPDATE t SET x=1", "DELETE FROM logs"],
    "thread": ["Thread-12", "pool-3-thread-7", "main"],
    "exc": ["java.lang.NullPointerException", "IOException", "ValueError"],
    "span": ["trace_id=4bf92f3577b34da6a3ce929d0e0e4736", "span=00f067aa0ba902b7"],
}

STATEMENTS = [
    "connected to {host}:{port} as {user}",
    "user {user} logged in from {host}",
    "service {svc} is now {enum}",
    "failed to open {path}",
    "GET {url} returned 200 in {dur}",
    "processed {id} in {dur}",
    "wrote {size} to {path}",
    "query {quoted} failed",
    "reloading config with {kvs}",
    "exception in {cls}",
    "called {fn} for {id}",
    "node {host} changed state to {enum}",
    "backup of {svc} completed: {size} in {dur}",
    "job {id} owned by {user} is {enum}",
    "loaded hosts file {win}",
    "received payload {json} from client",
    "applying overrides {kvlist}",
    "upgraded agent to {ver}",
    "new device {mac} joined",
    "listening on [{ipv6}]:8080",
    "sent report to {email}",
    "fault at address {hex}",
    "pulled layer {sha}",
    "retention cutoff is {date} {time}",
    "cpu usage at {pct}",
    "clock drift {neg} ms",
    "pod {k8s} evicted",
    "access denied for {arn}",
    "pulling image {img}",
    "processed {num} records",
    "tags {list} applied",
    "slow query ({sql}) took 12 ms",
    "worker {thread} stalled",
    "caught {exc} in handler",
    "request done {span}",
]


def lines(seed: int = 7, renders: int = 6) -> list[tuple[int, str]]:
    rng = random.Random(seed)
    out = []
    for si, t in enumerate(STATEMENTS):
        for _ in range(renders):
            out.append((si, re.sub(r"\{(\w+)\}", lambda m: rng.choice(V[m.group(1)]), t)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="build/logsift")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--min-one-id", type=int, default=0,
                    help="exit 1 if fewer statements keep one id (ctest shape_probe)")
    ap.add_argument("extra", nargs="*", help="flags passed to `logsift cluster`")
    args = ap.parse_args()
    data = lines(args.seed)
    text = "".join(json.dumps({"text": line}) + "\n" for _, line in data)
    p = subprocess.run([args.bin, "cluster", "-", *args.extra], input=text.encode(), capture_output=True, check=True)
    res = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert len(res) == len(data), (len(res), len(data))
    by = collections.defaultdict(list)
    for (si, _), r in zip(data, res):
        by[si].append((r["cluster_id"], r["template"]))
    one = 0
    for si in sorted(by):
        ids = {c for c, _ in by[si]}
        one += len(ids) == 1
        tmpls = sorted({t for _, t in by[si]})
        print(f"{len(ids)} id(s)  {STATEMENTS[si]}")
        if len(ids) > 1:
            for t in tmpls:
                print(f"           {t}")
    print(f"one id: {one} of {len(by)} statements")
    if one < args.min_one_id:
        print(f"FAIL: fewer than {args.min_one_id} statements keep one id", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
