#!/usr/bin/python3
"""Write a deterministic benchmark corpus: N log lines for SEED.

Usage:
    /usr/bin/python3 bench/gen_corpus.py N SEED [--source loghub|synthlog] [--dist zipf|uniform] > corpus.txt

--source loghub (the default): loghub-style lines repeated, numbers
  re-randomised. Each line is the Content of a line drawn at random from the
  nine labelled loghub-2k sets in ../shared/data/loghub-2k (18,000 real lines
  of nine systems), with every digit replaced by a random digit: what a
  service sees from a fleet of known programs, where ids, ports, counts and
  timestamps differ from line to line. This is the corpus of the speed
  figures in bench/RESULTS.md (the first 200k lines of it, taken from the
  same generator, hold more first-seen templates per line).
--source synthlog: lines of models/training/synthlog.py (841 synthetic
  templates, Zipf over templates, fresh values of every typed slot: user and
  host names, paths, ids...). Far more first-seen tokens per line than real
  fleets show: a stress test of the model path.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "models" / "training"))

SETS = ("Android", "Apache", "BGL", "HDFS", "Hadoop", "Mac", "OpenSSH", "Spark", "Zookeeper")


def loghub_lines(root: Path) -> list[str]:
    lines = []
    for s in SETS:
        path = root / s / f"{s}_2k.log_structured_corrected.csv"
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                lines.append(row["Content"])
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate the logsift bench corpus on stdout.")
    ap.add_argument("n", type=int, help="number of lines")
    ap.add_argument("seed", type=int, help="random seed")
    ap.add_argument("--source", choices=("loghub", "synthlog"), default="loghub")
    ap.add_argument("--dist", choices=("zipf", "uniform"), default="zipf", help="synthlog only")
    ap.add_argument("--loghub", default=os.environ.get("LOGSIFT_LOGHUB", str(HERE.parent.parent / "shared" / "data" / "loghub-2k")))
    args = ap.parse_args(argv)
    if args.n < 0:
        ap.error("N must be >= 0")
    if args.source == "synthlog":
        import synthlog  # noqa: E402
        return synthlog.main(["--n", str(args.n), "--seed", str(args.seed), "--dist", args.dist, "--format", "lines"])
    rng = random.Random(args.seed)
    base = loghub_lines(Path(args.loghub))
    digits = "0123456789"
    out = sys.stdout
    buf = []
    for _ in range(args.n):
        line = base[int(rng.random() * len(base))]
        buf.append("".join(digits[int(rng.random() * 10)] if "0" <= c <= "9" else c for c in line))
        if len(buf) >= 10000:
            out.write("\n".join(buf) + "\n")
            buf.clear()
    if buf:
        out.write("\n".join(buf) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
