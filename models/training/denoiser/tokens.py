"""Python reference of logsift's tokenizer + pre-masker (train/serve consistency).

The C++ binary will expose ``logsift tokenize``, printing for every input line
the pre-masked tokens with byte offsets.  Until it exists, training uses this
module; everything in the training code goes through :func:`tokenize` (or
:func:`tokenize_bytes`) so the binary's output can be swapped in later by
replacing this one module (see ``set_backend``).

Contract
--------
``tokenize(line) -> list[(start, end, kind)]``

* offsets are *byte* offsets into ``line.encode("utf-8")`` (``end`` exclusive);
* ``kind`` is ``"var"`` (a pre-masked span), ``"word"`` or ``"delim"``;
* the tokens are in order, do not overlap and cover the whole line.

Algorithm (written so that an RE2 implementation gives identical output)
-------------------------------------------------------------------------
1. Pre-masking.  Scan positions ``p`` from left to right.  A position is a
   candidate only if the byte before it (if any) is not an ASCII letter/digit.
   At a candidate, try the patterns of ``PREMASK_PATTERNS`` in order, each
   *anchored* at ``p`` with leftmost-first (Perl/RE2) semantics, i.e. RE2
   ``ANCHOR_START`` + ``UNANCHORED`` end, the default greedy match.  The first
   pattern whose match is non-empty, whose following byte (if any) is not
   an ASCII letter/digit, and (for ``hexid`` only) that contains a digit wins: ``[p, end)`` becomes a ``var`` token and the
   scan continues at ``end``.  If no pattern wins, continue at ``p + 1``.
   (No backtracking into a shorter match of a pattern when the boundary test
   fails: the pattern simply does not match at ``p``.)
2. The gaps between var spans are split into tokens: a maximal run of
   delimiter bytes (ASCII whitespace `` \\t\\n\\r\\f\\v`` and
   ``,;:=()[]{}<>"'|``) is one ``delim`` token; every maximal run of other
   bytes is a ``word`` token, except that if a word ends with ``.`` that one
   final ``.`` is split off as a separate ``delim`` token (a word that is just
   ``.`` is therefore a ``delim``).

All patterns use explicit ASCII classes (no ``\\d``/``\\w``/``\\s``) so that
Python ``re`` on bytes and RE2 agree.
"""

from __future__ import annotations

import os
import re
from typing import Callable, List, Optional, Sequence, Tuple

Token = Tuple[int, int, str]

_HEX = r"[0-9a-fA-F]"
_DEC = r"[0-9]"
_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
DELIMS = frozenset(b" \t\n\r\f\v,;:=()[]{}<>\"'|")

_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_TIME = r"[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?"
_TZ = r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?"
_H4 = _HEX + r"{1,4}"

# (name, pattern): order is priority at a given start position.
PREMASK_PATTERNS: Sequence[Tuple[str, str]] = (
    ("url", r"[a-zA-Z][a-zA-Z0-9+.\-]*://[^ \t\n\r\f\v\"'<>]+"),
    ("email", r"[a-zA-Z0-9._%+\-]+@[a-zA-Z0-9\-]+(?:\.[a-zA-Z0-9\-]+)*\.[a-zA-Z]{2,}"),
    ("uuid", _HEX + r"{8}-" + _HEX + r"{4}-" + _HEX + r"{4}-" + _HEX + r"{4}-" + _HEX + r"{12}"),
    # ISO-like date, optional time / BGL-style 2005-06-03-15.42.50.675872
    ("timestamp",
     r"[0-9]{4}[-/.][0-9]{1,2}[-/.][0-9]{1,2}"
     r"(?:(?:[T ]|-)[0-9]{1,2}[:.][0-9]{2}[:.][0-9]{2}(?:[.,][0-9]+)?" + _TZ + r")?"),
    # syslog / ctime style: "Dec 10 06:55:46", "Sun Dec 04 04:47:44 2005"
    ("timestamp", r"(?:" + _DAY + r" )?" + _MONTH + r" {1,2}[0-9]{1,2} " + _TIME + r"(?: [0-9]{4})?"),
    ("mac", r"(?:" + _HEX + r"{2}[:\-]){5}" + _HEX + r"{2}"),
    ("ipv4", r"(?:[0-9]{1,3}\.){3}[0-9]{1,3}(?::[0-9]{1,5})?"),
    # full form (8 groups) or compressed form with '::' (at least one group), optional
    # [..]:port is not handled (brackets are delimiters).
    ("ipv6", r"(?:" + _H4 + r":){7}" + _H4),
    ("ipv6", r"(?:(?:" + _H4 + r":){1,6}:(?:" + _H4 + r"(?::" + _H4 + r"){0,5})?"
             r"|::" + _H4 + r"(?::" + _H4 + r"){0,6})"),
    ("time", _TIME + _TZ),
    ("hex", r"0[xX]" + _HEX + r"+"),
    # hex id of >= 8 chars; accepted only if the match contains a digit
    # (a post-check instead of a lookahead, which RE2 lacks)
    ("hexid", _HEX + r"{8,}"),
    ("number", r"-?[0-9]+(?:\.[0-9]+)?"),
    # paths with >= 2 segments: /a/b, ~/a/b, ./a/b, ../a/b, C:\a\b
    ("path", r"(?:~|\.{1,2})?(?:/[a-zA-Z0-9._\-@+~%$#]+){2,}/?"),
    ("path", r"[a-zA-Z]:(?:\\[a-zA-Z0-9._\-@+~%$# ]+){2,}\\?"),
)

