#!/usr/bin/python3
"""Harvest logging call sites and raised-exception messages from the Python
sources of Debian python3-* (and Python application) packages, with ``ast``.

Calls: ``<x>.debug/info/warning/warn/error/exception/critical/fatal(msg, ...)``
and ``<x>.log(level, msg, ...)`` where the receiver's last name contains
"log" (logger, LOG, self.log, logging, _LOGGER, ...).  The message may be

* a literal with %-args           -> kind printf   (%s %d %(name)s; the
  argument expressions are name hints: ``%s`` fed by ``self.host`` -> host)
* a literal without args          -> kind plain
* an f-string                     -> kind fstring  (expression -> hint)
* ``"...".format(...)``           -> kind brace
* ``"..." % (...)``               -> kind printf
* keyword arguments other than exc_info/extra/stack_info/stacklevel
  (structlog style ``log.info("user.login", user=u, ip=ip)``) -> kind kv

``raise SomeError("...")`` with such messages is kept as kind exception with
the class name (stack-trace heads).  Output: $HARVEST_DIR/out/python.jsonl
"""

from __future__ import annotations

import ast
import collections
import os
import re
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import printfmt  # noqa: E402

LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log", "msg",
               "notice", "trace", "verbose"}
LEVEL_OF = {"warning": "warn", "exception": "error", "critical": "error", "fatal": "error", "msg": "info",
            "notice": "info", "verbose": "debug"}
SKIP_KW = {"exc_info", "extra", "stack_info", "stacklevel", "exc", "exception", "level"}


def _recv_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _recv_name(node.func)
    return ""


def _hint(node: ast.AST) -> str:
    try:
        s = ast.unparse(node)
    except Exception:  # noqa: BLE001
        return ""
    return s if len(s) < 80 else ""


def _expr_hint(node: ast.AST) -> str:
    """A name hint for an expression: ``self.host`` -> host, ``len(x)`` -> count, ``str(e)`` -> e."""
    if isinstance(node, ast.Call):
        fn = _recv_name(node.func)
        if fn in ("len", "sum", "int", "round"):
            return "count"
        if fn in ("float",):
            return "rate"
        if fn in ("str", "repr", "format_exc", "text_type", "to_native", "to_text", "safe_str", "force_str") and node.args:
            return _expr_hint(node.args[0])
        if fn in ("join",):
            return "names"
        return fn
    if isinstance(node, ast.Subscript):
        sl = node.slice
        if isinstance(sl, ast.Constant) and isinstance(sl.value, str):
            return sl.value
        return _expr_hint(node.value)
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Sub, ast.Add)):
        return "delta"
    return _hint(node)


def _fmt_spec_class(spec: ast.AST | None) -> str:
    if spec is None:
        return "str"
    try:
        s = "".join(v.value for v in spec.values if isinstance(v, ast.Constant))
    except AttributeError:
        return "str"
    if re.search(r"[df]$|n$", s):
        return "float" if s.endswith("f") else "int"
    if re.search(r"[xX]$", s):
        return "hex"
    return "str"


