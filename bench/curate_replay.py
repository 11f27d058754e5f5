#!/usr/bin/python3
"""What curation buys, replayed through running servers.

`logsift eval SET --curate --manual N --json` plays a person with the labels
offline and lists the actions it took per program (accepted and rejected
suggestions, "this word is a value", merges). This replays them through the
API of a real `logsift serve`, per program of SET (datasets.json):

  1. a server with no curation takes every line (NDJSON POST /inferences):
     the ids before;
  2. a fresh server takes the first half; GET /clusters/suggestions, each
     one accepted or rejected as the offline person decided (matched by its
     clusters), then the value rules and merges (POST /clusters/{id}/value,
     /merge); each refusal is counted;
  3. the same server takes the second half (lines the curation never saw)
     and the first half again: the ids after.

GA (grouping accuracy against EventTemplate) before and after on both halves,
per program and on average, beside the offline figures.

Usage: bench/curate_replay.py --bin build/logsift --set models/validation [--manual 5]
                               [--min-gain G --max-refused N]
With --min-gain, exits 1 unless the other half's average GA rises by at least
G and at most N actions (default 0) were refused: the ctest curate_replay.
"""
import argparse
import csv
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Server:
    def __init__(self, binary):
        self.dir = tempfile.mkdtemp(prefix="logsift-curate-replay-")
        self.port = free_port()
        self.proc = subprocess.Popen(
            [binary, "serve", "--data-dir", self.dir, "--http-port", str(self.port), "--tcp-port", str(free_port()),
             "--syslog-port", "-1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            try:
                if self.call("GET", "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("server did not become ready")

    def call(self, method, path, body=None, ctype="application/json"):
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.port, path), data=data, method=method,
                                     headers={"Content-Type": ctype} if data is not None else {})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def cluster(self, lines):
        ids = []
        for i in range(0, len(lines), 1000):
            body = "".join(json.dumps({"text": t}) + "\n" for t in lines[i:i + 1000]).encode()
            status, out = self.call("POST", "/inferences", body, "application/x-ndjson")
            if status != 200:
                raise RuntimeError("POST /inferences: %d %s" % (status, out[:200]))
            for row in out.decode().splitlines():
                ids.append(json.loads(row).get("cluster_id", "error"))
        if len(ids) != len(lines):
            raise RuntimeError("%d replies for %d lines" % (len(ids), len(lines)))
        return ids

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def grouping_accuracy(truth, pred):
    by_pred, by_truth = {}, {}
    for i, (t, p) in enumerate(zip(truth, pred)):
        by_pred.setdefault(p, set()).add(i)
        by_truth.setdefault(t, set()).add(i)
    ok = sum(len(members) for members in by_pred.values()
             if by_truth[truth[next(iter(members))]] == members)
    return ok / len(truth) if truth else 0.0


def curate(server, steps):
    """Takes the offline person's actions through the API: (taken, refused)."""
    taken, refused = 0, []
    status, body = server.call("GET", "/clusters/suggestions")
    if status != 200:
        raise RuntimeError("GET /clusters/suggestions: %d" % status)
    decided = {}
    for st in steps:
        if st["kind"] == "accept":
            decided[frozenset([st["into"]] + st.get("members", []))] = "accept"
        elif st["kind"] == "reject":
            decided[frozenset(st.get("members", []))] = "reject"
    for sug in json.loads(body)["suggestions"]:
        ids = [c["cluster_id"] for c in sug["clusters"]]
        verdict = decided.get(frozenset(ids))
        if verdict is None:
            refused.append("suggestion %s: not one the offline person saw" % sug["id"])
            continue
        into = sug["into"]
        body = {"into": into, "members": [i for i in ids if i != into]} if verdict == "accept" else {}
        st, out = server.call("POST", "/clusters/suggestions/%s/%s" % (sug["id"], verdict), body)
        if st == 201:
            taken += 1
        else:
            refused.append("%s %s: %d %s" % (verdict, sug["id"], st, out[:120]))
    for st in steps:
        if st["kind"] == "value":
            code, out = server.call("POST", "/clusters/%s/value" % st["cluster_id"], {"position": st["position"]})
        elif st["kind"] == "merge":
            code, out = server.call("POST", "/clusters/%s/merge" % st["cluster_id"], {"into": st["into"]})
        else:
            continue
        if code == 201:
            taken += 1
        else:
            refused.append("%s %s: %d %s" % (st["kind"], st["cluster_id"], code, out[:120]))
    return taken, refused


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--set", required=True)
    ap.add_argument("--manual", type=int, default=5)
    ap.add_argument("--min-gain", type=float)
    ap.add_argument("--max-refused", type=int, default=0)
    a = ap.parse_args()
    offline = json.loads(subprocess.run(
        [a.bin, "eval", a.set, "--curate", "--manual", str(a.manual), "--json", "--explain", "0"],
        capture_output=True, text=True, check=True).stdout)["datasets"]
    with open(os.path.join(a.set, "datasets.json")) as f:
        index = json.load(f)
    print("| program | lines | GA before, seen half | after | GA before, other half | after | offline after (seen / other) | actions taken | refused |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    sums = [0.0] * 6
    refusals = []
    for name in sorted(index):
        with open(os.path.join(a.set, index[name]["truth"]), newline="", encoding="utf-8", errors="replace") as f:
            rows = list(csv.DictReader(f))
        lines = [r["Content"] for r in rows]
        truth = [r["EventTemplate"] for r in rows]
        half = len(lines) // 2
        plain = Server(a.bin)
        try:
            before = plain.cluster(lines)
        finally:
            plain.stop()
        cur = offline[name]["curation"]
        s = Server(a.bin)
        try:
            s.cluster(lines[:half])
            taken, refused = curate(s, cur["steps"])
            other = s.cluster(lines[half:])
            seen = s.cluster(lines[:half])
        finally:
            s.stop()
        g = [grouping_accuracy(truth[:half], before[:half]), grouping_accuracy(truth[:half], seen),
             grouping_accuracy(truth[half:], before[half:]), grouping_accuracy(truth[half:], other)]
        for i, v in enumerate(g):
            sums[i] += v
        sums[4] += cur["ga_after_seen"]
        sums[5] += cur["ga_after_other"]
        refusals += ["%s: %s" % (name, r) for r in refused]
        print("| %s | %d | %.4f | %.4f | %.4f | %.4f | %.4f / %.4f | %d | %d |" % (
            name, len(lines), g[0], g[1], g[2], g[3], cur["ga_after_seen"], cur["ga_after_other"], taken, len(refused)),
            flush=True)
    n = len(index)
    print("| average | | %.4f | %.4f | %.4f | %.4f | %.4f / %.4f | | %d |" % (
        sums[0] / n, sums[1] / n, sums[2] / n, sums[3] / n, sums[4] / n, sums[5] / n, len(refusals)))
    for r in refusals:
        print("refused:", r)
    if a.min_gain is not None:
        gain = (sums[3] - sums[2]) / n
        if gain < a.min_gain or len(refusals) > a.max_refused:
            print("curate_replay: FAIL: other-half gain %.4f (want >= %.4f), %d refused (want <= %d)"
                  % (gain, a.min_gain, len(refusals), a.max_refused))
            return 1
        print("curate_replay: ok: other-half gain %.4f, %d refused" % (gain, len(refusals)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
