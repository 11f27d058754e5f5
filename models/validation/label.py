#!/usr/bin/python3
"""Label the logsift validation set.

For every system in SYSTEMS:
  * read <System>/<System>.log (raw lines as the program wrote them),
  * cut the per-line header off to get the Content (see SYSTEMS[...]['header']),
  * match the Content against rules/<System>.tsv (EventId <TAB> regex <TAB> template),
    requiring exactly one rule to match (re.fullmatch), else FAIL,
  * write <System>/<System>.log_structured.csv (LineId,Content,EventId,EventTemplate)
    and datasets.json.

Usage:
  label.py                 label every system, write the CSVs and datasets.json
  label.py --check         same, but write nothing (exit 1 on any problem)
  label.py --raw SYS FILE  label an arbitrary raw file (used by generate/sample.py);
                           prints nothing, see load_rules()/label_lines() for the API
Never train on this set, and never change the generator because of one of its lines.
"""
import csv
import json
import os
import re
import sys

sys.dont_write_bytecode = True

# The set being labelled: this directory (the validation set) unless LOGSIFT_LABEL_SET names another
# directory in the same layout (models/tuning). That directory's systems/<System>.py files, if present,
# replace the SYSTEMS table below (each defines SYSTEM = dict(header=[...], format='...'), the same fields),
# so every tool here serves both sets.
HERE = os.path.abspath(os.environ.get('LOGSIFT_LABEL_SET') or os.path.dirname(os.path.abspath(__file__)))
# Where the generators write raw logs before sample.py thins them into the set.
RAW = os.environ.get('LOGSIFT_RAW_DIR') or '/tmp/validation-work/raw'

