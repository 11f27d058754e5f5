#!/usr/bin/python3
"""Harvest logger call sites from npm packages (the [npm] section of
packages.txt, exact versions, fetched with ``npm pack`` -- tarball only, no
install, no install scripts, no dependencies).

Call shapes (in .js/.cjs/.mjs/.ts files, minified and test files skipped):

* ``logger.info("msg %s", x)`` / ``console.error(...)`` / ``debug("...")``
  with util.format placeholders (%s %d %i %f %j %o %O)  -> kind printf
* template literals ```Connected to ${host}:${port}``` -> kind fstring
  (the expression is the slot's name hint)
* pino/bunyan ``log.info({ reqId, user: u }, "msg")`` and
  kafkajs/moleculer ``logger.info("msg", { topic, partition })`` -> kind kv
* npmlog ``log.verbose("prefix", "message %s", x)``: the prefix is kept as
  literal text
* plain literals -> kind plain

Output: $HARVEST_DIR/out/js.jsonl
"""

from __future__ import annotations

import collections
import glob
import os
import re
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import golex  # noqa: E402
import printfmt  # noqa: E402

NPM_DIR = os.path.join(common.SCRATCH, "npm")
METHODS = "log|info|warn|warning|error|debug|trace|fatal|verbose|silly|http|notice|success|crit|critical"
CALL_RE = re.compile(r"(?<![\w$.])(?P<recv>(?:[A-Za-z_$][\w$]*\s*\.\s*)*[A-Za-z_$][\w$]*)\s*\.\s*(?P<m>%s)\s*\("
                     r"|(?<![\w$.])(?P<dbg>debug|dbg|_debug|debuglog|trace)\s*\(" % METHODS)
LOGGY_RECV = re.compile(r"(?i)(log|console|debug|trace|winston|pino|bunyan|signale|consola|npmlog|proclog)")


def read_specs() -> list[str]:
    return common.read_packages("npm")


def tarball_for(spec: str) -> str | None:
    name, _, ver = spec.rpartition("@")
    base = name.lstrip("@").replace("/", "-")
    p = os.path.join(NPM_DIR, "%s-%s.tgz" % (base, ver))
    return p if os.path.exists(p) else None


def fetch(specs: list[str]) -> None:
    os.makedirs(NPM_DIR, exist_ok=True)
    for spec in specs:
        if tarball_for(spec):
            continue
        r = subprocess.run(["npm", "pack", "--silent", "--ignore-scripts", spec], cwd=NPM_DIR,
                           capture_output=True, text=True)
        if r.returncode != 0:
            print("npm pack failed: %s: %s" % (spec, r.stderr.strip()[-200:]), file=sys.stderr)


