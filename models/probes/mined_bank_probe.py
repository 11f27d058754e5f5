#!/usr/bin/python3
"""Mined-bank probe: can an unlabelled sample of a deployment's own lines
teach which words are values, the way its programs' format strings do?

    /usr/bin/python3 models/probes/mined_bank_probe.py DIR [--bin build/logsift]
        [--sim 0.6,0.7,0.8,0.85,0.9] [--k 3,5] [--raw]

Each set of DIR (`logsift eval`'s layout) is split in file order. The first
halves of all sets, pooled as one stream with no labels, are the sample; the
second halves are scored.

Mining: the sample's lines go through `logsift cluster`; its templates (with
their line counts) are grouped by blank-separated token count and clustered
the way Drain does, most frequent first: a template joins the cluster whose
pattern agrees with it in at least `sim` of the positions (a <*> agrees with
anything; the first tokens must agree unless one is <*>), and positions that
differ become <*>. A position that varies is kept as a slot only when it
shows at least `k` distinct words; the cluster is split by the values of the
others. Each cluster of two or more templates gives a pattern.

Scored two ways against the second halves' labels:
  - rewrite: each template is replaced by the pattern (same token count,
    every literal token equal) with the most literal tokens; GA of the
    resulting template text (compare with `logsift eval`'s GA(tmpl));
  - raw (--raw): the patterns become a format bank (<*> -> %s) that
    `logsift eval --format-bank` serves on the raw lines; GA of the cluster
    id (compare with `logsift eval`'s GA).

It measures a proposal (models/README.md, "Tried and not shipped
(2026-11-26, fifth session)"); it ships nothing.
"""
from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
WILD = "<*>"


