#!/usr/bin/python3
"""Harvest log and exception messages from the class files inside the jars of
Debian Java packages (/usr/share/java/*.jar).

Each class file's constant pool is parsed and every method's bytecode is
walked with a small abstract stack of *string events*:

* ``ldc "text"`` pushes a literal;
* ``String.format(fmt, ..)`` / ``MessageFormat.format`` turn the pending
  literal into a printf / MessageFormat template;
* string concatenation -- ``invokedynamic makeConcatWithConstants`` (its
  recipe, \\u0001 = argument) or a ``new StringBuilder().append(..)...
  .toString()`` chain -- becomes a template whose arguments are slots; the
  field or getter that produced an argument (``getHost()``, ``this.port``)
  is kept as a name hint;
* an invoke of a logger method (slf4j, commons-logging, log4j 1/2, JUL,
  jboss-logging, or any ``*Logger``/``*Log`` type) consumes the pending
  message: ``kind`` brace ({} placeholders), msgformat ({0}), printf, concat
  or plain, with the level from the method name;
* ``new XyzException(msg)`` records the message with the exception class
  (``kind: exception``, field ``exception``), used for stack-trace heads.

Other invokes consume as many pending strings as they take String/Object
parameters, so literals passed to unrelated calls are not mistaken for
messages.  Output: $HARVEST_DIR/out/java.jsonl
"""

from __future__ import annotations

import collections
import os
import re
import struct
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import printfmt  # noqa: E402

LOGGER_CLASSES = re.compile(
    r"^(org/slf4j/Logger|org/apache/commons/logging/Log|org/apache/log4j/(Logger|Category)|"
    r"java/util/logging/Logger|org/apache/logging/log4j/(Logger|spi/ExtendedLogger)|org/jboss/logging/(Logger|BasicLogger)|"
    r"java/lang/System\$Logger|.*/[A-Za-z]*(Logger|Log|LogService|LogChannel))$")
LOG_METHODS = re.compile(r"^(trace|debug|info|warn|warning|error|fatal|severe|fine|finer|finest|config|log|"
                         r"notice|critical|verbose|tracef|debugf|infof|warnf|errorf|fatalf|tracev|debugv|infov|"
                         r"warnv|errorv|fatalv|logf|logv|printf|entering|exiting)$")
LEVEL_OF = {"severe": "error", "warning": "warn", "fine": "debug", "finer": "debug", "finest": "trace",
            "config": "info", "fatal": "error", "notice": "info", "critical": "error", "verbose": "debug"}

# opcode -> length (0 = variable / special)
_OPLEN = [1] * 256
for _op in (0x10, 0x12, 0x15, 0x16, 0x17, 0x18, 0x19, 0x36, 0x37, 0x38, 0x39, 0x3a, 0xa9, 0xbc):
    _OPLEN[_op] = 2
for _op in list(range(0x99, 0xa9)) + [0x11, 0x13, 0x14, 0x84, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8,
                                      0xbb, 0xbd, 0xc0, 0xc1, 0xc6, 0xc7]:
    _OPLEN[_op] = 3
_OPLEN[0xc5] = 4
for _op in (0xb9, 0xba, 0xc8, 0xc9):
    _OPLEN[_op] = 5
_OPLEN[0xaa] = _OPLEN[0xab] = _OPLEN[0xc4] = 0


