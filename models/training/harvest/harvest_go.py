#!/usr/bin/python3
"""Harvest logging call sites from the Go sources Debian ships in
golang-*-dev packages (/usr/share/gocode/src).

Recognised call shapes (receiver names are not checked, only the method and
the argument shapes; *_test.go, testdata/ and excluded import paths are
skipped):

* printf:  X.Printf/Infof/Warnf/Warningf/Errorf/Debugf/Tracef/Fatalf/Panicf/
           Noticef/Criticalf(fmt, args...) -- ``kind: printf``; the argument
           expressions become name hints for the slots (``addr`` -> hostport).
* errorf:  fmt.Errorf / errors.Errorf / errors.Wrapf(err, fmt) /
           status.Errorf(code, fmt) / errors.New -- ``kind: errorf``
           (messages that end up inside log lines).
* kv:      klog.InfoS("msg", "k", v), klog.ErrorS(err, "msg", ...),
           logr log.Info("msg", "k", v) / log.Error(err, "msg", ...),
           hclog/slog/zap-sugared Info("msg", "k", v) / Infow(...),
           zap Info("msg", zap.String("k", v), zap.Error(err)),
           slog attributes slog.Int("k", v), logrus
           WithField("k", v)/WithFields(Fields{"k": v})/WithError(err) chains
           and logr WithValues / hclog With chains -- ``kind: kv``, the keys
           and their slot types go to ``kv``.
* plain:   Info("literal") with no arguments -- ``kind: plain``.

Output: $HARVEST_DIR/out/go.jsonl
"""

from __future__ import annotations

import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import golex  # noqa: E402
import printfmt  # noqa: E402

LEVELS = "Print|Fatal|Panic|Info|Warn|Warning|Error|Debug|Trace|Notice|Critical|Crit|Emerg|Alert|Err|Dbg|Verbose|Log"
CALL_RE = re.compile(r"\.(?P<m>(?:%s)(?:f|S|w|ln|Context|Ctx)?|Errorf|Wrapf|Wrap|New|Newf|Annotatef|"
                     r"WithField|WithFields|WithError|WithValues|With|Tracef)\s*\(" % LEVELS)
ERR_RECEIVERS = {"fmt", "errors", "xerrors", "pkgerrors", "perrors", "goerrors", "errs", "status", "trace",
                 "terrors", "oops", "merry", "eris", "stackerr", "werrors", "cerrors", "derrors"}

# typed field constructors (zap, slog, zerolog-ish) -> slot type (None: infer from key)
FIELD_CTORS = {
    "String": None, "Stringer": None, "Strings": "word", "Any": None, "Reflect": None, "Object": "word",
    "Int": "int", "Int8": "int", "Int16": "int", "Int32": "int", "Int64": "int", "Uint": "int",
    "Uint8": "int", "Uint16": "int", "Uint32": "int", "Uint64": "int", "Uintptr": "hex0x",
    "Float32": "float", "Float64": "float", "Bool": "bool", "Duration": "duration", "Time": "ts_iso",
    "Error": "err_text", "NamedError": "err_text", "ByteString": "word", "Binary": "base64",
    "Ints": "word", "Int64s": "word", "Group": None, "Attr": None,
}
FIELD_RE = re.compile(r"^(?:zap|slog|zapcore|log|logger|logging|l|attr|attrs|logf|logutil|kv)\.(?P<c>[A-Z][A-Za-z0-9]*)\s*\(")


def kv_type(key: str, value_expr: str | None, ctor_type: str | None = None) -> tuple[str, str]:
    if ctor_type:
        return ctor_type, "ctor"
    t = common.infer_from_name(key)
    if t:
        return t, "key"
    if value_expr:
        v = value_expr.strip()
        if re.match(r"^time\.Since\(|\.Sub\(|Duration\(|\.Seconds\(\)", v):
            return "duration", "value_expr"
        if re.match(r"^len\(|^-?\d+$", v):
            return "int", "value_expr"
        if re.match(r"^(true|false)$", v):
            return "bool", "value_expr"
        if re.match(r"^klog\.KObj\(|^klog\.KRef\(", v):
            return "k8s_ref", "value_expr"
        t = common.infer_from_name(re.sub(r"\(\)$", "", v))
        if t:
            return t, "value_expr"
    return "value", "default"


