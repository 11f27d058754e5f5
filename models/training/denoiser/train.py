"""Train the denoiser and export it to TorchScript.

Reproduce the shipped model (fixed seeds, one thread, CPU):

    nice -n 19 /usr/bin/python3 models/training/denoiser/train.py \
        --out models/denoiser-v2.pt

Smoke test (a few steps on a tiny sample):

    /usr/bin/python3 models/training/denoiser/train.py --tiny --out /tmp/denoiser-tiny.pt

Tokenization goes through tokens.py: the built ``logsift tokenize`` binary
when found (LOGSIFT_BIN, build/, build-lead/), else the Python reference;
``LOGSIFT_TOKENIZER=python`` forces the reference.  The report (.json beside
the model) records which one was used.

Data: all nine loghub-2k sets (or all but ``--holdout NAME``; ``--data DIR``
reads another labelled set in the datasets.json layout instead, as the smoke
tests do with models/tuning), plus
``--synthetic N`` lines from models/training/synthlog.py when that file
exists, plus ``--augment N`` template re-fills (augment.py), plus
``--harvest-lines N`` rendered lines of the harvested real message templates
(models/training/harvest/render.py, seed ``--harvest-seed``; sampled with
``--harvest-frac`` of the weight).  ``--harvest-lines 0`` (the default) is
the denoiser-v2 recipe, unchanged.  Word tokens are
deduplicated on (input rows, label) so that the frequent templates do not
dominate; training samples the unique examples uniformly.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import labels as lb  # noqa: E402
from loghub import add_real_extra_args, grouping_accuracy, labelled_set_systems  # noqa: E402
import model as md  # noqa: E402


def set_seeds(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


# ----------------------------------------------------------------------------- data

def encode_lines(lines: Sequence[lb.Line], context: str, scored_only: bool = True
                 ) -> Tuple[np.ndarray, np.ndarray, List[Tuple[int, int]]]:
    """X [N,3,L] int16, y [N] int8 (labelled word tokens only), index (line, tok).

    With ``scored_only`` the word tokens that the runtime never scores
    (``model.is_scored``: no alphanumeric byte) are left out."""
    xs, ys, idx = [], [], []
    for li, ln in enumerate(lines):
        words, rows = md.encode_line(ln.text, ln.toks, context)
        for ti, r in zip(words, rows):
            lab = ln.labels[ti]
            if lab < 0:
                continue
            if scored_only and not md.is_scored(ln.text[ln.toks[ti][0]:ln.toks[ti][1]]):
                continue
            xs.append(r)
            ys.append(lab)
            idx.append((li, ti))
    X = np.asarray(xs, dtype=np.int16).reshape(-1, 3, md.MAX_LEN)
    y = np.asarray(ys, dtype=np.int8)
    return X, y, idx


def dedupe(X: np.ndarray, y: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unique (rows, label) pairs with their counts."""
    key = np.concatenate([X.reshape(len(X), -1), y[:, None].astype(np.int16)], 1)
    u, inv, cnt = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    return u[:, :-1].reshape(-1, 3, md.MAX_LEN).copy(), u[:, -1].astype(np.int8), cnt


# ----------------------------------------------------------------------------- eval

