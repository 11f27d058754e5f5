#!/usr/bin/python3
"""docker/runtime-packages.txt holds every Debian package whose shared
library the logsift binary links (ldd), so the slim runtime image starts.

Usage: tests/docker/runtime_packages.py BINARY [LIST]   (exit 0 when complete)
"""
import os
import subprocess
import sys

BASE = {"libc6", "libgcc-s1", "zlib1g"}  # in debian:12 itself


def main(argv):
    binary = argv[1]
    listing = argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..", "docker",
                                                             "runtime-packages.txt")
    with open(listing) as f:
        wanted = {w for line in f for w in line.split("#")[0].split()}
    libs = []
    for line in subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split("=>")
        if len(parts) == 2 and parts[1].strip().startswith("/"):
            libs.append(os.path.realpath(parts[1].split()[0]))
    missing = []
    for lib in libs:
        owner = None
        for path in (lib, lib.replace("/usr/lib/", "/lib/"), lib.replace("/lib/", "/usr/lib/", 1)):
            r = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
            if r.returncode == 0:
                owner = r.stdout.split(":")[0]
                break
        if owner is None:
            print("runtime_packages: no Debian package owns %s" % lib)
            return 1
        if owner not in wanted and owner not in BASE:
            missing.append("%s (%s)" % (owner, os.path.basename(lib)))
    if missing:
        print("runtime_packages: %s links libraries of packages not in %s: %s"
              % (binary, listing, ", ".join(sorted(set(missing)))))
        return 1
    print("runtime_packages: %d libraries, all in %s or the base image" % (len(libs), listing))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
