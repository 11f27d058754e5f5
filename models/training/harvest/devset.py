#!/usr/bin/python3
"""A labelled dev set from the harvested templates, in the loghub layout that
`logsift eval` reads: one set per line format, each line labelled by the
template (the log statement) that rendered it.

    /usr/bin/python3 models/training/harvest/devset.py --out /tmp/harvest-dev
    build/logsift eval /tmp/harvest-dev

It is a second signal beside models/validation that can be looked at
freely: the templates are real message formats of real software, the
values are render.py's. Nothing here is trained on by default; it measures
pipeline-level changes (the canonical form, the LSH) on software shapes the
nine loghub sets do not have. Deterministic in (--seed, --templates, --renders).

Labels: EventId is the harvested template (one log statement); the
EventTemplate of every line of an event is the first line's, with render.py's
spans as <*>. In the formats other than "plain" render.py varies the header
layout from line to line (RFC 3164 or 5424 syslog, "ts" or "time" in logfmt),
so those lines of one event differ in more than their values: a real stream
keeps one layout, which makes these sets harder than real logs. Render.py's
typed slots also make strerror texts ("%m") and quoted values variables,
where loghub's BGL labels keep errno texts constant.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402

STYLES = ("plain", "syslog", "logfmt", "json", "klog", "app")


def build(out_dir: str, seed: int, n_templates: int, renders: int, ids: set | None = None) -> dict:
    """Writes the sets; adds the harvested template ids it used to ``ids``."""
    tpls = render.load_templates()
    index = {}
    for k, style in enumerate(STYLES + ("access",)):
        rng = random.Random(seed * 1000 + k)
        rows = []
        if style == "access":
            for a, kind in enumerate(render.ACCESS_FORMATS):
                first = None
                for _ in range(renders * 10):
                    line, spans = render.render_access(kind, rng)
                    first = first or render.masked(line, spans)
                    rows.append((line, "A%d" % a, first))
        else:
            chosen = rng.sample(range(len(tpls)), n_templates)
            if ids is not None:
                ids.update(tpls[tid].id for tid in chosen)
            for tid in chosen:
                first = None
                for _ in range(renders):
                    line, spans = render.render(tpls[tid], rng, style)
                    first = first or render.masked(line, spans)
                    rows.append((line, "T%d" % tpls[tid].id, first))
        rng.shuffle(rows)
        name = "H-" + style
        os.makedirs(os.path.join(out_dir, name), exist_ok=True)
        rel = os.path.join(name, name + ".log_structured.csv")
        with open(os.path.join(out_dir, rel), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["LineId", "Content", "EventId", "EventTemplate"])
            for i, (line, ev, tmpl) in enumerate(rows, 1):
                w.writerow([i, line, ev, tmpl])
        index[name] = {"truth": rel, "format": style}
    with open(os.path.join(out_dir, "datasets.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
    return index


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--templates", type=int, default=150, help="templates per format")
    ap.add_argument("--renders", type=int, default=8, help="lines per template")
    ap.add_argument("--ids-out", default="",
                    help="write the harvested template ids used here, one a line (train.py --harvest-exclude-ids)")
    a = ap.parse_args()
    ids: set = set()
    idx = build(a.out, a.seed, a.templates, a.renders, ids)
    if a.ids_out:
        with open(a.ids_out, "w", encoding="utf-8") as f:
            f.write("".join("%d\n" % i for i in sorted(ids)))
    print("wrote %d sets to %s" % (len(idx), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
