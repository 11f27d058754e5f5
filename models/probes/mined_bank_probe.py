#!/usr/bin/python3
"""Mined-bank probe: can an unlabelled sample of a deployment's own lines
teach which words are values, the way its programs' format strings do?

    /usr/bin/python3 models/probes/mined_bank_probe.py DIR [--bin build/logsift]
        [--sim 0.6,0.7,0.8,0.85,0.9] [--k 3,5] [--catalog]

Each set of DIR (`logsift eval`'s layout) is split in file order. The first
halves of all sets, pooled as one stream with no labels, are the sample; the
second halves are scored. For each pair of options, `logsift mine SAMPLE
--similarity X --min-values K` (pipeline/stages/bank_miner.h, the shipped
miner) writes a bank, and `logsift eval SECOND_HALVES --format-bank BANK`
scores it: GA of the cluster id per set and on average, beside the GA with no
bank.

With --catalog the sample is not a file: a real `logsift serve` (loopback,
port 0, a temporary data dir) clusters it through POST /inferences, and each
bank is GET /clusters/mined-bank?similarity=X&min_values=K, mined from the
service's catalog (one template and count per cluster).

It measures `logsift mine` and its options (models/README.md, "Where the loss
is, and mined banks"); it ships nothing.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "models", "training"))
from loghub import find_logsift, labelled_rows, write_labelled_set  # noqa: E402


def eval_ga(binary: str, root: str, extra: list[str]) -> dict[str, float]:
    res = subprocess.run([binary, "eval", root, "--json", "--explain", "0"] + extra,
                         capture_output=True, text=True, check=True)
    return {n: v["ga"] for n, v in json.loads(res.stdout)["datasets"].items()}


def row(label: str, formats: str, ga: dict[str, float], names: list[str]) -> str:
    return "%-10s %8s  %s  %.4f" % (label, formats, "  ".join("%.4f  " % ga[n] for n in names),
                                     sum(ga.values()) / len(ga))


@contextlib.contextmanager
def served(binary: str, data_dir: str, lines: list[str]):
    """A `logsift serve` that has clustered `lines`; yields its HTTP port, stops it by PID.

    Its log goes to DATA_DIR.log, not a pipe: a pipe nobody reads after the start would stop the
    server once its buffer is full."""
    log_path = data_dir.rstrip("/") + ".log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([binary, "serve", "--http-port", "0", "--tcp-port", "0", "--syslog-port", "-1",
                                 "--data-dir", data_dir], stdout=log, stderr=subprocess.STDOUT)
    try:
        port = None
        deadline = time.monotonic() + 60
        while port is None and proc.poll() is None and time.monotonic() < deadline:
            with open(log_path, encoding="utf-8", errors="replace") as f:
                m = re.search(r"listening http=\S*:(\d+)", f.read())
            if m:
                port = int(m.group(1))
            else:
                time.sleep(0.05)
        if port is None:
            raise RuntimeError("logsift serve did not start; its log: " + log_path)
        for i in range(0, len(lines), 500):  # NDJSON: a bad line (an empty one) is answered in place
            body = "".join(json.dumps({"text": t}) + "\n" for t in lines[i:i + 500]).encode()
            urllib.request.urlopen(urllib.request.Request(
                "http://127.0.0.1:%d/inferences" % port, body, {"Content-Type": "application/x-ndjson"}),
                timeout=60).read()
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:  # it did not drain in time: stop it anyway
            proc.kill()
            proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--bin", default=find_logsift() or os.path.join(REPO, "build", "logsift"))
    ap.add_argument("--sim", default="0.6,0.7,0.8,0.85,0.9")
    ap.add_argument("--k", default="3,5")
    ap.add_argument("--catalog", action="store_true", help="mine the catalog of a served sample (GET /clusters/mined-bank)")
    args = ap.parse_args()
    sets = labelled_rows(args.dir)
    names = list(sets)
    with tempfile.TemporaryDirectory(prefix="mined_bank.") as tmp:
        sample, bank, scored = (os.path.join(tmp, n) for n in ("sample.log", "mined.bank", "second"))
        with open(sample, "w", encoding="utf-8") as f:
            for rows in sets.values():
                f.writelines(r["Content"] + "\n" for r in rows[: len(rows) // 2])
        write_labelled_set(scored, {n: [(r["Content"], r["EventTemplate"]) for r in rows[len(rows) // 2:]]
                                    for n, rows in sets.items()})
        print("sample: %d lines; scored: %d lines" % (
            sum(len(r) // 2 for r in sets.values()), sum(len(r) - len(r) // 2 for r in sets.values())))
        print("%-10s %8s  %s  average" % ("sim k", "formats", "  ".join("%-8s" % n[:8] for n in names)))
        print(row("none", "", eval_ga(args.bin, scored, []), names))
        with contextlib.ExitStack() as stack:
            port = None
            if args.catalog:
                with open(sample, encoding="utf-8") as f:
                    port = stack.enter_context(served(args.bin, os.path.join(tmp, "data"), f.read().splitlines()))
            for sim in args.sim.split(","):
                for k in args.k.split(","):
                    if port:
                        with urllib.request.urlopen("http://127.0.0.1:%d/clusters/mined-bank?similarity=%s&min_values=%s"
                                                    % (port, sim, k), timeout=60) as r, open(bank, "wb") as f:
                            f.write(r.read())
                    else:
                        subprocess.run([args.bin, "mine", sample, "--similarity", sim, "--min-values", k, "--out",
                                        bank], capture_output=True, check=True)
                    with open(bank, encoding="utf-8") as f:
                        n_formats = sum(1 for line in f if not line.startswith("#"))
                    ga = eval_ga(args.bin, scored, ["--format-bank", bank])
                    print(row("%s %s" % (sim, k), str(n_formats), ga, names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
