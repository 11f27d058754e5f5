#!/usr/bin/python3
"""Grouping accuracy of Drain3 on a loghub-layout directory, as `logsift eval` computes it.

Usage (Drain3 from ../shared/peers; Debian's python3-cachetools, python3-jsonpickle):
  PYTHONPATH=../shared/peers/drain3:../shared/peers /usr/bin/python3 bench/drain3_eval.py DIR [VARIANT]

DIR holds a datasets.json ({"NAME": {"truth": "path.csv"}}) and csv files with
Content and EventTemplate columns (models/validation, ../shared/data/loghub-2k,
a harvest dev set). VARIANT is one of ../shared/peers/drain3_configs.py
(default maskonly). Each set gets a fresh TemplateMiner fed its lines in
order; a true event counts when the cluster id of its lines holds exactly its
lines. Prints GA per set and the average.
"""
import collections
import csv
import json
import os
import sys

from drain3 import TemplateMiner
from drain3_configs import make_config


def grouping_accuracy(ids, truth):
    by_id, by_event = collections.defaultdict(set), collections.defaultdict(set)
    for i, (c, t) in enumerate(zip(ids, truth)):
        by_id[c].add(i)
        by_event[t].add(i)
    ok = sum(len(lines) for lines in by_event.values() if by_id[ids[min(lines)]] == lines)
    return ok / len(ids)


def main():
    d = sys.argv[1]
    variant = sys.argv[2] if len(sys.argv) > 2 else "maskonly"
    sets = json.load(open(os.path.join(d, "datasets.json")))
    scores = []
    for name, info in sorted(sets.items()):
        with open(os.path.join(d, info["truth"]), encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        miner = TemplateMiner(config=make_config(variant))
        ids = [miner.add_log_message(r["Content"])["cluster_id"] for r in rows]
        ga = grouping_accuracy(ids, [r["EventTemplate"] for r in rows])
        scores.append(ga)
        print(f"{name:14s} {len(rows):6d}  {ga:.4f}")
    print(f"{'Average':14s} {'':6s}  {sum(scores) / len(scores):.4f}")


if __name__ == "__main__":
    main()
