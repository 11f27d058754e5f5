"""Template re-fill augmentation (optional, ``train.py --augment N``).

Takes aligned loghub lines of the *training* sets only, and replaces every
maximal variable span of a line (from its alignment mask) by a new value:

* 40%: a value seen in a variable span anywhere in the training sets
  (values move to other contexts);
* 40%: a random value of a random shape (user / host names, ids with
  digits, hex, dotted names, mixed-case tokens, words joined by ``-``/``_``);
* 20%: an English-looking word (a constant word of the training sets), so the
  model learns that a word in a variable position is a variable (user names,
  states like ``true``/``NEW``), from its context.

The new line keeps its known variable spans, so its labels come from
:func:`labels.label_line` exactly as for synthetic lines.
"""

from __future__ import annotations

import random
import string
from typing import Dict, List, Sequence

import labels as lb


def _spans(mask) -> List[tuple]:
    out, i, n = [], 0, len(mask)
    while i < n:
        if mask[i]:
            j = i
            while j < n and mask[j]:
                j += 1
            out.append((i, j))
            i = j
        else:
            i += 1
    return out


_SYL = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "an", "el", "or", "un", "ber", "dan",
        "gre", "jo", "mar", "pet", "son", "tin", "ux", "web", "adm", "dev", "ops", "qa", "sys"]


def _name(r: random.Random) -> str:
    return "".join(r.choice(_SYL) for _ in range(r.randint(1, 3)))


def _random_value(r: random.Random) -> str:
    k = r.randrange(9)
    if k == 0:
        return _name(r)
    if k == 1:
        return _name(r) + str(r.randint(0, 999))
    if k == 2:
        return "-".join([_name(r), str(r.randint(1, 99)), _name(r)])
    if k == 3:
        return ".".join([_name(r) for _ in range(r.randint(2, 4))])
    if k == 4:
        return "".join(r.choice("0123456789abcdef") for _ in range(r.randint(5, 12)))
    if k == 5:
        return "".join(r.choice(string.ascii_letters + string.digits) for _ in range(r.randint(4, 16)))
    if k == 6:
        return _name(r) + "_" + "_".join(str(r.randint(0, 9999)) for _ in range(r.randint(1, 3)))
    if k == 7:
        return r.choice(["true", "false", "null", "yes", "no", "on", "off", "NEW", "RUNNING",
                         "FAILED", "SUCCEEDED", "KILLED", "up", "down", "enabled", "disabled"])
    return str(r.randint(0, 10 ** r.randint(1, 8)))


def refill_lines(sets: Dict[str, Sequence[lb.Line]], n: int, seed: int) -> List[lb.Line]:
    r = random.Random(seed * 7919 + 17)
    pool: List[lb.Line] = []
    values: List[bytes] = []
    words: List[bytes] = []
    seen_words = set()
    for name in sorted(sets):
        for ln in sets[name]:
            if ln.varmask is None:
                continue
            sp = _spans(ln.varmask)
            if sp:
                pool.append(ln)
                values.extend(ln.text[s:e] for s, e in sp)
            for (s, e, k), lab in zip(ln.toks, ln.labels):
                if k == "word" and lab == 0:
                    w = ln.text[s:e]
                    if w.isalpha() and 2 <= len(w) <= 12 and w not in seen_words:
                        seen_words.add(w)
                        words.append(w)
    if not pool:
        return []
    out = []
    for i in range(n):
        ln = r.choice(pool)
        sp = _spans(ln.varmask)
        parts, mask_spans, pos, last = [], [], 0, 0
        for s, e in sp:
            parts.append(ln.text[last:s])
            pos += s - last
            u = r.random()
            if u < 0.4:
                v = r.choice(values)
            elif u < 0.8:
                v = _random_value(r).encode()
            else:
                v = r.choice(words) if words else _random_value(r).encode()
            parts.append(v)
            mask_spans.append((pos, pos + len(v)))
            pos += len(v)
            last = e
        parts.append(ln.text[last:])
        text = b"".join(parts)
        mask = bytearray(len(text))
        for s, e in mask_spans:
            for j in range(s, e):
                mask[j] = 1
        out.append(lb.label_line("augment", text, mask, "aug:" + ln.source + ":" + ln.group))
    return out
