#!/usr/bin/python3
"""Benchmark input from REAL programs' log lines: a long Zipf stream, or every line once.

Usage:
    bench/gen_real_stream.py stream N SEED [--zipf S] [--sets DIR,DIR] [--text raw|content] > stream.txt
    bench/gen_real_stream.py first-sight [--sets DIR,DIR] [--text raw|content] > first.txt

Why: the synthetic corpus (bench/gen_corpus.py) is loghub lines of nine
systems the models were built on, or synthlog lines of templates the models
know: words the models know, and values that are numbers the pre-mask
catches. Real deployments run programs the models never saw, whose values are
words (user, queue, mailbox, host and file names, SQL, URLs, keys). Speed
measured on the synthetic corpus says little about those lines: more tokens
are unknown, more lines reach the model stages, more templates are new. This
generator builds the input for measuring that, from the labelled real logs in
the repository only: models/validation (16 programs) and models/tuning (10
programs), 41,709 lines of 1,804 events (26 programs) for both. No other data
set is read.

Text of a line (--text, default raw): the line exactly as the program wrote it,
from <System>/<System>.log, i.e. what a user streams into `logsift cluster` or
the service, header (timestamp, level, pid, syslog header) included; logsift
takes apart the headers it knows (syslog_headers, app_layouts) and the rest
stay in the line, as they do for a user. `logsift eval` reads
instead the Content column of <System>.log_structured.csv, the line with that
header stripped (pipeline/eval/eval.cpp); --text content emits that. The .log
line i and the CSV row with LineId i are the same line (checked at load: the
Content must be a substring of the raw line).

stream N SEED: N lines. An event is one (system, EventId) pair. Events are
drawn by rank with probability proportional to 1/rank**S (--zipf, default
1.1); the rank order is a shuffle of all events by SEED, so no system is
always the head. With the 1,804 events of both sets and S = 1.1 the top event
takes 17% of the lines, the top 10 46%, the top 100 73%, and the rarest
event 45 lines per million, so at N = 1,000,000 every event is seen (about
500 distinct events at N = 2,000): a few statements make most of the lines,
as in production logs, while the tail keeps arriving. Each emitted line is a
line of that event picked uniformly among the event's lines in the set, with
every run of ASCII digits re-randomised: same length; a run whose first digit
is not 0 keeps a nonzero first digit; a longer run starting with 0 keeps the
0 (zero padding); a lone 0 becomes any digit, except the 0 of 0x. Runs that
are parts of timestamps and IPv4 addresses get values that stay valid (year
2000-2099, month 01-12, day 01-28 (10-28 for a 2-digit day after a month
name: "Nov 23"), hour 00-23, minute and second 00-59, octets 0-255, a 5-digit
port after an address 10000-65535), so header and timestamp parsers see what
real programs write (the values differ from line to line; they are not in
time order). A zone offset (+00:00, +0000) is kept as it is: one host, one
zone. So numbers are fresh on every line, while every word is a real value
from the real pool (that event's lines). Digits inside words are
re-randomised too (HTTP/1.1, x86_64, conn788), as in gen_corpus.py, but not
a source location's line number (main.go:241, App.java:88): a statement is
written from one line of its program, and caller=file.go:LINE is how
Prometheus, Alertmanager and etcd lines say which statement they are
(--fresh-source-lines re-randomises them too: every such line is then a new
template, the harsher stream). Output is deterministic for (N, SEED, S, sets, text), and the
stream for N is a prefix of the stream for any larger N; it is written as
it is made (N may be 10,000,000).

first-sight: every line of the chosen sets once, unchanged, in file order,
set by set (as given) and system by system (sorted by name, as `logsift eval`
orders them): no line repeats and each of the 1,804 templates is new on its
first line, the cold start of a service meeting these programs.

A one-line summary (lines, events, systems, seed, zipf) goes to stderr.
"""

from __future__ import annotations

import argparse
import bisect
import csv
import json
import os
import re
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_SETS = "models/validation,models/tuning"

csv.field_size_limit(1 << 30)


# ---------------------------------------------------------------- loading


