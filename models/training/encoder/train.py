#!/usr/bin/python3
"""Train logsift's log encoder contrastively and export it as TorchScript.

Reproduce the shipped model (fixed seeds, one thread, ~10 min on 2 cores):

    bash docker/setup.sh build        # the trainer runs the serving pipeline for templates
    /usr/bin/python3 models/training/encoder/train.py --out models/encoder-v1.pt

Smoke test (ctest encoder_train_smoke): ``--tiny`` trains a few steps on a small sample
of ``--data`` (the test gives models/tuning, which the repository holds).

Loss, per batch of K classes x 2 augmented views (classes of one loghub set or
one synthlog family share a batch, so hard negatives meet):
  * InfoNCE on tanh(z) (cosine, temperature 0.05), both directions;
  * bit agreement: every code logit of a view sits on the same side as its
    positive's sign with margin 1 (hinge), so positives share all 32 bits;
  * bit separation: against its hardest in-batch negative, a view disagrees in
    at least 4 bits by margin 1 (hinge on the 4 most-disagreeing bits).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from typing import Dict, List, Sequence, Tuple

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import data  # noqa: E402
import weights_file  # noqa: E402
from loghub import add_real_extra_args, grouping_accuracy, labelled_set_systems, training_sets  # noqa: E402
from model import LogEncoder  # noqa: E402
from text import WordPiece, build_vocab, canonicalize  # noqa: E402

VERSION = "log-encoder-v1"


def pad_batch(seqs: Sequence[List[int]], pad: int) -> Tuple[torch.Tensor, torch.Tensor]:
    T = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), T), pad, dtype=torch.long)
    mask = torch.zeros((len(seqs), T), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s, dtype=torch.long)
        mask[i, : len(s)] = 1
    return ids, mask


class Encoder:
    """Text -> codes with the serving-side text path (canonicalize + WordPiece)."""

    def __init__(self, model: LogEncoder, wp: WordPiece) -> None:
        self.model, self.wp = model, wp

    def ids(self, texts: Sequence[str]) -> List[List[int]]:
        return [self.wp.encode(canonicalize(t)) for t in texts]

    @torch.no_grad()
    def code_keys(self, texts: Sequence[str], batch: int = 256) -> List[bytes]:
        self.model.eval()
        out: List[bytes] = []
        for i in range(0, len(texts), batch):
            ids, mask = pad_batch(self.ids(texts[i: i + batch]), self.wp.pad)
            z = self.model.codes(ids, mask)
            for row in (z >= 0).to(torch.uint8).tolist():
                out.append(bytes(row))
        return out


def loghub_eval(enc: Encoder, sets: Dict[str, Tuple[List[str], List[str]]]) -> Dict[str, Dict[str, float]]:
    res = {}
    for name, (truth, tpls) in sets.items():
        uniq = sorted(set(tpls))
        keys = dict(zip(uniq, enc.code_keys(uniq)))
        res[name] = {"ga_template": grouping_accuracy(tpls, truth),
                     "ga_code": grouping_accuracy([keys[t] for t in tpls], truth)}
    return res


def load_pairs(path: str) -> List[Tuple[str, str, str]]:
    out = []
    for line in open(path, encoding="utf-8"):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.rstrip("\n").split("\t")
        out.append((cols[0], cols[1], cols[2]))
    return out


def pair_eval(enc: Encoder, pairs, binary) -> Tuple[float, List[str]]:
    lines = [a for _, a, _ in pairs] + [b for _, _, b in pairs]
    tpls = data.pipeline_templates(lines, binary)
    keys = enc.code_keys(tpls)
    n = len(pairs)
    ok, wrong = 0, []
    for i, (exp, a, b) in enumerate(pairs):
        same = keys[i] == keys[n + i]
        if same == (exp == "same"):
            ok += 1
        else:
            wrong.append("%s | %s | %s" % (exp, tpls[i], tpls[n + i]))
    return ok / max(1, n), wrong


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(data.REPO, "models", "encoder-v1.pt"))
    ap.add_argument("--report", default="", help="JSON report (default: --out with .json)")
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--bits", type=int, default=32, help="code bits (the model's output dimension)")
    ap.add_argument("--dim", type=int, default=64, help="token embedding width")
    ap.add_argument("--tiny", action="store_true", help="smoke test: small sample, few steps")
    ap.add_argument("--pairs", default=os.path.join(data.REPO, "tests", "pairs", "pairs.tsv"))
    ap.add_argument("--harvest-classes", type=int, default=0,
                    help="harvested templates (harvest/templates.jsonl) as extra classes: -1 all, N a sample, "
                         "0 none (the log-encoder-v1 recipe)")
    ap.add_argument("--harvest-per-batch", type=int, default=64, help="harvest classes per batch")
    ap.add_argument("--vocab-words", type=int, default=12000, help="build_vocab max_words")
    ap.add_argument("--version", default=VERSION, help="the module's version attribute")
    ap.add_argument("--denoiser-model", default="",
                    help="denoiser for the pipeline templates (logsift's denoiser_model; default: the builtin)")
    add_real_extra_args(ap, "its events join loghub's as classes (the pipeline's templates of their lines)")
    ap.add_argument("--real-extra-batches", type=int, default=0, metavar="N",
                    help="each step adds the classes of N --real-extra programs to the batch, beside the two "
                         "loghub sets (default 0: the extra programs are sampled among loghub's sets)")
    ap.add_argument("--leak", type=float, default=0.2,
                    help="share of views with one slot filled by a word-like value (log-encoder-v1: 0.2)")
    ap.add_argument("--leak-values", choices=["v1", "wide"], default="v1",
                    help="v1: log-encoder-v1's numbers, hex, addresses and user names; wide: also any word of "
                         "the word pool and names of real-software shapes (first.last, svc-backup, host.lan)")
    ap.add_argument("--holdout", default="",
                    help="comma-separated loghub sets left out of training entirely (no classes, no vocab or "
                         "word-pool words); the final per-set GA report still scores them (leave-one-dataset-out)")
    ap.add_argument("--data", default=data.DEFAULT_LOGHUB, metavar="DIR",
                    help="the labelled sets whose events are classes (default: loghub-2k, the shipped weights' "
                         "data; any set in the datasets.json layout, e.g. models/tuning)")
    args = ap.parse_args()
    all_sets = training_sets(args.data)
    holdout = [s for s in args.holdout.split(",") if s]
    bad = [s for s in holdout if s not in all_sets]
    if bad:
        ap.error("--holdout: unknown set(s) %s (known: %s)" % (",".join(bad), ",".join(all_sets)))
    if args.denoiser_model:
        os.environ["LOGSIFT_DENOISER_MODEL"] = os.path.abspath(args.denoiser_model)
    if args.tiny:
        args.steps = min(args.steps, 20)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    t0 = time.time()
    binary = data.find_binary()

    sets = all_sets[:2] if args.tiny else all_sets
    # Held-out sets: nothing derived from their lines reaches training (classes,
    # vocab, word pool); their pipeline templates are made only after training.
    train_sets = [s for s in sets if s not in holdout]
    lh_sets = data.loghub_sets(root=args.data, sets=train_sets, binary=binary, max_per_set=300 if args.tiny else 0)
    lh = data.loghub_classes(lh_sets)
    if args.real_extra:
        names = labelled_set_systems(args.real_extra, args.real_extra_systems)
        extra = data.loghub_sets(root=args.real_extra, sets=names, binary=binary,
                                 max_per_set=300 if args.tiny else 0)
        ex = data.loghub_classes({"extra-" + k: v for k, v in extra.items()})
        if args.real_extra_batches:  # their own groups, batched beside loghub's instead of among them
            for k in ex:
                k.group = "extra/" + k.group.split("/", 1)[1]
        lh += ex
    sy = data.synth_classes(binary=binary, limit=60 if args.tiny else 0)
    hv: List[data.Klass] = []
    if args.harvest_classes:
        hv = data.harvest_classes(binary=binary, n=200 if args.tiny else max(0, args.harvest_classes))
    pool = data.word_pool(lh + sy + hv)
    leak = data.Leak.of(args.leak, args.leak_values, pool)
    corpus = [t for k in lh + sy + hv for t in k.texts] + data.AUGMENT_CAUSES + data.QUALIFIERS + pool
    corpus += [p + "X" for p in data.PACKAGES]
    vocab = build_vocab(corpus, max_words=args.vocab_words)
    wp = WordPiece(vocab, wildcard_token="[VAR]", max_len=128)
    model = LogEncoder(vocab, d=args.dim, bits=args.bits, version=args.version)
    enc = Encoder(model, wp)
    drop = model.drop

    def key_of(text: str) -> Tuple[int, ...]:
        return tuple(i for i in wp.encode(canonicalize(text)) if not drop[i])

    # One class per distinct model input; later duplicates are dropped.
    classes, seen = [], set()
    for k in lh + sy + hv:
        kk = key_of(k.texts[0])
        if kk in seen:
            continue
        seen.add(kk)
        classes.append(k)
    groups: Dict[str, List[data.Klass]] = {}
    for k in classes:
        groups.setdefault(k.group, []).append(k)
    lh_groups = sorted(g for g in groups if g.startswith("loghub/"))
    sy_groups = sorted(g for g in groups if g.startswith("synth/"))
    hv_groups = sorted(g for g in groups if g.startswith("harvest/"))
    ex_groups = sorted(g for g in groups if g.startswith("extra/"))
    print("classes: %d (loghub %d, synth %d, harvest %d%s), vocab %d, params %d" % (
        len(classes), sum(len(groups[g]) for g in lh_groups), sum(len(groups[g]) for g in sy_groups),
        sum(len(groups[g]) for g in hv_groups),
        ", extra %d" % sum(len(groups[g]) for g in ex_groups) if ex_groups else "",
        len(vocab), sum(p.numel() for p in model.parameters())), flush=True)

    # Held-in evaluation data: every loghub line's pipeline template.
    eval_sets = {name: ([r["EventId"] for r in rows], tpls) for name, (rows, tpls) in lh_sets.items()}

    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=max(args.steps, 2), pct_start=0.1)
    n_lh, n_sy, n_gen = (24, 24, 8) if args.tiny else (96, 96, 32)
    tau, margin, r_sep = 0.05, 1.0, max(4, args.bits * 6 // 64)
    gen_idx = 0
    log = []
    for step in range(args.steps):
        model.train()
        batch: List[data.Klass] = []
        for g in rng.sample(lh_groups, min(2, len(lh_groups))):
            members = groups[g]
            batch += rng.sample(members, min(len(members), n_lh // 2))
        for g in rng.sample(ex_groups, min(args.real_extra_batches, len(ex_groups))) if ex_groups else []:
            members = groups[g]
            batch += rng.sample(members, min(len(members), n_lh // 2))
        picked = 0
        while picked < n_sy:
            g = rng.choice(sy_groups)
            for k in groups[g][: n_sy - picked]:
                batch.append(k)
                picked += 1
        if hv_groups:
            n_hv = 16 if args.tiny else args.harvest_per_batch
            picked = 0
            while picked < n_hv:
                g = rng.choice(hv_groups)
                members = groups[g]
                for k in rng.sample(members, min(len(members), n_hv - picked, 16)):
                    batch.append(k)
                    picked += 1
        for _ in range(n_gen):
            a, b = data.generated_pair(rng, pool, gen_idx)
            gen_idx += 1
            batch += [a, b]
        # distinct model inputs only (a class can repeat via the synth family loop)
        uniq, keys = [], set()
        for k in batch:
            kk = key_of(k.texts[0])
            if kk not in keys:
                keys.add(kk)
                uniq.append(k)
        batch = uniq
        v1 = [data.view(k, rng, leak) for k in batch]
        v2 = [data.view(k, rng, leak) for k in batch]
        ids1, m1 = pad_batch(enc.ids(v1), wp.pad)
        ids2, m2 = pad_batch(enc.ids(v2), wp.pad)
        z1, z2 = model.codes(ids1, m1), model.codes(ids2, m2)
        u1, u2 = F.normalize(torch.tanh(z1), dim=1), F.normalize(torch.tanh(z2), dim=1)
        logits = u1 @ u2.t() / tau
        target = torch.arange(len(batch))
        l_nce = 0.5 * (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target))
        s1, s2 = torch.sign(z1).detach(), torch.sign(z2).detach()
        l_agree = F.relu(margin - z1 * s2).mean() + F.relu(margin - z2 * s1).mean()
        with torch.no_grad():
            sim = (u1 @ u2.t()).fill_diagonal_(-2.0)
            hard = sim.argmax(dim=1)
        agree_neg = z1 * s2[hard]
        l_sep = F.relu(margin + torch.sort(agree_neg, dim=1).values[:, :r_sep]).mean()
        loss = l_nce + l_agree + l_sep
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        sched.step()
        if step % 100 == 0 or step == args.steps - 1:
            with torch.no_grad():
                same_all = ((z1 >= 0) == (z2 >= 0)).all(dim=1).float().mean().item()
            rec = {"step": step, "loss": round(loss.item(), 4), "nce": round(l_nce.item(), 4),
                   "agree": round(l_agree.item(), 4), "sep": round(l_sep.item(), 4),
                   "views_same_code": round(same_all, 4), "t": round(time.time() - t0, 1)}
            log.append(rec)
            print(json.dumps(rec), flush=True)

    model.eval()
    if holdout:
        held = data.loghub_sets(root=args.data, sets=[s for s in sets if s in holdout], binary=binary,
                                max_per_set=300 if args.tiny else 0)
        eval_sets.update({name: ([r["EventId"] for r in rows], tpls) for name, (rows, tpls) in held.items()})
        eval_sets = {name: eval_sets[name] for name in sets}  # the usual set order
    ga = loghub_eval(enc, eval_sets)
    for name, r in ga.items():
        print("%-10s GA template_id %.4f  code %.4f" % (name, r["ga_template"], r["ga_code"]))
    avg_t = sum(r["ga_template"] for r in ga.values()) / len(ga)
    avg_c = sum(r["ga_code"] for r in ga.values()) / len(ga)
    print("average    GA template_id %.4f  code %.4f" % (avg_t, avg_c))
    for name in holdout:
        if name in ga:
            print("held out   %-10s GA template_id %.4f  code %.4f (never trained on)"
                  % (name, ga[name]["ga_template"], ga[name]["ga_code"]))
    pairs = load_pairs(args.pairs) if os.path.exists(args.pairs) else []
    pair_acc, wrong = pair_eval(enc, pairs, binary) if pairs else (0.0, [])
    print("pairs: %.4f (%d)" % (pair_acc, len(pairs)))
    for w in wrong:
        print("  wrong:", w)

    scripted = torch.jit.script(model)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)) or ".", exist_ok=True)
    torch.jit.save(scripted, args.out, _extra_files={"vocab.txt": "\n".join(vocab) + "\n"})
    # The native runtime reads this flat file, so serving never loads libtorch.
    print("weights:", weights_file.write(args.out))
    report = {
        "version": args.version, "command": "/usr/bin/python3 models/training/encoder/train.py " + " ".join(sys.argv[1:]),
        "harvest_classes": args.harvest_classes, "harvest_per_batch": args.harvest_per_batch,
        "vocab_words": args.vocab_words, "holdout": holdout, "denoiser_model": args.denoiser_model,
        "real_extra": args.real_extra, "real_extra_systems": args.real_extra_systems,
        "real_extra_batches": args.real_extra_batches, "leak": args.leak, "leak_values": args.leak_values,
        "seed": args.seed, "steps": args.steps, "bits": args.bits, "dim": args.dim, "threads": args.threads, "vocab": len(vocab),
        "params": sum(p.numel() for p in model.parameters()), "classes": len(classes),
        "train_seconds": round(time.time() - t0, 1), "loghub_ga": ga,
        "avg_ga_template": avg_t, "avg_ga_code": avg_c, "pair_accuracy_codes": pair_acc,
        "log": log,
    }
    rep = args.report or os.path.splitext(args.out)[0] + ".json"
    with open(rep, "w") as f:
        json.dump(report, f, indent=1)
    print("wrote %s (%d bytes) and %s" % (args.out, os.path.getsize(args.out), rep))


if __name__ == "__main__":
    main()
