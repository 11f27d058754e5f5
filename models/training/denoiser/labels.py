"""Token labels for the denoiser.

loghub-2k: every ``Content`` is aligned with its ``EventTemplate``; the bytes of
``Content`` matched by a ``<*>`` get a variable mask.  Synthetic lines (from
``models/training/synthlog.py``, when it exists) carry their variable spans.
Both are then tokenized with :mod:`tokens` (the serving tokenizer) and each
*word* token gets a label (pre-masked ``var`` tokens and delimiters are never
scored by the model, so they get no label).

Alignment, in order (the first that succeeds wins):

1. ``exact``: the template as a regex, literal parts escaped, each ``<*>`` a
   lazy ``(.*?)`` (zero or more bytes, may span tokens or part of one),
   full match on the content.
2. ``ws``: same, but every whitespace run of the template matches ``[ \\t]*``
   and the content may have leading/trailing whitespace (loghub has double
   spaces, trailing blanks, etc.).
3. ``dp``: edit-distance alignment of the content with the template where a
   ``<*>`` consumes any number of content bytes for free and literal bytes
   cost 1 per substitution / insertion / deletion (0.25 for whitespace).
   Accepted if the cost <= max(2, 10% of the template's literal length).
4. otherwise the line is a *failure*: counted, and its tokens unlabelled.

Token label rule (``LABEL_RULE = "any_alnum"``): a word token is *variable* if
any of its alphanumeric bytes (ASCII letter/digit or a non-ASCII byte) lies in
a variable span; a token without such bytes (pure punctuation like ``/``) is
variable if the majority of its bytes do.  Why not "majority of bytes": tokens
that are only partly variable (``port11`` from ``port<*>``, ``core.8280`` from
``core.<*>``, ``enable_2G`` ...) belong to a group whose constant part would
split into one template per value if the token were kept, which destroys
grouping accuracy; replacing the whole token by ``<*>`` keeps the grouping
right (only the printed template loses the constant prefix).  The per-set
count of such partial tokens is reported by ``python3 labels.py``.
"""

from __future__ import annotations

import csv
import os
import re
import sys
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tokens as tk  # noqa: E402

sys.path.insert(0, os.path.join(HERE, ".."))
from loghub import (DEFAULT_LOGHUB, LOGHUB_SETS, REPO, REPO_SETS, have_loghub, loghub_csv_path,  # noqa: E402,F401
                    missing_loghub, open_labelled_csv, training_sets)  # (re-exported)
WILD = b"<*>"
LABEL_RULE = "any_alnum"

_WS = frozenset(b" \t\n\r\f\v")


@dataclass
class Line:
    source: str            # data set name or "synthetic"
    text: bytes            # the line (Content) as UTF-8
    toks: List[Tuple[int, int, str]]
    labels: List[int]      # one per token: 1 variable, 0 constant, -1 no label (delim/var/failed)
    group: str             # EventId (or synthetic template id), for GA
    varmask: Optional[bytearray] = None  # per-byte variable mask, None if alignment failed


# ----------------------------------------------------------------------------- alignment

def _template_regex(tpl: bytes, loose: bool) -> "re.Pattern":
    parts = tpl.split(WILD)
    out = []
    for i, lit in enumerate(parts):
        if loose:
            chunks = re.split(rb"[ \t]+", lit)
            out.append(rb"[ \t]*".join(re.escape(c) for c in chunks))
        else:
            out.append(re.escape(lit))
        if i + 1 < len(parts):
            out.append(rb"(.*?)")
    body = b"".join(out)
    if loose:
        body = rb"[ \t]*" + body + rb"[ \t]*"
    return re.compile(body, re.DOTALL)


def _mask_from_match(m, n: int) -> bytearray:
    mask = bytearray(n)
    for g in range(1, (m.lastindex or 0) + 1):
        s, e = m.span(g)
        for i in range(s, e):
            mask[i] = 1
    return mask


