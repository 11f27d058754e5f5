#!/usr/bin/python3
"""Merge the per-language harvests ($HARVEST_DIR/out/*.jsonl) into
templates.jsonl: validate, re-check exclusions, deduplicate, balance per
package, sort deterministically, and write stats.json.

Selection: within one Debian package, records are ranked by kind (key-value
call sites first, then formatted log calls, exception messages, plain
messages, error constructors) and then by a CRC of the template (stable,
pseudo-random), and at most ``cap(package)`` are kept, so that a few huge
code bases (samba, qemu, the kernel) do not drown the breadth.
"""

from __future__ import annotations

import collections
import json
import os
import re
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import render  # noqa: E402

OUT = os.path.join(common.HERE, "templates.jsonl")
STATS = os.path.join(common.HERE, "stats.json")
INPUTS = ("kernel", "c", "go", "java", "python", "js")

KIND_RANK = {"kv": 0, "printf": 1, "brace": 1, "fstring": 1, "msgformat": 1, "concat": 1, "printk": 1,
             "dev_printk": 1, "exception": 2, "plain": 3, "printk_plain": 3, "dev_printk_plain": 4, "errorf": 3,
             "error_new": 5}
# Template budgets per (section, class of kinds); within one class the
# packages share the budget by water-filling (every package keeps
# min(n, level) templates), so small packages keep all of theirs and the big
# ones are cut to the same level.  None = keep all.  Classes:
#   kv     structured call sites (message + typed keys)
#   log    formatted / plain messages of known logging calls (or, for C and
#          the kernel, any printf-shaped message)
#   exc    exception messages (Java/Python) -> stack-trace heads
#   other  error constructors (Go fmt.Errorf, errors.New), plain strings
CLASS_OF = {"kv": "kv", "printf": "log", "brace": "log", "fstring": "log", "msgformat": "log", "concat": "log",
            "printk": "log", "dev_printk": "log", "plain": "other", "printk_plain": "other",
            "dev_printk_plain": "other", "exception": "exc", "errorf": "other", "error_new": "other"}
BUDGET = {
    ("kernel", "log"): 3800, ("kernel", "other"): 700,
    ("c", "log"): 13000, ("c", "other"): 1500,
    ("go", "kv"): None, ("go", "log"): 3300, ("go", "other"): 2300,
    ("java", "kv"): None, ("java", "log"): 3800, ("java", "exc"): 1900, ("java", "other"): 300,
    ("python", "kv"): None, ("python", "log"): 3600, ("python", "exc"): 1800, ("python", "other"): 300,
    ("js", "kv"): None, ("js", "log"): 1500, ("js", "exc"): 300, ("js", "other"): 200,
}
MAX_FMT = 300


def family(pkg: str) -> str:
    p = pkg
    p = re.sub(r"^(golang-github-|golang-gopkg-|golang-golang-x-|golang-google-|golang-k8s-|golang-|python3-|node-)", "", p)
    p = re.sub(r"(-dev|-java|-common|-bin|-core|-daemon|-server|-client|-utils|-tools|-libs)+$", "", p)
    p = re.sub(r"^lib(?=[a-z])", "", p) if not p.startswith("libvirt") else p[3:]
    p = re.sub(r"\d+(\.\d+)*(-\d.*)?$", "", p).rstrip("-.") or pkg
    return re.split(r"[-.]", p)[0] or p


def _water_level(sizes: dict[str, int], budget: int) -> int:
    """Largest per-package cap L with sum(min(n, L)) <= budget."""
    if sum(sizes.values()) <= budget:
        return max(sizes.values(), default=0)
    lo, hi = 0, max(sizes.values())
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(min(n, mid) for n in sizes.values()) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _order_within_package(rs: list[dict], rank) -> list[dict]:
    """Best kinds first; within a kind, round-robin over the package's programs
    (binaries, modules, jars, source files) so one program cannot fill the cap."""
    groups: dict[str, list[dict]] = collections.defaultdict(list)
    for r in sorted(rs, key=rank):
        groups[r["source"].partition(":")[2].split("!")[0]].append(r)
    keyed = []
    for prog, g in groups.items():
        seen_rank: collections.Counter = collections.Counter()
        for r in g:
            k = KIND_RANK.get(r["kind"], 6)
            keyed.append(((min(k, 3), seen_rank[min(k, 3)], rank(r)), r))
            seen_rank[min(k, 3)] += 1
    keyed.sort(key=lambda x: x[0])
    return [r for _, r in keyed]


def _has_word(fmt: str) -> bool:
    return bool(re.search(r"[A-Za-z]{2,}", common.constant_text(fmt)))


