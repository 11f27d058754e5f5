#!/usr/bin/python3
"""A trace-heavy benchmark stream: real multi-line events (stack traces) mixed with real single lines.

Usage:
    bench/gen_trace_stream.py N SEED [--set models/events/dev] [--trace-share 0.65] [--events-only]
                                     [--truth FILE] > stream.txt

Why: logsift assembles the lines of one stack trace (JVM, CPython, Node/V8, Go, Ruby), sent by a
shipper line by line, into one event. The other stream generators (gen_real_stream.py, gen_corpus.py)
have no continuation lines at all; this one measures throughput when most lines are trace lines.

Input: a labelled events set made by real programs (models/events/README.md), by default the dev set.
Its five runtime systems (JavaOrders, PythonBilling, NodeGateway, GoCache, RubyJobs) give the multi-line
events (faults: a head line and its trace, as the runtime wrote them) and those programs' own single
lines; its Mixed system adds the real single lines of the ten models/tuning programs it holds. An event
is the set's Event column: all of its lines, whole and contiguous, in their order.

Output: N lines (the last event may be cut at N). Each step draws a multi-line event (uniformly among the
set's fault occurrences, so frequent faults stay frequent) with probability p, else a single line
(uniformly among the set's single lines); p is chosen from the set's mean event length so that about
--trace-share (default 0.65) of the lines are lines of multi-line events (head lines included).
--events-only emits multi-line events only. Every run of ASCII digits is re-drawn as in
bench/gen_real_stream.py (same length, valid timestamps and IPv4 octets, zone offsets kept, source line
numbers kept: App.java:88, main.go:241, worker.rb:22, and, added here, Python's `line 53,`, Node's
file.js:LINE:COLUMN and node:internal/...:LINE:COLUMN; the deployment roots /srv/app-1.4.2 and
/opt/releases/20261128 and the runtimes' install paths (/usr/lib/go-1.19, /usr/lib/python3.11,
/usr/lib/ruby/3.1.0, "Node.js v20...") kept too), line by line: ids, goroutine and thread numbers,
addresses, `... N more` counts, GeneratedMethodAccessorNN and the like are fresh on every line, while
the words and the shape of every trace are real. Values are not kept consistent between the lines of one
event (the head's order id and the exception message's differ): this is a throughput input, not a
labelled set. Deterministic for (N, SEED, set, options); the stream for N is a prefix of the stream for
any larger N (same options); written as it is made.

--truth FILE writes one row per emitted line, "line<TAB>event<TAB>EventId" (1-based line and event
numbers; the EventId of the set), for checking an assembler on the stream.

A one-line summary (lines, events, trace share, seed) goes to stderr.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import gen_real_stream as grs  # noqa: E402  (plan / render: the digit re-drawing of the real stream)

DEFAULT_SET = "models/events/dev"
RUNTIME_SYSTEMS = ("JavaOrders", "PythonBilling", "NodeGateway", "GoCache", "RubyJobs")

# Source positions of the trace formats that gen_real_stream's file.ext:LINE shape does not cover.
_EXTRA_SHAPES = [
    (re.compile(r'File "[^"]*", line (\d+)(?!\d)', re.A), ["keep"]),                  # CPython
    (re.compile(r"\.(?:js|mjs|cjs):\d+:(\d+)(?!\d)", re.A), ["keep"]),                  # file.js:12:(5)
    (re.compile(r"\bnode:[\w/.-]+:(\d+)(?::(\d+))?(?!\d)", re.A), ["keep", "keep"]),    # node:internal/x:95:5
]
grs._SHAPES = grs._SHAPES[:1] + _EXTRA_SHAPES + grs._SHAPES[1:]

# Digits that stay as they are: the two deployment roots and the runtimes' install paths (one host, one
# deployment per process: they do not change from line to line).
_STABLE = re.compile(r"/srv/app-\d+\.\d+\.\d+|/opt/releases/\d+|/usr/lib/go-\d+\.\d+|/usr/lib/python\d\.\d+"
                     r"|/usr/lib/ruby/\d+\.\d+\.\d+|Node\.js v\d+\.\d+\.\d+", re.A)
_HOLE = re.compile("\x01([A-Z])\x01")


def plan(line: str):
    """gen_real_stream.plan, with the _STABLE parts of the line kept as they are."""
    keep = _STABLE.findall(line)
    if not keep or len(keep) > 26 or "\x01" in line:
        return grs.plan(line)
    it = iter(range(len(keep)))
    p = grs.plan(_STABLE.sub(lambda m: "\x01%s\x01" % chr(65 + next(it)), line))
    for k in range(0, len(p), 2):  # literals at the even positions
        p[k] = _HOLE.sub(lambda m: keep[ord(m.group(1)) - 65], p[k])
    return p

csv.field_size_limit(1 << 30)


def load(set_dir: str):
    """(multi, singles): multi = [(event_id, [plan, ...])], singles = [(event_id, plan)]."""
    base = Path(set_dir) if os.path.isabs(set_dir) or Path(set_dir).exists() else ROOT / set_dir
    if not (base / "datasets.json").is_file():
        sys.exit(f"gen_trace_stream: {base}: no datasets.json (an events set such as models/events/dev)")
    with open(base / "datasets.json", encoding="utf-8") as f:
        index = json.load(f)
    multi, singles = [], []
    for name in sorted(index):
        if name not in RUNTIME_SYSTEMS and name != "Mixed":
            continue
        with open(base / index[name]["truth"], newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        events: dict[str, list] = {}
        for r in rows:
            events.setdefault(r["Event"], []).append(r)
        for ev in events.values():
            eid = ev[0]["EventId"]
            if name == "Mixed":
                # only the tuning programs' lines: the runtimes' events come from their own systems
                if eid.split(":", 1)[0] in RUNTIME_SYSTEMS:
                    continue
            if len(ev) == 1:
                singles.append((eid, ev[0]["Content"]))
            else:
                multi.append((eid, [r["Content"] for r in ev]))
    if not multi or not singles:
        sys.exit(f"gen_trace_stream: {base}: no multi-line events or no single lines")
    return multi, singles


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", type=int, help="number of lines")
    ap.add_argument("seed", type=int, help="random seed")
    ap.add_argument("--set", default=DEFAULT_SET, help=f"events set directory (default {DEFAULT_SET})")
    ap.add_argument("--trace-share", type=float, default=0.65,
                    help="target share of lines that belong to multi-line events (default 0.65)")
    ap.add_argument("--events-only", action="store_true", help="multi-line events only (no single lines)")
    ap.add_argument("--truth", default="", help="write line<TAB>event<TAB>EventId rows to this file")
    args = ap.parse_args(argv)
    if args.n < 0:
        ap.error("N must be >= 0")
    if not 0.0 < args.trace_share < 1.0:
        ap.error("--trace-share must be in (0, 1)")
    sys.stdout.reconfigure(encoding="utf-8", errors="surrogateescape", newline="\n")

    multi, singles = load(args.set)
    mean_len = sum(len(lines) for _, lines in multi) / len(multi)
    x = args.trace_share
    p = 1.0 if args.events_only else x / (mean_len * (1.0 - x) + x)
    multi_plans = [None] * len(multi)   # plans made on first use
    single_plans = [None] * len(singles)

    rng = random.Random(args.seed)
    rnd = rng.random
    out = sys.stdout
    truth = open(args.truth, "w", encoding="utf-8") if args.truth else None
    buf, tbuf = [], []
    emitted = events = trace_lines = 0
    while emitted < args.n:
        events += 1
        if rnd() < p:
            k = int(rnd() * len(multi))
            if multi_plans[k] is None:
                multi_plans[k] = [plan(line) for line in multi[k][1]]
            eid, plans = multi[k][0], multi_plans[k]
            is_trace = True
        else:
            k = int(rnd() * len(singles))
            if single_plans[k] is None:
                single_plans[k] = [plan(singles[k][1])]
            eid, plans = singles[k][0], single_plans[k]
            is_trace = False
        for pl in plans:
            if emitted >= args.n:
                break
            buf.append(grs.render(pl, rnd))
            emitted += 1
            trace_lines += is_trace
            if truth:
                tbuf.append(f"{emitted}\t{events}\t{eid}\n")
        if len(buf) >= 10000:
            buf.append("")
            out.write("\n".join(buf))
            buf.clear()
            if truth:
                truth.write("".join(tbuf))
                tbuf.clear()
    if buf:
        buf.append("")
        out.write("\n".join(buf))
    out.flush()
    if truth:
        truth.write("".join(tbuf))
        truth.close()
    print(f"gen_trace_stream: lines={emitted} events={events} trace_share={trace_lines / max(1, emitted):.3f} "
          f"seed={args.seed} set={args.set}{' events-only' if args.events_only else ''} "
          f"(pool: {len(multi)} multi-line events, {len(singles)} single lines)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # e.g. | head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