def message_of(node: ast.AST, args: list[ast.AST]) -> tuple[str, str, list] | None:
    """(raw, kind, template-or-None-with-rules) for a message expression."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        raw = node.value
        if args and "%" in raw:
            hints = [_expr_hint(a) for a in args]
            if len(args) == 1 and isinstance(args[0], ast.Dict):
                hints = None
            res = printfmt.to_template(raw, "python", "python", hints=hints)
            return raw, "printf", res
        if args and "{" in raw:  # logging with style='{' is rare; treat as brace
            res = printfmt.to_template(raw, "brace", "python", hints=[_expr_hint(a) for a in args])
            return raw, "brace", res
        return raw, "plain", (common.esc(raw), []) if not args else None
    if isinstance(node, ast.JoinedStr):
        raw_parts, text, hints, classes = [], [], [], []
        for v in node.values:
            if isinstance(v, ast.Constant):
                raw_parts.append(str(v.value))
                text.append(str(v.value).replace("{", "{{").replace("}", "}}"))
            elif isinstance(v, ast.FormattedValue):
                h = _hint(v.value)
                raw_parts.append("{" + h + "}")
                text.append("{}")
                hints.append(_expr_hint(v.value))
                classes.append(_fmt_spec_class(v.format_spec))
        raw = "".join(raw_parts)
        res = printfmt.to_template("".join(text), "brace", "python", hints=hints)
        if res and any(c != "str" for c in classes):
            # numeric format specs: re-type those slots
            fmt, rules = res
            lits, slots = common.template_literals(fmt)
            if len(slots) == len(classes):
                new = []
                for (t, rule), c in zip(rules, classes):
                    new.append((c, "fstring:spec") if c != "str" and t in ("word", "name") else (t, rule))
                pieces = []
                for i, lit in enumerate(lits):
                    pieces.append(("lit", lit))
                    if i < len(new):
                        pieces.append(("slot", new[i][0]))
                f2 = common.assemble(pieces)
                if f2:
                    res = (f2, new)
        return raw, "fstring", res
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" and \
            isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        raw = node.func.value.value
        pos = [_expr_hint(a) for a in node.args]
        kw = {k.arg: _expr_hint(k.value) for k in node.keywords if k.arg}
        # map {} / {0} / {name} in order
        hints = []
        auto = 0
        for m in re.finditer(r"\{\{|\}\}|\{([^{}]*)\}", raw):
            if m.group(0) in ("{{", "}}"):
                continue
            name = re.split(r"[!:.\[]", m.group(1) or "")[0]
            if name == "":
                hints.append(pos[auto] if auto < len(pos) else None)
                auto += 1
            elif name.isdigit():
                hints.append(pos[int(name)] if int(name) < len(pos) else None)
            else:
                hints.append(kw.get(name, name))
        res = printfmt.to_template(raw, "brace", "python", hints=hints)
        return raw, "brace", res
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and \
            isinstance(node.left.value, str):
        right = node.right
        rargs = list(right.elts) if isinstance(right, ast.Tuple) else [right]
        return message_of(node.left, rargs)
    return None


class Visitor(ast.NodeVisitor):
    def __init__(self, reasons: collections.Counter):
        self.reasons = reasons
        self.out: list[dict] = []

    def _emit(self, msg_node, args, kind_override=None, kv=None, level=None, exc=None):
        r = message_of(msg_node, args)
        if not r:
            return
        raw, kind, res = r
        if res is None:
            self.reasons["py:unparsable"] += 1
            return
        fmt, rules = res
        raw = raw.strip()
        fmt = fmt.strip()
        if not raw:
            return
        constant = common.constant_text(fmt)
        why = common.message_ok(raw, constant, len(rules) + len(kv or []), "python")
        if why and not (kv and why in ("plain_not_loggy", "few_words")):
            self.reasons["py:" + why] += 1
            return
        rec = {"fmt": fmt, "raw": raw, "lang": "python", "kind": kind_override or kind,
               "rules": [x for _, x in rules]}
        if kv:
            rec["kv"] = [[k, t] for k, t in kv]
            rec["kind"] = "kv"
            rec["msg_kind"] = kind
        if level:
            rec["level"] = level
        if exc:
            rec["exception"] = exc
            rec["kind"] = "exception"
            rec["msg_kind"] = kind
        self.out.append(rec)

    def _emit_fmt(self, raw, fmt, rules, kind, kv, level):
        raw, fmt = raw.strip(), fmt.strip()
        constant = common.constant_text(fmt)
        why = common.message_ok(raw, constant, len(rules) + len(kv), "python")
        if why and not (kv and why in ("plain_not_loggy", "few_words")):
            self.reasons["py:" + why] += 1
            return
        rec = {"fmt": fmt, "raw": raw, "lang": "python", "kind": "kv" if kv else kind,
               "rules": [x for _, x in rules], "level": level}
        if kv:
            rec["kv"] = [[k, t] for k, t in kv]
            rec["msg_kind"] = kind
        self.out.append(rec)

    def visit_Call(self, node: ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in LOG_METHODS and "log" in _recv_name(f.value).lower():
            args = list(node.args)
            if f.attr == "log" and args:
                args = args[1:]
            if args and not any(isinstance(a, ast.Starred) for a in args):
                kv = []
                for k in node.keywords:
                    if k.arg and k.arg not in SKIP_KW:
                        t = common.infer_from_name(k.arg) or common.infer_from_name(_expr_hint(k.value)) or "value"
                        kv.append((k.arg, t))
                lvl = LEVEL_OF.get(f.attr, f.attr if f.attr in ("debug", "info", "error", "trace") else "info")
                msg = args[0]
                if kv and isinstance(msg, ast.Constant) and isinstance(msg.value, str) and len(args) == 1:
                    # txaio / structured loggers: "... {name} ..." filled from the keyword arguments
                    names = [re.split(r"[!:.\[]", m)[0] for m in re.findall(r"(?<!\{)\{([A-Za-z_][^{}]*)\}", msg.value)]
                    if names and all(n in dict(kv) for n in names):
                        res = printfmt.to_template(msg.value, "brace", "python", hints=names)
                        if res:
                            fmt, rules = res
                            # keep the slot types inferred from the keyword values where the key says nothing
                            rest = [(k, t) for k, t in kv if k not in names]
                            self._emit_fmt(msg.value, fmt, rules, "brace", rest, lvl)
                            self.generic_visit(node)
                            return
                self._emit(msg, args[1:], kv=kv, level=lvl)
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise):
        e = node.exc
        if isinstance(e, ast.Call) and e.args:
            name = _recv_name(e.func)
            if re.search(r"(Error|Exception|Failure|Fault|Warning|Exit|Invalid\w*)$", name) and name[:1].isupper():
                self._emit(e.args[0], [], exc=name)
        self.generic_visit(node)


def harvest_source(src: str, reasons: collections.Counter) -> list[dict]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(src)
    except (SyntaxError, ValueError, RecursionError):
        reasons["py:syntax"] += 1
        return []
    v = Visitor(reasons)
    try:
        v.visit(tree)
    except RecursionError:
        return v.out
    return v.out


def main() -> int:
    reasons: collections.Counter = collections.Counter()
    recs = []
    pkgs = common.pkg_dirs("python")
    for pkg, root in pkgs:
        seen = set()
        for path in common.walk_files(root, (".py",)):
            rel = path[len(root):]
            if common.is_excluded_path(rel) or "/tests/" in rel or "/test/" in rel or \
                    os.path.basename(rel).startswith("test_") or "/usr/share/doc" in rel:
                continue
            try:
                src = open(path, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            for r in harvest_source(src, reasons):
                key = (r["fmt"], tuple(map(tuple, r.get("kv", []))), r.get("exception"))
                if key in seen:
                    continue
                seen.add(key)
                rel_short = re.sub(r"^/usr/lib/python3(\.\d+)?/dist-packages/", "", rel)
                r["source"] = "%s:%s" % (pkg, rel_short)
                recs.append(r)
    n = common.write_jsonl(os.path.join(common.OUT_DIR, "python.jsonl"), recs)
    print("python: %d records from %d packages; rejects: %s" % (n, len(pkgs), dict(reasons.most_common(20))),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
