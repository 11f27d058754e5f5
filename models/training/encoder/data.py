"""Training classes for the log encoder and the augmentations that make views.

A *class* is one event: a list of template texts that must share a cluster id.
Sources, all deterministic for a seed:

* loghub (../shared/data/loghub-2k, the nine labelled sets): one class per
  EventId, holding its EventTemplate and the templates that the serving
  pipeline (`logsift cluster`, pre-mask + denoiser) makes of its lines, so the
  encoder sees the real denoiser's output, noise included.  Templates in the
  same set are each other's hard negatives (they are batched together).
* synthlog templates: one class per template (plus pipeline templates of a
  few rendered lines); members of a synthlog family, one word apart, are
  batched together as hard negatives.
* generated pairs: random sentences over the words of both sources, each with
  a twin one meaningful token apart (an antonym, an added qualifier, another
  word, another exception class) so the model learns that every content word
  counts, beyond the words it has seen.

Views (positives) are class members with augmentations: a trailing cause
clause, a package prefix, a ``Caused by:`` prefix, case and punctuation
changes, a variable left unmasked.
"""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, ".."))

import synthlog  # noqa: E402
from loghub import DEFAULT_LOGHUB, LOGHUB_SETS, REPO, find_logsift, loghub_csv_path, open_labelled_csv  # noqa: E402,F401

# Trailing causes the augmentation appends (a positive view): more than the
# transport-level phrases text.CAUSES strips exactly, so the model learns the rest.
AUGMENT_CAUSES = [
    "Temporary failure in name resolution", "Connection refused", "Connection reset by peer",
    "No route to host", "Read timed out", "connect timed out", "Broken pipe", "Permission denied",
    "No such file or directory", "Name or service not known", "Network is unreachable",
    "Operation timed out", "Too many open files", "No space left on device", "Resource temporarily unavailable",
    "Host is down", "Socket closed", "The connection was closed by the remote host",
    "SSL handshake failed", "certificate has expired", "unexpected end of stream", "EOF",
    "context deadline exceeded", "i/o timeout", "deadline exceeded after <*>", "server returned <*>",
    "Remote host terminated the handshake", "Address already in use", "Input/output error",
    "Cannot allocate memory", "Disk quota exceeded", "signal <*> (Killed)", "exit code <*>",
    "Broker not available", "Service Unavailable", "Internal Server Error", "Bad Gateway",
]

ANTONYMS = [
    ("opened", "closed"), ("open", "close"), ("started", "stopped"), ("started", "paused"),
    ("starting", "stopping"), ("succeeded", "failed"), ("success", "failure"), ("accepted", "rejected"),
    ("accepted", "failed"), ("allowed", "denied"), ("enabled", "disabled"), ("connected", "disconnected"),
    ("up", "down"), ("in", "out"), ("on", "off"), ("added", "removed"), ("created", "deleted"),
    ("acquired", "released"), ("locked", "unlocked"), ("mounted", "unmounted"), ("valid", "invalid"),
    ("healthy", "unhealthy"), ("available", "unavailable"), ("found", "missing"), ("hit", "miss"),
    ("read", "write"), ("sent", "received"), ("upload", "download"), ("uploading", "downloading"),
    ("leader", "follower"), ("primary", "secondary"), ("master", "slave"), ("committed", "aborted"),
    ("begin", "end"), ("before", "after"), ("min", "max"), ("increased", "decreased"),
    ("granted", "revoked"), ("attached", "detached"), ("registered", "unregistered"), ("ready", "pending"),
    ("scheduled", "evicted"), ("started", "finished"), ("running", "terminated"), ("passed", "failed"),
    ("login", "logout"), ("encrypt", "decrypt"), ("inbound", "outbound"), ("high", "low"),
    ("first", "last"), ("expired", "renewed"), ("suspended", "resumed"), ("blocked", "unblocked"),
]
QUALIFIERS = ["invalid", "not", "unknown", "failed to", "unable to", "no", "missing", "duplicate",
              "unexpected", "partial", "stale", "corrupt", "temporary", "remote", "local"]
PACKAGES = ["com.amazonaws.", "java.lang.", "java.io.", "java.net.", "org.apache.hadoop.ipc.",
            "io.netty.channel.", "org.springframework.web.", "com.acme.billing.", "net.example.core.",
            "org.postgresql.util.", "kotlin.", "scala.concurrent.", "com.google.common.util."]