class ClassFile:
    def __init__(self, data: bytes):
        self.d = data
        if data[:4] != b"\xca\xfe\xba\xbe":
            raise ValueError("not a class")
        n = struct.unpack_from(">H", data, 8)[0]
        self.cp: list = [None] * n
        i, p = 1, 10
        while i < n:
            tag = data[p]
            if tag == 1:
                ln = struct.unpack_from(">H", data, p + 1)[0]
                raw = data[p + 3:p + 3 + ln].replace(b"\xc0\x80", b"\x00")
                self.cp[i] = ("utf8", raw.decode("utf-8", errors="replace"))
                p += 3 + ln
            elif tag in (3, 4):
                p += 5
            elif tag in (5, 6):
                p += 9
                i += 1
            elif tag in (7, 8, 16, 19, 20):
                self.cp[i] = (tag, struct.unpack_from(">H", data, p + 1)[0])
                p += 3
            elif tag in (9, 10, 11, 12, 17, 18):
                self.cp[i] = (tag,) + struct.unpack_from(">HH", data, p + 1)
                p += 5
            elif tag == 15:
                self.cp[i] = (tag, data[p + 1], struct.unpack_from(">H", data, p + 2)[0])
                p += 4
            else:
                raise ValueError("bad cp tag %d" % tag)
            i += 1
        self.p = p
        self.name = self.cls(struct.unpack_from(">H", data, p + 2)[0])

    def utf8(self, i: int) -> str:
        e = self.cp[i]
        return e[1] if e and e[0] == "utf8" else ""

    def cls(self, i: int) -> str:
        e = self.cp[i]
        return self.utf8(e[1]) if e and e[0] == 7 else ""

    def string(self, i: int) -> str | None:
        e = self.cp[i]
        return self.utf8(e[1]) if e and e[0] == 8 else None

    def member(self, i: int) -> tuple[str, str, str]:
        e = self.cp[i]
        if not e or e[0] not in (9, 10, 11):
            return "", "", ""
        nt = self.cp[e[2]]
        return self.cls(e[1]), self.utf8(nt[1]), self.utf8(nt[2])

    def methods(self):
        """Yield (name, code bytes) and set self.bootstrap."""
        d, p = self.d, self.p + 6
        nif = struct.unpack_from(">H", d, p)[0]
        p += 2 + 2 * nif
        codes = []
        for _ in range(2):  # fields, then methods
            cnt = struct.unpack_from(">H", d, p)[0]
            p += 2
            for _ in range(cnt):
                _, name_i, _, na = struct.unpack_from(">HHHH", d, p)
                p += 8
                for _ in range(na):
                    an, al = struct.unpack_from(">HI", d, p)
                    if self.utf8(an) == "Code":
                        cl = struct.unpack_from(">I", d, p + 10)[0]
                        codes.append((self.utf8(name_i), d[p + 14:p + 14 + cl]))
                    p += 6 + al
        self.bootstrap = []
        na = struct.unpack_from(">H", d, p)[0]
        p += 2
        for _ in range(na):
            an, al = struct.unpack_from(">HI", d, p)
            if self.utf8(an) == "BootstrapMethods":
                q = p + 6
                nb = struct.unpack_from(">H", d, q)[0]
                q += 2
                for _ in range(nb):
                    _, nargs = struct.unpack_from(">HH", d, q)
                    q += 4
                    self.bootstrap.append(list(struct.unpack_from(">%dH" % nargs, d, q)))
                    q += 2 * nargs
            p += 6 + al
        return codes


def _stringish_params(desc: str) -> int:
    params = desc[1:desc.index(")")] if ")" in desc else ""
    n, i = 0, 0
    while i < len(params):
        c = params[i]
        arr = False
        while c == "[":
            arr = True
            i += 1
            c = params[i]
        if c == "L":
            j = params.index(";", i)
            t = params[i + 1:j]
            if not arr and t in ("java/lang/String", "java/lang/Object", "java/lang/CharSequence",
                                 "java/util/function/Supplier"):
                n += 1
            elif arr and t == "java/lang/Object":
                n += 0
            i = j + 1
        else:
            i += 1
    return n


def _hint_from_member(name: str) -> str:
    m = re.match(r"^(get|is|has)([A-Z]\w*)$", name)
    return m.group(2) if m else name