_DIGIT_RE = re.compile(rb"[0-9]")
_COMPILED = [(name, re.compile(pat.encode("ascii"))) for name, pat in PREMASK_PATTERNS]


def premask_spans(b: bytes) -> List[Tuple[int, int, str]]:
    """Return the pre-masked spans (start, end, pattern_name) of ``b``."""
    out = []
    n = len(b)
    p = 0
    while p < n:
        if p > 0 and b[p - 1] in _ALNUM:
            p += 1
            continue
        won = False
        for name, rx in _COMPILED:
            m = rx.match(b, p)
            if m is None:
                continue
            e = m.end()
            if e == p or (e < n and b[e] in _ALNUM):
                continue
            if name == "hexid" and not _DIGIT_RE.search(b, p, e):
                continue
            out.append((p, e, name))
            p = e
            won = True
            break
        if not won:
            p += 1
    return out


def _split_gap(b: bytes, s: int, e: int, out: List[Token]) -> None:
    i = s
    while i < e:
        j = i
        if b[i] in DELIMS:
            while j < e and b[j] in DELIMS:
                j += 1
            out.append((i, j, "delim"))
        else:
            while j < e and b[j] not in DELIMS:
                j += 1
            if b[j - 1] == 0x2E:  # '.'
                if j - 1 > i:
                    out.append((i, j - 1, "word"))
                out.append((j - 1, j, "delim"))
            else:
                out.append((i, j, "word"))
        i = j


def _tokenize_bytes_ref(b: bytes) -> List[Token]:
    out: List[Token] = []
    p = 0
    for s, e, _ in premask_spans(b):
        if s > p:
            _split_gap(b, p, s, out)
        out.append((s, e, "var"))
        p = e
    if p < len(b):
        _split_gap(b, p, len(b), out)
    return out


_backend: Callable[[bytes], List[Token]] = _tokenize_bytes_ref


def set_backend(fn: Callable[[bytes], List[Token]]) -> None:
    """Swap the tokenizer (e.g. for one that calls ``logsift tokenize``)."""
    global _backend
    _backend = fn


def tokenize_bytes(b: bytes) -> List[Token]:
    return _backend(b)


def tokenize(line) -> List[Token]:
    """Tokenize one line (str or UTF-8 bytes); offsets are byte offsets."""
    if isinstance(line, str):
        line = line.encode("utf-8")
    return _backend(line)


def render(line, toks: List[Token] = None) -> str:
    """Debug helper: the line with tokens bracketed, vars as <*>."""
    b = line.encode("utf-8") if isinstance(line, str) else line
    toks = tokenize_bytes(b) if toks is None else toks
    parts = []
    for s, e, k in toks:
        t = b[s:e].decode("utf-8", "replace")
        parts.append("<*>" if k == "var" else (t if k == "delim" else "[" + t + "]"))
    return "".join(parts)


if __name__ == "__main__":
    import json
    import sys

    for raw in sys.stdin.buffer:
        raw = raw.rstrip(b"\n")
        print(json.dumps([[s, e, k] for s, e, k in tokenize_bytes(raw)]))


# ----------------------------------------------------------------------------- serving tokenizer
#
# Training must see exactly what the service sees (no train/serve skew), so by
# default tokenization goes through the built binary's `logsift tokenize`,
# one persistent process answering line by line. The pure-Python reference
# above stays for tests and as an explicit opt-in (LOGSIFT_TOKENIZER=python).

import json as _json
import subprocess as _subprocess
import sys as _sys

_sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from loghub import find_logsift  # noqa: E402,F401  (re-exported: training code calls tk.find_logsift)


class ServingTokenizer:
    """`logsift tokenize` as a backend: same pre-mask, same splitting, byte offsets."""

    def __init__(self, binary: str):
        self.binary = binary
        self.proc = _subprocess.Popen([binary, "tokenize", "-", "--log-level", "error"], stdin=_subprocess.PIPE,
                                      stdout=_subprocess.PIPE)

    def __call__(self, b: bytes) -> List[Token]:
        # One line per request; a newline inside would split it, so it is a space here
        # exactly as a line-based ingest would never deliver it.
        self.proc.stdin.write(b.replace(b"\n", b" ") + b"\n")
        self.proc.stdin.flush()
        out = _json.loads(self.proc.stdout.readline())
        return [(int(t[0]), int(t[1]), str(t[2])) for t in out["tokens"]]


def use_serving_tokenizer(binary: Optional[str] = None) -> str:
    binary = binary or find_logsift()
    if not binary:
        raise RuntimeError("logsift binary not found: build it (cmake --build build) or set LOGSIFT_BIN")
    set_backend(ServingTokenizer(binary))
    return binary


if os.environ.get("LOGSIFT_TOKENIZER", "serving") != "python":
    try:
        _used = use_serving_tokenizer()
    except RuntimeError as _e:  # loud: a silent fallback would hide train/serve skew
        print(f"tokens.py: WARNING {_e}; using the Python reference tokenizer", file=_sys.stderr)