def load_sets(dirs: list[str], text: str):
    """Returns [(set_dir, system, [(event_id, line), ...])] in emission order."""
    systems = []
    for d in dirs:
        base = Path(d) if os.path.isabs(d) or Path(d).exists() else ROOT / d
        if not (base / "datasets.json").is_file():
            sys.exit(f"gen_real_stream: {base}: no datasets.json (a labelled set dir such as models/validation)")
        with open(base / "datasets.json", encoding="utf-8") as f:
            index = json.load(f)
        for name in sorted(index):
            spec = index[name]
            with open(base / spec["truth"], newline="", encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            if text == "raw":
                with open(base / spec["log"], newline="", encoding="utf-8", errors="surrogateescape") as f:
                    raw = f.read().split("\n")
                if raw and raw[-1] == "":
                    raw.pop()
                if len(raw) != len(rows):
                    sys.exit(f"gen_real_stream: {base / spec['log']}: {len(raw)} lines but {len(rows)} CSV rows")
            lines = []
            for i, row in enumerate(rows):
                if int(row["LineId"]) != i + 1:
                    sys.exit(f"gen_real_stream: {base / spec['truth']}: LineId {row['LineId']} at row {i + 1}")
                content = row["Content"]
                if text == "raw":
                    if content not in raw[i]:
                        sys.exit(f"gen_real_stream: {name} line {i + 1}: the Content is not in the raw line")
                    lines.append((row["EventId"], raw[i]))
                else:
                    lines.append((row["EventId"], content))
            systems.append((str(base), name, lines))
    if not systems:
        sys.exit("gen_real_stream: no systems in the given sets")
    return systems


# ---------------------------------------------------------------- digit plans

_MON = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
# (regex, kinds of its groups in order); a kind is (lo, hi), "keep" (digits kept), or None / "sep"
# (not a constrained run). A kind applies to a digit run the group spans exactly.
# re.A: \d is [0-9] only, as in the digit runs re-randomised.
_HOUR, _MIN, _MONTH, _DAY, _OCTET = (0, 23), (0, 59), (1, 12), (1, 28), (0, 255)
_YEAR = (2000, 2099)
_DAY_SP = (10, 28)  # "Mon dd": 2 digits stay 10-28 (a 1-digit day is space-padded: "Nov  9")
_SHAPES = [
    # file.go:123, App.java:88: a statement's source line is the same on every line it writes
    (re.compile(r"(?<![\w])[\w./-]+\.(?:go|c|cc|cpp|h|hpp|py|java|js|ts|rs|rb|php|scala|kt|erl|ex):(\d+)(?!\d)", re.A),
     ["keep"]),
    # hh:mm:ss[.frac][ +hh:mm| +hhmm]; the zone offset is kept (one host, one zone)
    (re.compile(r"(?<!\d)(\d{1,2}):(\d{2}):(\d{2})(?!\d)(?:[.,](\d+))?(?:\s?[+-](?:(\d{2}):(\d{2})|(\d{4}))(?!\d))?", re.A),
     [_HOUR, _MIN, _MIN, None, "keep", "keep", "keep"]),
    # yyyy-mm-dd, yyyy/mm/dd
    (re.compile(r"(?<!\d)(\d{4})([-/])(\d{2})\2(\d{2})(?!\d)", re.A), [_YEAR, "sep", _MONTH, _DAY]),
    # dd-Mon[-yyyy], dd/Mon[/yyyy], dd Mon[ yyyy]
    (re.compile(r"(?<![\dA-Za-z])(\d{1,2})([-/ ])" + _MON + r"(?:\2(\d{4})(?!\d))?\b", re.A), [_DAY, "sep", _YEAR]),
    # Mon dd[ yyyy], Mon  d[ yyyy]
    (re.compile(r"\b" + _MON + r" {1,2}(\d{1,2})(?!\d)(?: (\d{4})(?![\d:]))?", re.A), [_DAY_SP, _YEAR]),
    # a.b.c.d[:port]
    (re.compile(r"(?<![\d.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?![\d])(?::(\d{5})(?!\d))?", re.A),
     [_OCTET, _OCTET, _OCTET, _OCTET, (10000, 65535)]),
]
_ASCII_DIGITS = re.compile(r"[0-9]+")


def _range_slot(lo: int, hi: int, width: int):
    """A value in [lo, hi] written with `width` digits (zero-padded), or None if none fits."""
    hi = min(hi, 10 ** width - 1)
    return ("r", lo, hi - lo + 1, width) if lo <= hi else None


# --fresh-source-lines: a source location's line number is re-randomised too
# (every caller=file.go:LINE line a new template): the harsher stream.
KEEP_SOURCE_LINES = True


def plan(line: str):
    """Splits a line into literals and digit slots: [lit0, slot0, lit1, slot1, ..., litK]."""
    constrained = {}
    for rx, kinds in (_SHAPES if KEEP_SOURCE_LINES else _SHAPES[1:]):
        for m in rx.finditer(line):
            for g, kind in enumerate(kinds, 1):
                if kind is None or kind == "sep" or m.start(g) < 0:
                    continue
                constrained.setdefault(m.span(g), kind)
    out = []
    pos = 0
    lit = []
    for m in _ASCII_DIGITS.finditer(line):
        b, e = m.span()
        run = m.group()
        w = e - b
        lit.append(line[pos:b])
        pos = e
        kind = constrained.get((b, e))
        slot = None
        if kind == "keep":
            lit.append(run)
            continue
        if kind is not None:
            lo, hi = kind
            if kind == _OCTET:  # keep the width: 1 digit 0-9, 2 digits 10-99, 3 digits 100-255
                lo = 0 if w == 1 else 10 ** (w - 1)
            slot = _range_slot(lo, hi, w)
        if slot is None:
            if run[0] != "0":
                slot = ("nz", w)
            elif w > 1:
                lit.append("0")
                slot = ("f", w - 1)
            elif line[e:e + 1] in ("x", "X"):
                lit.append("0")  # 0x...: keep the hex prefix
            else:
                slot = ("f", 1)
        if slot is not None:
            out.append("".join(lit))
            lit = []
            out.append(slot)
    lit.append(line[pos:])
    out.append("".join(lit))
    return out


# ---------------------------------------------------------------- stream

_POW10 = [10 ** k for k in range(16)]
_NZ = "123456789"


def render(p, rnd) -> str:
    if len(p) == 1:
        return p[0]
    parts = [p[0]]
    for k in range(1, len(p), 2):
        s = p[k]
        t = s[0]
        if t == "r":
            v = s[1] + int(rnd() * s[2])
            parts.append(str(v).zfill(s[3]))
        else:
            w = s[1]
            if t == "nz":
                parts.append(_NZ[int(rnd() * 9)])
                w -= 1
            while w > 0:
                c = w if w < 15 else 15
                parts.append(str(int(rnd() * _POW10[c])).zfill(c))
                w -= c
        parts.append(p[k + 1])
    return "".join(parts)


def stream(systems, n: int, seed: int, zipf: float) -> tuple[int, int]:
    events = []  # [[plan, ...], ...]
    for _, _, lines in systems:
        by_id: dict[str, list] = {}
        for eid, line in lines:
            by_id.setdefault(eid, []).append(line)
        for eid in by_id:  # first-appearance order
            events.append([plan(line) for line in by_id[eid]])
    rng = random.Random(seed)
    rnd = rng.random
    # Rank order: a Fisher-Yates shuffle drawn with random() only (stable across Python versions).
    order = list(range(len(events)))
    for i in range(len(order) - 1, 0, -1):
        j = int(rnd() * (i + 1))
        order[i], order[j] = order[j], order[i]
    ranked = [events[i] for i in order]
    cum = []
    total = 0.0
    for r in range(1, len(ranked) + 1):
        total += r ** -zipf
        cum.append(total)
    last = len(ranked) - 1
    out = sys.stdout
    buf = []
    for _ in range(n):
        ev = ranked[min(bisect.bisect_right(cum, rnd() * total), last)]
        buf.append(render(ev[int(rnd() * len(ev))], rnd))
        if len(buf) >= 10000:
            buf.append("")
            out.write("\n".join(buf))
            buf.clear()
    if buf:
        buf.append("")
        out.write("\n".join(buf))
    out.flush()
    return n, len(events)


def first_sight(systems) -> tuple[int, int]:
    out = sys.stdout
    n = 0
    ev = 0
    for _, _, lines in systems:
        out.write("".join(line + "\n" for _, line in lines))
        n += len(lines)
        ev += len({eid for eid, _ in lines})
    out.flush()
    return n, ev


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="mode", required=True)
    for name in ("stream", "first-sight"):
        p = sub.add_parser(name, formatter_class=argparse.RawDescriptionHelpFormatter)
        if name == "stream":
            p.add_argument("n", type=int, help="number of lines")
            p.add_argument("seed", type=int, help="random seed")
            p.add_argument("--zipf", type=float, default=1.1, help="Zipf exponent over event ranks (default 1.1)")
            p.add_argument("--fresh-source-lines", action="store_true",
                           help="re-randomise source line numbers (main.go:241) too, as any other digit run")
        p.add_argument("--sets", default=DEFAULT_SETS,
                       help=f"comma-separated labelled set dirs, relative to the repo root (default {DEFAULT_SETS})")
        p.add_argument("--text", choices=("raw", "content"), default="raw",
                       help="raw: the line as written (default); content: the CSV's Content column")
    args = ap.parse_args(argv)
    sys.stdout.reconfigure(encoding="utf-8", errors="surrogateescape", newline="\n")
    dirs = [d for d in args.sets.split(",") if d]
    systems = load_sets(dirs, args.text)
    if args.mode == "stream":
        if args.n < 0:
            ap.error("N must be >= 0")
        if args.zipf < 0:
            ap.error("--zipf must be >= 0")
        global KEEP_SOURCE_LINES
        KEEP_SOURCE_LINES = not args.fresh_source_lines
        n, events = stream(systems, args.n, args.seed, args.zipf)
        print(f"gen_real_stream: stream lines={n} events={events} systems={len(systems)} seed={args.seed} "
              f"zipf={args.zipf:g} text={args.text} sets={','.join(dirs)}", file=sys.stderr)
    else:
        n, events = first_sight(systems)
        print(f"gen_real_stream: first-sight lines={n} events={events} systems={len(systems)} seed=- zipf=- "
              f"text={args.text} sets={','.join(dirs)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # e.g. | head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
