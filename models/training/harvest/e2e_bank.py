#!/usr/bin/python3
"""End to end: a real program's binary -> bank.py -> `logsift cluster --format-bank`.

    LOGSIFT_BIN=build/logsift /usr/bin/python3 models/training/harvest/e2e_bank.py

Compiles a small C program (cc) that logs with printf-style formats, runs it
to get its real log lines (values of many shapes, some that look like words),
builds a bank from its binary with bank.py, and checks that with the bank
every log statement gets one cluster id and the format's template, that the
ids differ between statements, that `logsift config` shows the configured
bank, and that a missing or unusable bank is refused with a message naming
`format_bank`. Exit 0 on success (ctest format_bank_e2e).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = r'''
#include <stdio.h>
static const char *queues[] = {"orders", "billing", "invoices", "audit", "mail"};
static const char *users[] = {"alice", "bob", "grafana", "svc-backup", "root"};
int main(void) {
  for (int i = 0; i < 40; i++) {
    switch (i % 4) {
      case 0: printf("queue %s drained after %d retries\n", queues[i % 5], i * 3); break;
      case 1: printf("session opened for user %s by %s (uid=%u)\n", users[i % 5], users[(i + 2) % 5], 1000 + i); break;
      case 2: printf("replica %s lagging behind primary by %.2f seconds\n", queues[(i + 1) % 5], i / 7.0); break;
      default: printf("checkpoint complete: wrote %d buffers (%.1f%%) for %s\n", i * 11, i / 3.0, users[i % 5]); break;
    }
  }
  return 0;
}
'''
TEMPLATES = ["queue <*> drained after <*> retries", "session opened for user <*> by <*> (uid=<*>)",
             "replica <*> lagging behind primary by <*> seconds", "checkpoint complete: wrote <*> buffers (<*>%) for <*>"]


def cluster(binary, lines, *flags):
    res = subprocess.run([binary, "cluster", "-", *flags], input="".join(l + "\n" for l in lines),
                         capture_output=True, text=True)
    return res.returncode, [json.loads(r) for r in res.stdout.splitlines()], res.stderr


def main() -> int:
    binary = os.environ.get("LOGSIFT_BIN", "build/logsift")
    with tempfile.TemporaryDirectory() as tmp:
        src, exe, bank = (os.path.join(tmp, n) for n in ("prog.c", "prog", "prog.bank"))
        with open(src, "w") as f:
            f.write(PROGRAM)
        subprocess.run(["cc", "-O1", "-o", exe, src], check=True)
        lines = subprocess.run([exe], capture_output=True, text=True, check=True).stdout.splitlines()
        assert len(lines) == 40, lines
        subprocess.run([sys.executable, os.path.join(HERE, "bank.py"), exe, "--out", bank], check=True)
        with open(bank) as f:
            formats = [l.rstrip("\n") for l in f if not l.startswith("#")]
        for want in ("queue %s drained after %d retries", "replica %s lagging behind primary by %.2f seconds"):
            assert want in formats, (want, formats)
        assert formats == sorted(formats), "bank not sorted"
        # --min-literal 30 keeps the formats with 30 or more literal letters and
        # digits: "replica ... seconds" (36) and "checkpoint ... for" (33), not
        # "queue ... retries" (24) or "session ... uid" (25).
        strict = os.path.join(tmp, "strict.bank")
        subprocess.run([sys.executable, os.path.join(HERE, "bank.py"), exe, "--min-literal", "30", "--out", strict],
                       check=True)
        with open(strict) as f:
            kept = [l.rstrip("\n") for l in f if not l.startswith("#")]
        assert "replica %s lagging behind primary by %.2f seconds" in kept, kept
        assert any(k.startswith("checkpoint complete: wrote %d buffers") for k in kept), kept
        assert not any(k.startswith(("queue %s drained", "session opened for user")) for k in kept), kept
        assert set(kept) <= set(formats), (kept, formats)

        rc, out, err = cluster(binary, lines, "--format-bank", bank)
        assert rc == 0, err
        by_stmt: dict[int, set] = {}
        for i, r in enumerate(out):
            assert r["template"] == TEMPLATES[i % 4], (lines[i], r["template"])
            by_stmt.setdefault(i % 4, set()).add(r["cluster_id"])
        assert all(len(v) == 1 for v in by_stmt.values()), by_stmt
        assert len(set.union(*by_stmt.values())) == 4, by_stmt

        rc, base, err = cluster(binary, lines)
        assert rc == 0, err
        base_ids = {i % 4: set() for i in range(4)}
        for i, r in enumerate(base):
            base_ids[i % 4].add(r["cluster_id"])
        print("ids per statement: with the bank %s, without %s"
              % ([len(by_stmt[k]) for k in range(4)], [len(base_ids[k]) for k in range(4)]))

        cfg = subprocess.run([binary, "config", "--format-bank", bank], capture_output=True, text=True, check=True)
        assert json.loads(cfg.stdout)["format_bank"] == bank, cfg.stdout

        escape, useless = os.path.join(tmp, "escape.bank"), os.path.join(tmp, "useless.bank")
        with open(escape, "w") as f:
            f.write("queue %s drained\nbad \\q escape %s\n")
        with open(useless, "w") as f:
            f.write("# only formats with too little text\n%s: %s\nok %d\n")
        for bad, why in ((os.path.join(tmp, "missing.bank"), "cannot read"), (escape, ":2: bad escape"),
                         (useless, "no usable format")):
            rc, _, err = cluster(binary, lines[:1], "--format-bank", bad)
            assert rc != 0 and "format_bank" in err and why in err, (bad, rc, err)
    print("format bank end to end: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
