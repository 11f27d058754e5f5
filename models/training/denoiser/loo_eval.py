"""Leave-one-dataset-out evaluation of the denoiser.

For each loghub-2k set (or those given with ``--folds``): train a fresh model
on the other eight sets + synthetic (+ augmentation), with the same options
and seeds as train.py, then report token-level precision / recall / F1 of the
class "variable" on the held-out set (every labelled word token, not
deduplicated), plus the GA proxy (lines grouped by exact template after
masking; the pipeline's real GA uses the encoder + LSH) and its oracle (true
token labels).

    nice -n 19 /usr/bin/python3 models/training/denoiser/loo_eval.py --json /tmp/loo.json
    nice -n 19 /usr/bin/python3 models/training/denoiser/loo_eval.py --folds OpenSSH,Mac
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import labels as lb  # noqa: E402
import train as tr  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    tr.add_args(ap)
    ap.add_argument("--folds", default=",".join(lb.LOGHUB_SETS), help="comma-separated held-out sets")
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("--save-dir", default=None, help="save each fold's TorchScript model here")
    args = ap.parse_args(argv)
    if args.tiny:
        args.max_steps = 20
        args.synthetic = min(args.synthetic, 200)
        args.augment = min(args.augment, 200)
    folds = [f for f in args.folds.split(",") if f]
    t0 = time.time()
    loghub = {s: lb.load_loghub(s) for s in lb.LOGHUB_SETS}
    if args.tiny:
        loghub = {k: v[:: max(1, len(v) // 100)] for k, v in loghub.items()}
    enc = {s: tr.encode_lines(v, args.context) for s, v in loghub.items()}
    syn = lb.load_synthetic(args.synthetic, args.seed) if args.synthetic > 0 else []
    syn_enc = tr.encode_lines(syn, args.context) if syn else None
    print(f"data loaded in {time.time() - t0:.1f}s (synthetic lines: {len(syn)})", flush=True)

    results = {}
    for hold in folds:
        tf = time.time()
        parts = [enc[s] for s in lb.LOGHUB_SETS if s != hold]
        if syn_enc is not None:
            parts.append(syn_enc)
        if args.augment > 0:
            import augment as aug
            al = aug.refill_lines({s: loghub[s] for s in lb.LOGHUB_SETS if s != hold}, args.augment, args.seed)
            parts.append(tr.encode_lines(al, args.context))
        X = np.concatenate([p[0] for p in parts])
        y = np.concatenate([p[1] for p in parts])
        n_real = sum(len(enc[s][1]) for s in lb.LOGHUB_SETS if s != hold)
        is_real = np.arange(len(y)) < n_real
        model, info = tr.train_arrays(args, X, y, log=lambda m: None, is_real=is_real)
        r = tr.evaluate_set(model, loghub[hold], args.context)
        r["fold_seconds"] = time.time() - tf
        r["train_seconds"] = info["train_seconds"]
        r["steps"] = info["steps"]
        results[hold] = r
        if args.save_dir:
            import model as md
            os.makedirs(args.save_dir, exist_ok=True)
            md.export(model, os.path.join(args.save_dir, f"holdout-{hold}.pt"))
        counts = f"(tokens {r['n']}, variable {r['n_var']}) "
        print(f"held-out {hold:10s} {tr.summary(r, counts)} {r['fold_seconds']:.0f}s", flush=True)
    if results:
        keys = ["precision", "recall", "f1", "precision_scored", "recall_scored", "f1_scored",
                "precision_stage", "recall_stage", "f1_stage", "ga_proxy", "ga_oracle"]
        mean = {k: float(np.mean([r[k] for r in results.values()])) for k in keys}
        print("mean      " + " ".join(f"{k} {v:.4f}" for k, v in mean.items())
              + f"   total {time.time() - t0:.0f}s", flush=True)
        results["_mean"] = mean
        by_thr = {t: float(np.mean([r["f1_by_thr"][t] for k, r in results.items() if not k.startswith("_")]))
                  for t in next(iter(results.values()))["f1_by_thr"]}
        print("mean F1 by threshold: " + " ".join(f"{t}:{v:.4f}" for t, v in by_thr.items()), flush=True)
        results["_mean_f1_by_thr"] = by_thr
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