EXC_SUFFIX = ["Exception", "Error", "Failure", "Fault"]


def find_binary() -> str:
    binary = find_logsift()
    if not binary:
        raise RuntimeError("logsift binary not found: build it (bash docker/setup.sh build) or set LOGSIFT_BIN")
    return binary


def pipeline_templates(lines: Sequence[str], binary: Optional[str] = None) -> List[str]:
    """Templates the serving pipeline (pre-mask + shipped denoiser) makes of lines."""
    binary = binary or find_binary()
    env = dict(os.environ, LOGSIFT_ENCODER_MODEL="hashed")
    clean = [l.replace("\n", " ").replace("\r", " ") for l in lines]
    out = subprocess.run([binary, "cluster", "-"], input="\n".join(clean) + "\n", capture_output=True,
                         text=True, env=env, check=True)
    res = []
    for row in out.stdout.splitlines():
        j = json.loads(row)
        res.append(j.get("template", ""))
    if len(res) != len(lines):
        raise RuntimeError("logsift cluster returned %d rows for %d lines" % (len(res), len(lines)))
    return res


class Klass:
    __slots__ = ("key", "group", "texts")

    def __init__(self, key: str, group: str, texts: List[str]) -> None:
        self.key = key        # unique name
        self.group = group    # classes of one group are batched together (hard negatives)
        self.texts = texts    # first = the reference template


LoghubSet = Tuple[List[Dict[str, str]], List[str]]  # csv rows, pipeline template of each row


def loghub_sets(root: str = DEFAULT_LOGHUB, sets: Sequence[str] = LOGHUB_SETS,
                binary: Optional[str] = None, max_per_set: int = 0) -> Dict[str, LoghubSet]:
    """Each set's labelled rows and the template the serving pipeline makes of each line."""
    out: Dict[str, LoghubSet] = {}
    for name in sets:
        with open_labelled_csv(root, name) as f:
            rows = list(csv.DictReader(f))
        if max_per_set:
            rows = rows[:max_per_set]
        out[name] = (rows, pipeline_templates([r["Content"] for r in rows], binary))
    return out


def loghub_classes(lh_sets: Dict[str, LoghubSet]) -> List[Klass]:
    out: List[Klass] = []
    for name, (rows, tpls) in lh_sets.items():
        by_event: Dict[str, List[str]] = {}
        owner: Dict[str, set] = {}
        for r, t in zip(rows, tpls):
            ev = r["EventId"]
            lst = by_event.setdefault(ev, [r["EventTemplate"]])
            if t not in lst:
                lst.append(t)
            owner.setdefault(t, set()).add(ev)
        for ev in sorted(by_event):
            texts = [by_event[ev][0]] + [t for t in by_event[ev][1:] if len(owner[t]) == 1]
            out.append(Klass("loghub/%s/%s" % (name, ev), "loghub/" + name, texts))
    return out


def synth_classes(binary: Optional[str] = None, renders: int = 3, seed: int = 11,
                  limit: int = 0) -> List[Klass]:
    gen = synthlog.Generator(seed)
    templates = gen.templates[:limit] if limit else gen.templates
    rng = random.Random(seed)
    lines, owners = [], []
    for t in templates:
        for _ in range(renders):
            lines.append(gen.render(t, rng)[0])
            owners.append(t.id)
    tpls = pipeline_templates(lines, binary) if lines else []
    by_id: Dict[int, List[str]] = {t.id: [t.text] for t in templates}
    for tid, tp in zip(owners, tpls):
        if tp not in by_id[tid]:
            by_id[tid].append(tp)
    out = []
    for t in templates:
        group = "synth/fam/" + t.family if t.family else "synth/" + t.category
        out.append(Klass("synth/%d" % t.id, group, by_id[t.id]))
    return out


HARVEST_DIR = os.path.join(REPO, "models", "training", "harvest")


def harvest_reference(t) -> str:
    """The template text of a harvested template: its literals with every slot
    as ``<*>`` (``const_ident`` slots keep their fixed identifier), the kv
    pairs as `` key=<*>``."""
    parts = []
    for i, (name, _arg) in enumerate(t.slots):
        parts.append(t.literals[i])
        parts.append(t.const if name == "const_ident" else "<*>")
    parts.append(t.literals[-1])
    txt = "".join(parts) + "".join(" %s=<*>" % k for k, _ in t.kv)
    return " ".join(txt.split())


