#!/usr/bin/python3
"""Layout probe: does a log statement keep its id whatever text layout wrote
it?

    /usr/bin/python3 models/probes/layout_probe.py --out DIR [--loghub ../shared/data/loghub-2k]
        [--bin build/logsift --min-ga G] [-- extra logsift flags]

Writes DIR in the layout `logsift eval` reads: every Content line of the
loghub-2k sets in ../shared behind the header of one of the six layouts of
bench/gen_layouts_corpus.py (spdlog, gunicorn, Rust's env_logger, Ruby's
Logger, PHP's Monolog, Go's log package). As in a real program, the layout,
the level and the logger name are fixed per event (by a hash of the set and
the event's template); the date, the milliseconds and the pid vary per line
(seed 11). The truth is the set's own EventTemplate, so GA on DIR against GA
on the bare loghub-2k sets is what reading the headers keeps or loses. The
models saw these messages (in-sample): the probe measures the headers only.

With --bin it runs `logsift eval DIR` and exits 1 if the average GA is below
--min-ga (77 if there is no loghub data: ctest counts it as skipped).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def _layouts():
    spec = importlib.util.spec_from_file_location("gen_layouts_corpus",
                                                  os.path.join(ROOT, "bench", "gen_layouts_corpus.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write(out: str, loghub: str, seed: int = 11) -> None:
    g = _layouts()
    sets = json.load(open(os.path.join(loghub, "datasets.json")))
    rng = random.Random(seed)
    meta = {}
    for name, info in sorted(sets.items()):
        os.makedirs(os.path.join(out, name), exist_ok=True)
        rows = list(csv.DictReader(open(os.path.join(loghub, info["truth"]), encoding="utf-8")))
        with open(os.path.join(out, name, name + ".csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=["Content", "EventTemplate"])
            w.writeheader()
            for row in rows:
                ev = row["EventTemplate"]
                h = zlib.crc32((name + ev).encode())
                head, tail = g.header(h % g.LAYOUTS, random.Random(h))  # layout, level, logger: the event's
                # date, time, milliseconds and pid: the line's
                head = re.sub(r"\d{2}:\d{2}:\d{2}", "%02d:%02d:%02d" % (rng.randint(0, 23), rng.randint(0, 59),
                                                                     rng.randint(0, 59)), head)
                head = re.sub(r"-\d{2}([ T])", "-%02d\\1" % rng.randint(1, 28), head, count=1)
                head = re.sub(r"/\d{2} ", "/%02d " % rng.randint(1, 28), head, count=1)
                head = re.sub(r"#\d+", "#%d" % rng.randint(1, 99999), head)
                head = re.sub(r"\] \[\d+\] \[", "] [%d] [" % rng.randint(1, 99999), head)
                head = re.sub(r"\.\d{3}([\]Z])", lambda m: ".%03d%s" % (rng.randint(0, 999), m.group(1)), head)
                head = re.sub(r"\.go:\d+", ".go:%d" % (h % 900 + 10), head)  # a statement's caller is its own
                w.writerow({"Content": head + row["Content"] + tail, "EventTemplate": ev})
        meta[name] = {"truth": name + "/" + name + ".csv"}
    with open(os.path.join(out, "datasets.json"), "w") as f:
        json.dump(meta, f, indent=1)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    extra: list[str] = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--loghub", default=os.path.join(ROOT, "..", "shared", "data", "loghub-2k"))
    ap.add_argument("--bin")
    ap.add_argument("--min-ga", type=float, default=0.0)
    a = ap.parse_args(argv)
    if not os.path.exists(os.path.join(a.loghub, "datasets.json")):
        print(f"no loghub data at {a.loghub}: skipped")
        return 77  # ctest's SKIP_RETURN_CODE
    write(a.out, a.loghub)
    if not a.bin:
        return 0
    p = subprocess.run([a.bin, "eval", a.out, "--json", "--explain", "0", *extra], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr, file=sys.stderr)
        return 1
    res = json.loads(p.stdout)
    for name, d in sorted(res["datasets"].items()):
        print(f"{name:10s} GA {d['ga']:.4f}  ids {d['clusters']:5d}  events {d['events']:4d}")
    print(f"average GA {res['avg_ga']:.4f} (min {a.min_ga})")
    return 0 if res["avg_ga"] >= a.min_ga else 1


if __name__ == "__main__":
    sys.exit(main())
