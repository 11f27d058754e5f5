SYSTEM = dict(
    header=[r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \S+ proftpd\[\d+\](?: \d+\.\d+\.\d+\.\d+(?: \([^()\[\]]*\[[^()\[\]]*\]\))?)?: (?P<c>.*)'],
    format='ProFTPD 1.3.8 standalone, run with -n, its log on stderr (the SystemLog format), DebugLevel 0 with 5 '
           'and 10 for parts of the run: "YYYY-MM-DD HH:MM:SS,mmm host proftpd[pid] server-ip (client-host[client-ip]): " '
           'stripped (the server-ip and the client part are absent on daemon / early lines).')
