"""Write a fixed sample for the C++ runtime parity test.

    /usr/bin/python3 models/training/denoiser/make_fixture.py \
        --model models/denoiser-v2.pt --out /tmp/denoiser_fixture.json

The JSON holds, for a fixed sample of loghub lines (every 97th line of each
set, in set order), the tokenizer output, the model input rows of every
scored word token and the Python TorchScript model's probabilities:

    {"version": ..., "context": ..., "max_len": 32,
     "lines": [{"text": str, "tokens": [[start, end, kind], ...],
                "scored": [token_index, ...],
                "x": [[[32 ids], [32 ids], [32 ids]], ...],
                "p": [float, ...]}, ...]}

The C++ test feeds ``x`` (and, once its own tokenizer/encoder exists, the raw
``text``) through libtorch and requires ``max |p_cpp - p| <= 1e-5``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import labels as lb  # noqa: E402
import model as md  # noqa: E402


def build(model_path: str, stride: int = 97):
    torch.set_num_threads(1)
    m = torch.jit.load(model_path)
    m.eval()
    out = {"version": m.version, "context": m.context, "max_len": md.MAX_LEN, "lines": []}
    for name in lb.LOGHUB_SETS:
        for ln in lb.load_loghub(name)[::stride]:
            words, rows = md.encode_line(ln.text, ln.toks, m.context)
            keep = [(w, r) for w, r in zip(words, rows)
                    if md.is_scored(ln.text[ln.toks[w][0]:ln.toks[w][1]])]
            x = [r for _, r in keep]
            p = m(torch.tensor(x, dtype=torch.long)).tolist() if x else []
            out["lines"].append({"text": ln.text.decode("utf-8"),
                                 "tokens": [list(t) for t in ln.toks],
                                 "scored": [w for w, _ in keep], "x": x, "p": p})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stride", type=int, default=97)
    args = ap.parse_args(argv)
    data = build(args.model, args.stride)
    with open(args.out, "w") as f:
        json.dump(data, f)
    n = sum(len(l["p"]) for l in data["lines"])
    print(f"wrote {args.out}: {len(data['lines'])} lines, {n} scored tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
