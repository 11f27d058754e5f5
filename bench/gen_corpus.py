#!/usr/bin/python3
"""Write the deterministic benchmark corpus: N synthetic log lines for SEED.

Usage:
    /usr/bin/python3 bench/gen_corpus.py N SEED [--dist zipf|uniform] > corpus.txt

A thin wrapper around models/training/synthlog.py.  The bench defaults to a
Zipf template distribution (a few templates dominate, a long tail is rare),
which is what a clustering service sees in production; pass --dist uniform to
get exactly the lines of `synthlog.py --n N --seed SEED`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Resolve relative to this file so the script works from any working directory.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "models" / "training"))

import synthlog  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Generate the logsift bench corpus on stdout.")
    ap.add_argument("n", type=int, help="number of lines")
    ap.add_argument("seed", type=int, help="random seed")
    ap.add_argument("--dist", choices=("zipf", "uniform"), default="zipf")
    args = ap.parse_args(argv)
    if args.n < 0:
        ap.error("N must be >= 0")
    return synthlog.main(["--n", str(args.n), "--seed", str(args.seed), "--dist", args.dist, "--format", "lines"])


if __name__ == "__main__":
    sys.exit(main())
