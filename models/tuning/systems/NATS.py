SYSTEM = dict(
    header=[r'\[\d+\] \d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{6} \[(?:INF|DBG|TRC|WRN|ERR|FTL)\] (?P<c>.*\S.*)'],
    format='nats-server 2.9 log_file (logtime on; debug, trace or info by phase): "[pid] YYYY/MM/DD HH:MM:SS.uuuuuu [LVL] " '
           'stripped (LVL = INF/DBG/TRC/WRN/ERR/FTL); the connection prefix "addr - cid:N - \\"version:lang:name\\" - " '
           'stays in the Content. Empty banner lines ("[INF] " with no text) dropped. Logs of the three cluster nodes concatenated.')
