#!/usr/bin/python3
"""Format-string probe: would knowing the program's own format strings give the ids?

    /usr/bin/python3 models/probes/format_match_probe.py [--set models/tuning]

For each system of a labelled set whose program has harvested format strings
(models/training/harvest/templates.jsonl, the `source` of a template names the
Debian package or project it came from; PROGRAMS maps the tuning set's systems
to those names), every format string becomes a regex: its literal text escaped,
each typed slot ({word}, {num}, ...) a lazy group, anchored at the end of the
line (a header prefix may stay in front). A line is "matched" when some
template of its own program matches it (the longest one wins). Among the
matched lines, the matched format string as the event key is scored against
the truth with loghub's GA.

With --binaries, the format strings come instead from the ELF files of the
Debian packages in PACKAGES as installed on this machine (dpkg -L), every
C string literal that the harvest's C filter keeps (harvest_c.harvest_string):
a complete harvest of the program's own binaries and libraries, for the C
programs only.

It measures a proposal, matching lines against the program's format strings
at run time (models/README.md, "Real lines of ten more programs"); it changes
and trains nothing. Format strings with fewer than 6 literal word characters
are skipped (they match anything).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "models", "training"))
from loghub import grouping_accuracy  # noqa: E402

PROGRAMS = {"Postfix": ["postfix"], "Dovecot": ["dovecot"], "Bind9": ["bind9", "named"], "ProFTPD": ["proftpd"],
            "Slapd": ["slapd", "openldap"], "NATS": ["nats"], "InfluxDB": ["influx"], "RabbitMQ": ["rabbit"],
            "ActiveMQ": ["activemq"], "UWSGI": ["uwsgi"]}
PACKAGES = {"Postfix": ["postfix"], "Dovecot": ["dovecot-core", "dovecot-imapd", "dovecot-pop3d", "dovecot-lmtpd"],
            "Bind9": ["bind9", "bind9-libs"], "ProFTPD": ["proftpd-core", "proftpd-basic"], "Slapd": ["slapd"],
            "UWSGI": ["uwsgi-core", "uwsgi-plugin-python3"]}
SLOT = re.compile(r"\{[a-z_]+\}")


def binary_formats(packages):
    """The harvest's C filter over every ELF file of the installed packages (bank.py's harvest)."""
    import collections
    sys.path.insert(0, os.path.join(REPO, "models", "training", "harvest"))
    import bank
    paths = [p for pkg in packages for p in bank.package_files(pkg)]
    return sorted(set(bank.formats_of(paths, collections.Counter()).values()))


def template_regex(fmt: str):
    parts = SLOT.split(fmt)
    if len(re.sub(r"\W", "", "".join(parts))) < 6:
        return None
    return re.compile("(?:.*?)" + "(.+?)".join(re.escape(p) for p in parts) + r"\s*$", re.S)


def cluster_ids(binary, lines):
    """`logsift cluster -` over the lines (newlines made blanks), one cluster id per line."""
    import subprocess
    text = "\n".join(l.replace("\n", " ").replace("\r", " ") for l in lines) + "\n"
    out = subprocess.run([binary, "cluster", "-"], input=text, capture_output=True, text=True, check=True).stdout
    # a line the pipeline rejects (an empty one) gets no id: a group of its own
    ids = [json.loads(row).get("cluster_id") or "rejected:%d" % i for i, row in enumerate(out.splitlines())]
    if len(ids) != len(lines):
        raise SystemExit("logsift cluster gave %d ids for %d lines" % (len(ids), len(lines)))
    return ids


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default=os.path.join(REPO, "models", "tuning"))
    ap.add_argument("--templates", default=os.path.join(REPO, "models", "training", "harvest", "templates.jsonl"))
    ap.add_argument("--binaries", action="store_true", help="format strings from the installed packages' ELF files")
    ap.add_argument("--systems", default="", help="only these systems (comma-separated)")
    ap.add_argument("--bin", default="", help="a logsift binary: also score its cluster ids on the same matched lines")
    args = ap.parse_args()
    rows = []
    if not args.binaries:  # the harvest's templates are used only without --binaries
        with open(args.templates, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
    with open(os.path.join(args.set, "datasets.json"), encoding="utf-8") as f:
        meta = json.load(f)
    tot_m = tot = 0
    for s, spec in sorted(meta.items()):
        keys = PROGRAMS.get(s)
        if args.systems and s not in args.systems.split(","):
            continue
        if not keys or (args.binaries and s not in PACKAGES):
            continue
        if args.binaries:
            cands = [(f, template_regex(f)) for f in binary_formats(PACKAGES[s])]
        else:
            cands = [(r["fmt"], template_regex(r["fmt"])) for r in rows
                     if any(k in r["source"].lower() for k in keys)]
        cands = [(f, c) for f, c in cands if c is not None]
        with open(os.path.join(args.set, spec["truth"]), encoding="utf-8", newline="") as f:
            data = list(csv.DictReader(f))
        ids = cluster_ids(args.bin, [d["Content"] for d in data]) if args.bin else None
        keyed, truth, theirs = [], [], []
        for i, d in enumerate(data):
            hit = None
            for fmt, c in cands:
                if c.match(d["Content"]) and (hit is None or len(fmt) > len(hit)):
                    hit = fmt
            if hit is not None:
                keyed.append(hit)
                truth.append(d["EventId"])
                if ids:
                    theirs.append(ids[i])
        ga = grouping_accuracy(keyed, truth) if keyed else 0.0
        extra = ", logsift's ids on them %.3f" % grouping_accuracy(theirs, truth) if theirs else ""
        print("%-9s %4d format strings, %4d/%4d lines matched (%4.1f%%), %3d of %3d events, GA among matched %.3f%s"
              % (s, len(cands), len(keyed), len(data), 100.0 * len(keyed) / len(data), len(set(truth)),
                 len({d["EventId"] for d in data}), ga, extra))
        tot_m += len(keyed)
        tot += len(data)
    print("total: %d of %d lines matched (%.1f%%)" % (tot_m, tot, 100.0 * tot_m / max(1, tot)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