def harvest_classes(binary: Optional[str] = None, n: int = 0, renders: int = 2, seed: int = 17) -> List[Klass]:
    """One class per harvested real message template (harvest/templates.jsonl;
    ``n`` > 0: a seeded sample of n of them): the reference template plus the
    templates the serving pipeline makes of ``renders`` rendered lines (the
    first as the bare message with its kv pairs, the others in a line format
    that suits the template: syslog, JSON, logfmt, klog, ...).  Templates of
    one package family are batched together as hard negatives."""
    sys.path.insert(0, HARVEST_DIR)
    import build as hbuild  # type: ignore  # harvest/build.py: family()
    import render  # type: ignore

    tpls = render.load_templates()
    rng = random.Random(seed)
    if n and n < len(tpls):
        tpls = sorted(rng.sample(tpls, n), key=lambda t: t.id)
    lines, owners = [], []
    for t in tpls:
        for r in range(renders):
            line, _ = render.render(t, rng, "plain" if r == 0 else None)
            lines.append(line)
            owners.append(t.id)
    got = pipeline_templates(lines, binary) if lines else []
    by_id: Dict[int, List[str]] = {t.id: [harvest_reference(t)] for t in tpls}
    for tid, tp in zip(owners, got):
        if tp and tp not in by_id[tid]:
            by_id[tid].append(tp)
    out = []
    for t in tpls:
        fam = hbuild.family(t.source.partition(":")[0])
        out.append(Klass("harvest/%d" % t.id, "harvest/" + fam, by_id[t.id]))
    return out


def word_pool(classes: Sequence[Klass]) -> List[str]:
    seen: Dict[str, None] = {}
    for k in classes:
        for w in k.texts[0].replace("<*>", " ").split():
            w = w.strip(".,:;()[]{}\"'=")
            if len(w) >= 3 and w.isalpha():
                seen.setdefault(w, None)
    for a, b in ANTONYMS:
        seen.setdefault(a, None)
        seen.setdefault(b, None)
    return list(seen)


def _camel(rng: random.Random, pool: Sequence[str]) -> str:
    return "".join(rng.choice(pool).capitalize() for _ in range(rng.randint(1, 3)))


def generated_pair(rng: random.Random, pool: Sequence[str], idx: int) -> Tuple[Klass, Klass]:
    """A random event and its twin one meaningful token apart."""
    n = rng.randint(3, 9)
    words = [rng.choice(pool) for _ in range(n)]
    for _ in range(rng.randint(0, 3)):
        words.insert(rng.randint(0, len(words)), "<*>")
    prefix = ""
    if rng.random() < 0.3:
        prefix = _camel(rng, pool) + rng.choice(EXC_SUFFIX) + ": "
    twin, twin_prefix = list(words), prefix
    kind = rng.random()
    content = [i for i, w in enumerate(words) if w != "<*>"]
    if kind < 0.35:
        a, b = rng.choice(ANTONYMS)
        if rng.random() < 0.5:
            a, b = b, a
        i = rng.choice(content)
        words[i], twin[i] = a, b
    elif kind < 0.6:
        i = rng.choice(content)
        twin.insert(i, rng.choice(QUALIFIERS))
    elif kind < 0.8 or not prefix:
        i = rng.choice(content)
        w = rng.choice(pool)
        while w.lower() == words[i].lower():
            w = rng.choice(pool)
        twin[i] = w
    else:  # another exception class
        twin_prefix = _camel(rng, pool) + rng.choice(EXC_SUFFIX) + ": "
    return (Klass("gen/%d/a" % idx, "gen/%d" % idx, [prefix + " ".join(words)]),
            Klass("gen/%d/b" % idx, "gen/%d" % idx, [twin_prefix + " ".join(twin)]))


def _random_value(rng: random.Random) -> str:
    k = rng.random()
    if k < 0.3:
        return str(rng.randint(0, 10 ** rng.randint(1, 9)))
    if k < 0.55:
        return "%x" % rng.getrandbits(rng.choice([24, 32, 48, 64]))
    if k < 0.75:
        return "%d.%d.%d.%d" % tuple(rng.randint(0, 255) for _ in range(4))
    if k < 0.82:
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(rng.randint(6, 14)))
    if k < 0.9:
        return "%d%s" % (rng.randint(1, 999), rng.choice(["ms", "s", "MB", "KB", "%", "us", "m", "h", "GB"]))
    # a name the denoiser left in place (user, table, topic), or a name prefix before the masked rest
    name = rng.choice(synthlog.USER_NAMES)
    return rng.choice([name, name.upper(), name + "-<*>", name + "_<*>"])


