"""Text side of the log encoder: canonical template form, BERT WordPiece, vocab.

Everything here has a C++ twin that serving uses, and tests pin the two together:

* :func:`canonicalize` <-> ``pipeline/stages/encoder_text.cpp`` (``logsift::canonical_template``),
  cases in ``tests/data/canonical_cases.json`` checked by both sides;
* :func:`WordPiece.encode` <-> ``models/wordpiece.cpp`` (BERT's BasicTokenizer +
  WordPiece, checked against ``logsift wordpiece`` by ``test_encoder.py``).

Canonical form (exact invariances, so no model has to learn them):

1. ``Caused by:`` (any case, at a word start, with any spaces around the colon)
   is removed: a wrapped exception is the same event as the bare one.
2. A lower-case dotted package prefix before an upper-case letter is removed:
   ``com.amazonaws.SdkClientException`` -> ``SdkClientException``,
   ``c.c.f.Channel`` -> ``Channel``; ``NameSystem.addStoredBlock`` is kept
   (its first part is not lower-case).  A prefix starts where the byte before
   it is not ``[A-Za-z0-9_.$]``.
3. A word glued to ``<*>`` by one ``-``, ``_`` or ``.`` is part of the variable:
   ``checkout-<*>`` -> ``<*>``, ``<*>.prod.example.com`` -> ``<*>``, ``blk_<*>`` -> ``<*>``.
4. Runs of ``<*>`` separated only by whitespace collapse to one ``<*>``.
5. Leading/trailing whitespace is trimmed and inner whitespace runs become one space.
6. A trailing *cause clause* is removed, repeatedly: the template ends with a
   separator (``:``, `` -``, ``;``, ``,``) and then a phrase of :data:`CAUSES`
   (resolver errors, timeouts, EOF, ``signal <*>``...), in any case,
   optionally followed by one ``(...)``; or it ends with ``(phrase)``. Something
   with a letter or digit must remain before it.  ``Unable to execute HTTP
   request: <*>: Temporary failure in name resolution`` -> ``Unable to execute
   HTTP request: <*>``.

Case and punctuation are handled by the tokenizer (lower-casing) and the model
(which ignores punctuation tokens).
"""

from __future__ import annotations

import re
from typing import Dict, Iterable, List, Sequence

_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_PKG_HEAD = frozenset("abcdefghijklmnopqrstuvwxyz_")
_PKG_BODY = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
_PREFIX_STOP = _ALNUM | frozenset("_.$")
_WS = frozenset(" \t\n\r\f\v")


def _strip_caused_by(s: str) -> str:
    out: List[str] = []
    i, n = 0, len(s)
    while i < n:
        if (s[i] in "cC" and (i == 0 or s[i - 1] not in _ALNUM) and s[i:i + 9].lower() == "caused by"):
            j = i + 9
            while j < n and s[j] in _WS:
                j += 1
            if j < n and s[j] == ":":
                j += 1
                while j < n and s[j] in _WS:
                    j += 1
                i = j
                continue
        out.append(s[i])
        i += 1
    return "".join(out)


def _strip_packages(s: str) -> str:
    out: List[str] = []
    i, n = 0, len(s)
    while i < n:
        if s[i] in _PKG_HEAD and (i == 0 or s[i - 1] not in _PREFIX_STOP):
            # Longest run of `seg.` segments (seg = [a-z_][a-z0-9_]*) followed by [A-Z].
            j, end = i, -1
            while j < n and s[j] in _PKG_HEAD:
                k = j + 1
                while k < n and s[k] in _PKG_BODY:
                    k += 1
                if k < n and s[k] == ".":
                    j = k + 1
                    if j < n and "A" <= s[j] <= "Z":
                        end = j
                else:
                    break
            if end >= 0:
                i = end
                continue
        out.append(s[i])
        i += 1
    return "".join(out)


_WILD_RUN = re.compile(r"<\*>(?:[ \t\n\r\f\v]*<\*>)+")


def _collapse(s: str) -> str:
    # str.split() with no argument also splits on non-ASCII spaces; keep ASCII only.
    words = [w for w in re.split(r"[ \t\n\r\f\v]+", s) if w]
    return _WILD_RUN.sub("<*>", " ".join(words))


_GLUE = frozenset("-_.")


def _absorb_glued(s: str) -> str:
    """Absorb [A-Za-z0-9]+ joined to <*> by one of -_. (either side), to a fixpoint."""
    changed = True
    while changed:
        changed = False
        i = s.find("<*>")
        while i >= 0:
            # left: word + glue + <*>
            if i >= 2 and s[i - 1] in _GLUE and s[i - 2] in _ALNUM:
                j = i - 2
                while j > 0 and s[j - 1] in _ALNUM:
                    j -= 1
                s = s[:j] + s[i:]
                i = j
                changed = True
                continue
            # right: <*> + glue + word
            k = i + 3
            if k + 1 < len(s) and s[k] in _GLUE and s[k + 1] in _ALNUM:
                e = k + 1
                while e < len(s) and s[e] in _ALNUM:
                    e += 1
                s = s[:k] + s[e:]
                changed = True
                continue
            i = s.find("<*>", i + 3)
    return s


CAUSES = (
    # Transport-level reasons a call failed, which logs append to the event
    # they explain.  Deliberately *not* errno texts such as "permission denied"
    # or "no such file or directory": loghub's BGL (and SREs) treat those as
    # different events, so they stay in the template for the model to weigh.
    "temporary failure in name resolution", "name or service not known", "no address associated with hostname",
    "name does not resolve", "connect timed out", "read timed out", "i/o timeout", "context deadline exceeded",
    "context canceled", "unexpected eof", "eof", "socket closed", "killed", "signal <*>", "exit code <*>",
    "exit status <*>",
)
_CAUSE_SEPS = (":", " -", ";", ",")