# header: list of regexes with a named group 'c' (the Content). The first that matches wins.
# A raw line that matches none is a continuation line of a multi-line message: generate/sample.py
# drops those before the set is written, so in the committed logs every line must match.
SYSTEMS = {
    'Nginx': dict(
        header=[r'\d{4}/\d\d/\d\d \d\d:\d\d:\d\d \[[a-z]+\] \d+#\d+: (?P<c>.*)',
                r'(?P<c>\d+\.\d+\.\d+\.\d+ - \S+ \[.*)'],
        format='nginx 1.22 error.log and access.log (combined) merged by time. Error lines: '
               '"YYYY/MM/DD HH:MM:SS [level] pid#tid: " stripped (the "*connection" id stays in the Content). '
               'Access lines: the whole line is the Content.'),
    'PostgreSQL': dict(
        header=[r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \w+ \[\d+\] (?:\S*@\S* )?(?:LOG|ERROR|FATAL|PANIC|WARNING|NOTICE|INFO|DEBUG\d):  (?P<c>.*)',
                r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \w+ \[\d+\] (?:\S*@\S* )?(?P<c>(?:DETAIL|HINT|STATEMENT|CONTEXT|QUERY|LOCATION):  .*)'],
        format='PostgreSQL 15 stderr log, log_line_prefix "%m [%p] %q%u@%d ": '
               '"YYYY-MM-DD HH:MM:SS.mmm TZ [pid] [user@db ]SEVERITY:  " stripped (severity = LOG/ERROR/FATAL/WARNING/NOTICE/...; '
               'the auxiliary field names DETAIL:/HINT:/STATEMENT:/CONTEXT: stay in the Content). Continuation lines '
               '(starting with a TAB) dropped.'),
    'Redis': dict(
        header=[r'\d+:[XCSM] \d\d \w{3} \d{4} \d\d:\d\d:\d\d\.\d{3} [.\-*#] (?P<c>.*)',
                r'(?P<c>.*)'],
        format='Redis 7.0 logfile (loglevel verbose, some debug): "pid:role DD Mon YYYY HH:MM:SS.mmm <level-char> " '
               'stripped. A line without that header (the signal handler\'s "pid:signal-handler (time) ...") is kept whole.'),
    'Memcached': dict(
        header=[r'(?P<c>.*)'],
        format='memcached 1.6 -vv stderr: no header, the whole line is the Content.'),
    'MariaDB': dict(
        header=[r'\d{4}-\d\d-\d\d +\d+:\d\d:\d\d \d+ \[\w+\] (?P<c>.*)',
                r'\d{6} +\d+:\d\d:\d\d (?P<c>.*)'],
        format='MariaDB 10.11 error log (log_warnings=4): "YYYY-MM-DD HH:MM:SS thread [Level] " stripped '
               '(older "YYMMDD HH:MM:SS " prefix likewise). Lines without a header dropped.'),
    'HAProxy': dict(
        header=[r'<\d+>\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ haproxy\[\d+\]: (?P<c>.*)',
                r'\[(?:NOTICE|WARNING|ALERT)\] +\(\d+\) : (?P<c>.*)'],
        format='HAProxy 2.6 run in the foreground, logging to stdout in rfc3164 format: "<prio>Mon DD HH:MM:SS host haproxy[pid]: " '
               'stripped; its own stderr messages "[LEVEL]   (pid) : " stripped (server state changes are printed on both '
               'channels, so they appear twice, as they would in a container log).'),
    'Prometheus': dict(
        header=[r'(?P<c>ts=.*)'],
        format='Prometheus 2.42 logfmt on stderr (log.level=debug). Whole line is the Content (structured).'),
    'Alertmanager': dict(
        header=[r'(?P<c>ts=.*)'],
        format='Alertmanager 0.25 logfmt on stderr (log.level=debug). Whole line is the Content (structured).'),
    'Etcd': dict(
        header=[r'(?P<c>\{.*\})',
                r'(?:INFO|WARNING|ERROR): \d{4}/\d\d/\d\d \d\d:\d\d:\d\d (?P<c>.*)'],
        format='etcd 3.4 zap JSON logger on stderr, one JSON object per line: the whole line is the Content. '
               'The few grpc-go logger lines on the same stderr ("WARNING: YYYY/MM/DD HH:MM:SS " stripped) are kept. '
               'Logs of the three cluster members concatenated.'),
    'Caddy': dict(
        header=[r'(?P<c>\{.*\})'],
        format='Caddy 2.6 JSON logs (debug) on stderr, incl. http.log.access. Whole line is the Content.'),
    'Tomcat': dict(
        header=[r'\d\d-\w{3}-\d{4} \d\d:\d\d:\d\d\.\d{3} [A-Z]+ \[[^\]]*\] \S+ (?P<c>.*)'],
        format='Tomcat 10.1 JULI OneLineFormatter (catalina.out): "DD-Mon-YYYY HH:MM:SS.mmm LEVEL [thread] '
               'class.method " stripped. Stack-trace / multi-line continuation lines dropped.'),
    'Mosquitto': dict(
        header=[r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d: (?P<c>.*)'],
        format='Mosquitto 2.0 log file, log_type all: "YYYY-MM-DDTHH:MM:SS: " stripped.'),
    'Squid': dict(
        header=[r'\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d{3})?(?: kid\d+)?\| (?:\d+,\d+\| \S+\(\d+\) \S+: )?(?P<c>.*)',
                r'(?P<c>\d{9,}\.\d{3} .*)'],
        format='Squid 5.7 access.log (native "squid" format, whole line is the Content) and cache.log '
               '("YYYY/MM/DD HH:MM:SS[.mmm][ kidN]| " stripped, and for debug_options lines also the "section,level| file.cc(line) function: " '
               'prefix) merged by time; cache.log continuation lines dropped.'),
    'Dnsmasq': dict(
        header=[r'\w{3} [ \d]\d \d\d:\d\d:\d\d dnsmasq\[\d+\]: (?P<c>.*)'],
        format='dnsmasq 2.90 log-facility file, log-queries=extra: "Mon DD HH:MM:SS dnsmasq[pid]: " stripped.'),
    'Dpkg': dict(
        header=[r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (?P<c>.*)'],
        format='/var/log/dpkg.log of this machine: "YYYY-MM-DD HH:MM:SS " stripped.'),
    'Cron': dict(
        header=[r'\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ (?:CRON|cron)\[\d+\]: (?P<c>.*)'],
        format='Debian cron 3.0pl1 via syslog (traditional format): "Mon DD HH:MM:SS host CRON[pid]: " stripped.'),
}

if os.path.isdir(os.path.join(HERE, 'systems')):
    SYSTEMS = {}
    for _name in sorted(os.listdir(os.path.join(HERE, 'systems'))):
        if _name.endswith('.py'):
            _ns = {}
            with open(os.path.join(HERE, 'systems', _name), encoding='utf-8') as _f:
                exec(compile(_f.read(), os.path.join(HERE, 'systems', _name), 'exec'), _ns)
            SYSTEMS[_name[:-3]] = _ns['SYSTEM']


def content_of(system, line):
    for h in SYSTEMS[system]['_hdr']:
        m = h.fullmatch(line)
        if m:
            return m.group('c')
    return None


def template_regex(tpl):
    return '.*?'.join(re.escape(p) for p in tpl.split('<*>'))


def load_rules(system, path=None):
    path = path or os.path.join(HERE, 'rules', system + '.tsv')
    rules = []
    seen = set()
    with open(path, encoding='utf-8') as f:
        for n, raw in enumerate(f, 1):
            raw = raw.rstrip('\n')
            if not raw.strip() or raw.startswith('#'):
                continue
            parts = raw.split('\t')
            if len(parts) != 3:
                raise SystemExit('%s:%d: expected 3 TAB-separated fields, got %d' % (path, n, len(parts)))
            eid, rx, tpl = parts
            tpl = tpl.replace('\\t', '\t')   # a TAB inside a template is written as \t
            if rx == '=':   # shorthand: the template itself, each <*> matching any text
                rx = template_regex(tpl)
            if eid in seen:
                raise SystemExit('%s:%d: duplicate EventId %s' % (path, n, eid))
            seen.add(eid)
            try:
                crx = re.compile(rx, re.S)
            except re.error as e:
                raise SystemExit('%s:%d: bad regex: %s' % (path, n, e))
            rules.append((eid, crx, tpl))
    tpls = {}
    for eid, _, tpl in rules:
        if tpl in tpls:
            raise SystemExit('%s: EventIds %s and %s share the template %r (eval keys on templates)' % (path, tpls[tpl], eid, tpl))
        tpls[tpl] = eid
    SYSTEMS[system]['_hdr'] = [re.compile(h, re.S) for h in SYSTEMS[system]['header']]
    return rules


def label_content(rules, content):
    """Return list of (eid, tpl) for every rule matching content."""
    return [(eid, tpl) for eid, crx, tpl in rules if crx.fullmatch(content)]


def label_system(system, check_only=False):
    rules = load_rules(system)
    logp = os.path.join(HERE, system, system + '.log')
    with open(logp, encoding='utf-8', newline='\n') as f:
        lines = f.read().split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    errors = []
    rows = []
    for i, line in enumerate(lines, 1):
        c = content_of(system, line)
        if c is None:
            errors.append('%s:%d: no header matched: %r' % (system, i, line[:200]))
            continue
        hits = label_content(rules, c)
        if len(hits) != 1:
            errors.append('%s:%d: %d rules matched %s: %r' % (system, i, len(hits), [h[0] for h in hits], c[:300]))
            continue
        rows.append((i, c, hits[0][0], hits[0][1]))
    if errors:
        for e in errors[:40]:
            print(e, file=sys.stderr)
        raise SystemExit('%s: %d unlabelled lines (of %d)' % (system, len(errors), len(lines)))
    if not check_only:
        outp = os.path.join(HERE, system, system + '.log_structured.csv')
        with open(outp, 'w', encoding='utf-8', newline='') as f:
            w = csv.writer(f, lineterminator='\n')
            w.writerow(['LineId', 'Content', 'EventId', 'EventTemplate'])
            w.writerows(rows)
    used = {r[2] for r in rows}
    unused = [eid for eid, _, _ in rules if eid not in used]
    return len(rows), len(used), unused


def main():
    check = '--check' in sys.argv
    only = [a for a in sys.argv[1:] if not a.startswith('--')]
    present = [s for s in SYSTEMS if os.path.exists(os.path.join(HERE, s, s + '.log'))]
    index = {}
    total = 0
    for s in present:
        if only and s not in only:
            continue
        n, ev, unused = label_system(s, check)
        total += n
        print('%-13s %6d lines %4d events%s' % (s, n, ev, ('  (rules without lines: %d)' % len(unused)) if unused else ''))
    for s in present:
        index[s] = {'log': '%s/%s.log' % (s, s), 'truth': '%s/%s.log_structured.csv' % (s, s), 'format': SYSTEMS[s]['format']}
    print('total %d lines' % total)
    if not check and not only:
        with open(os.path.join(HERE, 'datasets.json'), 'w') as f:
            json.dump(index, f, indent=2)
            f.write('\n')


if __name__ == '__main__':
    main()
