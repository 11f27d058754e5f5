#!/usr/bin/python3
"""Render harvested templates (templates.jsonl) into full log lines with
variable spans, in the line formats real services emit.

Template syntax is synthlog's (``{slot}`` / ``{slot:N}``) with literal braces
escaped as ``{{`` and ``}}``; slot types come from synthlog.SLOTS plus
slots.NEW_SLOTS.  ``const_ident`` slots are filled with one fixed identifier
per template and are *not* reported as spans (they are constants in
practice).

Spans are ``(start, end, slot_type)`` in Python string indices, exactly like
synthlog: ``line[start:end]`` is the variable's text *as it appears in the
line* (after JSON / logfmt escaping).  Header fields that vary per line
(timestamps, host, pid, thread, request ids, access-log fields) are spans
too; levels, program, logger and caller names are constants of a template.

Line formats (``FORMATS``): plain, syslog, kernel, logfmt, json (zap, logrus,
pino, bunyan, structlog, ECS/logstash), klog, cri (containerd/CRI-O
``<ts> stdout F <line>``), docker (json-file), app (log4j/logback, Python
logging, Go log, glog), stack (Java/Python exception heads, Go panics),
access (combined, common, JSON access log; template ids after the harvested
ones).

API::

    from render import generate, load_templates
    for line, spans, template_id in generate(1000, seed=7):
        ...

CLI::

    /usr/bin/python3 render.py --n 20 --seed 1 [--format jsonl] [--style klog]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import zlib
from dataclasses import dataclass, field
from typing import Iterator

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402
import slots as slotmod  # noqa: E402
import synthlog  # noqa: E402  (slots.py put models/training on sys.path)
from synthlog import _between, _pick  # noqa: E402

DEFAULT_TEMPLATES = os.path.join(HERE, "templates.jsonl")
Span = tuple[int, int, str]
Piece = tuple[str, "str | None"]   # (text, slot type or None for literal text)

NUMERIC_TYPES = {"int", "float", "port", "pid", "status", "neg", "epoch", "epoch_ms", "bool"}


@dataclass(frozen=True)
class HTemplate:
    id: int
    fmt: str
    lang: str
    kind: str
    source: str
    kv: tuple[tuple[str, str], ...] = ()
    level: str | None = None
    exception: str | None = None
    literals: tuple[str, ...] = field(default=(), repr=False, compare=False)
    slots: tuple[tuple[str, int | None], ...] = field(default=(), repr=False, compare=False)
    const: str = field(default="", repr=False, compare=False)
    prog: str = field(default="", repr=False, compare=False)
    logger: str = field(default="", repr=False, compare=False)
    caller: str = field(default="", repr=False, compare=False)


def compile_template(tid: int, rec: dict) -> HTemplate:
    """Validate and pre-split one templates.jsonl record."""
    fmt = rec["fmt"]
    if "\n" in fmt or "\r" in fmt:
        raise ValueError("template must be single-line: %r" % fmt)
    lits, sl = common.template_literals(fmt)
    slots = []
    for name, arg in sl:
        if name not in slotmod.ALL_SLOTS:
            raise ValueError("unknown slot {%s} in %r" % (name, fmt))
        if arg is not None and name not in slotmod.SLOTS_WITH_ARG:
            raise ValueError("slot {%s} takes no argument" % name)
        slots.append((name, int(arg) if arg is not None else None))
    for i in range(1, len(lits) - 1):
        if lits[i] == "" and slots[i - 1][0] != "const_ident" and slots[i][0] != "const_ident":
            raise ValueError("adjacent slots in %r" % fmt)
    for k, t in rec.get("kv", []) or []:
        if t not in slotmod.ALL_SLOTS:
            raise ValueError("unknown kv slot %s" % t)
    source = rec.get("source", "")
    pkg, _, path = source.partition(":")
    key = "%s|%s" % (fmt, source)
    h = zlib.crc32(key.encode("utf-8"))
    const = _const_for(rec, path, key)
    return HTemplate(
        id=tid, fmt=fmt, lang=rec.get("lang", "c"), kind=rec.get("kind", "printf"), source=source,
        kv=tuple((k, t) for k, t in rec.get("kv", []) or []), level=rec.get("level"),
        exception=rec.get("exception"), literals=tuple(lits), slots=tuple(slots), const=const,
        prog=_prog_name(pkg, path), logger=_logger_name(rec.get("lang", ""), path, h),
        caller=_caller(rec.get("lang", ""), path, h))


def _const_for(rec: dict, path: str, key: str) -> str:
    if rec.get("lang") == "kernel" and path.endswith((".ko", ".ko.xz")):
        return os.path.basename(path).split(".ko")[0].replace("-", "_")
    return slotmod.const_ident_value(key)


def _prog_name(pkg: str, path: str) -> str:
    pkg = re.sub(r"(?<=.)@[^@/]+$", "", pkg).lstrip("@").replace("/", "-")  # npm name@version
    pkg = re.sub(r"(-libs|-common|-bin|-core|-daemon|-utils|-tools)+$", "", pkg) or pkg
    base = os.path.basename(path.split("!")[0])
    m = re.match(r"^lib([A-Za-z][\w+-]*?)(-[\d.]+)?\.so", base)
    if m and not re.match(r"^(c|m|pthread|dl|rt|python\d.*)$", m.group(1)):
        return m.group(1)
    if re.match(r"^lib.*\.so", base) or not base or "." in base and not base.endswith((".py", ".go")):
        name = re.sub(r"^lib", "", pkg)
        for _ in range(3):
            name = re.sub(r"-\d[\w.~+]*$", "", name)
        name = name or pkg
        return name
    return re.sub(r"\.(py|go)$", "", base)


def _logger_name(lang: str, path: str, h: int) -> str:
    if lang == "java" and "!" in path:
        return path.split("!", 1)[1]
    if lang == "python":
        mod = re.sub(r"\.py$", "", path).replace("/", ".")
        mod = re.sub(r"\.__init__$", "", mod)
        return mod.lstrip(".") or "root"
    return ""


def _caller(lang: str, path: str, h: int) -> str:
    if lang == "go":
        parts = path.split("/")
        return "%s:%d" % ("/".join(parts[-2:]), 20 + h % 900)
    if lang == "c":
        return "%s.c:%d" % (os.path.basename(path).split(".")[0] or "main", 20 + h % 2000)
    return ""


def load_templates(path: str | None = None) -> list[HTemplate]:
    out = []
    with open(path or DEFAULT_TEMPLATES, encoding="utf-8") as f:
        for i, line in enumerate(f):
            out.append(compile_template(i, json.loads(line)))
    return out


# ---------------------------------------------------------------------------
# Pieces -> line + spans
# ---------------------------------------------------------------------------

def assemble(pieces: list[Piece], escape=None) -> tuple[str, list[Span]]:
    out, spans, pos = [], [], 0
    for text, typ in pieces:
        if escape is not None:
            text = escape(text)
        if typ is not None and text:
            spans.append((pos, pos + len(text), typ))
        out.append(text)
        pos += len(text)
    return "".join(out), spans


def masked(line: str, spans: list[Span]) -> str:
    """The line with every span replaced by <*> (the template logsift eval scores against)."""
    out, pos = [], 0
    for s, e, _ in spans:
        out.append(line[pos:s])
        out.append("<*>")
        pos = e
    out.append(line[pos:])
    return "".join(out)


def message_pieces(t: HTemplate, rng: random.Random) -> list[Piece]:
    pieces: list[Piece] = []
    lits = t.literals
    for i, (name, arg) in enumerate(t.slots):
        if lits[i]:
            pieces.append((lits[i], None))
        if name == "const_ident":
            pieces.append((t.const, None))
        else:
            pieces.append((slotmod.generate(name, rng, arg), name))
    if lits[-1]:
        pieces.append((lits[-1], None))
    return _merge_literals(pieces)


def _merge_literals(pieces: list[Piece]) -> list[Piece]:
    out: list[Piece] = []
    for text, typ in pieces:
        if typ is None and out and out[-1][1] is None:
            out[-1] = (out[-1][0] + text, None)
        else:
            out.append((text, typ))
    return out


def kv_values(t: HTemplate, rng: random.Random) -> list[tuple[str, str, str]]:
    return [(k, slotmod.generate(typ, rng) if typ != "const_ident" else t.const, typ) for k, typ in t.kv]


def _level(t: HTemplate, rng: random.Random) -> str:
    if t.level in ("trace", "debug", "info", "warn", "error"):
        return t.level
    msg = " ".join(t.literals).lower()
    if re.search(r"fail|error|cannot|can't|unable|invalid|refused|denied|corrupt|fatal|panic", msg):
        return "error" if rng.random() < 0.7 else "warn"
    if re.search(r"warn|deprecat|ignor|skipp|retry|timeout|timed out|slow", msg):
        return "warn"
    return "info" if rng.random() < 0.8 else "debug"


def _ts(rng: random.Random, kind: str) -> Piece:
    return (slotmod.generate(kind, rng), kind)


# --- escapers ---------------------------------------------------------------

def json_escape(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)[1:-1]


def logfmt_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _needs_quote(v: str) -> bool:
    return v == "" or any(c in v for c in ' ="\\') or not v.isprintable()


# ---------------------------------------------------------------------------
# Renderers: fn(t, rng) -> list[Piece]
# ---------------------------------------------------------------------------

def _kv_plain(kvs, sep=" ") -> list[Piece]:
    out: list[Piece] = []
    for k, v, typ in kvs:
        if _needs_quote(v):
            out += [(sep + k + '="', None), (logfmt_escape(v), typ), ('"', None)]
        else:
            out += [(sep + k + "=", None), (v, typ)]
    return out


def r_plain(t: HTemplate, rng: random.Random) -> list[Piece]:
    return message_pieces(t, rng) + _kv_plain(kv_values(t, rng))


def r_syslog(t: HTemplate, rng: random.Random) -> list[Piece]:
    r = rng.random()
    hdr: list[Piece]
    if r < 0.6:
        hdr = [_ts(rng, "ts_syslog"), (" ", None), (synthlog.slot_host(rng), "host"),
               (" %s[" % t.prog, None), (synthlog.slot_pid(rng), "pid"), ("]: ", None)]
    elif r < 0.8:
        hdr = [_ts(rng, "ts_iso"), (" ", None), (synthlog.slot_host(rng), "host"),
               (" %s[" % t.prog, None), (synthlog.slot_pid(rng), "pid"), ("]: ", None)]
    else:  # journalctl short-precise / RFC5424
        hdr = [("<%d>1 " % _pick(rng, (11, 13, 14, 27, 30, 86, 134)), None), _ts(rng, "ts_iso"), (" ", None),
               (synthlog.slot_fqdn(rng), "fqdn"), (" %s " % t.prog, None), (synthlog.slot_pid(rng), "pid"),
               (" - - ", None)]
    return _merge_literals(hdr + r_plain(t, rng))


def r_kernel(t: HTemplate, rng: random.Random) -> list[Piece]:
    msg = message_pieces(t, rng)
    if t.kind.startswith("dev_printk") and rng.random() < 0.7:
        drv = t.const if t.lang == "kernel" else "pci"
        if rng.random() < 0.6:
            msg = [("%s " % drv, None), (slotmod.slot_pci_addr(rng), "pci_addr"), (": ", None)] + msg
        else:
            msg = [("%s " % drv, None), (slotmod.slot_pci_addr(rng), "pci_addr"), (" ", None),
                   (slotmod.slot_iface(rng), "iface"), (": ", None)] + msg
    if rng.random() < 0.5:
        hdr = [("[", None), (" " * rng.randrange(0, 4), None), (synthlog.slot_uptime(rng), "uptime"), ("] ", None)]
    else:
        hdr = [_ts(rng, "ts_syslog"), (" ", None), (synthlog.slot_host(rng), "host"), (" kernel: ", None)]
        if rng.random() < 0.5:
            hdr += [("[", None), (synthlog.slot_uptime(rng), "uptime"), ("] ", None)]
    return _merge_literals(hdr + msg)


def r_logfmt(t: HTemplate, rng: random.Random) -> list[Piece]:
    lvl = _level(t, rng)
    hdr: list[Piece] = []
    if rng.random() < 0.5:
        hdr += [("ts=", None), _ts(rng, "ts_iso"), (" level=%s" % lvl, None)]
    else:
        hdr += [('time="', None), _ts(rng, "ts_iso"), ('" level=%s' % lvl, None)]
    if t.caller and rng.random() < 0.6:
        hdr.append((" caller=%s" % t.caller, None))
    hdr.append((' msg="', None))
    msg = [(logfmt_escape(x), typ) for x, typ in message_pieces(t, rng)]
    tail = _kv_plain(kv_values(t, rng))
    if rng.random() < 0.3:
        tail += [(" component=%s" % (t.prog or "app"), None)]
    return _merge_literals(hdr + msg + [('"', None)] + tail)


def _json_value(v: str, typ: str) -> list[Piece]:
    if typ in NUMERIC_TYPES and re.fullmatch(r"-?\d+(\.\d+)?|true|false", v):
        return [(v, typ)]
    return [('"', None), (json_escape(v), typ), ('"', None)]


def r_json(t: HTemplate, rng: random.Random) -> list[Piece]:
    lvl = _level(t, rng)
    style = _pick(rng, ("zap", "logrus", "pino", "bunyan", "structlog", "ecs"))
    msg = [(json_escape(x), typ) for x, typ in message_pieces(t, rng)]
    pino_lvl = {"trace": 10, "debug": 20, "info": 30, "warn": 40, "error": 50}[lvl]
    p: list[Piece] = []
    if style == "zap":
        p += [('{"level":"%s","ts":' % lvl, None), (synthlog.slot_epoch(rng, 6), "epoch")]
        if t.caller:
            p.append((',"caller":"%s"' % t.caller, None))
        p += [(',"msg":"', None)] + msg + [('"', None)]
    elif style == "logrus":
        p += [('{"level":"%s","msg":"' % lvl, None)] + msg + [('","time":"', None), _ts(rng, "ts_iso"), ('"', None)]
    elif style == "pino":
        p += [('{"level":%d,"time":' % pino_lvl, None), (synthlog.slot_epoch_ms(rng), "epoch_ms"),
              (',"pid":', None), (synthlog.slot_pid(rng), "pid"), (',"hostname":"', None),
              (synthlog.slot_host(rng), "host"), ('","msg":"', None)] + msg + [('"', None)]
    elif style == "bunyan":
        p += [('{"name":"%s","hostname":"' % (t.prog or "app"), None), (synthlog.slot_host(rng), "host"),
              ('","pid":', None), (synthlog.slot_pid(rng), "pid"), (',"level":%d,"msg":"' % pino_lvl, None)] + msg + \
             [('","time":"', None), _ts(rng, "ts_iso"), ('","v":0', None)]
    elif style == "structlog":
        p += [('{"event":"', None)] + msg + [('","level":"%s","timestamp":"' % lvl, None), _ts(rng, "ts_iso"),
                                             ('"', None)]
        if t.logger:
            p.append((',"logger":"%s"' % t.logger, None))
    else:  # ECS / logstash-logback-encoder
        p += [('{"@timestamp":"', None), _ts(rng, "ts_iso"), ('","log.level":"%s","message":"' % lvl.upper(), None)] + \
             msg + [('"', None)]
        if t.logger:
            p.append((',"log.logger":"%s"' % t.logger, None))
        if t.lang == "java":
            p += [(',"process.thread.name":"', None), (json_escape(synthlog.slot_thread(rng)), "thread"), ('"', None)]
    for k, v, typ in kv_values(t, rng):
        p.append((',"%s":' % json_escape(k), None))
        p += _json_value(v, typ)
    p.append(("}", None))
    return _merge_literals(p)


def _klog_hdr(t: HTemplate, rng: random.Random, lvl: str) -> list[Piece]:
    caller = t.caller or "%s.go:%d" % (t.prog or "main", 20 + t.id % 900)
    return [(lvl[0].upper() if lvl != "debug" else "I", None), _ts(rng, "ts_glog"),
            (" " * _pick(rng, (1, 3, 4, 5)), None), (synthlog.slot_pid(rng), "pid"), (" %s] " % caller, None)]


def r_klog(t: HTemplate, rng: random.Random) -> list[Piece]:
    lvl = _level(t, rng)
    if lvl == "trace":
        lvl = "info"
    p = _klog_hdr(t, rng, lvl)
    msg = message_pieces(t, rng)
    kvs = kv_values(t, rng)
    if kvs or t.kind == "kv":
        p += [('"', None)] + [(logfmt_escape(x), typ) for x, typ in msg] + [('"', None)]
        for k, v, typ in kvs:
            if typ in NUMERIC_TYPES and re.fullmatch(r"-?\d+(\.\d+)?|true|false", v):
                p += [(" %s=" % k, None), (v, typ)]
            else:
                p += [(' %s="' % k, None), (logfmt_escape(v), typ), ('"', None)]
    else:
        p += msg
    return _merge_literals(p)


def r_cri(t: HTemplate, rng: random.Random) -> list[Piece]:
    inner = _pick(rng, (r_klog, r_json, r_logfmt, r_plain))(t, rng)
    return _merge_literals([_ts(rng, "ts_iso"), (" %s F " % _pick(rng, ("stdout", "stderr")), None)] + inner)


def r_docker(t: HTemplate, rng: random.Random) -> list[Piece]:
    inner = _pick(rng, (r_plain, r_logfmt, r_klog))(t, rng)
    p = [('{"log":"', None)] + [(json_escape(x), typ) for x, typ in inner] + \
        [('\\n","stream":"%s","time":"' % _pick(rng, ("stdout", "stderr")), None), _ts(rng, "ts_iso"), ('"}', None)]
    return _merge_literals(p)


def r_app(t: HTemplate, rng: random.Random) -> list[Piece]:
    lvl = _level(t, rng).upper()
    msg = r_plain(t, rng)
    if t.lang == "java":
        logger = t.logger or "org.example.App"
        short = ".".join(x[0] for x in logger.split(".")[:-1]) + "." + logger.split(".")[-1] if "." in logger else logger
        if rng.random() < 0.5:
            hdr = [_ts(rng, "ts_log4j"), (" %-5s [" % lvl, None), (synthlog.slot_thread(rng), "thread"),
                   ("] %s - " % logger, None)]
        else:
            hdr = [_ts(rng, "ts_iso"), (" %5s " % lvl, None), (synthlog.slot_pid(rng), "pid"), (" --- [", None),
                   (synthlog.slot_thread(rng), "thread"), ("] %s : " % short, None)]
    elif t.lang == "python":
        logger = t.logger or "root"
        lv = "WARNING" if lvl == "WARN" else lvl
        r = rng.random()
        if r < 0.4:
            hdr = [_ts(rng, "ts_log4j"), (" - %s - %s - " % (logger, lv), None)]
        elif r < 0.7:
            hdr = [("%s:%s:" % (lv, logger), None)]
        else:
            hdr = [_ts(rng, "ts_log4j"), (" %s %s[" % (lv, logger), None), (synthlog.slot_pid(rng), "pid"), ("]: ", None)]
    elif t.lang == "go":
        hdr = [_ts(rng, "ts_slash"), (" ", None)]
        if rng.random() < 0.3:
            hdr.append(("[%s] " % lvl, None))
    else:
        hdr = [("[", None), _ts(rng, "ts_log4j"), ("] [%s] [%s] " % (t.prog or "app", lvl.lower()), None)]
    return _merge_literals(hdr + msg)


_JAVA_EXC_DEFAULT = ("java.lang.IllegalStateException", "java.lang.IllegalArgumentException", "java.io.IOException",
                     "java.lang.RuntimeException", "java.util.concurrent.ExecutionException")
_PY_EXC_DEFAULT = ("ValueError", "RuntimeError", "KeyError", "OSError", "ConnectionError", "TimeoutError")


def r_stack(t: HTemplate, rng: random.Random) -> list[Piece]:
    msg = message_pieces(t, rng)
    if t.lang == "java":
        exc = t.exception or _pick(rng, _JAVA_EXC_DEFAULT)
        if "." not in exc:
            exc = "java.lang." + exc
        r = rng.random()
        pre = "Caused by: " if r < 0.35 else ('Exception in thread "main" ' if r < 0.45 else "")
        return _merge_literals([("%s%s: " % (pre, exc), None)] + msg)
    if t.lang == "python":
        exc = t.exception or _pick(rng, _PY_EXC_DEFAULT)
        if t.source and rng.random() < 0.3 and "." not in exc:
            mod = t.logger.split(".")[0] if t.logger else ""
            if mod and exc not in ("ValueError", "TypeError", "KeyError", "RuntimeError", "OSError",
                                   "NotImplementedError", "AttributeError", "IndexError"):
                exc = "%s.%s" % (mod, exc)
        return _merge_literals([("%s: " % exc, None)] + msg)
    if t.lang == "go":
        pre = _pick(rng, ("panic: ", "Error: ", "fatal error: ", "level=fatal msg="))
        if pre == "level=fatal msg=":
            return _merge_literals([('level=fatal msg="', None)] + [(logfmt_escape(x), y) for x, y in msg] + [('"', None)])
        return _merge_literals([(pre, None)] + msg)
    return _merge_literals([("Error: ", None)] + msg)


FORMATS = {
    "plain": r_plain, "syslog": r_syslog, "kernel": r_kernel, "logfmt": r_logfmt, "json": r_json,
    "klog": r_klog, "cri": r_cri, "docker": r_docker, "app": r_app, "stack": r_stack,
}

# which formats suit which template (lang, kind); weights
_STYLE_WEIGHTS = {
    "c": (("syslog", 5), ("plain", 3), ("app", 1), ("json", 1), ("logfmt", 0.5)),
    "kernel": (("kernel", 7), ("plain", 2), ("syslog", 1)),
    "go": (("klog", 3), ("logfmt", 3), ("json", 3), ("app", 1.5), ("cri", 1.5), ("docker", 0.7), ("plain", 1),
           ("syslog", 1)),
    "java": (("app", 6), ("json", 1.5), ("plain", 1), ("cri", 0.5), ("syslog", 0.5)),
    "python": (("app", 5), ("json", 1.5), ("plain", 1.5), ("syslog", 1), ("logfmt", 0.5), ("cri", 0.3)),
    "js": (("json", 4), ("plain", 2), ("app", 1), ("cri", 1)),
}


def pick_style(t: HTemplate, rng: random.Random) -> str:
    if t.kind == "exception":
        return "stack" if rng.random() < 0.75 else "app"
    if t.kind in ("errorf", "error_new") and rng.random() < 0.2:
        return "stack"
    if t.kv and t.lang == "go" and rng.random() < 0.3:
        return "klog"
    choices = _STYLE_WEIGHTS.get(t.lang, _STYLE_WEIGHTS["c"])
    tot = sum(w for _, w in choices)
    x = rng.random() * tot
    for name, w in choices:
        x -= w
        if x < 0:
            return name
    return choices[-1][0]


def render(t: HTemplate, rng: random.Random, style: str | None = None) -> tuple[str, list[Span]]:
    style = style or pick_style(t, rng)
    pieces = FORMATS[style](t, rng)
    return assemble(pieces)


# ---------------------------------------------------------------------------
# HTTP access logs (not harvested: fixed formats with per-line values)
# ---------------------------------------------------------------------------

ACCESS_FORMATS = ("combined", "common", "json", "vhost_combined", "timed")


def render_access(kind: str, rng: random.Random) -> tuple[str, list[Span]]:
    method = slotmod.slot_http_method(rng)
    proto = _pick(rng, ("HTTP/1.1", "HTTP/1.1", "HTTP/2.0", "HTTP/1.0"))
    client = slotmod.slot_ipaddr(rng)
    user = synthlog.slot_user(rng) if rng.random() < 0.15 else None
    uri = synthlog.slot_uri(rng)
    status = synthlog.slot_status(rng)
    nbytes = str(_between(rng, 0, 250000))
    ref = synthlog.slot_url(rng) if rng.random() < 0.6 else None
    ua = synthlog.slot_useragent(rng)
    ts = synthlog.slot_ts_apache(rng)
    if kind == "json":
        rt = "%.3f" % (rng.random() * 2)
        p: list[Piece] = [('{"time":"', None), (synthlog.slot_ts_iso(rng), "ts_iso"), ('","remote_addr":"', None),
                          (client, "ipaddr"), ('","method":"', None), (method, "http_method"), ('","uri":"', None),
                          (json_escape(uri), "uri"), ('","protocol":"%s","status":' % proto, None), (status, "status"),
                          (',"bytes_sent":', None), (nbytes, "int"), (',"request_time":', None), (rt, "float"),
                          (',"http_user_agent":"', None), (json_escape(ua), "useragent"), ('"}', None)]
        return assemble(_merge_literals(p))
    p = []
    if kind == "vhost_combined":
        p += [(synthlog.slot_fqdn(rng), "fqdn"), (":", None), (_pick(rng, ("80", "443")), "port"), (" ", None)]
    p += [(client, "ipaddr"), (" - ", None)]
    p += [(user, "user")] if user else [("-", None)]
    p += [(" [", None), (ts, "ts_apache"), ('] "', None), (method, "http_method"), (" ", None), (uri, "uri"),
          (' %s" ' % proto, None), (status, "status"), (" ", None)]
    p += [(nbytes, "int")] if nbytes != "0" else [("-", None)]
    if kind in ("combined", "vhost_combined", "timed"):
        p += [(' "', None)] + ([(ref, "url")] if ref else [("-", None)]) + [('" "', None), (ua, "useragent"), ('"', None)]
    if kind == "timed":
        p += [(" ", None), (str(_between(rng, 80, 3000000)), "int")]
    return assemble(_merge_literals(p))


# ---------------------------------------------------------------------------
# Mixed generator
# ---------------------------------------------------------------------------

_TEMPLATES_CACHE: dict[str, list[HTemplate]] = {}


def _templates(path: str | None) -> list[HTemplate]:
    key = path or DEFAULT_TEMPLATES
    if key not in _TEMPLATES_CACHE:
        _TEMPLATES_CACHE[key] = load_templates(key)
    return _TEMPLATES_CACHE[key]


def generate(n: int, seed: int = 0, templates: list[HTemplate] | None = None, access_rate: float = 0.06,
             path: str | None = None) -> Iterator[tuple[str, list[Span], int]]:
    """Yield n (line, spans, template_id).  Access-log lines get ids
    len(templates) + index into ACCESS_FORMATS.  Deterministic in (n, seed)."""
    tpls = templates if templates is not None else _templates(path)
    rng = random.Random(seed)
    nt = len(tpls)
    for _ in range(n):
        if rng.random() < access_rate or nt == 0:
            k = int(rng.random() * len(ACCESS_FORMATS))
            line, spans = render_access(ACCESS_FORMATS[k], rng)
            yield line, spans, nt + k
            continue
        t = tpls[int(rng.random() * nt)]
        line, spans = render(t, rng)
        yield line, spans, t.id


def mark(line: str, spans: list[Span]) -> str:
    """Human-readable view: variables as [[text|type]]."""
    out, pos = [], 0
    for s, e, typ in spans:
        out.append(line[pos:s])
        out.append("[[%s|%s]]" % (line[s:e], typ))
        pos = e
    out.append(line[pos:])
    return "".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--templates", default=None)
    ap.add_argument("--format", choices=("text", "marked", "jsonl"), default="marked")
    ap.add_argument("--style", choices=sorted(FORMATS), default=None)
    a = ap.parse_args(argv)
    tpls = load_templates(a.templates)
    if a.style:
        rng = random.Random(a.seed)
        gen = ((lambda t: (*render(t, rng, a.style), t.id))(tpls[int(rng.random() * len(tpls))]) for _ in range(a.n))
    else:
        gen = generate(a.n, a.seed, tpls)
    for line, spans, tid in gen:
        if a.format == "jsonl":
            print(json.dumps({"line": line, "spans": spans, "template_id": tid}, ensure_ascii=False))
        elif a.format == "marked":
            print(mark(line, spans))
        else:
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
