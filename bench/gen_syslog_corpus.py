#!/usr/bin/python3
"""Syslog-formatted (or Java-layout) text corpus for the header paths of `logsift cluster`.

Usage: bench/gen_syslog_corpus.py SOURCE N [SEED] [--java] > OUT

Each output line is a message of SOURCE (e.g. a bench/gen_corpus.py file,
cycled) behind a header as journalctl / /var/log/syslog (BSD date, host,
tag[pid]:) or rsyslog's high-precision format (RFC 3339 date) writes it:
    Nov 26 01:00:07 web-12 app[4242]: <message>
    2026-11-26T01:00:07.123456+00:00 web-12 app[4242]: <message>
50 hosts, 12 tags, random pids. Every line goes through the syslog-header
extraction (structured_messages, syslog_headers).

--java: the header is Spring Boot's default layout instead, with 40 threads
of 4 pools and 30 loggers (app_layouts):
    2026-11-26T01:00:07.123Z  INFO 4242 --- [nio-8080-exec-7] c.e.svc.Service12 : <message>
"""
import random
import sys

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
TAGS = ["sshd", "kernel", "systemd", "cron", "nginx", "app", "worker", "containerd", "kubelet", "dockerd",
        "postfix/smtpd", "rsyslogd"]


def main():
    java = "--java" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--java"]
    src, n = args[0], int(args[1])
    rng = random.Random(int(args[2]) if len(args) > 2 else 7)
    lines = open(src, encoding="utf-8", errors="replace").read().splitlines()
    out = sys.stdout
    if java:
        threads = ["%15s" % t for t in ["main"] + ["nio-8080-exec-%d" % k for k in range(1, 14)] +
                   ["scheduling-%d" % k for k in range(1, 14)] + ["task-%d" % k for k in range(1, 14)]]
        for i in range(n):
            ts = "2026-11-%02dT%02d:%02d:%02d.%03dZ" % (rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59),
                                                     rng.randint(0, 59), rng.randint(0, 999))
            level = rng.choice(["INFO", "WARN", "ERROR", "DEBUG"])
            logger = "c.e.svc.Service%d" % rng.randint(1, 30)
            out.write("%s %5s %d --- [%s] %-40s : %s\n" % (ts, level, 4242, rng.choice(threads), logger,
                                                          lines[i % len(lines)]))
        return
    for i in range(n):
        host = "web-%d" % rng.randint(1, 50)
        tag = rng.choice(TAGS)
        h, m, s = rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59)
        if i % 2:
            date = "%s %2d %02d:%02d:%02d" % (rng.choice(MONTHS), rng.randint(1, 28), h, m, s)
        else:
            date = "2026-11-%02dT%02d:%02d:%02d.%06d+00:00" % (rng.randint(1, 28), h, m, s, rng.randint(0, 999999))
        out.write("%s %s %s[%d]: %s\n" % (date, host, tag, rng.randint(1, 99999), lines[i % len(lines)]))


if __name__ == "__main__":
    main()