def parse_kv_args(args: list[str]) -> tuple[list[tuple[str, str, str]], bool]:
    """[(key, slot_type, rule)] from variadic key/value or typed-field args; ok=False if not kv-shaped."""
    out: list[tuple[str, str, str]] = []
    i = 0
    while i < len(args):
        a = args[i]
        fm = FIELD_RE.match(a)
        if fm:
            ctor = fm.group("c")
            inner = golex.scan_args(a, fm.end() - 1)
            if not inner:
                return out, False
            iargs = inner[0]
            if ctor in ("Error",) and len(iargs) == 1:
                out.append(("error", "err_text", "ctor"))
            elif iargs and golex.literal_value(iargs[0]) is not None:
                key = golex.literal_value(iargs[0])
                t, r = kv_type(key, iargs[1] if len(iargs) > 1 else None, FIELD_CTORS.get(ctor))
                out.append((key, t, r))
            else:
                return out, False
            i += 1
            continue
        key = golex.literal_value(a)
        if key is None or i + 1 >= len(args) or not re.match(r"^[A-Za-z_][\w.\-/]{0,40}$", key):
            return out, False
        t, r = kv_type(key, args[i + 1])
        out.append((key, t, r))
        i += 2
    return out, True


def chain_fields(chain: str) -> list[tuple[str, str, str]]:
    """Fields attached by logrus/logr/hclog/zap chains in the receiver expression."""
    out: list[tuple[str, str, str]] = []
    for m in re.finditer(r"\.(WithField|WithFields|WithError|WithValues|With)\s*\(", chain):
        sa = golex.scan_args(chain, m.end() - 1)
        if not sa:
            continue
        args = sa[0]
        meth = m.group(1)
        if meth == "WithError":
            out.append(("error", "err_text", "chain"))
        elif meth == "WithField" and len(args) == 2:
            k = golex.literal_value(args[0])
            if k:
                t, r = kv_type(k, args[1])
                out.append((k, t, r))
        elif meth == "WithFields" and args:
            body = args[0]
            b = body.find("{")
            if b >= 0:
                inner = golex.scan_args(body, b)
                if inner:
                    for ent in inner[0]:
                        if ":" in ent:
                            k, v = ent.split(":", 1)
                            kk = golex.literal_value(k)
                            if kk:
                                t, r = kv_type(kk, v)
                                out.append((kk, t, r))
        else:
            kv, ok = parse_kv_args(args)
            if ok:
                out.extend(kv)
    return out


