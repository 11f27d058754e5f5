#!/usr/bin/python3
"""Harvest printf-style log formats from the ELF binaries and shared libraries
of the [c] packages (unpacked by harvest_fetch.py).

Like ``strings -a``, but only NUL-terminated printable runs (C string
literals) are taken; a trailing newline is dropped, multi-line texts (help,
usage) are rejected.  Each candidate is parsed as a printf format
(printfmt.py, dialect "c"), typed, and kept when it looks like a log message
(common.message_ok).  Output: $HARVEST_DIR/out/c.jsonl
"""

from __future__ import annotations

import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import printfmt  # noqa: E402

CSTR_RE = re.compile(rb"(?<=\x00)([\x20-\x7e\t\n]{8,300})\x00")
MAX_FILE = 80 << 20
RUN3_RE = re.compile(r"(%[-+ #0-9.*]*(?:hh|h|ll|l|z|j|t)?[a-zA-Z]){3}")


def is_elf(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def c_strings(path: str) -> list[str]:
    with open(path, "rb") as f:
        data = f.read(MAX_FILE)
    out = []
    for m in CSTR_RE.finditer(data):
        s = m.group(1).decode("ascii")
        s = s.rstrip("\n")
        if s:
            out.append(s)
    return out


def harvest_string(raw: str, lang: str, dialect: str, reasons: collections.Counter) -> dict | None:
    if RUN3_RE.search(raw):  # %s%s%s...: a formatting helper, not a message
        reasons["conversion_run"] += 1
        return None
    res = printfmt.to_template(raw, dialect, lang)
    if res is None:
        reasons["unparsable"] += 1
        return None
    fmt, rules = res
    constant = common.constant_text(fmt)
    why = common.message_ok(raw, constant, len(rules), lang)
    if why:
        reasons[why] += 1
        return None
    if len(fmt) > 300:
        reasons["length"] += 1
        return None
    return {"fmt": fmt, "raw": raw, "lang": lang, "kind": "printf" if rules else "plain",
            "rules": [r for _, r in rules]}


def main() -> int:
    reasons: collections.Counter = collections.Counter()
    recs = []
    pkgs = common.pkg_dirs("c")
    for pkg, root in pkgs:
        seen = set()
        for path in common.walk_files(root):
            rel = path[len(root):]
            if common.is_excluded_path(rel) or rel.startswith(("/usr/share/doc", "/usr/lib/debug")):
                continue
            if not is_elf(path):
                continue
            for raw in c_strings(path):
                if raw in seen:
                    continue
                seen.add(raw)
                if "%" not in raw and not common.LOGGY_RE.search(raw):
                    continue
                r = harvest_string(raw, "c", "c", reasons)
                if r:
                    r["source"] = "%s:%s" % (pkg, rel)
                    recs.append(r)
    n = common.write_jsonl(os.path.join(common.OUT_DIR, "c.jsonl"), recs)
    print("c: %d records from %d packages; rejects: %s" % (n, len(pkgs), dict(reasons.most_common(20))),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