def scan_method(cf: ClassFile, code: bytes) -> list[dict]:
    """Message events of one method: dicts with kind, text/pieces, level, exception."""
    out = []
    pending: list[dict] = []      # string events on the (approximate) stack
    builders: list[list] = []     # StringBuilder chains in progress: list of pieces
    last_val_hint = None          # name of the last field/getter that produced a value
    prev_ldc = None               # string of the previous instruction if it was ldc
    pc, n = 0, len(code)
    while pc < n:
        op = code[pc]
        ln = _OPLEN[op]
        cur_ldc = None
        if op == 0xaa:  # tableswitch
            q = pc + 1 + ((4 - (pc + 1) % 4) % 4)
            lo, hi = struct.unpack_from(">ii", code, q + 4)
            ln = (q - pc) + 12 + 4 * (hi - lo + 1)
        elif op == 0xab:  # lookupswitch
            q = pc + 1 + ((4 - (pc + 1) % 4) % 4)
            npairs = struct.unpack_from(">i", code, q + 4)[0]
            ln = (q - pc) + 8 + 8 * npairs
        elif op == 0xc4:
            ln = 6 if code[pc + 1] == 0x84 else 4
        elif op in (0x12, 0x13):
            idx = code[pc + 1] if op == 0x12 else struct.unpack_from(">H", code, pc + 1)[0]
            s = cf.string(idx)
            if s is not None:
                cur_ldc = s
                pending.append({"kind": "plain", "text": s})
        elif op in (0xb4, 0xb2):  # getfield / getstatic
            _, fname, _ = cf.member(struct.unpack_from(">H", code, pc + 1)[0])
            last_val_hint = fname
        elif op == 0xba:  # invokedynamic
            e = cf.cp[struct.unpack_from(">H", code, pc + 1)[0]]
            if e and e[0] == 18:
                nt = cf.cp[e[2]]
                mname = cf.utf8(nt[1])
                if mname == "makeConcatWithConstants" and e[1] < len(getattr(cf, "bootstrap", [])):
                    args = cf.bootstrap[e[1]]
                    recipe = cf.string(args[0]) if args else None
                    if recipe is not None:
                        nargs = recipe.count("\x01")
                        # the literal args of the concat were ldc'd? no: constants live in the recipe
                        pending.append({"kind": "concat", "text": recipe, "hints": []})
                        del nargs
        elif op in (0xb6, 0xb7, 0xb8, 0xb9):
            cname, mname, desc = cf.member(struct.unpack_from(">H", code, pc + 1)[0])
            if cname in ("java/lang/StringBuilder", "java/lang/StringBuffer"):
                if mname == "<init>":
                    first = []
                    if desc.startswith("(Ljava/lang/String;") and prev_ldc is not None and pending:
                        pending.pop()
                        first = [("lit", prev_ldc)]
                    elif desc.startswith("(Ljava/lang/String;") or desc.startswith("(Ljava/lang/CharSequence;"):
                        first = [("slot", last_val_hint)]
                    builders.append(first)
                elif mname == "append" and builders:
                    if prev_ldc is not None and desc.startswith("(Ljava/lang/String;"):
                        if pending:
                            pending.pop()
                        builders[-1].append(("lit", prev_ldc))
                    elif desc.startswith("(C)") and code[pc - 2] == 0x10:
                        builders[-1].append(("lit", chr(code[pc - 1])))
                    else:
                        builders[-1].append(("slot", last_val_hint))
                elif mname == "toString" and builders:
                    pieces = builders.pop()
                    pending.append({"kind": "concat_sb", "pieces": pieces})
                last_val_hint = None
            elif cname == "java/lang/String" and mname == "format" and pending:
                k = -2 if desc.startswith("(Ljava/util/Locale;") and len(pending) >= 2 else -1
                ev = pending[k] if desc.count("Ljava/lang/String;") == 1 or k == -1 else pending[-1]
                if ev["kind"] == "plain":
                    ev["kind"] = "printf"
                del pending[pending.index(ev) + 1:]
            elif cname == "java/text/MessageFormat" and mname == "format" and pending:
                ev = pending[-1]
                if ev["kind"] == "plain":
                    ev["kind"] = "msgformat"
            elif LOGGER_CLASSES.match(cname) and LOG_METHODS.match(mname) and pending:
                k = max(1, _stringish_params(desc))
                cand = pending[-min(k, len(pending)):]
                ev = cand[0]
                # for log(Level, msg, ...) the level is not a string, so the rule still holds
                lvl = mname.lower().rstrip("fv") if mname.endswith(("f", "v")) and mname not in ("info", "config") else mname
                ev = dict(ev)
                ev["level"] = LEVEL_OF.get(lvl, lvl if lvl in ("trace", "debug", "info", "warn", "error") else None)
                ev["logger_call"] = "%s.%s" % (cname.rsplit("/", 1)[-1], mname)
                if mname.endswith("f") and ev["kind"] == "plain":
                    ev["kind"] = "printf"
                if mname.endswith("v") and ev["kind"] == "plain":
                    ev["kind"] = "msgformat"
                out.append(ev)
                del pending[-min(k, len(pending)):]
            elif mname == "<init>" and re.search(r"(Exception|Error|Fault|Failure)$", cname) and pending and \
                    desc.startswith(("(Ljava/lang/String;", "(Ljava/lang/String;Ljava/lang/Throwable;")):
                ev = dict(pending.pop() if desc.startswith("(Ljava/lang/String;)") else
                          pending[-1])
                if not desc.startswith("(Ljava/lang/String;)"):
                    pending.pop()
                ev["exception"] = cname.replace("/", ".")
                out.append(ev)
            else:
                k = _stringish_params(desc)
                if k and pending:
                    del pending[-min(k, len(pending)):]
                last_val_hint = _hint_from_member(mname) if desc.split(")")[-1] != "V" else None
        prev_ldc = cur_ldc
        if len(pending) > 8:
            del pending[:-8]
        pc += ln if ln > 0 else 1
    return out