def harvest_file(src: str, reasons: collections.Counter) -> list[dict]:
    recs = []
    for m in CALL_RE.finditer(src):
        meth = m.group("m")
        if meth in ("WithField", "WithFields", "WithError", "WithValues", "With"):
            continue
        paren = m.end() - 1
        sa = golex.scan_args(src, paren)
        if not sa or not sa[0]:
            continue
        args = sa[0]
        chain = golex.receiver_chain(src, m.start())
        recv = re.split(r"[.(\s]", chain.strip())[0] if chain.strip() else ""
        last_recv = re.findall(r"[A-Za-z_]\w*", chain)[-1:] or [""]
        if recv in ("http", "t", "b", "tb", "suite", "assert", "require", "c", "check", "s.T", "gc") and \
                meth in ("Error", "Errorf", "Fatal", "Fatalf", "Log", "Logf", "Fatalln"):
            continue
        is_err_api = recv in ERR_RECEIVERS or last_recv[0] in ERR_RECEIVERS
        kind = None
        fmt_idx = None
        # --- error constructors
        if meth in ("New", "Newf", "Errorf", "Wrapf", "Wrap", "Annotatef") and is_err_api:
            for k in range(min(2, len(args))):
                if golex.literal_value(args[k]) is not None:
                    fmt_idx = k
                    break
            if fmt_idx is None:
                continue
            kind = "errorf" if meth != "New" else "error_new"
            dialect_printf = meth != "New" and meth != "Wrap"
        elif meth in ("New", "Newf", "Wrap", "Wrapf", "Annotatef"):
            continue
        elif meth.endswith("f") and meth[:-1] in LEVELS.split("|") + ["Error"] or meth == "Tracef":
            for k in range(min(2, len(args))):
                if golex.literal_value(args[k]) is not None:
                    fmt_idx = k
                    break
            if fmt_idx is None:
                continue
            kind = "printf"
            dialect_printf = True
        else:
            # structured / plain
            base = re.sub(r"(S|w|ln|Context|Ctx)$", "", meth)
            if base not in LEVELS.split("|"):
                continue
            k0 = 0
            if meth.endswith(("Context", "Ctx")):
                k0 = 1
            if golex.literal_value(args[k0]) is None and k0 + 1 < len(args) and \
                    golex.literal_value(args[k0 + 1]) is not None and base in ("Error", "Info", "Warn", "Debug"):
                k0 += 1  # logr/klog Error(err, "msg", ...), zerolog-ish
                err_first = True
            else:
                err_first = False
            if k0 >= len(args) or golex.literal_value(args[k0]) is None:
                continue
            rest = args[k0 + 1:]
            kv, ok = parse_kv_args(rest)
            if not ok:
                reasons["go:args_not_kv"] += 1
                continue
            if err_first:
                kv.insert(0, ("err", "err_text", "errarg"))
            kv = chain_fields(chain) + kv
            fmt_idx = k0
            kind = "kv" if kv else "plain"
            dialect_printf = False
        raw = golex.literal_value(args[fmt_idx])
        if raw is None:
            continue
        raw = raw.rstrip("\n")
        if kind in ("printf", "errorf") and dialect_printf:
            hints = [re.sub(r"\s+", "", a) for a in args[fmt_idx + 1:]]
            res = printfmt.to_template(raw, "go", "go", hints=hints)
            if res is None:
                reasons["go:unparsable"] += 1
                continue
            fmt, rules = res
            kvs = chain_fields(chain) if kind == "printf" else []
        else:
            fmt, rules = common.esc(raw), []
            kvs = kv if kind in ("kv", "plain") else []
            if kind == "plain" and kvs:
                kind = "kv"
        constant = common.constant_text(fmt)
        why = common.message_ok(raw, constant, len(rules) + len(kvs), "go")
        if why and not (kvs and why in ("plain_not_loggy", "plain_long", "few_words")):
            reasons["go:" + why] += 1
            continue
        if kind in ("plain", "error_new") and why:
            continue
        if not re.search(r"[A-Za-z]{2}", constant):
            continue
        rec = {"fmt": fmt, "raw": raw, "lang": "go", "kind": "kv" if kvs else kind,
               "rules": [r for _, r in rules]}
        if kvs:
            seen = set()
            rec["kv"] = [[k, t] for k, t, _ in kvs if not (k in seen or seen.add(k))]
            rec["kv_rules"] = [r for _, _, r in kvs]
            rec["call"] = kind if kind != "kv" else "kv"
        recs.append(rec)
    return recs


def main() -> int:
    reasons: collections.Counter = collections.Counter()
    recs = []
    pkgs = common.pkg_dirs("go")
    for pkg, root in pkgs:
        base = os.path.join(root, "usr", "share", "gocode", "src")
        if not os.path.isdir(base):
            continue
        seen = set()
        for path in common.walk_files(base, (".go",)):
            rel = os.path.relpath(path, base)
            if rel.endswith("_test.go") or "/testdata/" in rel or "/vendor/" in rel or common.is_excluded_path(rel):
                continue
            if rel.endswith((".pb.go", ".pb.gw.go", "_generated.go", "zz_generated.deepcopy.go")):
                continue
            try:
                src = open(path, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            if "Code generated" in src[:3000] and "DO NOT EDIT" in src[:3000]:
                continue
            for r in harvest_file(src, reasons):
                key = (r["fmt"], tuple(map(tuple, r.get("kv", []))))
                if key in seen:
                    continue
                seen.add(key)
                r["source"] = "%s:%s" % (pkg, rel)
                recs.append(r)
    n = common.write_jsonl(os.path.join(common.OUT_DIR, "go.jsonl"), recs)
    print("go: %d records from %d packages; rejects: %s" % (n, len(pkgs), dict(reasons.most_common(20))),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
