#!/usr/bin/python3
"""The floors of the source tree, lowest first: no file includes a header of a
higher floor (docs/architecture.md, "The code: floors").

  0  lsh/, pipeline/core/            hashing, records, mailboxes, metrics, text helpers
  1  config/, models/                settings and version tables; torch behind torch-free headers
  2  pipeline/ingest/, stages/, store/         bytes to messages; the stages; the stores
  3  pipeline/pipeline.*, reply_json.*, memory_usage.*   the pipeline's wiring;
     pipeline/eval/                  the offline GA/PA scorer (nothing at run time uses it)
  4  service/net/, service/alerts/   transport; router, outbox, delivery
  5  service/api/                    the HTTP routes, on top of net/
  6  service/cli/                    commands; `serve` wires the app

A forward declaration counts as an include: a file that declares `class X;`
where X is defined only on a higher floor reaches up as surely as one that
includes X's header (the compiler cannot see it; this check can).

Usage: check_layers.py [ROOT]; prints each upward include or forward
declaration and exits 1 if any.
"""
import os
import re
import sys

FLOORS = [
    ("lsh/", 0), ("pipeline/core/", 0),
    ("config/", 1), ("models/", 1),
    ("pipeline/ingest/", 2), ("pipeline/stages/", 2), ("pipeline/store/", 2), ("pipeline/eval/", 3),
    ("pipeline/", 3),
    ("service/net/", 4), ("service/alerts/", 4),
    ("service/api/", 5),
    ("service/cli/", 6),
]
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')
# `class X {`, `struct X final : Base {` (a definition) and `class X;` (a declaration).
DEFINITION = re.compile(r'^\s*(?:class|struct)\s+(\w+)\b[^;(]*\{')
DECLARATION = re.compile(r'^\s*(?:class|struct)\s+(\w+)\s*;')
# `class X {`, `struct X final : Base {` (a definition) and `class X;` (a declaration).
DEFINITION = re.compile(r'^\s*(?:class|struct)\s+(\w+)\b[^;(]*\{')
DECLARATION = re.compile(r'^\s*(?:class|struct)\s+(\w+)\s*;')


def floor(path):
    for prefix, level in FLOORS:
        if path.startswith(prefix):
            return level
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    root = os.path.abspath(root)
    sources = []  # (path, floor, lines)
    for top in ("lsh", "pipeline", "config", "models", "service"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
                mine = floor(path)
                if mine is None:
                    continue
                with open(os.path.join(root, path), errors="replace") as f:
                    sources.append((path, mine, f.read().splitlines()))
    # The floors on which each class name is defined.
    defined = {}
    for path, mine, lines in sources:
        for line in lines:
            m = DEFINITION.match(line)
            if m:
                defined.setdefault(m.group(1), set()).add(mine)
    bad, files = [], len(sources)
    for path, mine, lines in sources:
        for n, line in enumerate(lines, 1):
            m = INCLUDE.match(line)
            if m and (theirs := floor(m.group(1))) is not None and theirs > mine:
                bad.append(f"{path}:{n}: includes {m.group(1)} (floor {theirs} above {mine})")
            d = DECLARATION.match(line)
            if d and d.group(1) in defined and min(defined[d.group(1)]) > mine:
                bad.append(f"{path}:{n}: forward-declares {d.group(1)} (defined on floor "
                           f"{min(defined[d.group(1)])}, above {mine})")
    for b in bad:
        print(b)
    print(f"{files} files, {len(bad)} upward includes or declarations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
