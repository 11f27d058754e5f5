#!/usr/bin/python3
"""Sanity checks of the committed validation set (run after label.py):
every CSV parses with the exact header, LineIds are 1..N, Content equals the labelled content of the raw
line, EventId<->EventTemplate is 1:1, no template has an obvious unmasked variable (IPs, UUIDs, long hex,
runs of 3+ digits, timestamps), >= 5 events per system, total >= 10,000 lines, directory < 8 MB.
Prints a per-system table (lines, events, top-3 events)."""
import csv, json, os, re, subprocess, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import label
H = label.HERE
idx = json.load(open(os.path.join(H, 'datasets.json')))
SUSPECT = [(r'\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b', 'IPv4'), (r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}', 'uuid'),
           (r'\b[0-9a-fA-F]{10,}\b', 'long hex'), (r'(?<![\w.])\d{3,}(?![\w.])', 'digit run'), (r'\d{4}-\d\d-\d\d', 'date'),
           (r'\d\d:\d\d:\d\d', 'time')]
# constants that legitimately contain such strings (reviewed): protocol constants, fixed option values
ALLOW = {'mode 0600 expected', 'HTTP/1.0 header', 'no OCSP', 'ipv4', 'ipv6', 'AVX512', 'sha256', 'Java/', '1/1'}
bad = 0; total = 0; rows_out = []
for s, spec in sorted(idx.items()):
    p = os.path.join(H, spec['truth'])
    with open(p, encoding='utf-8', newline='') as f:
        r = list(csv.reader(f))
    if r[0] != ['LineId', 'Content', 'EventId', 'EventTemplate']:
        print(s, 'bad header', r[0]); bad += 1
    rows = r[1:]
    raw = open(os.path.join(H, spec['log']), encoding='utf-8', newline='\n').read().split('\n')
    if raw[-1] == '': raw.pop()
    if len(raw) != len(rows): print(s, 'line count mismatch', len(raw), len(rows)); bad += 1
    label.load_rules(s)
    e2t, t2e, cnt = {}, {}, {}
    for i, row in enumerate(rows, 1):
        if len(row) != 4 or row[0] != str(i): print(s, 'bad row', i, row[:1]); bad += 1; continue
        if label.content_of(s, raw[i - 1]) != row[1]: print(s, 'content mismatch at', i); bad += 1
        e2t.setdefault(row[2], row[3]); t2e.setdefault(row[3], row[2])
        if e2t[row[2]] != row[3] or t2e[row[3]] != row[2]: print(s, 'EventId/template not 1:1 at', i); bad += 1
        cnt[row[2]] = cnt.get(row[2], 0) + 1
    for e, t in e2t.items():
        tt = re.sub(r'caller=\S+|"caller":"[^"]*"', '', t)   # source locations are constants
        for a in ALLOW: tt = tt.replace(a, '')
        for rx, what in SUSPECT:
            m = re.search(rx, tt)
            if m: print('%s %s: template has %s %r: %s' % (s, e, what, m.group(0), t[:160]))
    if len(cnt) < 5: print(s, 'fewer than 5 events'); bad += 1
    top = sorted(cnt.items(), key=lambda x: -x[1])[:3]
    rows_out.append((s, len(rows), len(cnt), ['%s %s (%d)' % (e, e2t[e][:70], n) for e, n in top]))
    total += len(rows)
size = int(subprocess.run(['du', '-sb', H], capture_output=True, text=True).stdout.split()[0])
for s, n, e, top in rows_out:
    print('%-13s %5d lines %4d events | %s' % (s, n, e, ' ; '.join(top)))
print('total %d lines, %d systems, %.2f MB' % (total, len(rows_out), size / 1e6))
if total < 10000: print('total below 10,000'); bad += 1
if size >= 8e6: print('directory is 8 MB or more'); bad += 1
print('FAILED' if bad else 'OK')
sys.exit(1 if bad else 0)
