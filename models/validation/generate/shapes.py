#!/usr/bin/python3
"""Rule-writing aid: show raw lines of SYSTEM (from label.RAW/SYSTEM.log by default) whose
Content matches no rule / several rules, grouped by a crude shape (digits, hex, quoted strings masked)."""
import collections, os, re, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import label
sysname = sys.argv[1]
args = [a for a in sys.argv[1:] if not a.startswith('-')]
path = args[1] if len(args) > 1 else os.path.join(label.RAW, sysname + '.log')
if sysname not in label.SYSTEMS:
    raise SystemExit('%s is not a system of %s (set LOGSIFT_LABEL_SET for another set)' % (sysname, label.HERE))
rp = os.path.join(label.HERE, 'rules', sysname + '.tsv')
if not os.path.exists(rp): open(rp, 'w').close()
rules = label.load_rules(sysname)
def shape(c):
    c = re.sub(r'"[^"]*"', '"S"', c); c = re.sub(r"'[^']*'", "'S'", c)
    c = re.sub(r'[0-9a-fA-F]{8,}', 'H', c); c = re.sub(r'\d+', 'N', c)
    return c[:160]
groups = collections.OrderedDict(); multi = collections.Counter(); cont = 0; counts = collections.Counter()
for line in open(path, encoding='utf-8', errors='replace'):
    line = line.rstrip('\n'); c = label.content_of(sysname, line)
    if c is None: cont += 1; continue
    h = label.label_content(rules, c)
    if len(h) == 1: counts[h[0][0]] += 1; continue
    if len(h) > 1: multi[tuple(x[0] for x in h)] += 1; print('MULTI', [x[0] for x in h], c[:300]); continue
    groups.setdefault(shape(c), []).append(c)
print('continuation lines:', cont, ' matched:', sum(counts.values()), ' events used:', len(counts), ' multi:', sum(multi.values()))
for s, ex in sorted(groups.items(), key=lambda x: -len(x[1])):
    print('%5d  %s' % (len(ex), ex[0][:400]))
if '-c' in sys.argv:
    for e, n in counts.most_common(): print(n, e)
