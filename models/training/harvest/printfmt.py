#!/usr/bin/python3
"""Format-string parsing for every placeholder dialect the harvesters meet.

``parse(raw, dialect)`` splits a format string into literal text and
placeholders; ``to_template(raw, dialect, lang)`` turns it into a synthlog-
syntax template plus the inference rule of each slot.

Dialects:
  c       printf(3) incl. glibc %m and positional %1$s
  kernel  printk: printf + %p extensions (%pI4 %pM %pS %pe %*ph ...)
  go      fmt verbs (%v %+v %q %T %w %t ...)
  python  %-formatting incl. %(name)s
  java    java.util.Formatter (%s %d %n %,d %1$s)
  brace   {} (slf4j), {0} (MessageFormat), {name} (str.format / structured)
"""

from __future__ import annotations

import re

import common

_C_CONV = re.compile(
    r"%(?:(?P<pos>\d+)\$)?(?P<flags>[-+ #0']*)(?P<width>\*(?:\d+\$)?|\d+)?(?:\.(?P<prec>\*(?:\d+\$)?|\d*))?"
    r"(?P<len>hh|h|ll|l|L|q|j|z|Z|t)?(?P<conv>[diouxXeEfFgGaAcspnmC%S])")
_KERNEL_P_EXT = re.compile(
    r"(I[46][hnbl]?c?|i[46][hnbl]?|IS[c]?|iS|M[RF]?|m[R]?|U[bBlL]|[SsFfB]R?|K|V|R[a]?|r[a]?|a[dp]?|"
    r"[dD][2-4]?|g|h[CDN]?|e|OF[a-zA-Z]*|t[RT][a-z]*|x|G[gpl]|C[nr]?|NF|E[a-z]*|b[l]?|4cc)")
_GO_VERB = re.compile(r"%(?P<flags>[-+# 0]*)(?:\[\d+\])?(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d*))?(?P<conv>[vTtbcdoOqxXUeEfFgGsp%w])")
_PY_CONV = re.compile(r"%(?:\((?P<name>[^)]*)\))?(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d*))?"
                      r"(?P<len>[hlL])?(?P<conv>[diouxXeEfFgGcrsab%])")
_JAVA_CONV = re.compile(r"%(?:(?P<pos>\d+)\$)?(?P<flags>[-#+ 0,(<]*)(?P<width>\d+)?(?:\.(?P<prec>\d+))?"
                        r"(?P<conv>[bBhHsScCdoxXeEfgGaAn%]|[tT][a-zA-Z])")
_JS_CONV = re.compile(r"%(?P<flags>)(?P<width>)(?P<prec>)(?P<conv>[sdifjoOc%])")
_BRACE = re.compile(r"\{\{|\}\}|\{(?P<name>[^{}]*)\}")


class FormatError(ValueError):
    pass


def _conv_class(conv: str, dialect: str, ext: str = "") -> str:
    """Coarse class of a conversion letter (before context is considered)."""
    if dialect == "kernel" and conv == "p" and ext:
        e = ext
        if e.startswith(("I4", "i4")):
            return "ipv4"
        if e.startswith(("I6", "i6")):
            return "ipv6"
        if e.startswith(("IS", "iS")):
            return "ipv4_port"
        if e.startswith(("M", "m")):
            return "mac"
        if e.startswith("U"):
            return "uuid"
        if e[0] in "SsFfB":
            return "ksym"
        if e in ("V",):
            return "text"
        if e.startswith(("R", "r")):
            return "kres"
        if e.startswith("a"):
            return "hex0x"
        if e[0] in "dD":
            return "path"
        if e == "g":
            return "device"
        if e.startswith("h"):
            return "hexbytes"
        if e == "e":
            return "errno_name"
        if e.startswith("OF"):
            return "path"
        if e.startswith("t"):
            return "ts_iso"
        if e == "K" or e == "x":
            return "hex0x"
        if e.startswith("E"):
            return "word"
        if e.startswith("C"):
            return "word"
        if e.startswith("b"):
            return "hex"
        if e == "4cc":
            return "word"
        return "hex0x"
    if conv in "di":
        return "int"
    if conv in "uo":
        return "int"
    if conv in "xX":
        return "hex"
    if conv in "eEfFgGaA":
        return "float"
    if conv in "cC":
        return "char"
    if conv == "p":
        return "hex0x"
    if conv == "m":
        return "errmsg"
    if dialect == "go":
        if conv == "T":
            return "class_name"
        if conv == "t":
            return "bool"
        if conv == "w":
            return "err_text"
        if conv == "b":
            return "int"
        if conv == "U":
            return "word"
        if conv == "q":
            return "str"
        if conv == "O":
            return "int"
    if dialect == "js":
        if conv == "j":
            return "json_frag"
        if conv in "oO":
            return "str"
    if dialect == "python" and conv in "rsab":
        return "str"
    if dialect == "java":
        if conv in "bB":
            return "bool"
        if conv in "hH":
            return "hex"
    return "str"


