SYSTEM = dict(
    header=[r'[0-9a-f]{8}\.[0-9a-f]{8} 0x[0-9a-f]+ (?P<c>.*)',
            r'(?P<c>[^\t].*)'],
    format='OpenLDAP slapd 2.5 debug output on stderr (-d stats,stats2,sync; one run with acl, one with config): '
           '"<hex seconds>.<hex nanoseconds> 0x<thread id> " stripped. Lines that slapd writes to stderr without '
           'that prefix (config-file errors, "Backend ACL:" dumps) are kept whole; TAB-indented continuation lines '
           '(the version banner\'s second line, ACL clauses) dropped. Provider and syncrepl consumer logs merged by time.')