def _dp_align(content: bytes, tpl: bytes) -> Tuple[float, bytearray]:
    """Wildcard edit-distance alignment; returns (cost, mask)."""
    # template as a list of ints, -1 = wildcard
    items: List[int] = []
    parts = tpl.split(WILD)
    for i, lit in enumerate(parts):
        items.extend(lit)
        if i + 1 < len(parts):
            items.append(-1)
    n, m = len(content), len(items)
    INF = float("inf")
    # D[j][i]: cost of aligning items[:j] with content[:i]
    D = [[INF] * (n + 1) for _ in range(m + 1)]
    B = [[0] * (n + 1) for _ in range(m + 1)]  # backpointer codes
    D[0][0] = 0.0
    for i in range(1, n + 1):
        D[0][i] = D[0][i - 1] + (0.25 if content[i - 1] in _WS else 1.0)
        B[0][i] = 3  # insertion (content byte unmatched)
    for j in range(1, m + 1):
        t = items[j - 1]
        Dj, Dp, Bj = D[j], D[j - 1], B[j]
        if t == -1:
            Dj[0] = Dp[0]
            Bj[0] = 4
            for i in range(1, n + 1):
                a = Dp[i]        # wildcard ends (consumes nothing more)
                b = Dj[i - 1]    # wildcard consumes content[i-1]
                if b < a:
                    Dj[i], Bj[i] = b, 5
                else:
                    Dj[i], Bj[i] = a, 4
            continue
        tw = 0.25 if t in _WS else 1.0
        Dj[0] = Dp[0] + tw
        Bj[0] = 2
        for i in range(1, n + 1):
            c = content[i - 1]
            best, code = Dp[i - 1] + (0.0 if c == t else (0.25 if (c in _WS and t in _WS) else 1.0)), 1
            v = Dp[i] + tw                     # template byte deleted
            if v < best:
                best, code = v, 2
            v = Dj[i - 1] + (0.25 if c in _WS else 1.0)  # content byte inserted
            if v < best:
                best, code = v, 3
            Dj[i], Bj[i] = best, code
    mask = bytearray(n)
    j, i = m, n
    while j > 0 or i > 0:
        code = B[j][i]
        if code == 1:
            j, i = j - 1, i - 1
        elif code == 2:
            j -= 1
        elif code == 3:
            i -= 1
        elif code == 4:
            j -= 1
        elif code == 5:
            mask[i - 1] = 1
            i -= 1
        else:  # pragma: no cover
            break
    return D[m][n], mask


def align(content: bytes, tpl: bytes) -> Tuple[str, Optional[bytearray]]:
    """Return (method, per-byte variable mask) or ("fail", None)."""
    if WILD not in tpl:
        if content == tpl or content.split() == tpl.split():
            return "exact" if content == tpl else "ws", bytearray(len(content))
    for method, loose in (("exact", False), ("ws", True)):
        m = _template_regex(tpl, loose).fullmatch(content)
        if m is not None:
            return method, _mask_from_match(m, len(content))
    if len(content) * (len(tpl) + 1) > 400_000:
        return "fail", None
    cost, mask = _dp_align(content, tpl)
    lit = len(tpl.replace(WILD, b""))
    if cost <= max(2.0, 0.1 * lit):
        return "dp", mask
    return "fail", None


# ----------------------------------------------------------------------------- token labels

def _is_alnum_byte(c: int) -> bool:
    return c >= 0x80 or (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122)


def token_label(mask: Sequence[int], text: bytes, s: int, e: int) -> Tuple[int, bool]:
    """(label, partial) for the word token text[s:e] under the byte mask."""
    n_an = n_an_var = n_var = 0
    for i in range(s, e):
        v = mask[i]
        n_var += v
        if _is_alnum_byte(text[i]):
            n_an += 1
            n_an_var += v
    if LABEL_RULE == "majority":
        lab = 1 if 2 * n_var > (e - s) else 0
    elif n_an:
        lab = 1 if n_an_var > 0 else 0
    else:
        lab = 1 if 2 * n_var > (e - s) else 0
    partial = 0 < n_var < (e - s)
    return lab, partial


def label_line(source: str, text: bytes, mask: Optional[bytearray], group: str,
               stats: Optional[Dict[str, int]] = None) -> Line:
    toks = tk.tokenize_bytes(text)
    labels = []
    for s, e, k in toks:
        if k != "word" or mask is None:
            labels.append(-1)
            if stats is not None and k == "var" and mask is not None:
                stats["premask_spans"] += 1
                if not any(mask[s:e]):
                    stats["premask_on_constant"] += 1
            continue
        lab, partial = token_label(mask, text, s, e)
        labels.append(lab)
        if stats is not None:
            stats["word_tokens"] += 1
            stats["var_tokens"] += lab
            stats["partial_tokens"] += int(partial)
    return Line(source, text, toks, labels, group, mask)


