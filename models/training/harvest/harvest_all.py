#!/usr/bin/python3
"""Regenerate everything: fetch + unpack packages, run every harvester (two
at a time), merge into templates.jsonl and stats.json, refresh README.md's
generated sections.

    apt-get update
    /usr/bin/python3 models/training/harvest/harvest_all.py [--skip-fetch]

Scratch space: $HARVEST_DIR (default /tmp/harvest), ~6 GB with all packages.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"
GROUPS = (("harvest_c.py", "harvest_kernel.py", "harvest_js.py"),
          ("harvest_go.py", "harvest_java.py", "harvest_python.py"))


def run_group(scripts: tuple[str, ...]) -> subprocess.Popen:
    cmd = " && ".join("%s %s" % (PY, os.path.join(HERE, s)) for s in scripts)
    return subprocess.Popen(["bash", "-c", cmd])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-fetch", action="store_true")
    a = ap.parse_args()
    t0 = time.time()
    if not a.skip_fetch:
        subprocess.run([PY, os.path.join(HERE, "harvest_fetch.py")], check=True)
    t1 = time.time()
    procs = [run_group(g) for g in GROUPS]
    rc = [p.wait() for p in procs]
    if any(rc):
        print("harvester failed: %s" % rc, file=sys.stderr)
        return 1
    t2 = time.time()
    subprocess.run([PY, os.path.join(HERE, "build.py")], check=True)
    subprocess.run([PY, os.path.join(HERE, "readme_stats.py")], check=True)
    t3 = time.time()
    print("fetch %.0fs, harvest %.0fs, build %.0fs, total %.0fs" % (t1 - t0, t2 - t1, t3 - t2, t3 - t0),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
