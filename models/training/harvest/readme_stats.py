#!/usr/bin/python3
"""Refresh the generated sections of README.md from stats.json and a fixed
render sample (between the ``<!-- BEGIN x -->`` / ``<!-- END x -->`` markers)."""

from __future__ import annotations

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import render  # noqa: E402

README = os.path.join(HERE, "README.md")


def _table(rows, head) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(str(x) for x in r) + " |")
    return "\n".join(out)


def stats_md(st: dict) -> str:
    parts = ["**%d templates** from **%d packages** (Debian + npm; %d distinct binaries / modules / jars / source "
             "files, %d package families); templates.jsonl is %.1f MB." % (
                 st["templates"], st["packages"], st["programs"], st["families"], st["size_bytes"] / 1e6)]
    parts.append("\nPer language:\n\n" + _table(sorted(st["by_lang"].items(), key=lambda x: -x[1]), ("lang", "templates")))
    parts.append("\nPer language / kind:\n\n" + _table(st["by_lang_kind"].items(), ("lang/kind", "templates")))
    parts.append("\nTop 30 package families:\n\n" + _table(st["top_families"], ("family", "templates")))
    parts.append("\nSlot types (placeholders in fmt plus kv values):\n\n" + _table(st["slot_types"], ("slot", "count")))
    parts.append("\nInference rules that fired (per slot):\n\n" + _table(st["rules"][:45], ("rule", "count")))
    parts.append("\nDropped while merging: " + ", ".join("%s %d" % kv for kv in sorted(st["drops"].items())))
    return "\n".join(parts)


def samples_md(n: int = 30, seed: int = 2024) -> str:
    lines = ["`generate(%d, seed=%d)`; variables shown as `[[text|type]]`:" % (n, seed), "", "```"]
    for line, spans, tid in render.generate(n, seed):
        lines.append(render.mark(line, spans))
    lines.append("```")
    return "\n".join(lines)


def replace(text: str, name: str, body: str) -> str:
    rx = re.compile(r"(<!-- BEGIN %s -->\n).*?(\n<!-- END %s -->)" % (name, name), re.S)
    if not rx.search(text):
        return text
    return rx.sub(lambda m: m.group(1) + body + m.group(2), text)


def main() -> int:
    with open(os.path.join(HERE, "stats.json"), encoding="utf-8") as f:
        st = json.load(f)
    if not os.path.exists(README):
        return 0
    with open(README, encoding="utf-8") as f:
        text = f.read()
    text = replace(text, "STATS", stats_md(st))
    text = replace(text, "SAMPLES", samples_md())
    with open(README, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