# ----------------------------------------------------------------------------- loaders

def load_loghub(name: str, root: str = DEFAULT_LOGHUB,
                stats: Optional[Dict[str, int]] = None) -> List[Line]:
    out = []
    if stats is None:
        stats = _new_stats()
    with open_labelled_csv(root, name) as f:
        for row in csv.DictReader(f):
            text = row["Content"].encode("utf-8")
            tpl = row["EventTemplate"].encode("utf-8")
            method, mask = align(text, tpl)
            stats["lines"] += 1
            stats["align_" + method] += 1
            out.append(label_line(name, text, mask, row["EventId"], stats))
    return out


def _new_stats() -> Dict[str, int]:
    from collections import Counter
    return Counter()


def char_spans_to_byte_mask(line: str, spans: Iterable[Tuple[int, int, str]]) -> Tuple[bytes, bytearray]:
    """Synthetic spans are character offsets into ``line``; return (bytes, byte mask)."""
    offs = [0]
    for ch in line:
        offs.append(offs[-1] + len(ch.encode("utf-8")))
    b = line.encode("utf-8")
    mask = bytearray(len(b))
    for sp in spans:
        s, e = int(sp[0]), int(sp[1])
        for i in range(offs[s], offs[e]):
            mask[i] = 1
    return b, mask


def synthlog_available() -> bool:
    return os.path.exists(os.path.join(REPO, "models", "training", "synthlog.py"))


def load_synthetic(n: int, seed: int, stats: Optional[Dict[str, int]] = None) -> List[Line]:
    """n lines from the project's generator (models/training/synthlog.py); [] if absent."""
    if n <= 0 or not synthlog_available():
        return []
    sys.path.insert(0, os.path.join(REPO, "models", "training"))
    import synthlog  # type: ignore  # written by another engineer; imported, never edited

    if stats is None:
        stats = _new_stats()
    out = []
    for tid, line, spans in synthlog.Generator(seed).sample(n):
        if isinstance(line, bytes):
            line = line.decode("utf-8", "replace")
        b, mask = char_spans_to_byte_mask(line, spans)
        stats["lines"] += 1
        stats["align_spans"] += 1
        out.append(label_line("synthetic", b, mask, "syn:" + str(tid), stats))
    return out


HARVEST_DIR = os.path.join(REPO, "models", "training", "harvest")


def harvest_available() -> bool:
    return os.path.exists(os.path.join(HARVEST_DIR, "templates.jsonl"))


