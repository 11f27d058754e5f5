#!/usr/bin/python3
"""A tiny lexer for C-family call sites (Go, JavaScript): balanced argument
splitting that respects string literals, runes, template strings and
comments, plus string-literal decoding.  No full parser: good enough to read
``pkg.Method("literal", key, value, ...)`` call sites.
"""

from __future__ import annotations

import re

_CLOSE = {"(": ")", "[": "]", "{": "}"}


def skip_string(src: str, i: int) -> int:
    """src[i] is a quote; return index just after the literal."""
    q = src[i]
    n = len(src)
    j = i + 1
    if q == "`":
        k = src.find("`", j)
        return n if k < 0 else k + 1
    while j < n:
        c = src[j]
        if c == "\\":
            j += 2
            continue
        if c == q:
            return j + 1
        if c == "\n" and q != "`":
            return j + 1  # unterminated: stop at the line end
        j += 1
    return n


def skip_comment(src: str, i: int) -> int:
    if src.startswith("//", i):
        k = src.find("\n", i)
        return len(src) if k < 0 else k
    if src.startswith("/*", i):
        k = src.find("*/", i + 2)
        return len(src) if k < 0 else k + 2
    return i


def scan_args(src: str, i: int, quotes: str = "\"'`", limit: int = 8000) -> tuple[list[str], int] | None:
    """src[i] == '('; return (top-level argument texts, index after ')')."""
    assert src[i] in "([{"
    stack = [_CLOSE[src[i]]]
    args, start = [], i + 1
    j = i + 1
    n = min(len(src), i + limit)
    while j < n:
        c = src[j]
        if c in quotes:
            j = skip_string(src, j)
            continue
        if c == "/" and j + 1 < n and src[j + 1] in "/*":
            j = skip_comment(src, j)
            continue
        if c in "([{":
            stack.append(_CLOSE[c])
        elif c in ")]}":
            if not stack or c != stack[-1]:
                return None
            stack.pop()
            if not stack:
                a = src[start:j].strip()
                if a:
                    args.append(a)
                return args, j + 1
        elif c == "," and len(stack) == 1:
            args.append(src[start:j].strip())
            start = j + 1
        j += 1
    return None


_ESC = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b",
        "f": "\f", "v": "\v", "0": "\0", "`": "`", "$": "$", "/": "/"}


def decode_literal(tok: str) -> str | None:
    """Value of one Go/JS string literal token, or None."""
    if len(tok) < 2:
        return None
    q = tok[0]
    if q == "`" and tok[-1] == "`":
        if "${" in tok:
            return None
        return tok[1:-1]
    if q not in "\"'" or tok[-1] != q:
        return None
    body = tok[1:-1]
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            e = body[i + 1]
            if e == "x" and re.match(r"[0-9a-fA-F]{2}", body[i + 2:i + 4]):
                out.append(chr(int(body[i + 2:i + 4], 16)))
                i += 4
                continue
            if e == "u" and re.match(r"[0-9a-fA-F]{4}", body[i + 2:i + 6]):
                out.append(chr(int(body[i + 2:i + 6], 16)))
                i += 6
                continue
            if e in "01234567" and re.match(r"[0-7]{3}", body[i + 1:i + 4]):
                out.append(chr(int(body[i + 1:i + 4], 8)))
                i += 4
                continue
            out.append(_ESC.get(e, e))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


_LIT_TOKEN = re.compile(r"\s*(\"(?:[^\"\\\n]|\\.)*\"|`[^`]*`|'(?:[^'\\\n]|\\.)*')\s*")


def literal_value(arg: str, single_quotes: bool = False) -> str | None:
    """If ``arg`` is a string literal or a '+'-concatenation of literals, its value."""
    pos, parts = 0, []
    arg = arg.strip()
    while True:
        m = _LIT_TOKEN.match(arg, pos)
        if not m:
            return None
        tok = m.group(1)
        if tok[0] == "'" and not single_quotes:
            return None
        v = decode_literal(tok)
        if v is None:
            return None
        parts.append(v)
        pos = m.end()
        if pos >= len(arg):
            return "".join(parts)
        if arg[pos] != "+":
            return None
        pos += 1


def receiver_chain(src: str, dot: int, limit: int = 1500) -> str:
    """Text of the expression ending just before ``src[dot] == '.'``: walks back
    over identifiers, dots, whitespace and balanced (...) groups."""
    j = dot - 1
    lo = max(0, dot - limit)
    depth = 0
    while j >= lo:
        c = src[j]
        if c in ")]}":
            depth += 1
        elif c in "([{":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and not (c.isalnum() or c in "_.$ \t\n\r"):
            break
        j -= 1
    return src[j + 1:dot]