def load_halves(root: str):
    with open(os.path.join(root, "datasets.json"), encoding="utf-8") as f:
        spec = json.load(f)
    first, second = {}, {}
    for name, v in spec.items():
        with open(os.path.join(root, v["truth"]), newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        k = len(rows) // 2
        first[name], second[name] = rows[:k], rows[k:]
    return first, second


def templates(binary: str, lines: list[str]) -> list[str]:
    res = subprocess.run([binary, "cluster", "-"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True)
    return [json.loads(o).get("template", "") for o in res.stdout.splitlines()]


def grouping_accuracy(truth: list[str], pred: list[str]) -> float:
    by_truth, by_pred = collections.defaultdict(set), collections.defaultdict(set)
    for i, (t, p) in enumerate(zip(truth, pred)):
        by_truth[t].add(i)
        by_pred[p].add(i)
    ok = sum(len(s) for s in by_truth.values() if by_pred[pred[next(iter(s))]] == s)
    return ok / max(1, len(truth))


def mine(counts: collections.Counter, sim: float, k: int) -> list[list[str]]:
    groups = collections.defaultdict(list)
    for t, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        toks = t.split()
        if toks:
            groups[len(toks)].append(toks)
    patterns = []
    for n, items in sorted(groups.items()):
        clusters: list[list] = []  # [pattern, members]
        for toks in items:
            best, best_s = None, -1.0
            for cl in clusters:
                p = cl[0]
                if p[0] != toks[0] and WILD not in (p[0], toks[0]):
                    continue
                s = sum(1 for x, y in zip(p, toks) if x == y or x == WILD) / n
                if s >= sim and s > best_s:
                    best, best_s = cl, s
            if best is None:
                clusters.append([list(toks), [toks]])
            else:
                best[0] = [x if x == y else WILD for x, y in zip(best[0], toks)]
                best[1].append(toks)
        for _, members in clusters:
            if len(members) < 2:
                continue
            low = [i for i in range(n) if 1 < len({m[i] for m in members}) < k]
            parts = collections.defaultdict(list)
            for m in members:
                parts[tuple(m[i] for i in low)].append(m)
            for ms in parts.values():
                if len(ms) >= 2:
                    patterns.append([ms[0][i] if len({m[i] for m in ms}) == 1 else WILD for i in range(n)])
    return patterns


def rewriter(patterns: list[list[str]]):
    by_len = collections.defaultdict(list)
    for p in patterns:
        by_len[len(p)].append(p)

    def rewrite(t: str) -> str:
        toks = t.split()
        best = None
        for p in by_len.get(len(toks), []):
            if all(x == WILD or x == y for x, y in zip(p, toks)):
                lit = sum(1 for x in p if x != WILD)
                if best is None or lit > best[0]:
                    best = (lit, p)
        return " ".join(best[1]) if best else t
    return rewrite


def write_split(rows_by_set, dst: str) -> None:
    spec = {}
    for name, rows in rows_by_set.items():
        with open(os.path.join(dst, name + ".csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=["LineId", "Content", "EventId", "EventTemplate"])
            w.writeheader()
            for i, r in enumerate(rows):
                w.writerow({"LineId": i + 1, "Content": r["Content"], "EventId": r["EventId"],
                            "EventTemplate": r["EventTemplate"]})
        spec[name] = {"truth": name + ".csv"}
    with open(os.path.join(dst, "datasets.json"), "w", encoding="utf-8") as f:
        json.dump(spec, f)


def eval_ga(binary: str, root: str, extra: list[str]) -> dict:
    res = subprocess.run([binary, "eval", root, "--json", "--explain", "0"] + extra,
                         capture_output=True, text=True, check=True)
    d = json.loads(res.stdout)
    return {n: v["ga"] for n, v in d["datasets"].items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--bin", default=os.path.join(REPO, "build", "logsift"))
    ap.add_argument("--sim", default="0.6,0.7,0.8,0.85,0.9")
    ap.add_argument("--k", default="3,5")
    ap.add_argument("--raw", action="store_true", help="also serve the patterns as a format bank (slower)")
    args = ap.parse_args()
    first, second = load_halves(args.dir)
    sample = collections.Counter(templates(args.bin, [r["Content"] for rows in first.values() for r in rows]))
    scored = {n: (rows, templates(args.bin, [r["Content"] for r in rows])) for n, rows in second.items()}
    base = {n: grouping_accuracy([r["EventId"] for r in rows], ts) for n, (rows, ts) in scored.items()}
    names = list(scored)
    print("sample: %d lines, %d templates; scored: %d lines" % (
        sum(len(r) for r in first.values()), len(sample), sum(len(r) for r in second.values())))
    print("%-10s %-4s %8s  %s" % ("sim k", "", "patterns", "  ".join("%-8s" % n[:8] for n in names) + "  average"))
    print("%-10s %-4s %8s  %s  %.4f" % ("none", "tmpl", "", "  ".join("%.4f  " % base[n] for n in names),
                                        sum(base.values()) / len(base)))
    raw_base = None
    tmp = tempfile.TemporaryDirectory(prefix="mined_bank.") if args.raw else None
    if tmp:
        write_split(second, tmp.name)
        raw_base = eval_ga(args.bin, tmp.name, [])
        print("%-10s %-4s %8s  %s  %.4f" % ("none", "id", "", "  ".join("%.4f  " % raw_base[n] for n in names),
                                            sum(raw_base.values()) / len(raw_base)))
    for sim in (float(x) for x in args.sim.split(",")):
        for k in (int(x) for x in args.k.split(",")):
            pats = mine(sample, sim, k)
            rw = rewriter(pats)
            ga = {n: grouping_accuracy([r["EventId"] for r in rows], [rw(t) for t in ts])
                  for n, (rows, ts) in scored.items()}
            print("%-10s %-4s %8d  %s  %.4f" % ("%.2f %d" % (sim, k), "tmpl", len(pats),
                                                "  ".join("%.4f  " % ga[n] for n in names), sum(ga.values()) / len(ga)))
            if tmp:
                bank = os.path.join(tmp.name, "mined.bank")
                with open(bank, "w", encoding="utf-8") as f:
                    f.write("# mined\n")
                    for p in sorted({" ".join(p).replace("%", "%%").replace(WILD, "%s") for p in pats}):
                        f.write(p.replace("\\", "\\\\") + "\n")
                g = eval_ga(args.bin, tmp.name, ["--format-bank", bank])
                print("%-10s %-4s %8s  %s  %.4f" % ("", "id", "", "  ".join("%.4f  " % g[n] for n in names),
                                                    sum(g.values()) / len(g)))
    if tmp:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