def parse(raw: str, dialect: str) -> list[tuple]:
    """List of ("lit", text) and ("conv", conv_class, name_hint, spec, quote) pieces."""
    pieces: list[tuple] = []
    if dialect == "brace":
        pos = 0
        for m in _BRACE.finditer(raw):
            if m.start() > pos:
                pieces.append(("lit", raw[pos:m.start()]))
            tok = m.group(0)
            if tok == "{{":
                pieces.append(("lit", "{"))
            elif tok == "}}":
                pieces.append(("lit", "}"))
            else:
                name = m.group("name")
                # {0}, {}, {name}, {name!r}, {:.2f}, {0,number,#}; anything else is literal text
                nm = re.match(r"^\s*([A-Za-z_][\w.\[\]'\"]*|\d+)?\s*(![rsa])?\s*(:[^{}]*)?(,[^{}]*)?$", name)
                if not nm or (name and not nm.group(1) and not nm.group(3)):
                    pieces.append(("lit", tok))
                else:
                    hint = nm.group(1) if nm.group(1) and not nm.group(1).isdigit() else None
                    spec = (nm.group(3) or "") + (nm.group(4) or "")
                    cls = "str"
                    if re.search(r"[df]$|number|integer", spec):
                        cls = "float" if re.search(r"\.\d*f$|f$", spec) else "int"
                    elif re.search(r"[xX]$", spec):
                        cls = "hex"
                    pieces.append(("conv", cls, hint, tok, None))
            pos = m.end()
        if pos < len(raw):
            pieces.append(("lit", raw[pos:]))
        return pieces

    rx = {"c": _C_CONV, "kernel": _C_CONV, "go": _GO_VERB, "python": _PY_CONV, "java": _JAVA_CONV,
          "js": _JS_CONV}[dialect]
    pos = 0
    i = 0
    n = len(raw)
    while i < n:
        j = raw.find("%", i)
        if j < 0:
            break
        m = rx.match(raw, j)
        if not m:
            raise FormatError("bad conversion at %d in %r" % (j, raw))
        conv = m.group("conv")
        end = m.end()
        if j > pos:
            pieces.append(("lit", raw[pos:j]))
        if conv == "%":
            pieces.append(("lit", "%"))
        elif dialect == "js" and conv == "c":
            pass  # CSS directive, consumes an argument, prints nothing
        elif dialect == "java" and conv == "n":
            pieces.append(("lit", " "))
        elif conv == "n" and dialect in ("c", "kernel"):
            raise FormatError("%n")
        else:
            ext = ""
            if dialect == "kernel" and conv == "p":
                e = _KERNEL_P_EXT.match(raw, end)
                if e:
                    ext = e.group(0)
                    end = e.end()
            if dialect == "java" and conv[0] in "tT":
                cls = "ts_iso"
            else:
                cls = _conv_class(conv, dialect, ext)
            name = m.groupdict().get("name")
            spec = raw[j:end]
            quote = None
            if dialect == "go" and conv == "q":
                quote = '"'
            if dialect == "python" and conv == "r":
                quote = "'"
            pieces.append(("conv", cls, name, spec, quote))
        pos = i = end
    if pos < n:
        pieces.append(("lit", raw[pos:]))
    return pieces


_MARK = "\x01"


def to_template(raw: str, dialect: str, lang: str, hints: list[str | None] | None = None,
                context: str = "") -> tuple[str, list[tuple[str, str]]] | None:
    """(template, [(slot_type, rule), ...]) for one format string, or None.

    ``hints`` optionally gives a name per placeholder (e.g. the argument
    expressions of the call site: ``log.Printf("x %s", req.URL)`` -> "req.URL").
    """
    try:
        pieces = parse(raw, dialect)
    except FormatError:
        return None
    convs = [k for k, p in enumerate(pieces) if p[0] == "conv"]
    out: list[tuple[str, str]] = []
    rules: list[tuple[str, str]] = []
    # literal text around each conversion, other conversions shown as a marker
    flat = [p[1] if p[0] == "lit" else _MARK for p in pieces]
    ci = 0
    for k, p in enumerate(pieces):
        if p[0] == "lit":
            out.append(("lit", p[1]))
            continue
        _, cls, name, spec, quote = p
        before = "".join(flat[:k])
        after = "".join(flat[k + 1:])
        hint = name
        if hints is not None and ci < len(hints) and hints[ci]:
            hint = hint or hints[ci]
        is_first = (ci == 0 and not before.strip())
        if cls in ("str", "int", "float"):
            t, rule = common.infer(cls, before, after, hint, lang, is_first)
        else:
            t, rule = cls, "conv:" + cls
        # "%s:%d" -> host + port
        if t == "port" or (cls == "int" and before.endswith(_MARK + ":") and rules and
                           rules[-1][0] in ("host", "ipaddr", "word", "fqdn", "name")):
            t, rule = "port", rule if t == "port" else "hostport"
            if rules and before.endswith(_MARK + ":") and rules[-1][0] in ("word", "name", "fqdn"):
                rules[-1] = ("host", "hostport")
                # fix the already emitted slot
                for q in range(len(out) - 1, -1, -1):
                    if out[q][0] == "slot":
                        out[q] = ("slot", "host")
                        break
        prev_lit = out[-1][1] if out and out[-1][0] == "lit" else ""
        if t == "hex0x" and prev_lit.lower().endswith("0x"):
            t = "hex"
        if quote:
            out.append(("lit", quote))
        out.append(("slot", t))
        if quote:
            out.append(("lit", quote))
        rules.append((t, rule))
        ci += 1
    fmt = common.assemble(out)
    if fmt is None:
        return None
    return fmt, rules
