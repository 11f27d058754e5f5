#!/usr/bin/python3
"""Build <set>/<System>/<System>.log from <raw>/<System>.log (models/validation and /tmp/validation-work/raw
unless LOGSIFT_LABEL_SET / LOGSIFT_RAW_DIR say otherwise, see label.py):
drop continuation lines (no header), label with the rules, and if more than CAP lines remain keep a
deterministic subset: every event keeps min(count, c) lines, c chosen as large as possible so the total
stays <= CAP (so rare events are all kept); the kept lines of an event are spread evenly over its
occurrences; original order is preserved. usage: sample.py SYSTEM [CAP]"""
import os, re, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import label
# Systems whose lines are long (JSON / logfmt) get a lower cap so the whole set stays under 8 MB.
CAPS = {'Caddy': 1000, 'Prometheus': 1200}
s = sys.argv[1]; cap = int(sys.argv[2]) if len(sys.argv) > 2 else CAPS.get(s, 2000)
rules = label.load_rules(s)
lines = open(os.path.join(label.RAW, s + '.log'), encoding='utf-8', errors='replace').read().split('\n')
if lines[-1] == '': lines.pop()
# Lines holding bytes that are not valid UTF-8 or control characters other than TAB (nginx logs the raw
# bytes of a TLS ClientHello sent to its plain-HTTP port) are dropped: CSV/C-string consumers choke on NULs.
ctrl = re.compile('[\x00-\x08\x0a-\x1f\x7f\ufffd]')
nbad = sum(1 for l in lines if ctrl.search(l))
lines = [l for l in lines if not ctrl.search(l)]
if nbad: print('%s: dropped %d lines with control characters / invalid UTF-8' % (s, nbad))
by = {}; bad = 0; kept = []
for i, l in enumerate(lines):
    c = label.content_of(s, l)
    if c is None: continue
    h = label.label_content(rules, c)
    if len(h) != 1: bad += 1; continue
    kept.append(i); by.setdefault(h[0][0], []).append(i)
if bad: raise SystemExit('%s: %d raw lines not labelled uniquely; fix the rules first' % (s, bad))
total = len(kept)
if total > cap:
    lo, hi = 1, max(len(v) for v in by.values())
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(min(len(v), mid) for v in by.values()) <= cap: lo = mid
        else: hi = mid - 1
    sel = set()
    for v in by.values():
        k = min(len(v), lo)
        sel.update(v[(j * len(v)) // k] for j in range(k))
    kept = sorted(sel)
os.makedirs(os.path.join(label.HERE, s), exist_ok=True)
with open(os.path.join(label.HERE, s, s + '.log'), 'w', encoding='utf-8', newline='\n') as f:
    for i in kept: f.write(lines[i] + '\n')
print('%s: raw %d, labelled %d, written %d lines, %d events' % (s, len(lines), total, len(kept), len(by)))
