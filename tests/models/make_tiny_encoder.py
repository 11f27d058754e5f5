#!/usr/bin/python3
"""Writes a tiny BERT-style TorchScript sentence encoder and its Python
reference outputs, for the C++ runtime's tests (models/torch_encoder.cpp).

    /usr/bin/python3 tests/models/make_tiny_encoder.py --out-dir DIR
    /usr/bin/python3 tests/models/make_tiny_encoder.py --out-dir DIR --check-cli path/to/logsift

DIR receives
  vocab.txt                    [PAD]=0 [UNK] [CLS] [SEP] [MASK] [VAR], punctuation,
                               digits, letters, some words and ##pieces
  tiny_encoder.pt              the model (contract of models/sentence_encoder.h):
                               forward(input_ids, attention_mask) -> [B,T,D] token
                               states; attributes version, max_len=32,
                               do_lower_case=True, wildcard_token="[VAR]"; no vocab inside
  tiny_encoder_with_vocab.pt   the same model with vocab.txt as an extra file
  bad_output_encoder.pt        returns [B] (a wrong shape); vocab inside
  expected.json                per input string: reference WordPiece ids (model
                               settings; no wildcard; cased) and the L2-normalised
                               mean-pooled embedding

The reference WordPiece below is BERT's (HuggingFace BertTokenizer,
do_lower_case) restricted as models/wordpiece.h documents: ASCII rules
exactly, non-ASCII characters kept as they are.

--check-cli runs `logsift wordpiece` over the cases in DIR/expected.json and
compares its ids with the reference (exit 1 on a mismatch).
"""

import argparse
import json
import os
import subprocess
import sys

import torch
from torch import nn

# The project's Python WordPiece reference (the one the shipped encoder was
# trained with), so the C++ tokenizer is pinned to exactly what training used.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "training", "encoder"))
from text import SPECIALS, WordPiece, is_punct  # noqa: E402

WORDS = ["connection", "from", "port", "closed", "user", "logged", "in", "disk", "is", "full",
         "unable", "to", "execute", "http", "request", "error", "failed", "connect", "warm", "up",
         "sdk", "##client", "##exception", "exception", "timeout", "re", "##try", "##ing", "##ed",
         "##er", "##tion", "café", "日本"]
MAX_LEN = 32
DIM = 64
VERSION = "tiny-encoder-test-v1"
WILDCARD = "[VAR]"

CASES = [
    "SdkClientException: Unable to execute HTTP request: <*>",
    "Connection from <*> port <*> closed",
    "user Alice logged in",
    "Disk <*> is full!!!",
    "",
    "café 日本 日本語 naïve",
    "abc<*>def <<*>> <* *> <**>",
    "tab\tseparated\x01control\x7fchars\r\nnext\x00line",
    " ".join(["error"] * 40),
    "x" * 101 + " " + "y" * 100,
    "failed to connect: error=timeout (retrying)",
    "[CLS] [UNK] literal [VAR] specials",
    "\u00a0nbsp\u2003emsp \ufffdreplaced",
    "warm up",
]


def make_vocab():
    toks = list(SPECIALS)
    toks += [chr(c) for c in range(33, 127) if is_punct(chr(c))]
    toks += [str(d) for d in range(10)]
    toks += [chr(c) for c in range(ord("a"), ord("z") + 1)]
    toks += ["##" + chr(c) for c in range(ord("a"), ord("z") + 1)]
    toks += ["##" + str(d) for d in range(10)]
    toks += WORDS
    assert len(toks) == len(set(toks))
    return toks


# --- reference WordPiece ------------------------------------------------------



def encode(text, vocab, lower=True, wildcard="", max_len=MAX_LEN):
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    return WordPiece(tokens, lower=lower, wildcard_token=wildcard, max_len=max_len).encode(text)


# --- the model ----------------------------------------------------------------

class TinyEncoder(nn.Module):
    """Token + position embeddings, one pre-LN-free transformer layer; [B,T,D] out."""

    def __init__(self, vocab_size: int, dim: int = DIM, heads: int = 4, max_len: int = MAX_LEN):
        super().__init__()
        self.version = VERSION
        self.max_len = max_len
        self.do_lower_case = True
        self.wildcard_token = WILDCARD
        self.heads = heads
        self.tok = nn.Embedding(vocab_size, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln1 = nn.LayerNorm(dim)
        self.ff1 = nn.Linear(dim, 2 * dim)
        self.ff2 = nn.Linear(2 * dim, dim)
        self.ln2 = nn.LayerNorm(dim)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        b, t = input_ids.size(0), input_ids.size(1)
        pos = torch.arange(t, device=input_ids.device)
        x = self.tok(input_ids) + self.pos(pos).unsqueeze(0)
        d = x.size(2) // self.heads
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, self.heads, d).transpose(1, 2)
        k = k.view(b, t, self.heads, d).transpose(1, 2)
        v = v.view(b, t, self.heads, d).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-1, -2)) / (float(d) ** 0.5)
        scores = scores.masked_fill((attention_mask == 0).unsqueeze(1).unsqueeze(2), -1e9)
        ctx = torch.matmul(scores.softmax(dim=-1), v).transpose(1, 2).reshape(b, t, self.heads * d)
        x = self.ln1(x + self.proj(ctx))
        x = self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))
        return x