@torch.no_grad()
def predict(model: torch.nn.Module, X: np.ndarray, batch: int = 1024) -> np.ndarray:
    model.eval()
    out = []
    for i in range(0, len(X), batch):
        out.append(model(torch.from_numpy(X[i:i + batch].astype(np.int64))).numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


def prf(y: np.ndarray, p: np.ndarray, thr: float = 0.5) -> Dict[str, float]:
    pred = p >= thr
    tp = int(np.sum(pred & (y == 1)))
    fp = int(np.sum(pred & (y == 0)))
    fn = int(np.sum(~pred & (y == 1)))
    P = tp / (tp + fp) if tp + fp else 1.0
    R = tp / (tp + fn) if tp + fn else 1.0
    F1 = 2 * P * R / (P + R) if P + R else 0.0
    acc = float(np.mean(pred == (y == 1))) if len(y) else 1.0
    return {"precision": P, "recall": R, "f1": F1, "acc": acc, "tp": tp, "fp": fp, "fn": fn,
            "n": int(len(y)), "n_var": int(np.sum(y == 1))}


def line_templates(lines: Sequence[lb.Line], var_of: Dict[Tuple[int, int], bool]) -> List[str]:
    """Template per line: var tokens and predicted-variable words -> <*>."""
    out = []
    for li, ln in enumerate(lines):
        parts = []
        for ti, (s, e, k) in enumerate(ln.toks):
            if k == "var" or (k == "word" and var_of.get((li, ti), False)):
                parts.append("<*>")
            else:
                parts.append(ln.text[s:e].decode("utf-8", "replace"))
        t = re.sub(r"(?:<\*>)+", "<*>", "".join(parts))
        out.append(" ".join(t.split()))
    return out


THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def evaluate_set(model: torch.nn.Module, lines: Sequence[lb.Line], context: str,
                 thr: float = 0.5) -> Dict[str, float]:
    """Token P/R/F1 for 'variable' over all labelled word tokens (not deduplicated;
    ``*_scored``: only the tokens the model scores, see ``model.is_scored``;
    ``*_stage``: the whole stage, pre-mask spans included),
    and the grouping accuracy of the resulting templates (a proxy of the pipeline's
    GA: exact-template grouping, no embedding/LSH), with the oracle GA of the true
    token labels for reference."""
    X, y, idx = encode_lines(lines, context, scored_only=False)
    p = predict(model, X)
    scored = np.array([md.is_scored(lines[li].text[lines[li].toks[ti][0]:lines[li].toks[ti][1]])
                       for li, ti in idx], dtype=bool)
    rule = np.array([md.unscored_is_variable(lines[li].toks, ti) for li, ti in idx], dtype=bool)
    p = np.where(scored, p, rule.astype(np.float32))  # unscored tokens: the fixed rule
    r = prf(y, p, thr)
    r_s = prf(y[scored], p[scored], thr)
    r["f1_by_thr"] = {f"{t:.2f}": prf(y, p, t)["f1"] for t in THRESHOLDS}
    for k in ("precision", "recall", "f1", "n", "n_var"):
        r[k + "_scored"] = r_s[k]
    # The whole denoise stage: the re2 pre-mask's spans count as "variable"
    # decisions too (a span over constant text is a false positive), so every
    # labelled token of the line is scored, as the stage decides it.
    pm_tp = pm_fp = 0
    for ln in lines:
        if ln.varmask is None:
            continue
        for s, e, k in ln.toks:
            if k == "var":
                lab, _ = lb.token_label(ln.varmask, ln.text, s, e)
                pm_tp += lab
                pm_fp += 1 - lab
    tp, fp, fn = r["tp"] + pm_tp, r["fp"] + pm_fp, r["fn"]
    r["premask_tp"], r["premask_fp"] = pm_tp, pm_fp
    r["precision_stage"] = tp / (tp + fp) if tp + fp else 1.0
    r["recall_stage"] = tp / (tp + fn) if tp + fn else 1.0
    ps, rs = r["precision_stage"], r["recall_stage"]
    r["f1_stage"] = 2 * ps * rs / (ps + rs) if ps + rs else 0.0
    pred_var = {k: bool(v >= thr) for k, v in zip(idx, p)}
    true_var = {k: bool(v == 1) for k, v in zip(idx, y)}
    truth = [ln.group for ln in lines]
    r["ga_proxy"] = grouping_accuracy(line_templates(lines, pred_var), truth)
    r["ga_oracle"] = grouping_accuracy(line_templates(lines, true_var), truth)
    return r


def summary(r: Dict[str, float], extra: str = "") -> str:
    """One line of evaluate_set's result, as the scripts print it (``extra`` goes before the GA)."""
    return (f"P {r['precision']:.4f} R {r['recall']:.4f} F1 {r['f1']:.4f} F1-scored {r['f1_scored']:.4f} "
            f"F1-stage {r['f1_stage']:.4f} {extra}GA-proxy {r['ga_proxy']:.4f} (oracle {r['ga_oracle']:.4f})")


# ----------------------------------------------------------------------------- speed

def tokens_per_second(model: torch.nn.Module, batch: int, seconds: float = 1.0) -> float:
    x = torch.randint(0, md.VOCAB, (batch, 3, md.MAX_LEN), generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        for _ in range(20):
            model(x)
        best = float("inf")
        for _ in range(3):
            n = 0
            t0 = time.perf_counter()
            while True:
                model(x)
                n += 1
                dt = time.perf_counter() - t0
                if dt >= seconds / 3:
                    break
            best = min(best, dt / n)
    return batch / best


# ----------------------------------------------------------------------------- train

def _dedupe_flat(X2: np.ndarray, y: np.ndarray):
    key = np.concatenate([X2, y[:, None].astype(np.int16)], 1)
    u, cnt = np.unique(key, axis=0, return_counts=True)
    return u[:, :-1].copy(), u[:, -1].astype(np.int8), cnt


def load_sources(args, holdout: Optional[str] = None) -> Dict[str, List[lb.Line]]:
    """Lines per source: every set of ``--data`` (loghub-2k) but ``holdout``, "synthetic", "augment"."""
    src: Dict[str, List[lb.Line]] = {}
    sets = lb.training_sets(args.data)
    for s in sets:
        if s == holdout:
            continue
        ls = lb.load_loghub(s, root=args.data)
        if args.tiny:
            ls = ls[:: max(1, len(ls) // 100)]
        src[s] = ls
    for s, ls in load_real_extra(args).items():
        src[s] = ls
    if args.synthetic > 0:
        syn = lb.load_synthetic(args.synthetic, args.seed)
        if not syn:
            print("note: models/training/synthlog.py not found, no synthetic data", file=sys.stderr)
        src["synthetic"] = syn
    if args.augment > 0:
        import augment as aug
        src["augment"] = aug.refill_lines({k: v for k, v in src.items() if k in sets}, args.augment, args.seed)
    if getattr(args, "harvest_lines", 0) > 0:
        ex_ids = []
        if getattr(args, "harvest_exclude_ids", ""):
            with open(args.harvest_exclude_ids, encoding="utf-8") as f:
                ex_ids = [int(x) for x in f.read().split()]
        hv = lb.load_harvest(args.harvest_lines, args.harvest_seed, plain_frac=args.harvest_plain,
                             const_types=[t for t in args.harvest_const_types.split(",") if t],
                             exclude_source=getattr(args, "harvest_exclude_source", ""), exclude_ids=ex_ids,
                             vars_only=getattr(args, "harvest_vars_only", False),
                             keep_const_slots=getattr(args, "harvest_keep_const_slots", False))
        if not hv:
            print("note: models/training/harvest/templates.jsonl not found, no harvest data", file=sys.stderr)
        src["harvest"] = hv
    return src


REAL_EXTRA_PREFIX = "real:"


def load_real_extra(args) -> Dict[str, List[lb.Line]]:
    """Lines of another labelled set in the datasets.json layout (``--real-extra DIR``, e.g. models/tuning),
    one source per system, named ``real:<System>``; they count as real lines, like loghub's.
    ``--real-extra-systems A,B`` keeps only those systems (to hold the others out)."""
    root = getattr(args, "real_extra", "")
    if not root:
        return {}
    out = {}
    for s in labelled_set_systems(root, getattr(args, "real_extra_systems", "")):
        ls = lb.load_loghub(s, root=root)
        if args.tiny:
            ls = ls[:: max(1, len(ls) // 100)]
        out[REAL_EXTRA_PREFIX + s] = ls
    return out


GENERATED_SOURCES = ("synthetic", "augment", "harvest")


def is_real_source(name: str) -> bool:
    """A labelled set's lines (loghub's, --data's or --real-extra's), not generated ones."""
    return name not in GENERATED_SOURCES


SRC_SYNTHETIC, SRC_REAL, SRC_HARVEST, SRC_REAL_EXTRA = 0, 1, 2, 3


def sampling_weights(args, src_u: np.ndarray, cnt: np.ndarray, log=print) -> np.ndarray:
    """The sampling weight of each unique example from its source id and count (not normalised).

    Without harvested or extra lines: the denoiser-v2 recipe, ``--real-frac`` of the weight to the real
    (loghub) examples. ``--real-extra-share x`` (with ``--real-extra``): x of that real share goes to the
    extra set's examples, the rest to loghub's; with x = 0 they are one pool. With harvested lines:
    ``--real-frac`` / ``--harvest-frac`` / the rest over real / harvest / synthetic."""
    extra_u = src_u == SRC_REAL_EXTRA
    xf = getattr(args, "real_extra_share", 0.0)
    if not xf:  # the extra lines simply join loghub's as real lines
        src_u = np.where(extra_u, SRC_REAL, src_u)
        extra_u = src_u == SRC_REAL_EXTRA
    real_u = src_u == SRC_REAL
    harv_u = src_u == SRC_HARVEST
    syn_u = src_u == SRC_SYNTHETIC
    w = cnt.astype(np.float64) ** args.count_power
    if extra_u.any() and not harv_u.any():
        fr = ((real_u, args.real_frac * (1 - xf)), (extra_u, args.real_frac * xf), (syn_u, 1 - args.real_frac))
        for msk, f in fr:
            if msk.any():
                w[msk] *= f / w[msk].sum()
        log("sampling weight: " + ", ".join(f"{k} {f:.2f} ({int(m.sum())} unique)"
                                            for k, (m, f) in zip(("loghub", "extra", "synthetic"), fr)))
    elif not harv_u.any():  # the denoiser-v2 recipe, bit for bit
        if real_u.any() and (~real_u).any():
            w[real_u] *= args.real_frac / w[real_u].sum()
            w[~real_u] *= (1 - args.real_frac) / w[~real_u].sum()
    else:
        hf = getattr(args, "harvest_frac", 0.25)
        fr = {"real": (real_u, args.real_frac), "harvest": (harv_u, hf),
              "synthetic": (syn_u, max(0.0, 1 - args.real_frac - hf))}
        present = {k: v for k, v in fr.items() if v[0].any()}
        tot = sum(f for _, f in present.values())
        for msk, f in present.values():
            w[msk] *= (f / tot) / w[msk].sum()
        log("sampling weight: " + ", ".join(f"{k} {f / tot:.2f} ({int(m.sum())} unique)"
                                            for k, (m, f) in present.items()))
    return w


def train_arrays(args, X: np.ndarray, y: np.ndarray, log=print, is_real: Optional[np.ndarray] = None
                 ) -> Tuple[md.Denoiser, Dict]:
    """Train a fresh model on encoded examples (deduplicated here).

    ``is_real`` marks loghub examples (bool), or gives each example's source
    (``SRC_SYNTHETIC`` / ``SRC_REAL`` / ``SRC_HARVEST`` / ``SRC_REAL_EXTRA``); the
    weights are :func:`sampling_weights`' (default: uniform over all unique examples)."""
    set_seeds(args.seed)
    torch.set_num_threads(args.threads)
    if is_real is not None and args.real_frac > 0:
        # the source id goes into the dedupe key, then comes back out
        X2 = np.concatenate([X.reshape(len(X), -1), is_real[:, None].astype(np.int16)], 1)
        Xu2, yu, cnt = _dedupe_flat(X2, y)
        src_u = Xu2[:, -1]
        Xu = Xu2[:, :-1].reshape(-1, 3, md.MAX_LEN).copy()
        w = sampling_weights(args, src_u, cnt, log)
    else:
        Xu, yu, cnt = dedupe(X, y)
        w = cnt.astype(np.float64) ** args.count_power
    w /= w.sum()
    log(f"data: {len(X)} word tokens ({int(y.sum())} variable), "
        f"{len(Xu)} unique examples ({int(yu.sum())} variable)")
    kw = dict(tok_channels=args.tok_channels, tok_width=args.tok_width, ctx_channels=args.ctx_channels,
              ctx_width=args.ctx_width, hidden=args.hidden, context=args.context, dropout=args.dropout)
    model = (md.BoundedDenoiser(context_bound=args.context_bound, **kw) if args.context_bound > 0
             else md.Denoiser(**kw))
    log(f"model: {md.n_params(model)} parameters")
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    steps = args.max_steps if args.max_steps else max(1, int(args.epochs * len(Xu) / args.batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.1)
    rng = np.random.default_rng(args.seed)
    Xt = torch.from_numpy(Xu.astype(np.int64))
    yt = torch.from_numpy(yu.astype(np.float32))
    model.train()
    t1 = time.time()
    run = 0.0
    for step in range(1, steps + 1):
        bi = torch.from_numpy(rng.choice(len(Xu), size=args.batch, p=w))
        xb = Xt[bi]
        if args.ctx_dropout > 0:
            # blank one context row for some examples (robustness to unseen neighbours)
            drop = torch.rand(len(bi)) < args.ctx_dropout
            if bool(drop.any()):
                xb = xb.clone()
                side = torch.randint(0, 2, (int(drop.sum()),)) * 2
                xb[drop.nonzero().squeeze(1), side] = 0
        logit = model.logits(xb)
        yb = yt[bi]
        if args.label_smoothing > 0:
            yb = yb * (1 - args.label_smoothing) + 0.5 * args.label_smoothing
        loss = F.binary_cross_entropy_with_logits(logit, yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        run = 0.98 * run + 0.02 * float(loss) if step > 1 else float(loss)
        if step % args.log_every == 0 or step == steps:
            log(f"step {step}/{steps} loss {run:.4f} {time.time() - t1:.0f}s")
    model.eval()
    info = {"tokens": int(len(X)), "unique": int(len(Xu)), "steps": steps,
            "train_seconds": time.time() - t1}
    return model, info


def train(args) -> Tuple[md.Denoiser, Dict]:
    t0 = time.time()
    src = load_sources(args, args.holdout)
    enc = [encode_lines(v, args.context) for v in src.values()]
    X = np.concatenate([e[0] for e in enc])
    y = np.concatenate([e[1] for e in enc])
    share = getattr(args, "real_extra_share", 0.0)
    if share and "harvest" in src and src["harvest"]:
        raise SystemExit("--real-extra-share does not combine with --harvest-lines")
    if ("harvest" in src and src["harvest"]) or (share and any(k.startswith(REAL_EXTRA_PREFIX) for k in src)):
        src_id = {k: SRC_HARVEST if k == "harvest" else
                  SRC_REAL_EXTRA if share and k.startswith(REAL_EXTRA_PREFIX) else
                  SRC_REAL if is_real_source(k) else SRC_SYNTHETIC for k in src}
        is_real = np.concatenate([np.full(len(e[1]), src_id[k], dtype=np.int16) for k, e in zip(src, enc)])
    else:  # the denoiser-v2 recipe, unchanged
        is_real = np.concatenate([np.full(len(e[1]), is_real_source(k)) for k, e in zip(src, enc)])
    t_data = time.time() - t0
    print("sources: " + ", ".join(f"{k}={len(v)}" for k, v in src.items()) + f" lines ({t_data:.1f}s)",
          flush=True)
    model, info = train_arrays(args, X, y, log=lambda m: print(m, flush=True), is_real=is_real)
    info["data_seconds"] = t_data
    return model, info


def synthlog_sha256() -> Optional[str]:
    """The synthetic data depend on models/training/synthlog.py: record its hash."""
    import hashlib
    path = os.path.join(lb.REPO, "models", "training", "synthlog.py")
    if not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def tokenizer_info() -> Dict[str, Optional[str]]:
    """Which tokenizer produced the training data (tokens.py backend)."""
    import hashlib
    import tokens as tk
    be = tk._backend
    path = getattr(be, "binary", None)
    if path is None:
        return {"backend": "python-reference", "binary": None, "sha256": None}
    with open(path, "rb") as f:
        return {"backend": "logsift tokenize", "binary": path, "sha256": hashlib.sha256(f.read()).hexdigest()}


def add_args(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--holdout", default=None, help="loghub set to leave out")
    ap.add_argument("--data", default=lb.DEFAULT_LOGHUB, metavar="DIR",
                    help="the labelled sets to train on (default: loghub-2k, the shipped weights' data; "
                         "any set in the datasets.json layout, e.g. models/tuning)")
    ap.add_argument("--synthetic", type=int, default=20000, help="synthetic lines (if synthlog.py exists)")
    ap.add_argument("--augment", type=int, default=0, help="template re-fill lines (augment.py)")
    ap.add_argument("--harvest-lines", type=int, default=0,
                    help="rendered lines of the harvested templates (harvest/render.py); 0 = the v2 recipe")
    ap.add_argument("--harvest-seed", type=int, default=4321, help="render.generate seed for --harvest-lines")
    ap.add_argument("--harvest-frac", type=float, default=0.25,
                    help="share of the sampling weight for harvest examples (with --harvest-lines)")
    ap.add_argument("--harvest-plain", type=float, default=0.0,
                    help="share of the harvest lines rendered as the bare message (no header / envelope)")
    ap.add_argument("--harvest-const-types", default="",
                    help="comma-separated harvest slot types labelled constant (e.g. http_method: synthlog's convention)")
    ap.add_argument("--harvest-exclude-source", default="",
                    help="regex: harvested templates whose source (package:binary) matches are left out "
                         "(a leave-one-out fold leaves out the held-out system's own software)")
    ap.add_argument("--harvest-exclude-ids", default="",
                    help="file of harvested template ids to leave out (the dev set's: devset.py --ids-out)")
    ap.add_argument("--harvest-vars-only", action="store_true",
                    help="keep only the harvest's variable tokens (its values' shapes, not its constant words)")
    ap.add_argument("--harvest-keep-const-slots", action="store_true",
                    help="with --harvest-vars-only: the words of --harvest-const-types slots stay, as constants")
    add_real_extra_args(ap, "its lines join loghub's as real training lines")
    ap.add_argument("--real-extra-share", type=float, default=0.0, metavar="X",
                    help="give the --real-extra lines this share of the real lines' sampling weight "
                         "(default 0: they join loghub's lines as one pool)")
    ap.add_argument("--version", default="", help="module `version` attribute (default: model.py's)")
    ap.add_argument("--context", default=md.CONTEXT, choices=["span", "word"])
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--epochs", type=float, default=0.0,
                    help="passes over the unique examples (used when --max-steps is 0)")
    ap.add_argument("--max-steps", type=int, default=3000, help="training steps (0: use --epochs)")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--count-power", type=float, default=0.25,
                    help="sample unique examples with weight count**p (0 = uniform; 0.25 keeps a frequent example from being outvoted by a few noisy labels)")
    ap.add_argument("--real-frac", type=float, default=0.5,
                    help="share of the sampling weight for loghub examples (0 = uniform over all)")
    ap.add_argument("--dropout", type=float, default=0.3, help="dropout on the pooled features")
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--ctx-dropout", type=float, default=0.0)
    ap.add_argument("--label-smoothing", type=float, default=0.0)
    ap.add_argument("--tok-channels", type=int, default=64)
    ap.add_argument("--tok-width", type=int, default=5)
    ap.add_argument("--ctx-channels", type=int, default=32)
    ap.add_argument("--ctx-width", type=int, default=3)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--context-bound", type=float, default=0.0,
                    help="> 0: the bounded-context model (token_logit + context_bound; model.BoundedDenoiser)")
    ap.add_argument("--log-every", type=int, default=500)
    ap.add_argument("--tiny", action="store_true", help="smoke test: 1%% of the data, 20 steps")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_args(ap)
    ap.add_argument("--out", help="TorchScript output path (.pt)")
    ap.add_argument("--eval", metavar="MODEL", help="only evaluate this TorchScript model on all sets")
    ap.add_argument("--no-bench", action="store_true")
    args = ap.parse_args(argv)
    if args.eval:
        torch.set_num_threads(args.threads)
        m = torch.jit.load(args.eval)
        for s in lb.training_sets(args.data):
            r = evaluate_set(m, lb.load_loghub(s, root=args.data), m.context)
            print(f"{s:10s} {summary(r)}")
        return 0
    if not args.out:
        ap.error("--out is required")
    if args.tiny:
        args.max_steps = 20
        args.synthetic = min(args.synthetic, 200)
        args.augment = min(args.augment, 200)
        args.harvest_lines = min(args.harvest_lines, 200)
        args.log_every = 5
    model, info = train(args)

    report = {"info": info, "args": vars(args), "synthlog_sha256": synthlog_sha256(),
              "tokenizer": tokenizer_info(), "torch": torch.__version__}
    # in-sample (training sets) and held-out metrics
    evals = {}
    for s in lb.training_sets(args.data):
        if args.tiny and s != args.holdout:
            continue
        r = evaluate_set(model, lb.load_loghub(s, root=args.data), args.context)
        evals[s] = r
        tag = "held-out" if s == args.holdout else "in-sample"
        print(f"{tag:9s} {s:10s} {summary(r)}", flush=True)
    report["eval"] = evals

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    if args.version:
        model.version = args.version
    md.export(model, args.out)
    loaded = torch.jit.load(args.out)
    print(f"exported {args.out}: version={loaded.version} context={loaded.context} "
          f"params={md.n_params(model)} size={os.path.getsize(args.out)} bytes", flush=True)
    if not args.no_bench:
        torch.set_num_threads(1)
        speed = {}
        for b in (1, 32, 256):
            speed[b] = tokens_per_second(loaded, b)
            print(f"speed batch {b:4d}: {speed[b]:,.0f} tokens/s (1 thread)", flush=True)
        report["tokens_per_s"] = speed
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump(report, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