def _has_alnum(s: str) -> bool:
    return any(c in _ALNUM for c in s)


def _best_cut(s: str, low: str, end: int) -> int:
    """Smallest cut such that s[cut:end] is SEP + " " + a cause phrase
    (SEP one of ":", ";", "," or " -"), with a letter or digit before cut; -1 if none."""
    best = -1
    core = low[:end]
    for p in CAUSES:
        if not core.endswith(p):
            continue
        start = end - len(p)
        if start < 2 or s[start - 1] != " ":
            continue
        if s[start - 2] in ":;,":
            cut = start - 2
        elif s[start - 2] == "-" and start >= 3 and s[start - 3] == " ":
            cut = start - 3
        else:
            continue
        if _has_alnum(s[:cut]) and (best < 0 or cut < best):
            best = cut
    return best


def _strip_cause_once(s: str) -> str:
    low = s.lower()
    ends = [len(s)]
    if s.endswith(")"):
        o = s.rfind("(")
        if o >= 1 and s[o - 1] == " " and ")" not in s[o + 1:-1]:
            # "... (cause)"
            if low[o + 1:-1] in CAUSES and _has_alnum(s[: o - 1]):
                return s[: o - 1]
            ends.append(o - 1)  # "...: cause (detail)"
    for end in ends:
        cut = _best_cut(s, low, end)
        if cut >= 0:
            return s[:cut].rstrip(" ")
    return s


def _strip_causes(s: str) -> str:
    while True:
        t = _strip_cause_once(s)
        if t == s:
            return s
        s = t


def canonicalize(template: str) -> str:
    # Stripping a cause only cuts a suffix (and its trailing spaces) off a
    # collapsed string, so the result needs no second collapse.
    return _strip_causes(_collapse(_absorb_glued(_strip_packages(_strip_caused_by(template)))))


# ----------------------------------------------------------------------------
# BERT WordPiece (BasicTokenizer for ASCII + greedy longest-match WordPiece)

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[VAR]")
WILDCARD = "<*>"


def is_punct(ch: str) -> bool:
    o = ord(ch)
    return 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126


def basic_tokens(text: str, lower: bool = True, wildcard_token: str = "") -> List[str]:
    out: List[str] = []
    cur: List[str] = []

    def flush() -> None:
        if cur:
            out.append("".join(cur))
            cur.clear()

    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if wildcard_token and text.startswith(WILDCARD, i):
            flush()
            out.append(wildcard_token)
            i += 3
            continue
        o = ord(ch)
        if ch in " \t\n\r":
            flush()
        elif o == 0 or o == 0xFFFD or o < 32 or o == 127:
            pass  # removed (control characters); does not split the word
        elif o < 128 and is_punct(ch):
            flush()
            out.append(ch)
        else:
            cur.append(ch.lower() if lower and o < 128 else ch)
        i += 1
    flush()
    return out


class WordPiece:
    def __init__(self, vocab: Sequence[str], lower: bool = True, wildcard_token: str = "[VAR]",
                 max_len: int = 128, max_chars: int = 100) -> None:
        self.vocab: Dict[str, int] = {}
        for i, t in enumerate(vocab):
            if t in self.vocab:
                raise ValueError("duplicate vocab entry %r at line %d" % (t, i + 1))
            self.vocab[t] = i
        self.tokens = list(vocab)
        self.lower = lower
        self.wildcard_token = wildcard_token if wildcard_token in self.vocab else ""
        self.max_len = max_len
        self.max_chars = max_chars
        self.unk = self.vocab["[UNK]"]
        self.cls = self.vocab["[CLS]"]
        self.sep = self.vocab["[SEP]"]
        self.pad = self.vocab.get("[PAD]", 0)

    def word_ids(self, word: str) -> List[int]:
        if len(word) > self.max_chars:
            return [self.unk]
        if word in self.vocab:
            return [self.vocab[word]]
        ids: List[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = -1
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    found = self.vocab[piece]
                    break
                end -= 1
            if found < 0:
                return [self.unk]
            ids.append(found)
            start = end
        return ids

    def encode(self, text: str) -> List[int]:
        ids = [self.cls]
        for w in basic_tokens(text, self.lower, self.wildcard_token):
            ids.extend(self.word_ids(w))
        ids = ids[: self.max_len - 1]
        ids.append(self.sep)
        return ids


def build_vocab(texts: Iterable[str], max_words: int = 12000, max_suffixes: int = 400) -> List[str]:
    """Specials, every printable ASCII char and its ## form, then words by
    frequency (ties by spelling), then frequent word suffixes as ## pieces."""
    counts: Dict[str, int] = {}
    for t in texts:
        for w in basic_tokens(t, True, "[VAR]"):
            if w == "[VAR]" or len(w) == 1:
                continue
            counts[w] = counts.get(w, 0) + 1
    vocab: List[str] = list(SPECIALS)
    seen = set(vocab)

    def add(tok: str) -> None:
        if tok not in seen:
            seen.add(tok)
            vocab.append(tok)

    for o in range(33, 127):
        add(chr(o))
    for o in range(33, 127):
        if chr(o).isalnum():
            add("##" + chr(o))
    words = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    for w, _ in words[:max_words]:
        add(w)
    suf: Dict[str, int] = {}
    for w, c in counts.items():
        for k in range(2, 6):
            if len(w) > k + 2:
                suf[w[-k:]] = suf.get(w[-k:], 0) + c
    for s, _ in sorted(suf.items(), key=lambda kv: (-kv[1], kv[0]))[:max_suffixes]:
        add("##" + s)
    return vocab