class BadOutputEncoder(nn.Module):
    """Returns [B]: not a shape the contract allows."""

    def __init__(self, vocab_size: int):
        super().__init__()
        self.version = "bad-output-test"
        self.tok = nn.Embedding(vocab_size, 8)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.tok(input_ids).sum(-1).sum(-1)


def embed(module, ids):
    x = torch.tensor([ids], dtype=torch.int64)
    with torch.no_grad():
        h = module(x, torch.ones_like(x))[0].double()
    v = h.mean(0)
    n = v.norm()
    return (v / n if n > 0 else v).tolist()


def generate(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(1234)
    tokens = make_vocab()
    vocab = {t: i for i, t in enumerate(tokens)}
    vocab_text = "".join(t + "\n" for t in tokens)
    with open(os.path.join(out_dir, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write(vocab_text)

    model = torch.jit.script(TinyEncoder(len(tokens)).eval())
    path = os.path.join(out_dir, "tiny_encoder.pt")
    model.save(path)
    model.save(os.path.join(out_dir, "tiny_encoder_with_vocab.pt"), _extra_files={"vocab.txt": vocab_text})
    bad = torch.jit.script(BadOutputEncoder(len(tokens)).eval())
    bad.save(os.path.join(out_dir, "bad_output_encoder.pt"), _extra_files={"vocab.txt": vocab_text})

    loaded = torch.jit.load(path)  # exactly what C++ loads
    cases = []
    for text in CASES:
        ids = encode(text, vocab, lower=True, wildcard=WILDCARD)
        cases.append({
            "text": text,
            "ids": ids,
            "ids_no_wildcard": encode(text, vocab, lower=True, wildcard=""),
            "ids_cased": encode(text, vocab, lower=False, wildcard=WILDCARD),
            "embedding": embed(loaded, ids),
        })
    expected = {"version": VERSION, "dim": DIM, "max_len": MAX_LEN, "vocab_size": len(tokens),
                "wildcard_token": WILDCARD, "cases": cases}
    with open(os.path.join(out_dir, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)
    print(f"wrote {out_dir}: vocab {len(tokens)} tokens, {len(cases)} cases")


def check_cli(out_dir, logsift):
    with open(os.path.join(out_dir, "expected.json"), encoding="utf-8") as f:
        expected = json.load(f)
    # The CLI is line-based: cases with line breaks cannot go through it.
    cases = [c for c in expected["cases"] if "\n" not in c["text"] and "\r" not in c["text"]]
    vocab = os.path.join(out_dir, "vocab.txt")
    variants = {
        "ids": ["--wildcard-token", WILDCARD],
        "ids_no_wildcard": [],
        "ids_cased": ["--wildcard-token", WILDCARD, "--no-lower"],
    }
    failures = 0
    for key, flags in variants.items():
        cmd = [logsift, "wordpiece", "--vocab", vocab, "--max-len", str(expected["max_len"])] + flags + ["-"]
        stdin = "".join(c["text"] + "\n" for c in cases)
        res = subprocess.run(cmd, input=stdin.encode("utf-8"), capture_output=True, check=True)
        lines = res.stdout.decode("utf-8").splitlines()
        if len(lines) != len(cases):
            print(f"{key}: {len(lines)} output lines for {len(cases)} inputs", file=sys.stderr)
            failures += 1
            continue
        for c, line in zip(cases, lines):
            got = [int(x) for x in line.split()]
            if got != c[key]:
                print(f"{key}: {c['text']!r}: logsift {got} != python {c[key]}", file=sys.stderr)
                failures += 1
    print(f"checked {len(cases)} cases x {len(variants)} variants: {failures} mismatches")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--check-cli", metavar="LOGSIFT", help="compare `LOGSIFT wordpiece` with expected.json")
    args = ap.parse_args()
    if args.check_cli:
        return check_cli(args.out_dir, args.check_cli)
    generate(args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
