#!/usr/bin/python3
"""Build a format bank (config `format_bank`) from your programs' binaries.

    /usr/bin/python3 models/training/harvest/bank.py [--package PKG]... [FILE]... > my.bank

Every C string literal of the given ELF files (and, with --package, of every
ELF file a Debian package installed: `dpkg -L`) that the harvest's C filter
keeps as a log message (harvest_c.harvest_string: a printf format or a plain
log-like sentence, not usage text, SQL, markup or code) becomes one line of
the bank, as the program's source wrote it. The bank is sorted and without
duplicates, so the same binaries give the same file, and the same file gives
the same cluster ids on every replica (/info format_bank.digest).

Format: one format a line; "\\\\", "\\n" and "\\t" escape a backslash, a
newline and a tab; lines starting with '#' are comments
(pipeline/stages/format_bank.h). A bank can be written or extended by hand
with the formats of programs that are not C (printf-style only).
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harvest_c  # noqa: E402

HEADER = "# logsift format bank (models/training/harvest/bank.py): one printf-style format a line"


def package_files(pkg: str) -> list[str]:
    res = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit("bank.py: package %s is not installed (dpkg -L failed)" % pkg)
    return [p for p in res.stdout.split("\n") if p and not p.startswith(("/usr/share/doc", "/usr/lib/debug"))]


def formats_of(paths: list[str], reasons: collections.Counter) -> dict[str, str]:
    """Every log-message C string of these ELF files: raw format -> harvest template
    (the bank keeps the raw formats; models/probes/format_match_probe.py the templates)."""
    out: dict[str, str] = {}
    for path in paths:
        if not os.path.isfile(path) or not harvest_c.is_elf(path):
            continue
        for raw in harvest_c.c_strings(path):
            if raw in out:
                continue
            rec = harvest_c.harvest_string(raw, "c", "c", reasons)
            if rec:
                out[raw] = rec["fmt"]
    return out


# A conversion as pipeline/stages/format_bank.h parses it: flags, width,
# precision, length modifier, conversion ("%%" is a literal '%').
_CONVERSION = re.compile(r"%[-+ #0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|L|q|j|z|Z|t)?[A-Za-z]")


def literal_chars(fmt: str) -> int:
    """Letters and digits of a format's literal text (its conversions left out)."""
    text = _CONVERSION.sub(" ", fmt.replace("%%", "\0"))
    return sum(1 for c in text if c.isascii() and c.isalnum())


def installed_packages() -> list[str]:
    res = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${db:Status-Status}\n"],
                         capture_output=True, text=True, check=True)
    return sorted({p for p, st in (l.split(" ", 1) for l in res.stdout.splitlines() if " " in l) if st == "installed"})


def escape(fmt: str) -> str:
    return fmt.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="ELF binaries or shared libraries")
    ap.add_argument("--package", action="append", default=[], help="every ELF file of this installed Debian package")
    ap.add_argument("--all-packages", action="store_true",
                    help="every installed Debian package (a bank of the whole machine: use --min-literal 15)")
    ap.add_argument("--min-literal", type=int, default=0, metavar="N",
                    help="leave out formats with fewer than N literal letters and digits (default 0: keep all; "
                         "the service itself skips those under 6). 15 makes a bank of many programs safe for "
                         "the others: models/README.md, \"Format banks\"")
    ap.add_argument("--out", default="-", help="the bank file (default: standard output)")
    args = ap.parse_args(argv)
    if args.min_literal < 0:
        ap.error("--min-literal must be 0 or more")
    paths = list(args.files)
    for f in args.files:
        if not os.path.isfile(f):
            raise SystemExit("bank.py: %s: no such file" % f)
    packages = list(args.package) + (installed_packages() if args.all_packages else [])
    for pkg in packages:
        paths += package_files(pkg)
    if not paths:
        ap.error("name at least one FILE, --package or --all-packages")
    reasons: collections.Counter = collections.Counter()
    fmts = sorted(f for f in formats_of(paths, reasons) if literal_chars(f) >= args.min_literal)
    text = HEADER + "\n" + "".join(escape(f) + "\n" for f in fmts)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    print("bank.py: %d formats from %d files" % (len(fmts), len(paths)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
