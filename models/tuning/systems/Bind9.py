SYSTEM = dict(
    header=[r'\d\d-\w{3}-\d{4} \d\d:\d\d:\d\d\.\d{3} [a-z][a-z0-9-]*: (?:debug \d+|info|notice|warning|error|critical): (?P<c>.*)',
            r'\d\d-\w{3}-\d{4} \d\d:\d\d:\d\d\.\d{3} (?P<c>.*)'],
    format='BIND 9.18 named log file channel (print-time, print-category, print-severity; severity dynamic, '
           'debug 1-3 via rndc trace for part of the run; querylog on): "DD-Mon-YYYY HH:MM:SS.mmm category: severity: " '
           'stripped (severity is info/notice/warning/error/critical or "debug N"). Two short start-up runs with -g '
           '(stderr, "DD-Mon-YYYY HH:MM:SS.mmm " only, stripped) come first.')
