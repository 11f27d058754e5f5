SYSTEM = dict(
    header=[r'\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ postfix(?:/[\w-]+)+\[\d+\]: (?P<c>.*)'],
    format='Postfix 3.7 maillog_file (written by postlogd): "Mon DD HH:MM:SS host postfix/program[pid]: " stripped '
           '(the queue id, "NOQUEUE:", "warning:" / "fatal:" prefixes stay in the Content).')
