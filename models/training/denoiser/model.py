"""The denoiser: a character-level CNN that scores a token as variable / constant.

Input / output contract (what the C++ denoise stage is written against)
-----------------------------------------------------------------------
``forward(x: int64 tensor [B, 3, L]) -> float32 tensor [B]``, ``L = 32``:
the probability that the *middle* token is a variable.

Row 1 is the token itself, row 0 its left context, row 2 its right context.
Every row holds byte ids: ``0`` = padding, ``byte + 1`` (1..256) = a UTF-8
byte, ``257`` = a pre-masked variable (a ``var`` token of the tokenizer,
whatever its length, becomes this single id).  Rows are filled from the
tokenizer output (``tokens.tokenize``) of the line, only ever for ``word``
tokens (``var`` and ``delim`` tokens are never scored, nor are word tokens
without an alphanumeric byte: see :func:`is_scored` and
:func:`unscored_is_variable`, a fixed rule the runtime applies itself):

* row 1 (token): the token's bytes; if longer than ``L`` keep the first
  ``HEAD = 24`` and the last ``TAIL = 8`` bytes; right-padded with 0.
* row 0 (left context, ``CONTEXT = "span"``): the line from the start of the
  previous *word* token (or from the line start if there is none) up to the
  start of the token, i.e. previous word + the delimiters / pre-masked vars in
  between (each var as id 257).  If longer than ``L`` keep the *last* ``L``
  ids (the ones nearest the token).  Right-padded with 0.
* row 2 (right context): the line from the end of the token up to the end of
  the next word token (or the line end if there is none), vars as 257; keep
  the *first* ``L`` ids; right-padded with 0.

``CONTEXT = "word"`` (kept for comparison, selected with ``--context word``)
instead puts just the previous / next word token in rows 0 / 2, encoded like
row 1.  The exported module carries the choice in its ``context`` attribute,
next to ``version``, ``max_len``, ``head``, ``tail``; :func:`encode_line` is the
reference implementation for the C++ side.

Architecture
------------
Each row goes through one convolution over one-hot bytes (width ``K``), max-
pooled (the token row also mean-pooled over its non-pad positions, plus its
length).  A width-K convolution over one-hot input equals the sum of K
learned per-offset byte embeddings, so it is computed with one
``embedding_bag(mode="sum")`` (no GEMM, no im2col), and bias + ReLU are
applied after the max-pool (both are monotonic, so the result is identical).
The context rows share one smaller convolution.  A 2-layer MLP on the
concatenated features gives the logit.  119,905 parameters, > 100k tokens/s at
batch 256 on one core (see README.md for measured numbers).
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

VERSION = "denoiser-v2"
MAX_LEN = 32
HEAD = 24
TAIL = 8
PAD = 0
VAR_ID = 257
VOCAB = 258
CONTEXT = "span"


# ----------------------------------------------------------------------------- encoding

def is_scored(tok: bytes) -> bool:
    """Only word tokens with an alphanumeric byte (ASCII letter/digit or a
    non-ASCII byte) go through the model.  The others (``/`` before an IP,
    ``_`` between two numbers, ``********``) are decided by
    :func:`unscored_is_variable`."""
    return any(c >= 0x80 or (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) for c in tok)


def unscored_is_variable(toks: Sequence[Tuple[int, int, str]], i: int) -> bool:
    """Rule for a word token without alphanumeric bytes: variable iff the token
    right before or right after it (no delimiter in between) is a pre-masked
    ``var`` token (``/``+IP, ``_`` in ``attempt_<*>_<*>``, ``-`` in
    ``host-<*>-<*>``).  Matches the loghub labels for 97.6% of these tokens."""
    return (i > 0 and toks[i - 1][2] == "var") or (i + 1 < len(toks) and toks[i + 1][2] == "var")


def encode_token(b: bytes, L: int = MAX_LEN, head: int = HEAD, tail: int = TAIL) -> List[int]:
    ids = [c + 1 for c in b]
    if len(ids) > L:
        ids = ids[:head] + ids[len(ids) - tail:]
    return ids + [PAD] * (L - len(ids))


def _span_ids(b: bytes, toks, lo: int, hi: int) -> List[int]:
    """ids of tokens toks[lo:hi] (vars as VAR_ID)."""
    out: List[int] = []
    for s, e, k in toks[lo:hi]:
        if k == "var":
            out.append(VAR_ID)
        else:
            out.extend(c + 1 for c in b[s:e])
    return out


def encode_line(b: bytes, toks: Sequence[Tuple[int, int, str]], context: str = CONTEXT,
                L: int = MAX_LEN) -> Tuple[List[int], List[List[List[int]]]]:
    """Rows for every word token of a tokenized line.

    Returns (indices of the word tokens in ``toks``, list of [3][L] id rows).
    """
    words = [i for i, t in enumerate(toks) if t[2] == "word"]
    rows = []
    for wi, i in enumerate(words):
        s, e, _ = toks[i]
        mid = encode_token(b[s:e], L)
        if context == "word":
            left = encode_token(b[toks[words[wi - 1]][0]:toks[words[wi - 1]][1]], L) if wi > 0 else [PAD] * L
            right = (encode_token(b[toks[words[wi + 1]][0]:toks[words[wi + 1]][1]], L)
                     if wi + 1 < len(words) else [PAD] * L)
        else:
            lo = words[wi - 1] if wi > 0 else 0
            hi = words[wi + 1] + 1 if wi + 1 < len(words) else len(toks)
            left = _span_ids(b, toks, lo, i)[-L:]
            right = _span_ids(b, toks, i + 1, hi)[:L]
            left = left + [PAD] * (L - len(left))
            right = right + [PAD] * (L - len(right))
        rows.append([left, mid, right])
    return words, rows


# ----------------------------------------------------------------------------- model

class OneHotConv(nn.Module):
    """Conv1d(VOCAB -> C, width K, 'same' padding) over one-hot ids, max-pooled.

    Returns (max-pooled pre-activation [N, C], per-position output [N, L, C]).
    Bias and ReLU are applied by the caller after pooling.
    """

    def __init__(self, channels: int, width: int):
        super().__init__()
        self.channels = channels
        self.width = width
        self.table = nn.Parameter(torch.randn(width * VOCAB, channels) * (1.0 / width) ** 0.5)
        self.register_buffer("offsets", torch.arange(width, dtype=torch.long) * VOCAB, persistent=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        n, L = ids.shape[0], ids.shape[1]
        p = self.width // 2
        xp = F.pad(ids, (p, self.width - 1 - p))
        win = xp.unfold(1, self.width, 1) + self.offsets  # [N, L, K]
        h = F.embedding_bag(win.reshape(n * L, self.width), self.table, mode="sum")
        return h.view(n, L, self.channels)


class Denoiser(nn.Module):
    def __init__(self, tok_channels: int = 64, tok_width: int = 5, ctx_channels: int = 32,
                 ctx_width: int = 3, hidden: int = 64, context: str = CONTEXT, dropout: float = 0.0):
        super().__init__()
        self.version = VERSION
        self.context = context
        self.max_len = MAX_LEN
        self.head = HEAD
        self.tail = TAIL
        self.tok_conv = OneHotConv(tok_channels, tok_width)
        self.tok_bias = nn.Parameter(torch.zeros(tok_channels))
        self.ctx_conv = OneHotConv(ctx_channels, ctx_width)
        self.ctx_bias = nn.Parameter(torch.zeros(ctx_channels))
        self.ctx_channels = ctx_channels
        d = 2 * tok_channels + 1 + 2 * ctx_channels
        self.drop = nn.Dropout(dropout)
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        b = x.shape[0]
        tok = x[:, 1]
        mask = (tok != 0).to(torch.float32)                     # [B, L]
        n = mask.sum(1, keepdim=True).clamp(min=1.0)
        h = self.tok_conv(tok)                                   # [B, L, C]
        t_max = F.relu(h.amax(1) + self.tok_bias)
        t_mean = F.relu(torch.bmm(mask.unsqueeze(1), h).squeeze(1) / n + self.tok_bias)
        ctx = torch.cat([x[:, 0], x[:, 2]], 0)                   # [2B, L]
        c = F.relu(self.ctx_conv(ctx).amax(1) + self.ctx_bias)   # [2B, Cc]
        feats = torch.cat([t_max, t_mean, n / float(self.max_len), c[:b], c[b:]], 1)
        return self.fc2(F.relu(self.fc1(self.drop(feats)))).squeeze(1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.logits(x))


class BoundedDenoiser(Denoiser):
    """The bounded-context contract (models/token_scorer.h): a token-only head
    gives ``token_logit(tok)``, and the context can move the logit by at most
    ``context_bound`` (a tanh-squashed context head), by construction:

        logit(x) = token_logit(x[:, 1]) + context_bound * tanh(ctx_head(x))

    so a token whose token logit is further than ``context_bound`` from the
    threshold's logit is decided by one token-only row, in any context; the
    runtime runs the context rows only for the others.
    """

    def __init__(self, tok_channels: int = 64, tok_width: int = 5, ctx_channels: int = 32,
                 ctx_width: int = 3, hidden: int = 64, context: str = CONTEXT, dropout: float = 0.0,
                 context_bound: float = 2.0):
        super().__init__(tok_channels, tok_width, ctx_channels, ctx_width, hidden, context, dropout)
        self.context_bound = float(context_bound)
        self.tok_fc1 = nn.Linear(2 * tok_channels + 1, hidden)
        self.tok_fc2 = nn.Linear(hidden, 1)

    def _tok_feats(self, tok: torch.Tensor) -> torch.Tensor:
        mask = (tok != 0).to(torch.float32)
        n = mask.sum(1, keepdim=True).clamp(min=1.0)
        h = self.tok_conv(tok)
        t_max = F.relu(h.amax(1) + self.tok_bias)
        t_mean = F.relu(torch.bmm(mask.unsqueeze(1), h).squeeze(1) / n + self.tok_bias)
        return torch.cat([t_max, t_mean, n / float(self.max_len)], 1)

    @torch.jit.export
    def token_logit(self, tok: torch.Tensor) -> torch.Tensor:
        return self.tok_fc2(F.relu(self.tok_fc1(self._tok_feats(tok)))).squeeze(1)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        b = x.shape[0]
        tf = self._tok_feats(x[:, 1])
        base = self.tok_fc2(F.relu(self.tok_fc1(tf))).squeeze(1)
        ctx = torch.cat([x[:, 0], x[:, 2]], 0)
        c = F.relu(self.ctx_conv(ctx).amax(1) + self.ctx_bias)
        feats = torch.cat([tf, c[:b], c[b:]], 1)
        adj = self.fc2(F.relu(self.fc1(self.drop(feats)))).squeeze(1)
        return base + self.context_bound * torch.tanh(adj)


def n_params(m: nn.Module) -> int:
    return sum(p.numel() for p in m.parameters())


def export(model: Denoiser, path: str) -> torch.jit.ScriptModule:
    """Script + save; the scripted module has ``version``/``context``/... attributes."""
    model = model.eval()
    sm = torch.jit.script(model)
    sm.save(path)
    # The native runtime reads this flat file, so serving never loads libtorch.
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import weights_file
    weights_file.write(path)
    return sm
