#!/usr/bin/python3
"""Harvest printk formats from the Debian kernel image package (the versioned
dependency of linux-image-amd64): every module (.ko, .ko.xz) and vmlinux
(decompressed from vmlinuz).

* ``printk``: strings prefixed with a KERN_ level (``\\x01`` + digit), the
  form pr_err()/printk(KERN_ERR ...) leave in .rodata;
* ``dev_printk``: dev_err()/netdev_warn()/... formats carry no level byte;
  they are NUL-terminated strings ending with a newline, the convention of
  every kernel message.  (Some seq_printf/sysfs formats slip in; most are
  rejected by the word filters.)

Formats are parsed with the printk dialect (%pI4 -> ipv4, %pM -> mac, %pS ->
kernel symbol, %pe -> -ENOMEM ...).  Output: $HARVEST_DIR/out/kernel.jsonl
"""

from __future__ import annotations

import collections
import glob
import lzma
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import harvest_c  # noqa: E402

LEVEL_RE = re.compile(rb"\x01([0-7c])([\x20-\x7e\t\n]{6,300})\x00")
DEV_RE = re.compile(rb"(?<=\x00)([\x20-\x7e\t]{8,300}\n)\x00")


def vmlinux(vmlinuz: str) -> bytes:
    data = open(vmlinuz, "rb").read()
    off = data.find(b"\xfd7zXZ\x00")
    if off < 0:
        return b""
    d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    try:
        return d.decompress(data[off:])
    except lzma.LZMAError:
        return b""


def module_bytes(path: str) -> bytes:
    if path.endswith(".xz"):
        return lzma.decompress(open(path, "rb").read())
    return open(path, "rb").read()


def kernel_strings(data: bytes) -> list[tuple[str, str, int | None]]:
    """(raw format, kind, level) in file order, deduplicated."""
    out, seen = [], set()
    for m in LEVEL_RE.finditer(data):
        lvl = m.group(1).decode()
        s = m.group(2).decode("ascii").rstrip("\n")
        if lvl == "c" or s in seen or "\n" in s:
            continue
        seen.add(s)
        out.append((s, "printk", int(lvl)))
    for m in DEV_RE.finditer(data):
        s = m.group(1).decode("ascii").rstrip("\n")
        if s in seen or "\n" in s:
            continue
        seen.add(s)
        out.append((s, "dev_printk", None))
    return out


def main() -> int:
    reasons: collections.Counter = collections.Counter()
    recs = []
    for pkg, root in common.pkg_dirs("kernel"):
        files = sorted(glob.glob(os.path.join(root, "boot", "vmlinuz-*")))
        mods = [p for p in common.walk_files(os.path.join(root, "lib", "modules")) if p.endswith((".ko", ".ko.xz"))]
        for path in files + mods:
            rel = os.path.relpath(path, root)
            if common.is_excluded_path(rel):
                continue
            data = vmlinux(path) if "/vmlinuz" in path or rel.startswith("boot/") else module_bytes(path)
            short = rel.split("/kernel/", 1)[-1] if "/kernel/" in rel else rel
            for raw, kind, lvl in kernel_strings(data):
                r = harvest_c.harvest_string(raw, "kernel", "kernel", reasons)
                if not r:
                    continue
                r["kind"] = kind if r["kind"] != "plain" else kind + "_plain"
                if lvl is not None:
                    r["level"] = lvl
                r["source"] = "%s:%s" % (pkg, short)
                recs.append(r)
    n = common.write_jsonl(os.path.join(common.OUT_DIR, "kernel.jsonl"), recs)
    print("kernel: %d records; rejects: %s" % (n, dict(reasons.most_common(20))), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
