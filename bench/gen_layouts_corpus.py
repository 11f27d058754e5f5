#!/usr/bin/python3
"""Text corpus in the default layouts that layouts-v3 reads.

Usage: bench/gen_layouts_corpus.py SOURCE N [SEED] > OUT

The first N messages of SOURCE (e.g. a bench/gen_corpus.py file), each behind
the header of one of eight layouts in turn, with random dates, levels, logger
names and pids:
    [2026-11-26 01:00:07.123] [ledger] [info] <message>                 spdlog
    [2026-11-26 01:00:07 +0000] [4242] [INFO] <message>                 gunicorn
    [2026-11-26T01:00:07Z INFO  my_app::ledger] <message>               Rust env_logger
    I, [2026-11-26T01:00:07.123456 #4242]  INFO -- app: <message>       Ruby's Logger
    [2026-11-26 01:00:07] local.INFO: <message> [] []                   PHP's Monolog
    2026/11/26 01:00:07 <message>                                       Go's log package
    2026-11-26T01:00:07.123456Z  INFO my_app::ledger: <message>         Rust tracing
    2026-11-26T01:00:07.123Z<TAB>INFO<TAB>ledger/ledger.go:42<TAB><message><TAB>{"attempt": 3}   zap console
Run `logsift cluster` on it with `--app-layouts layouts-v3` (the default) and
`layouts-v2`: the ids the messages get, and the cost of reading the headers.
"""
import random
import sys

NAMES = ["payments", "ledger", "auth", "db", "cache", "api"]
LAYOUTS = 8


def header(k: int, rng: random.Random) -> tuple[str, str]:
    d = "2026-11-%02d" % rng.randint(1, 28)
    t = "%02d:%02d:%02d" % (rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59))
    if k == 0:
        return "[%s %s.%03d] [%s] [%s] " % (d, t, rng.randint(0, 999), rng.choice(NAMES),
                                            rng.choice(["info", "warning", "error", "debug"])), ""
    if k == 1:
        return "[%s %s +0000] [%d] [%s] " % (d, t, rng.randint(1, 99999), rng.choice(["INFO", "ERROR"])), ""
    if k == 2:
        return "[%sT%sZ %s my_app::%s] " % (d, t, rng.choice(["INFO ", "WARN ", "ERROR"]), rng.choice(NAMES)), ""
    if k == 3:
        lv = rng.choice(["INFO", "WARN", "ERROR"])
        return "%s, [%sT%s.%06d #%d] %5s -- app: " % (lv[0], d, t, rng.randint(0, 999999), rng.randint(1, 99999), lv), ""
    if k == 4:
        return "[%s %s] local.%s: " % (d, t, rng.choice(["INFO", "ERROR", "WARNING"])), " [] []"
    if k == 5:
        return "%s %s " % (d.replace("-", "/"), t), ""
    if k == 6:
        return "%sT%s.%06dZ %5s my_app::%s: " % (d, t, rng.randint(0, 999999), rng.choice(["INFO", "WARN", "ERROR"]),
                                                  rng.choice(NAMES)), ""
    name = rng.choice(NAMES)
    return ("%sT%s.%03dZ\t%s\t%s/%s.go:%d\t" % (d, t, rng.randint(0, 999), rng.choice(["INFO", "WARN", "ERROR"]),
                                                 name, name, rng.randint(10, 999)),
            '\t{"attempt": %d}' % rng.randint(1, 9))


def main() -> int:
    src, n = sys.argv[1], int(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    out = sys.stdout
    with open(src, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i >= n:
                break
            head, tail = header(i % LAYOUTS, rng)
            out.write(head + line.rstrip("\n") + tail + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
