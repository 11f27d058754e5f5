#!/usr/bin/python3
"""GET /clusters/mined-bank: how long mining the catalog takes, beside `logsift mine` on the same
lines and Drain3 (../shared/peers) mining them, side by side.

    PYTHONPATH=../shared/peers/drain3:../shared/peers /usr/bin/python3 bench/mined_bank_endpoint.py \
        [--bin build/logsift] [--lines 200000] [--random-lines 20000] [--seed 42]

Two corpora: LINES of bench/gen_corpus.py's loghub-style lines, and RANDOM_LINES random-word lines
(every line its own template, one first word and length: the worst case of a Drain-style miner,
bounded in logsift by BankMiner::kMaxCandidates; Drain3 scans every cluster of the leaf per line, so
it gets fewer lines than the loghub corpus).
For each: a real `logsift serve` (loopback, port 0, a fresh data dir) takes the lines over POST
/inferences (NDJSON); then GET /clusters/mined-bank is timed (the catalog's clusters read and mined on
the server's background thread), `logsift mine FILE` is timed (the pipeline and the miner over the
lines), and Drain3's TemplateMiner over the same lines (its templates are what a Drain3 user mines).
Prints wall seconds, clusters, formats and the ratios.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models", "probes"))
from mined_bank_probe import served  # noqa: E402  (a logsift serve that has clustered the lines)


def serve_and_fetch(binary, data_dir, path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    with served(binary, data_dir, lines) as port:
        t0 = time.monotonic()
        with urllib.request.urlopen("http://127.0.0.1:%d/clusters/mined-bank" % port, timeout=600) as r:
            body = r.read().decode()
            formats = int(r.headers["X-Logsift-Formats"])
        wall = time.monotonic() - t0
    clusters = int(re.match(r"# mined from the catalog: the (\d+)", body).group(1))
    return wall, clusters, formats


def drain3(path):
    from drain3 import TemplateMiner
    from drain3_configs import make_config
    miner = TemplateMiner(config=make_config("maskonly"))
    t0 = time.monotonic()
    with open(path, encoding="utf-8") as f:
        for line in f:
            miner.add_log_message(line.rstrip("\n"))
    return time.monotonic() - t0, len(miner.drain.clusters)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/logsift")
    ap.add_argument("--lines", type=int, default=200000)
    ap.add_argument("--random-lines", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mined_bank_bench.") as tmp:
        loghub = os.path.join(tmp, "loghub.txt")
        with open(loghub, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "gen_corpus.py"), str(args.lines), str(args.seed)],
                           stdout=f, check=True)
        rnd = os.path.join(tmp, "random.txt")
        words = [w.strip() for w in open("/usr/share/dict/american-english", encoding="utf-8")
                 if w.strip().isalpha() and w.strip().islower()]
        rng = random.Random(args.seed)
        with open(rnd, "w") as f:
            for _ in range(args.random_lines):
                f.write("worker " + " ".join(rng.choice(words) for _ in range(6)) + "\n")
        print("%-8s %9s %9s %8s %12s %12s %10s %14s %14s" % (
            "corpus", "lines", "clusters", "formats", "endpoint_s", "mine_file_s", "drain3_s",
            "drain3/endpt", "drain3/mine"), flush=True)
        for name, path, n in (("loghub", loghub, args.lines), ("random", rnd, args.random_lines)):
            endpoint_s, clusters, formats = serve_and_fetch(args.bin, os.path.join(tmp, "data-" + name), path)
            t0 = time.monotonic()
            subprocess.run([args.bin, "mine", path, "--out", os.devnull], check=True, capture_output=True)
            mine_s = time.monotonic() - t0
            drain_s, _ = drain3(path)
            print("%-8s %9d %9d %8d %12.3f %12.2f %10.2f %13.1fx %13.2fx" % (
                name, n, clusters, formats, endpoint_s, mine_s, drain_s, drain_s / endpoint_s,
                drain_s / mine_s), flush=True)


if __name__ == "__main__":
    main()
