SYSTEM = dict(
    header=[r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d - (?P<c>.*)',
            r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+\[\d+\]: (?P<c>.*)',
            r'(?P<c>\[pid: \d+\|app: -?\d+\|req: -?\d+/\d+\] .*)',
            r'(?P<c>\d+\.\d+\.\d+\.\d+ - \S* \[.*)'],
    format='uWSGI 2.0 (Python 3 plugin) stderr with --log-date="%Y-%m-%d %H:%M:%S": uWSGI\'s own messages '
           '"YYYY-MM-DD HH:MM:SS - " stripped; the WSGI app\'s python logging lines "YYYY-MM-DD HH:MM:SS,mmm LEVEL '
           'logger[pid]: " stripped; request log lines (default "[pid: N|app: N|req: N/N] ..." format, and in the last run '
           'a custom --log-format starting with the client address) kept whole. Lines without one of these headers '
           '(Python tracebacks, the option parser\'s messages printed before logging is set up) dropped.')