def main() -> int:
    recs = []
    for name in INPUTS:
        p = os.path.join(common.OUT_DIR, name + ".jsonl")
        if not os.path.exists(p):
            continue
        with open(p, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                r["_section"] = name
                recs.append(r)
    drops = collections.Counter()
    by_pkg: dict[str, list[dict]] = collections.defaultdict(list)
    for r in recs:
        pkg, _, path = r["source"].partition(":")
        if common.is_excluded_pkg(pkg) or common.is_excluded_path(path):
            drops["excluded_source"] += 1
            continue
        if common.EXCLUDED_TEXT_RE.search(r["raw"]):
            drops["excluded_text"] += 1
            continue
        if len(r["fmt"]) > MAX_FMT or not _has_word(r["fmt"]):
            drops["long_or_no_word"] += 1
            continue
        try:
            render.compile_template(0, r)
        except ValueError:
            drops["invalid_template"] += 1
            continue
        by_pkg[pkg].append(r)

    # global dedup by (fmt, kv keys): the best-ranked record wins, ties by source
    def rank(r):
        return (KIND_RANK.get(r["kind"], 6), zlib.crc32(r["fmt"].encode("utf-8")), r["source"])

    best: dict[tuple, dict] = {}
    for pkg in sorted(by_pkg):
        for r in by_pkg[pkg]:
            key = (r["fmt"], tuple(k for k, _ in r.get("kv", []) or []))
            cur = best.get(key)
            if cur is None or rank(r) < rank(cur):
                best[key] = r
    survivors: dict[str, list[dict]] = collections.defaultdict(list)
    for r in best.values():
        survivors[r["source"].partition(":")[0]].append(r)
    drops["duplicate"] = sum(len(v) for v in by_pkg.values()) - len(best)

    chosen = []
    # (section, class) -> package -> ordered records
    pools: dict[tuple[str, str], dict[str, list[dict]]] = collections.defaultdict(lambda: collections.defaultdict(list))
    for pkg in sorted(survivors):
        for r in survivors[pkg]:
            cls = CLASS_OF.get(r["kind"], "other")
            if r["kind"] == "plain" and r.get("level"):
                cls = "log"  # a literal passed to a logger call
            pools[(r["_section"], cls)][pkg].append(r)
    for key in sorted(pools):
        pk = {p: _order_within_package(v, rank) for p, v in pools[key].items()}
        budget = BUDGET.get(key, 500)
        if key[0] == "kernel":
            # one package: spread over modules instead (round-robin order already does that)
            cap = budget
        elif budget is None:
            cap = max(len(v) for v in pk.values())
        else:
            cap = _water_level({p: len(v) for p, v in pk.items()}, budget)
        for p in sorted(pk):
            rs = pk[p]
            if len(rs) > cap:
                drops["over_budget"] += len(rs) - cap
            chosen.extend(rs[:cap])

    chosen.sort(key=lambda r: (r["lang"], r["source"], r["fmt"]))
    keep = ("fmt", "raw", "source", "lang", "kind", "kv", "rules", "level", "exception")
    out = []
    for r in chosen:
        o = {k: r[k] for k in keep if k in r and r[k] not in (None, [], "")}
        out.append(o)
    with open(OUT, "w", encoding="utf-8") as f:
        for o in out:
            f.write(json.dumps(o, ensure_ascii=False, sort_keys=True) + "\n")

    # ---- stats
    st: dict = {"templates": len(out), "drops": dict(drops)}
    st["by_lang"] = dict(collections.Counter(o["lang"] for o in out).most_common())
    st["by_lang_kind"] = dict(collections.Counter("%s/%s" % (o["lang"], o["kind"]) for o in out).most_common())
    pk = collections.Counter(o["source"].partition(":")[0] for o in out)
    st["packages"] = len(pk)
    progs = {(o["source"].partition(":")[0], o["source"].partition(":")[2].split("!")[0]) for o in out}
    st["programs"] = len(progs)
    st["families"] = len({family(p) for p in pk})
    st["top_families"] = collections.Counter(family(o["source"].partition(":")[0]) for o in out).most_common(30)
    st["top_packages"] = pk.most_common(30)
    slots = collections.Counter()
    rules = collections.Counter()
    for o in out:
        for name, _ in common.template_literals(o["fmt"])[1]:
            slots[name] += 1
        for _, t in o.get("kv", []):
            slots[t] += 1
        for rl in o.get("rules", []):
            rules[re.sub(r":[a-z_]+$", "", rl) if rl.startswith("name") else rl] += 1
    st["slot_types"] = slots.most_common()
    st["rules"] = rules.most_common()
    st["size_bytes"] = os.path.getsize(OUT)
    with open(STATS, "w", encoding="utf-8") as f:
        json.dump(st, f, indent=1, ensure_ascii=False)
    print(json.dumps({k: st[k] for k in ("templates", "packages", "programs", "families", "by_lang", "drops",
                                         "size_bytes")}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