def event_template(ev: dict, reasons: collections.Counter) -> tuple[str, str, str, list[str]] | None:
    """(fmt, raw, kind, rules) of a message event."""
    kind = ev["kind"]
    if kind == "concat_sb":
        pieces = ev["pieces"]
        raw_parts, tpl = [], []
        for k, v in pieces:
            if k == "lit":
                raw_parts.append(v)
                tpl.append(("lit", v))
            else:
                raw_parts.append("{}")
                tpl.append(("hint", v))
        raw = "".join(raw_parts)
        text = "".join("{}" if k == "hint" else v.replace("{", "{{").replace("}", "}}") for k, v in tpl)
        hints = [v for k, v in tpl if k == "hint"]
        res = printfmt.to_template(text, "brace", "java", hints=hints)
        kind = "concat"
    elif kind == "concat":
        recipe = ev["text"]
        if "\x02" in recipe:
            return None
        raw = recipe.replace("\x01", "{}")
        text = recipe.replace("{", "{{").replace("}", "}}").replace("\x01", "{}")
        res = printfmt.to_template(text, "brace", "java")
    else:
        raw = ev["text"]
        if kind == "printf" or (re.search(r"%[sd]", raw) and "{}" not in raw):
            res = printfmt.to_template(raw, "java", "java")
            kind = "printf"
        elif "{}" in raw or re.search(r"\{\d+\}", raw):
            if re.search(r"\{\d+(,[^}]*)?\}", raw):
                kind = "msgformat"
                # MessageFormat: '' is a quote, literal braces are quoted
                res = printfmt.to_template(raw.replace("''", "'"), "brace", "java")
            else:
                kind = "brace"
                # slf4j: only {} are placeholders, other braces literal
                text = raw.replace("{", "{{").replace("}", "}}").replace("{{}}", "{}")
                res = printfmt.to_template(text, "brace", "java")
        else:
            res = (common.esc(raw), [])
            kind = "plain"
    if res is None:
        reasons["java:unparsable"] += 1
        return None
    fmt, rules = res
    return fmt, raw, kind, [r for _, r in rules]


def harvest_class(data: bytes, reasons: collections.Counter) -> tuple[str, list[dict]]:
    try:
        cf = ClassFile(data)
        codes = cf.methods()
    except (ValueError, struct.error, IndexError, TypeError):
        reasons["java:bad_class"] += 1
        return "", []
    recs = []
    for _mname, code in codes:
        try:
            events = scan_method(cf, code)
        except (struct.error, IndexError, ValueError):
            reasons["java:bad_code"] += 1
            continue
        for ev in events:
            if "logger_call" not in ev and "exception" not in ev:
                continue
            et = event_template(ev, reasons)
            if not et:
                continue
            fmt, raw, kind, rules = et
            raw = raw.strip()
            fmt = fmt.strip()
            constant = common.constant_text(fmt)
            why = common.message_ok(raw, constant, len(rules), "java")
            if why:
                reasons["java:" + why] += 1
                continue
            rec = {"fmt": fmt, "raw": raw, "lang": "java", "kind": kind, "rules": rules}
            if ev.get("exception"):
                rec["exception"] = ev["exception"]
                rec["kind"] = "exception"
                rec["msg_kind"] = kind
            if ev.get("level"):
                rec["level"] = ev["level"]
            recs.append(rec)
    return cf.name, recs


def main() -> int:
    reasons: collections.Counter = collections.Counter()
    recs = []
    pkgs = common.pkg_dirs("java")
    for pkg, root in pkgs:
        seen = set()
        for path in common.walk_files(root, (".jar",)):
            rel = path[len(root):]
            if common.is_excluded_path(rel) or "/usr/share/doc" in rel:
                continue
            try:
                zf = zipfile.ZipFile(path)
            except (zipfile.BadZipFile, OSError):
                continue
            with zf:
                for name in sorted(zf.namelist()):
                    if not name.endswith(".class") or common.is_excluded_path(name):
                        continue
                    try:
                        data = zf.read(name)
                    except Exception:  # noqa: BLE001 - corrupt member
                        continue
                    cname, rs = harvest_class(data, reasons)
                    for r in rs:
                        key = (r["fmt"], r.get("exception"))
                        if key in seen:
                            continue
                        seen.add(key)
                        r["source"] = "%s:%s!%s" % (pkg, os.path.basename(rel), cname.replace("/", "."))
                        recs.append(r)
    n = common.write_jsonl(os.path.join(common.OUT_DIR, "java.jsonl"), recs)
    print("java: %d records from %d packages; rejects: %s" % (n, len(pkgs), dict(reasons.most_common(20))),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