def template_literal(arg: str) -> tuple[str, list[str]] | None:
    """(brace-dialect text, hints) for a `...${x}...` literal, or None."""
    a = arg.strip()
    if not (a.startswith("`") and a.endswith("`")) or len(a) < 2:
        return None
    body = a[1:-1]
    out, hints, i = [], [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            out.append(golex._ESC.get(body[i + 1], body[i + 1]).replace("{", "{{").replace("}", "}}"))
            i += 2
            continue
        if body.startswith("${", i):
            depth, j = 1, i + 2
            while j < len(body) and depth:
                if body[j] == "{":
                    depth += 1
                elif body[j] == "}":
                    depth -= 1
                j += 1
            if depth:
                return None
            hints.append(body[i + 2:j - 1].strip())
            out.append("{}")
            i = j
            continue
        out.append("{{" if c == "{" else "}}" if c == "}" else c)
        i += 1
    return "".join(out), hints


def _hint(expr: str) -> str:
    e = re.sub(r"\?\.", ".", expr.strip())
    e = re.sub(r"\.(toString|toFixed|toISOString|join|trim|toLowerCase|toUpperCase)\(.*\)$", "", e)
    e = re.sub(r"^(JSON\.stringify|String|Number|util\.inspect)\((.*)\)$", r"\2", e)
    if re.match(r"^(err|error|e|ex)\.(message|stack|code)$", e):
        return "error"
    if e.endswith(".length"):
        return "count"
    return e


def object_keys(arg: str) -> list[tuple[str, str]] | None:
    a = arg.strip()
    if not (a.startswith("{") and a.endswith("}")):
        return None
    sa = golex.scan_args(a, 0)
    if not sa:
        return None
    out = []
    for ent in sa[0]:
        if ent.startswith("..."):
            continue
        m = re.match(r"^([A-Za-z_$][\w$]*|'[^']*'|\"[^\"]*\")\s*(?::\s*(.*))?$", ent, re.S)
        if not m:
            return None
        key = m.group(1).strip("'\"")
        val = (m.group(2) or key).strip()
        t = common.infer_from_name(key) or common.infer_from_name(_hint(val)) or "value"
        out.append((key, t))
    return out


def js_literal(arg: str) -> str | None:
    return golex.literal_value(arg, single_quotes=True)


def harvest_file(src: str, reasons: collections.Counter) -> list[dict]:
    recs = []
    for m in CALL_RE.finditer(src):
        recv = m.group("recv") or m.group("dbg")
        if m.group("recv") and not LOGGY_RECV.search(recv):
            continue
        sa = golex.scan_args(src, m.end() - 1)
        if not sa or not sa[0]:
            continue
        args = sa[0]
        kv: list[tuple[str, str]] = []
        i = 0
        keys = object_keys(args[0])
        if keys is not None and len(args) >= 2:     # pino/bunyan: (obj, msg, ...)
            kv, i = keys, 1
        first = js_literal(args[i])
        tl = template_literal(args[i]) if first is None else None
        if first is None and tl is None:
            continue
        rest = args[i + 1:]
        # npmlog: log.verbose('prefix', 'message', ...)
        if first is not None and rest and re.match(r"^[\w.:-]{2,30}$", first) and js_literal(rest[0]) is not None:
            second = js_literal(rest[0])
            first = first + " " + second
            rest = rest[1:]
        if rest and not kv:
            ok = object_keys(rest[-1])
            if ok is not None and (len(rest) == 1 or "%" not in (first or "")):
                kv = ok
                rest = rest[:-1]
        if tl is not None:
            text, hints = tl
            res = printfmt.to_template(text, "brace", "js", hints=[_hint(h) for h in hints])
            raw = args[i].strip()[1:-1]
            kind = "fstring"
        elif rest and "%" in first:
            res = printfmt.to_template(first, "js", "js", hints=[_hint(a) for a in rest])
            raw = first
            kind = "printf"
        elif rest:
            reasons["js:extra_args"] += 1
            continue
        else:
            res = (common.esc(first), [])
            raw = first
            kind = "plain"
        if res is None:
            reasons["js:unparsable"] += 1
            continue
        fmt, rules = res
        raw, fmt = raw.strip(), fmt.strip()
        if not raw or "\n" in raw:
            reasons["js:multiline"] += 1
            continue
        constant = common.constant_text(fmt)
        why = common.message_ok(raw, constant, len(rules) + len(kv), "js")
        if why and not (kv and why in ("plain_not_loggy", "few_words")):
            reasons["js:" + why] += 1
            continue
        rec = {"fmt": fmt, "raw": raw, "lang": "js", "kind": "kv" if kv else kind, "rules": [x for _, x in rules]}
        meth = m.group("m") or "debug"
        rec["level"] = {"warning": "warn", "fatal": "error", "crit": "error", "critical": "error", "verbose": "debug",
                        "silly": "trace", "http": "info", "notice": "info", "success": "info",
                        "log": "info"}.get(meth, meth)
        if kv:
            rec["kv"] = [[k, t] for k, t in kv]
        recs.append(rec)
    return recs


def main() -> int:
    specs = read_specs()
    fetch(specs)
    reasons: collections.Counter = collections.Counter()
    recs = []
    for spec in specs:
        tb = tarball_for(spec)
        if not tb:
            continue
        seen = set()
        with tarfile.open(tb, "r:gz") as tf:
            members = sorted((mm for mm in tf.getmembers() if mm.isfile()), key=lambda mm: mm.name)
            for mm in members:
                name = mm.name.split("/", 1)[-1]
                if not name.endswith((".js", ".cjs", ".mjs", ".ts")) or name.endswith((".d.ts", ".min.js")):
                    continue
                if re.search(r"(^|/)(test|tests|__tests__|spec|examples?|benchmarks?|node_modules|vendor|"
                             r"fixtures?)/", name) or common.is_excluded_path(name) or mm.size > 3_000_000:
                    continue
                src = tf.extractfile(mm).read().decode("utf-8", errors="replace")
                lines = src.splitlines() or [""]
                if max(len(x) for x in lines) > 3000:  # minified / bundled
                    continue
                for r in harvest_file(src, reasons):
                    key = (r["fmt"], tuple(k for k, _ in r.get("kv", [])))
                    if key in seen:
                        continue
                    seen.add(key)
                    r["source"] = "%s:%s" % (spec, name)
                    recs.append(r)
    n = common.write_jsonl(os.path.join(common.OUT_DIR, "js.jsonl"), recs)
    print("js: %d records from %d packages; rejects: %s" % (n, len(specs), dict(reasons.most_common(15))),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
