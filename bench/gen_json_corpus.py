#!/usr/bin/python3
"""JSON-lines corpus for the structured-extraction path of `logsift cluster`.

Usage: bench/gen_json_corpus.py SOURCE N [SEED] > OUT

Each output line is an HTTP-form envelope {"text": "<zap-style JSON line>"}
whose inner object has 7 members (level, ts, caller, msg, trace_id,
duration_ms, user); msg cycles through the lines of SOURCE (e.g. a
bench/gen_corpus.py file). The envelope makes every line go through
extract_structured, as a JSON line posted to /inferences does.
"""
import json
import random
import sys


def main():
    src, n = sys.argv[1], int(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 5)
    lines = open(src, encoding="utf-8", errors="replace").read().splitlines()
    out = sys.stdout
    for i in range(n):
        inner = {"level": rng.choice(["info", "warn", "error"]), "ts": 1700000000.0 + i * 0.01,
                 "caller": "svc/handler.go:%d" % rng.randint(10, 400), "msg": lines[i % len(lines)],
                 "trace_id": "%016x" % rng.getrandbits(64), "duration_ms": rng.randint(1, 900),
                 "user": "u%d" % rng.randint(1, 50)}
        out.write(json.dumps({"text": json.dumps(inner)}) + "\n")


if __name__ == "__main__":
    main()
