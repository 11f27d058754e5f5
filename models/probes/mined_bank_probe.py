#!/usr/bin/python3
"""Mined-bank probe: can an unlabelled sample of a deployment's own lines
teach which words are values, the way its programs' format strings do?

    /usr/bin/python3 models/probes/mined_bank_probe.py DIR [--bin build/logsift]
        [--sim 0.6,0.7,0.8,0.85,0.9] [--k 3,5]

Each set of DIR (`logsift eval`'s layout) is split in file order. The first
halves of all sets, pooled as one stream with no labels, are the sample; the
second halves are scored. For each pair of options, `logsift mine SAMPLE
--similarity X --min-values K` (pipeline/stages/bank_miner.h, the shipped
miner) writes a bank, and `logsift eval SECOND_HALVES --format-bank BANK`
scores it: GA of the cluster id per set and on average, beside the GA with no
bank.

It measures `logsift mine` and its options (models/README.md, "Where the loss
is, and mined banks"); it ships nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--bin", default=find_logsift() or os.path.join(REPO, "build", "logsift"))
    ap.add_argument("--sim", default="0.6,0.7,0.8,0.85,0.9")
    ap.add_argument("--k", default="3,5")
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
        for sim in args.sim.split(","):
            for k in args.k.split(","):
                subprocess.run([args.bin, "mine", sample, "--similarity", sim, "--min-values", k, "--out", bank],
                               capture_output=True, check=True)
                with open(bank, encoding="utf-8") as f:
                    n_formats = sum(1 for line in f if not line.startswith("#"))
                ga = eval_ga(args.bin, scored, ["--format-bank", bank])
                print(row("%s %s" % (sim, k), str(n_formats), ga, names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
