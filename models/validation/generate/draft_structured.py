#!/usr/bin/python3
"""Rule-writing aid for logfmt / JSON lines: for raw lines not yet matched by rules/<SYSTEM>.tsv, group them
by the statement identity (caller + msg, or logger + msg) and print a draft rule per group: the line with
every value masked except the keys named constant (level, caller, msg, component, logger + extra).
The drafts are reviewed by hand (msgs that embed variables are merged and masked manually).
usage: draft_structured.py SYSTEM logfmt|json [EXTRA_CONST_KEY ...]"""
import collections, json, os, re, sys
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import label
sysname, fmt = sys.argv[1], sys.argv[2]
CONST = {'level', 'caller', 'msg', 'component', 'logger'} | set(sys.argv[3:])
if sysname not in label.SYSTEMS:
    raise SystemExit('%s is not a system of %s (set LOGSIFT_LABEL_SET for another set)' % (sysname, label.HERE))
rp = os.path.join(label.HERE, 'rules', sysname + '.tsv')
if not os.path.exists(rp): open(rp, 'w').close()
rules = label.load_rules(sysname)
def logfmt_pairs(s):
    out = []; i = 0
    while i < len(s):
        while i < len(s) and s[i] == ' ': i += 1
        j = i
        while j < len(s) and s[j] not in '= ': j += 1
        k = s[i:j]
        if j < len(s) and s[j] == '=':
            j += 1
            if j < len(s) and s[j] == '"':
                e = j + 1
                while e < len(s) and s[e] != '"':
                    e += 2 if s[e] == '\\' else 1
                e += 1
            else:
                e = j
                while e < len(s) and s[e] != ' ': e += 1
            out.append((k, s[j:e])); i = e
        else:
            out.append((k, None)); i = j
    return out
def logfmt_template(s):
    parts = []
    for k, v in logfmt_pairs(s):
        if v is None: parts.append(k)
        elif k in CONST: parts.append('%s=%s' % (k, v))
        else: parts.append('%s=<*>' % k)
    return ' '.join(parts)
def json_template(s):
    # walk top-level members of a compact JSON object, keeping raw text
    dec = json.JSONDecoder(); out = ['{']; i = 1; first = True
    while True:
        while s[i] in ' ,': i += 1
        if s[i] == '}': break
        k, e = dec.raw_decode(s, i); kraw = s[i:e]; i = e
        while s[i] in ' :': i += 1
        v, e = dec.raw_decode(s, i); vraw = s[i:e]; i = e
        if k in CONST: t = vraw
        elif isinstance(v, str): t = '"<*>"'
        else: t = '<*>'
        out.append(('' if first else ',') + kraw + ':' + t); first = False
    out.append('}')
    return ''.join(out)
def ident(c):
    if fmt == 'logfmt':
        d = dict((k, v) for k, v in logfmt_pairs(c))
        return (d.get('caller'), d.get('msg'))
    d = json.loads(c)
    return (d.get('caller') or d.get('logger'), d.get('msg'))
groups = collections.OrderedDict()
for line in open(os.path.join(label.RAW, sysname + '.log'), encoding='utf-8', errors='replace'):
    line = line.rstrip('\n'); c = label.content_of(sysname, line)
    if c is None or label.label_content(rules, c): continue
    groups.setdefault(ident(c), []).append(c)
n = len(rules)
for k, ex in groups.items():
    n += 1
    t = logfmt_template(ex[0]) if fmt == 'logfmt' else json_template(ex[0])
    tpls = {logfmt_template(e) if fmt == 'logfmt' else json_template(e) for e in ex}
    print('# %d lines, %d template variants, e.g. %s' % (len(ex), len(tpls), ex[0][:300]))
    for t in sorted(tpls)[:3]:
        print('%s%d\t=\t%s' % (sysname[:2].upper(), n, t))
