#!/usr/bin/python3
"""WordNet probe: do a word's parts of speech tell a value from a constant?

    apt-get install wordnet-base      # Debian's WordNet database; the probe only
    /usr/bin/python3 models/probes/wordnet_probe.py DIR [--bin build/logsift] [--rewrite]

The values the pipeline keeps on programs it has not seen are mostly ordinary
words (models/README.md, "Where the loss is"). The only word knowledge in
Debian's archive that a stateless rule could use is WordNet: for each English
word, whether it is a noun, verb, adjective or adverb. This probe asks whether
that separates the two kinds of word the pipeline keeps.

1. The table. Every alphabetic word token of DIR (blank-separated, outer
   punctuation stripped) is aligned with the true template and with the
   pipeline's template (`logsift cluster`) by mask_ceiling_probe.aligned_lines, and
   counted by kind (a value the pipeline kept or masked, a constant it kept or
   masked), by case (all lower-case or not), and by WordNet class: not in
   WordNet, noun only, verb but not noun, adjective only, or a mix. A class is
   a usable signal only if "value kept" and "constant kept" differ in it.
2. --rewrite RULE: the one class that differs (a word that is not all
   lower-case and that WordNet does not know) as a rule. A copy of DIR whose
   Content has every such word of 3+ letters after the line's first word
   replaced by <*> (which the pipeline keeps as a value) is scored by
   `logsift eval` beside DIR itself. RULE "capitalized" takes only words
   like `Mateo`; "other-case" also takes UPPER and CamelCase words.

It measures; it trains nothing and changes no id.
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "models", "training"))
sys.path.insert(0, HERE)
from loghub import find_logsift, labelled_rows, write_labelled_set  # noqa: E402
from mask_ceiling_probe import aligned_lines, eval_json  # noqa: E402

WORDNET = "/usr/share/wordnet"
KINDS = ("value kept", "value masked", "constant kept", "constant masked")
SUFFIXES = (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"))


def load_wordnet(root: str) -> dict[str, set[str]]:
    pos: dict[str, set[str]] = collections.defaultdict(set)
    for tag, name in (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")):
        with open(os.path.join(root, "index." + name), errors="replace") as f:
            for line in f:
                if not line.startswith(" "):
                    pos[line.split(" ", 1)[0]].add(tag)
        with open(os.path.join(root, name + ".exc"), errors="replace") as f:  # irregular forms
            for line in f:
                w = line.split()
                if len(w) >= 2:
                    pos[w[0]].add(tag)
    return pos


def word_class(pos: dict[str, set[str]], word: str) -> str:
    w = word.lower()
    tags = pos.get(w)
    if not tags:
        for suf, rep in SUFFIXES:
            if w.endswith(suf) and (w[: -len(suf)] + rep) in pos:
                tags = pos[w[: -len(suf)] + rep]
                break
    if not tags:
        return "not in WordNet"
    if tags == {"n"}:
        return "noun only"
    if "n" not in tags and "v" in tags:
        return "verb, not noun"
    if tags == {"a"}:
        return "adjective only"
    return "mixed " + "".join(sorted(tags))


def table(binary: str, sets, pos) -> None:
    counts, totals = collections.Counter(), collections.Counter()
    for _, tokens in aligned_lines(binary, sets, []):
        for token, tv, ov in tokens or []:
            word = token.strip(".,:;()[]{}<>\"'=")
            if not re.fullmatch(r"[A-Za-z]+", word):
                continue
            kind = KINDS[(0 if tv else 2) + (1 if ov else 0)]
            case = "lower-case" if word.islower() else "other case"
            counts[(case, word_class(pos, word), kind)] += 1
            totals[(case, kind)] += 1
    for case in ("lower-case", "other case"):
        print("\n%s words (share of each kind's column)" % case)
        print("%-16s" % "WordNet class" + "".join("%18s" % k for k in KINDS))
        for cls in sorted({c for (cs, c, _) in counts if cs == case}):
            print("%-16s" % cls + "".join("%10d %5.1f%%" % (counts[(case, cls, k)],
                                                         100.0 * counts[(case, cls, k)] / max(1, totals[(case, k)]))
                                         for k in KINDS))


def rewrite(binary: str, root: str, sets, pos, rule: str) -> None:
    shape = re.compile(r"[A-Z][a-z]{2,}" if rule == "capitalized" else r"[A-Za-z]{3,}")

    def masked(content: str) -> str:
        out, first = [], True
        for tok in re.split(r"(\s+)", content):
            core = tok.strip(".,:;()[]{}<>\"'=")
            if (not first and core and shape.fullmatch(core) and not core.islower()
                    and word_class(pos, core) == "not in WordNet"):
                tok = tok.replace(core, "<*>", 1)
            if tok.strip():
                first = False
            out.append(tok)
        return "".join(out)

    base = eval_json(binary, root, [])
    with tempfile.TemporaryDirectory(prefix="wordnet_probe.") as tmp:
        write_labelled_set(tmp, {name: [(masked(r["Content"]), r["EventTemplate"]) for r in rows]
                                 for name, rows in sets.items()})
        scored = eval_json(binary, tmp, [])
    print("\n%-14s %8s %8s   (rule: %s words not in WordNet -> <*>)" % ("set", "GA", "rule", rule))
    for name in sets:
        print("%-14s %8.4f %8.4f" % (name, base["datasets"][name]["ga"], scored["datasets"][name]["ga"]))
    print("%-14s %8.4f %8.4f" % ("average", base["avg_ga"], scored["avg_ga"]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--bin", default=find_logsift() or os.path.join(REPO, "build", "logsift"))
    ap.add_argument("--wordnet", default=WORDNET, help="WordNet's dict directory (Debian: wordnet-base)")
    ap.add_argument("--rewrite", choices=("capitalized", "other-case"), help="also score this rule")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.wordnet, "index.noun")):
        print("no WordNet database in %s: apt-get install wordnet-base" % args.wordnet, file=sys.stderr)
        return 2
    pos = load_wordnet(args.wordnet)
    sets = labelled_rows(args.dir)
    table(args.bin, sets, pos)
    if args.rewrite:
        rewrite(args.bin, args.dir, sets, pos, args.rewrite)
    return 0


if __name__ == "__main__":
    sys.exit(main())