def load_harvest(n: int, seed: int, stats: Optional[Dict[str, int]] = None,
                 plain_frac: float = 0.0, const_types: Sequence[str] = (),
                 exclude_source: str = "", exclude_ids: Sequence[int] = (),
                 vars_only: bool = False, keep_const_slots: bool = False) -> List[Line]:
    """n rendered lines of the harvested templates (``harvest/render.generate``,
    real message templates of real software in modern line formats) labelled
    by their spans exactly like the synthetic lines; [] if absent.

    ``plain_frac``: that share of the lines is the bare message (render style
    ``plain``: message + kv pairs, no header / JSON / logfmt wrapping), which is
    what the denoise stage sees of a line once the header or the structured
    envelope is taken off; the rest come from ``render.generate``.

    ``exclude_source``: a regex; templates whose ``source`` (package:binary)
    it finds are left out (a leave-one-out fold leaves out the held-out
    system's own software, e.g. ``^openssh-`` for OpenSSH).
    ``exclude_ids``: template ids left out (the dev set's, devset.py, so
    that set stays unseen).

    ``vars_only``: only the variable tokens keep a label (the shapes of real
    formats' values); the constant words of the rendered lines get none.
    ``keep_const_slots`` (with ``vars_only``): the words of ``const_types``
    slots keep their constant label too (a state or method word is a
    constant by the project's convention).

    ``const_types``: slot types whose spans are labelled constant (left out of
    the mask), where the other training sources teach the opposite convention
    (``http_method``: synthlog's access lines keep the method in the template,
    render.py's make it a span; two conventions for one token make the model
    mask it in some lines and not in others, which splits events)."""
    if n <= 0 or not harvest_available():
        return []
    sys.path.insert(0, HARVEST_DIR)
    import random
    import render  # type: ignore  # harvest/render.py, imported, never edited

    if stats is None:
        stats = _new_stats()
    n_plain = int(round(n * plain_frac))
    tpls = render.load_templates()
    if exclude_source or exclude_ids:
        src_re = re.compile(exclude_source) if exclude_source else None
        ex = set(exclude_ids)
        tpls = [t for t in tpls if t.id not in ex and not (src_re and src_re.search(t.source))]
    gen = list(render.generate(n - n_plain, seed=seed, templates=tpls))
    if n_plain:
        rng = random.Random(seed + 7919)
        for _ in range(n_plain):
            t = tpls[int(rng.random() * len(tpls))]
            line, spans = render.render(t, rng, "plain")
            gen.append((line, spans, t.id))
    out = []
    for line, spans, tid in gen:
        const_spans = []
        if const_types:
            const_spans = [sp for sp in spans if sp[2] in const_types]
            spans = [sp for sp in spans if sp[2] not in const_types]
        b, mask = char_spans_to_byte_mask(line, spans)
        stats["lines"] += 1
        stats["align_spans"] += 1
        ln = label_line("harvest", b, mask, "hv:" + str(tid), stats)
        if vars_only:
            keep = None
            if keep_const_slots and const_spans:
                _, keep = char_spans_to_byte_mask(line, const_spans)
            for i, (s, e, k) in enumerate(ln.toks):
                if ln.labels[i] == 0 and not (keep is not None and any(keep[s:e])):
                    ln.labels[i] = -1
        out.append(ln)
    return out


def load_all(names: Sequence[str] = LOGHUB_SETS, root: str = DEFAULT_LOGHUB) -> Dict[str, List[Line]]:
    return {n: load_loghub(n, root) for n in names}


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Alignment / label statistics for loghub-2k")
    ap.add_argument("--root", default=DEFAULT_LOGHUB)
    ap.add_argument("--show-fail", type=int, default=0, help="print up to N failed lines per set")
    ap.add_argument("--show-dp", type=int, default=0, help="print up to N dp-aligned lines per set")
    ap.add_argument("--synthetic", type=int, default=0, help="also label N synthetic lines")
    ap.add_argument("--harvest", type=int, default=0, help="also label N rendered harvest lines")
    args = ap.parse_args(argv)
    cols = ["lines", "align_exact", "align_ws", "align_dp", "align_fail", "word_tokens",
            "var_tokens", "partial_tokens", "premask_spans", "premask_on_constant"]
    heads = ["lines", "exact", "ws", "dp", "fail", "words", "var_words", "partial", "premasked", "pm_on_const"]
    print("set".ljust(10) + "".join(h.rjust(12) for h in heads))
    tot = _new_stats()
    for name in LOGHUB_SETS:
        st = _new_stats()
        lines = load_loghub(name, args.root, st)
        tot.update(st)
        print(name.ljust(10) + "".join(str(st[c]).rjust(12) for c in cols))
        if args.show_fail or args.show_dp:
            with open(loghub_csv_path(args.root, name), newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            nf = nd = 0
            for row, ln in zip(rows, lines):
                method, _ = align(row["Content"].encode(), row["EventTemplate"].encode())
                if method == "fail" and nf < args.show_fail:
                    nf += 1
                    print("   FAIL", repr(row["Content"]), "||", repr(row["EventTemplate"]))
                if method == "dp" and nd < args.show_dp:
                    nd += 1
                    print("   DP  ", repr(row["Content"]), "||", repr(row["EventTemplate"]))
    if args.synthetic:
        st = _new_stats()
        load_synthetic(args.synthetic, 0, st)
        print("synthetic".ljust(10) + "".join(str(st[c]).rjust(12) for c in cols))
    if args.harvest:
        st = _new_stats()
        load_harvest(args.harvest, 0, st)
        print("harvest".ljust(10) + "".join(str(st[c]).rjust(12) for c in cols))
    print("total".ljust(10) + "".join(str(tot[c]).rjust(12) for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main())