@dataclass(frozen=True)
class Leak:
    """Word-like values left in a slot (train.py --leak): the share of views
    with one, and their source. "v1" is log-encoder-v1's recipe
    (_random_value); "wide" (wide_value) draws names of real-software shapes
    and any word of `pool` (the word pool)."""
    p: float = 0.2
    mode: str = "v1"
    pool: Tuple[str, ...] = ()
    # second halves of first.last-style names: the pool and the surnames, built once
    name_tails: Tuple[str, ...] = ()

    @staticmethod
    def of(p: float, mode: str, pool: Sequence[str]) -> "Leak":
        words = tuple(pool) or tuple(synthlog.USER_NAMES)
        return Leak(p, mode, words, words + tuple(synthlog.SURNAMES))

    def value(self, rng: random.Random) -> str:
        return _random_value(rng) if self.mode == "v1" else self.wide_value(rng)

    def wide_value(self, rng: random.Random) -> str:
        """A value a denoiser may leave in place: a word or a name, in the shapes
        real programs print (user and host names, queue and mailbox names,
        enum-like words), not only the v1 list of user names."""
        pool = self.pool
        k = rng.random()
        w = rng.choice(pool)
        if k < 0.3:
            return w.lower()
        if k < 0.4:
            return w.capitalize()
        if k < 0.45:
            return w.upper()
        if k < 0.7:
            a, b = rng.choice(synthlog.USER_NAMES), rng.choice(self.name_tails)
            return a + rng.choice([".", "_", "-"]) + b.lower()
        if k < 0.8:
            return "%s.%s.%s" % (w.lower(), rng.choice(pool).lower(),
                                 rng.choice(["internal", "local", "example", "lan", "org", "com"]))
        if k < 0.9:
            return rng.choice(synthlog.USER_NAMES) + rng.choice(["-", "_", ""]) + str(rng.randint(0, 99))
        return _random_value(rng)


V1_LEAK = Leak()


def augment(text: str, rng: random.Random, leak: Leak = V1_LEAK) -> str:
    """One positive view of a template: changes that keep the event."""
    t = text
    if rng.random() < leak.p and "<*>" in t:
        parts = t.split("<*>")
        i = rng.randrange(len(parts) - 1)
        t = "<*>".join(parts[: i + 1]) + leak.value(rng) + "<*>".join(parts[i + 1:])
    if rng.random() < 0.3:
        cause = rng.choice(AUGMENT_CAUSES)
        if rng.random() < 0.3:
            cause += rng.choice([" (<*>)", ": <*>", " after <*>"])
        t = t.rstrip(" .") + rng.choice([": ", ": ", " - ", "; "]) + cause
    if rng.random() < 0.15:
        words = t.split(" ")
        cands = [i for i, w in enumerate(words) if w[:1].isupper() and any(c.islower() for c in w[1:])]
        if cands:
            i = rng.choice(cands)
            words[i] = rng.choice(PACKAGES) + words[i]
            t = " ".join(words)
    if rng.random() < 0.08:
        t = "Caused by: " + t
    r = rng.random()
    if r < 0.1:
        t = t.upper()
    elif r < 0.2:
        t = t.lower()
    elif r < 0.25:
        t = t.title()
    if rng.random() < 0.3:
        k = rng.random()
        if k < 0.2:
            t = t.replace(": ", " - ")
        elif k < 0.4:
            t = t + "."
        elif k < 0.55:
            t = t.replace(",", "")
        elif k < 0.7:
            t = t.replace("=", ": ")
        elif k < 0.85:
            words = t.split(" ")
            i = rng.randrange(len(words))
            q = rng.choice(['"%s"', "[%s]", "'%s'", "(%s)"])
            words[i] = q % words[i]
            t = " ".join(words)
        else:
            t = t.replace(":", "")
    return t


def view(k: Klass, rng: random.Random, leak: Leak = V1_LEAK) -> str:
    base = k.texts[0] if len(k.texts) == 1 or rng.random() < 0.4 else rng.choice(k.texts[1:])
    return augment(base, rng, leak)
