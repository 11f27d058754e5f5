#!/usr/bin/python3
"""Drain-as-teacher probe: how good would variable labels mined by a
stateful parser be as training labels for the stateless denoiser?

    PYTHONPATH=../shared/peers/drain3:../shared/peers /usr/bin/python3 models/probes/drain_teacher_probe.py [--variant maskonly] [--sim-th X] [--sets A,B]

For each loghub-2k set, Drain3 (../shared/peers, one fresh miner per set)
reads every Content line, then each line is aligned with the final template
of its Drain cluster, exactly as the denoiser's training aligns it with the
true EventTemplate (labels.align + label_line, the serving tokenizer). The
word tokens' labels from Drain's template are scored against the labels from
the true template: precision, recall and F1 of "variable". Drain never sees
the truth, so every set is unseen to it, and the figures compare with the
denoiser's leave-one-out word-token F1 (models/README.md; v2: 0.829 mean).

It measures a proposal (models/README.md, "Tried and not shipped
(2026-11-26)"); it trains nothing.
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "training", "denoiser"))

import labels as lb  # noqa: E402

from drain3 import TemplateMiner  # noqa: E402
from drain3_configs import make_config, mask_token_regex  # noqa: E402


def score(name: str, variant: str, sim_th: float = 0.0):
    with open(lb.loghub_csv_path(lb.DEFAULT_LOGHUB, name), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    cfg = make_config(variant)
    if sim_th > 0:
        cfg.drain_sim_th = sim_th
    wild = mask_token_regex(cfg)
    miner = TemplateMiner(config=cfg)
    ids = [miner.add_log_message(r["Content"])["cluster_id"] for r in rows]
    final = {c.cluster_id: c.get_template() for c in miner.drain.clusters}
    tp = fp = fn = 0
    aligned = 0
    for r, cid in zip(rows, ids):
        text = r["Content"].encode("utf-8")
        truth_method, truth_mask = lb.align(text, r["EventTemplate"].encode("utf-8"))
        tpl = wild.sub("<*>", final[cid]).encode("utf-8")
        method, mask = lb.align(text, tpl)
        if truth_mask is None:
            continue
        t = lb.label_line(name, text, truth_mask, "")
        if mask is None:  # Drain's template does not align: no teacher label for this line
            continue
        aligned += 1
        d = lb.label_line(name, text, mask, "")
        for a, b in zip(t.labels, d.labels):
            if a < 0 or b < 0:
                continue
            tp += a == 1 and b == 1
            fp += a == 0 and b == 1
            fn += a == 1 and b == 0
    p = tp / (tp + fp) if tp + fp else 1.0
    rc = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * p * rc / (p + rc) if p + rc else 0.0
    return p, rc, f1, tp + fn, aligned / len(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="maskonly", help="../shared/peers/drain3_configs.py variant")
    ap.add_argument("--sets", default=",".join(lb.LOGHUB_SETS))
    ap.add_argument("--sim-th", type=float, default=0.0, help="Drain's similarity threshold (0: the variant's, 0.4)")
    a = ap.parse_args()
    print(f"{'set':10s} {'P':>6s} {'R':>6s} {'F1':>6s} {'variable words':>15s} {'lines labelled':>15s}")
    f1s = []
    for name in a.sets.split(","):
        p, r, f1, nvar, frac = score(name, a.variant, a.sim_th)
        f1s.append(f1)
        print(f"{name:10s} {p:6.3f} {r:6.3f} {f1:6.3f} {nvar:15d} {frac:15.3f}", flush=True)
    print(f"{'mean':10s} {'':6s} {'':6s} {sum(f1s) / len(f1s):6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
