#!/usr/bin/python3
"""Download (``apt-get download``, no install, no daemon started) and unpack
(``dpkg -x``) every package listed in packages.txt into
$HARVEST_DIR/pkgs/<package>/ (default /tmp/harvest).

[c] packages also pull in their dependencies built from the same Debian
source package (samba -> samba-libs, bind9 -> bind9-libs ...), because most
daemons keep their messages in private libraries.  [kernel] resolves the
``linux-image-amd64`` metapackage to the versioned image package.

Writes $HARVEST_DIR/manifest.json: {section: [package, ...]}.
Idempotent: already downloaded/unpacked packages are skipped.

Requires a prior ``apt-get update``.
"""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

SECTIONS = ("kernel", "c", "go", "java", "python")


def apt_show(pkgs: list[str]) -> dict[str, dict[str, str]]:
    """Package -> control fields (candidate version), for those apt knows."""
    out: dict[str, dict[str, str]] = {}
    for i in range(0, len(pkgs), 200):
        chunk = pkgs[i:i + 200]
        r = subprocess.run(["apt-cache", "show", "--no-all-versions"] + chunk,
                           capture_output=True, text=True)
        rec: dict[str, str] = {}
        key = None
        for line in r.stdout.splitlines() + [""]:
            if not line.strip():
                if "Package" in rec and rec["Package"] not in out:
                    out[rec["Package"]] = rec
                rec, key = {}, None
                continue
            if line[0] in " \t" and key:
                rec[key] += " " + line.strip()
                continue
            if ":" in line:
                key, val = line.split(":", 1)
                rec[key] = val.strip()
    return out


def src_of(rec: dict[str, str]) -> str:
    return rec.get("Source", rec["Package"]).split()[0]


def dep_names(rec: dict[str, str]) -> list[str]:
    names = []
    for field in ("Depends", "Pre-Depends", "Recommends"):
        for alt in rec.get(field, "").split(","):
            alt = alt.strip()
            if not alt:
                continue
            first = alt.split("|")[0].strip()
            name = re.split(r"[\s(:]", first)[0]
            if name:
                names.append(name)
    return names


def resolve() -> dict[str, list[str]]:
    sections = {s: common.read_packages(s) for s in SECTIONS}
    # kernel metapackage -> versioned image
    kern = []
    info = apt_show(sections["kernel"])
    for p in sections["kernel"]:
        rec = info.get(p)
        if not rec:
            continue
        deps = [d for d in dep_names(rec) if d.startswith("linux-image-")]
        kern.extend(deps[:1] if deps else [p])
    sections["kernel"] = kern
    # same-source dependencies of [c] packages
    info = apt_show(sections["c"])
    deps = sorted({d for p in sections["c"] if p in info for d in dep_names(info[p])})
    dinfo = apt_show(deps)
    extra = set()
    for p in sections["c"]:
        if p not in info:
            continue
        s = src_of(info[p])
        for d in dep_names(info[p]):
            if d in dinfo and src_of(dinfo[d]) == s and not d.endswith(("-data", "-doc", "-common-data")):
                extra.add(d)
    c = sorted((set(p for p in sections["c"] if p in info) | extra))
    sections["c"] = [p for p in c if not common.is_excluded_pkg(p)]
    for s in ("go", "java", "python"):
        info = apt_show(sections[s])
        sections[s] = [p for p in sections[s] if p in info]
    return sections


def have_deb(pkg: str) -> str | None:
    hits = sorted(glob.glob(os.path.join(common.DEB_DIR, pkg + "_*.deb")))
    return hits[-1] if hits else None


def download(pkgs: list[str]) -> None:
    todo = [p for p in pkgs if not have_deb(p)]
    for i in range(0, len(todo), 40):
        chunk = todo[i:i + 40]
        r = subprocess.run(["apt-get", "download", "-q"] + chunk, cwd=common.DEB_DIR,
                           capture_output=True, text=True)
        if r.returncode != 0:
            for p in chunk:
                if not have_deb(p):
                    r2 = subprocess.run(["apt-get", "download", "-q", p], cwd=common.DEB_DIR,
                                        capture_output=True, text=True)
                    if r2.returncode != 0:
                        print("download failed: %s: %s" % (p, r2.stderr.strip()[-200:]), file=sys.stderr)


def unpack(pkg: str) -> bool:
    dest = os.path.join(common.PKG_ROOT, pkg)
    if os.path.isdir(dest) and os.path.exists(os.path.join(dest, ".unpacked")):
        return True
    deb = have_deb(pkg)
    if not deb:
        return False
    os.makedirs(dest, exist_ok=True)
    r = subprocess.run(["dpkg", "-x", deb, dest], capture_output=True, text=True)
    if r.returncode != 0:
        print("unpack failed: %s: %s" % (pkg, r.stderr.strip()[-200:]), file=sys.stderr)
        return False
    open(os.path.join(dest, ".unpacked"), "w").close()
    return True


def main() -> int:
    os.makedirs(common.DEB_DIR, exist_ok=True)
    os.makedirs(common.PKG_ROOT, exist_ok=True)
    sections = resolve()
    manifest = {}
    for s in SECTIONS:
        pkgs = sections[s]
        print("[%s] %d packages" % (s, len(pkgs)), file=sys.stderr)
        download(pkgs)
        manifest[s] = sorted(p for p in pkgs if unpack(p))
    with open(os.path.join(common.SCRATCH, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    print({s: len(v) for s, v in manifest.items()}, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
