#!/usr/bin/python3
"""Mask-ceiling probe: how much of a labelled set's loss is the masking
(which words become <*>), and which words a model leaves in or takes out.

    /usr/bin/python3 models/probes/mask_ceiling_probe.py DIR [--bin build/logsift] [--min-ceiling X]
        [-- logsift eval options, e.g. --encoder-model M]

DIR is any directory `logsift eval` reads (a datasets.json naming each set's
structured csv with Content and EventTemplate columns).

1. The ceiling. A copy of DIR whose Content is each line's own true template
   (its values already `<*>`) is scored by `logsift eval`: the GA the shipped
   pipeline would reach if its masking were perfect. The gap between the
   ceiling and the real GA is the masking's (denoiser and slot rules); the
   gap between the ceiling and 1.0 is the encoder's (two events whose
   templates it gives one code) and the labels' (events that differ only in
   punctuation, which the encoder ignores by design).
2. The words. Each line's word tokens (blank-separated, outer punctuation
   stripped) are aligned with the true template and with the pipeline's
   template (`logsift cluster`), each template read as a regex of its
   literals with `<*>` as a lazy gap. A token is a value in a template when
   it overlaps a gap. Counted by shape: under-masked (a value the pipeline
   kept) and over-masked (a constant the pipeline masked), per set, with
   examples.

It measures; it trains nothing. With --min-ceiling the exit status is 1 when
the ceiling's average GA(tmpl) is below X (ctest mask_ceiling_probe).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "models", "training"))
from loghub import find_logsift, labelled_rows, write_labelled_set  # noqa: E402

SHAPES = [  # first match wins
    ("digits", re.compile(r".*\d.*")),
    ("lower", re.compile(r"[a-z]+")),
    ("Capitalized", re.compile(r"[A-Z][a-z]+")),
    ("UPPER", re.compile(r"[A-Z]+")),
    ("joined", re.compile(r"[A-Za-z]+([._-][A-Za-z]+)+")),
    ("CamelCase", re.compile(r"[A-Z]?[a-z]+([A-Z][a-z]+)+")),
]


def shape(word: str) -> str:
    for name, rx in SHAPES:
        if rx.fullmatch(word):
            return name
    return "other"


def value_spans(template: str, content: str):
    """The character spans of content that the template's <*> gaps cover, or None."""
    parts = template.split("<*>")
    rx = "^" + "(.*?)".join(re.escape(p) for p in parts) + "$"
    m = re.match(rx, content, re.S)
    if not m:
        return None
    return [m.span(i) for i in range(1, len(parts)) if m.end(i) > m.start(i)]


def eval_json(binary: str, root: str, extra: list[str]) -> dict:
    res = subprocess.run([binary, "eval", root, "--json", "--explain", "0"] + extra,
                         capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def aligned_lines(binary: str, sets, extra: list[str]):
    """Each labelled line's blank-separated tokens, aligned with the true template and the pipeline's
    (`logsift cluster`): yields (set name, [(token, a value in the truth?, a value in ours?)]), or
    (set name, None) for a line that one of the two templates does not align with."""
    for name, rows in sets.items():
        res = subprocess.run([binary, "cluster", "-"] + extra, input="\n".join(r["Content"] for r in rows) + "\n",
                             capture_output=True, text=True, check=True)
        for r, o in zip(rows, res.stdout.splitlines()):
            content = r["Content"]
            truth = value_spans(r["EventTemplate"], content)
            ours = value_spans(json.loads(o).get("template", ""), content)
            if truth is None or ours is None:
                yield name, None
                continue
            tokens = []
            for m in re.finditer(r"\S+", content):
                a, b = m.span()
                tokens.append((m.group(), any(s < b and e > a for s, e in truth), any(s < b and e > a for s, e in ours)))
            yield name, tokens


def word_counts(binary: str, sets, extra: list[str], examples: int):
    under, over = collections.Counter(), collections.Counter()
    ex = collections.defaultdict(list)
    total = collections.Counter()
    for name, tokens in aligned_lines(binary, sets, extra):
        if tokens is None:
            total["unaligned lines"] += 1
            continue
        total["aligned lines"] += 1
        for token, tv, ov in tokens:
            word = token.strip(".,:;()[]{}<>\"'")
            if not word:
                continue
            total["words"] += 1
            key = (name, shape(word))
            if tv and not ov:
                under[key] += 1
                if len(ex[("u",) + key]) < examples and word not in ex[("u",) + key]:
                    ex[("u",) + key].append(word)
            elif ov and not tv:
                over[key] += 1
                if len(ex[("o",) + key]) < examples and word not in ex[("o",) + key]:
                    ex[("o",) + key].append(word)
    return under, over, ex, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--bin", default=find_logsift() or os.path.join(REPO, "build", "logsift"))
    ap.add_argument("--top", type=int, default=15, help="(set, shape) rows listed per direction")
    ap.add_argument("--examples", type=int, default=5)
    ap.add_argument("--min-ceiling", type=float, default=0.0)
    ap.add_argument("extra", nargs="*", help="options passed to logsift eval and cluster (after --)")
    args = ap.parse_args()
    sets = labelled_rows(args.dir)

    real = eval_json(args.bin, args.dir, args.extra)
    with tempfile.TemporaryDirectory(prefix="mask_ceiling.") as tmp:
        # Each line's content is its own true template (its values already <*>).
        write_labelled_set(tmp, {name: [(r["EventTemplate"], r["EventTemplate"]) for r in rows]
                                 for name, rows in sets.items()})
        ceil = eval_json(args.bin, tmp, args.extra)
    print("%-14s %7s %9s   %7s %9s" % ("set", "GA", "GA(tmpl)", "ceiling", "(tmpl)"))
    for name in sets:
        r, c = real["datasets"][name], ceil["datasets"][name]
        print("%-14s %7.4f %9.4f   %7.4f %9.4f" % (name, r["ga"], r["ga_template"], c["ga"], c["ga_template"]))
    print("%-14s %7.4f %9.4f   %7.4f %9.4f" % ("average", real["avg_ga"], real["avg_ga_template"],
                                               ceil["avg_ga"], ceil["avg_ga_template"]))

    under, over, ex, total = word_counts(args.bin, sets, args.extra, args.examples)
    print("\nwords: %d in %d aligned lines (%d lines not aligned)" % (
        total["words"], total["aligned lines"], total["unaligned lines"]))
    for label, cnt, tag in (("under-masked (a value the pipeline kept)", under, "u"),
                            ("over-masked (a constant the pipeline masked)", over, "o")):
        by_shape = collections.Counter()
        for (_, sh), n in cnt.items():
            by_shape[sh] += n
        print("%s: %d; by shape: %s" % (label, sum(cnt.values()),
                                       ", ".join("%s %d" % kv for kv in by_shape.most_common())))
        for (name, sh), n in cnt.most_common(args.top):
            print("  %-12s %-11s %6d  e.g. %s" % (name, sh, n, " ".join(ex[(tag, name, sh)])))
    if ceil["avg_ga_template"] < args.min_ceiling:
        print("ceiling GA(tmpl) %.4f < %.4f" % (ceil["avg_ga_template"], args.min_ceiling), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
