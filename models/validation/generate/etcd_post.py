#!/usr/bin/python3
"""Post-process draft_structured.py output for etcd: raft/*.go messages are printf-formatted
(r.logger.Infof("%x became leader at term %d", ...)); mask their variables by the raft format strings."""
import re, sys
RAFT = [  # (regex on the msg text, masked msg) from go.etcd.io/etcd/raft v3.4 format strings
    (r'[0-9a-f]+ switched to configuration voters=\(.*?\)(?: learners=\(.*?\))?', '<*> switched to configuration voters=(<*>)'),
    (r'[0-9a-f]+ became (follower|candidate|leader|pre-candidate) at term \d+', None),
    (r'newRaft .*', 'newRaft <*> [peers: [<*>], term: <*>, commit: <*>, applied: <*>, lastindex: <*>, lastterm: <*>]'),
    (r'[0-9a-f]+ is starting a new election at term \d+', '<*> is starting a new election at term <*>'),
    (r'[0-9a-f]+ received \w+ from [0-9a-f]+ at term \d+', '<*> received <*> from <*> at term <*>'),
    (r'[0-9a-f]+ \[logterm: \d+, index: \d+\] sent \w+ request to [0-9a-f]+ at term \d+', '<*> [logterm: <*>, index: <*>] sent <*> request to <*> at term <*>'),
    (r'[0-9a-f]+ has received \d+ \w+ votes and \d+ vote rejections', '<*> has received <*> <*> votes and <*> vote rejections'),
    (r'raft\.node: [0-9a-f]+ elected leader [0-9a-f]+ at term \d+', 'raft.node: <*> elected leader <*> at term <*>'),
    (r'raft\.node: [0-9a-f]+ lost leader [0-9a-f]+ at term \d+', 'raft.node: <*> lost leader <*> at term <*>'),
    (r'raft\.node: [0-9a-f]+ changed leader from [0-9a-f]+ to [0-9a-f]+ at term \d+', 'raft.node: <*> changed leader from <*> to <*> at term <*>'),
    (r'[0-9a-f]+ \[term \d+\] starts to transfer leadership to [0-9a-f]+', '<*> [term <*>] starts to transfer leadership to <*>'),
    (r'[0-9a-f]+ sends MsgTimeoutNow to [0-9a-f]+ immediately as [0-9a-f]+ already has up-to-date log', '<*> sends MsgTimeoutNow to <*> immediately as <*> already has up-to-date log'),
    (r'[0-9a-f]+ \[term: \d+\] received a \w+ message with higher term from [0-9a-f]+ \[term: \d+\]', '<*> [term: <*>] received a <*> message with higher term from <*> [term: <*>]'),
    (r'[0-9a-f]+ \[logterm: \d+, index: \d+, vote: [0-9a-f]+\] cast \w+ for [0-9a-f]+ \[logterm: \d+, index: \d+\] at term \d+', '<*> [logterm: <*>, index: <*>, vote: <*>] cast <*> for <*> [logterm: <*>, index: <*>] at term <*>'),
    (r'[0-9a-f]+ \[logterm: \d+, index: \d+, vote: [0-9a-f]+\] rejected \w+ from [0-9a-f]+ \[logterm: \d+, index: \d+\] at term \d+', '<*> [logterm: <*>, index: <*>, vote: <*>] rejected <*> from <*> [logterm: <*>, index: <*>] at term <*>'),
    (r'[0-9a-f]+ \[term \d+\] received MsgTimeoutNow from [0-9a-f]+ and starts an election to get leadership\.', '<*> [term <*>] received MsgTimeoutNow from <*> and starts an election to get leadership.'),
    (r'[0-9a-f]+ \[term: \d+\] ignored a \w+ message with lower term from [0-9a-f]+ \[term: \d+\]', '<*> [term: <*>] ignored a <*> message with lower term from <*> [term: <*>]'),
    (r'[0-9a-f]+ no leader at term \d+; dropping proposal', '<*> no leader at term <*>; dropping proposal'),
    (r'[0-9a-f]+ \[commit: \d+, lastindex: \d+, lastterm: \d+\] starts to restore snapshot \[index: \d+, term: \d+\]', '<*> [commit: <*>, lastindex: <*>, lastterm: <*>] starts to restore snapshot [index: <*>, term: <*>]'),
    (r'[0-9a-f]+ \[commit: \d+\] restored snapshot \[index: \d+, term: \d+\]', '<*> [commit: <*>] restored snapshot [index: <*>, term: <*>]'),
    (r'[0-9a-f]+ \[firstindex: \d+, commit: \d+\] sent snapshot\[index: \d+, term: \d+\] to [0-9a-f]+ \[.*\]', '<*> [firstindex: <*>, commit: <*>] sent snapshot[index: <*>, term: <*>] to <*> [<*>]'),
    (r'[0-9a-f]+ \[term \d+\] transfer leadership to [0-9a-f]+ is in progress; ignores request to same node [0-9a-f]+', '<*> [term <*>] transfer leadership to <*> is in progress; ignores request to same node <*>'),
    (r'[0-9a-f]+ \[term \d+\] abort previous transferring leadership to [0-9a-f]+', '<*> [term <*>] abort previous transferring leadership to <*>'),
    (r'.*', None),
]
seen = {}
for line in sys.stdin:
    if line.startswith('#'): continue
    eid, rx, t = line.rstrip('\n').split('\t')
    m = re.search(r'"caller":"raft/[^"]*","msg":"((?:[^"\\]|\\.)*)"', t)
    if m:
        msg = m.group(1)
        for r, rep in RAFT:
            if re.fullmatch(r, msg):
                if rep is None:
                    rep = re.sub(r'^[0-9a-f]+ became (\S+) at term \d+$', r'<*> became \1 at term <*>', msg)
                    if rep == msg and r == '.*': print('UNHANDLED raft msg: ' + msg, file=sys.stderr)
                break
        t = t[:m.start(1)] + rep + t[m.end(1):]
    if t in seen: continue
    seen[t] = eid
    print('%s\t=\t%s' % (eid, t))
