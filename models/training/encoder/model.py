"""The log encoder: WordPiece ids -> a 32-bit sign code (as a +-1 float vector).

Architecture (sized for >= 20k templates/s on one core at batch 256):

* punctuation and special tokens are dropped and the remaining tokens packed to
  the left, so case (lower-cased by the tokenizer) and punctuation differences
  give bitwise-identical inputs; consecutive ``[VAR]`` become one;
* token embedding (d) + one residual 3-wide convolution for local context;
* attention pooling whose scores also see the token's position from the start
  and from the end (so trailing detail can learn to weigh little);
* LayerNorm + linear to ``bits`` code logits ``z``.

``forward`` returns ``sign(z)`` as +-1 floats: two templates whose codes agree
in every bit get *identical* vectors, so no LSH hyperplane can split them, on
any machine or batch.  Training shapes ``z`` with a margin (see train.py) so
that near-identical inputs agree in every bit and distinct events do not.

TorchScript contract (models/sentence_encoder.h): forward(input_ids int64
[B,T], attention_mask int64 [B,T]) -> float [B, bits]; attributes version,
max_len, do_lower_case, wildcard_token; the vocab travels inside the archive
as the extra file ``vocab.txt``.
"""


from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F

from text import SPECIALS, is_punct


def drop_mask(vocab: List[str]) -> torch.Tensor:
    """True for ids the model ignores: specials (except [VAR]) and punctuation."""
    out = torch.zeros(len(vocab), dtype=torch.bool)
    for i, t in enumerate(vocab):
        if (t in SPECIALS and t != "[VAR]") or (len(t) == 1 and ord(t) < 128 and is_punct(t)):
            out[i] = True
    return out


class LogEncoder(nn.Module):
    version: str
    max_len: int
    do_lower_case: bool
    wildcard_token: str

    def __init__(self, vocab: List[str], d: int = 64, bits: int = 32, max_pos: int = 32, att_dim: int = 32,
                 version: str = "log-encoder-v1", max_len: int = 128) -> None:
        super().__init__()
        self.version = version
        self.max_len = max_len
        self.do_lower_case = True
        self.wildcard_token = "[VAR]"
        self.var_id = vocab.index("[VAR]")
        self.max_pos = max_pos
        self.register_buffer("drop", drop_mask(vocab))

        self.emb = nn.Embedding(len(vocab), d)
        self.conv = nn.Conv1d(d, d, 3, padding=1)
        self.pos_start = nn.Embedding(max_pos, att_dim)
        self.pos_end = nn.Embedding(max_pos, att_dim)

        self.att_hidden = nn.Linear(d, att_dim)
        self.att = nn.Linear(att_dim, 1)
        self.norm = nn.LayerNorm(d)
        self.proj = nn.Linear(d, bits)
        nn.init.normal_(self.emb.weight, std=0.5)

    def _pack(self, ids: torch.Tensor, keep: torch.Tensor):
        T = ids.size(1)
        pos = torch.arange(T, device=ids.device).unsqueeze(0)
        key = torch.where(keep, pos, pos + T)
        order = torch.argsort(key, dim=1)
        return torch.gather(ids, 1, order), torch.gather(keep, 1, order)

    def codes(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        keep = (attention_mask > 0) & ~self.drop[input_ids]
        ids, keep = self._pack(input_ids, keep)
        var = (ids == self.var_id) & keep
        prev = torch.cat([torch.zeros_like(var[:, :1]), var[:, :-1]], dim=1)
        ids, keep = self._pack(ids, keep & ~(var & prev))
        n = keep.sum(dim=1, keepdim=True)
        # Only the packed, kept tokens are computed on (punctuation is often a
        # third of a template); the positions cut off are all masked.
        width = max(int(n.max().item()), 1)
        ids, keep = ids[:, :width], keep[:, :width]
        T = ids.size(1)
        pos = torch.arange(T, device=ids.device).unsqueeze(0).expand(ids.size(0), T)
        # A template of punctuation only keeps its first token ([CLS]) so it still gets a code.
        keep = keep | ((n == 0) & (pos == 0))
        n = keep.sum(dim=1, keepdim=True)
        m = keep.unsqueeze(-1).to(torch.float32)
        x = self.emb(ids) * m
        h = (x + F.relu(self.conv(x.transpose(1, 2)).transpose(1, 2))) * m
        from_end = (n - 1 - pos).clamp(0, self.max_pos - 1)
        s = torch.tanh(self.att_hidden(h) + self.pos_start(pos.clamp(0, self.max_pos - 1)) + self.pos_end(from_end))
        a = self.att(s).squeeze(-1).masked_fill(~keep, float("-inf"))
        w = torch.softmax(a, dim=1).unsqueeze(-1)
        pooled = (w * h).sum(dim=1)
        return self.proj(self.norm(pooled))

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        z = self.codes(input_ids, attention_mask)
        return torch.where(z >= 0, torch.ones_like(z), -torch.ones_like(z))
