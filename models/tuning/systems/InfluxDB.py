SYSTEM = dict(
    header=[r'(?P<c>ts=\S+ lvl=.*)',
            r'\[httpd\] (?P<c>\S+ - .*)'],
    format='InfluxDB 1.6 influxd stderr with [logging] format=logfmt (level debug or info by run): logfmt lines keep the whole '
           'line as the Content (structured); the HTTP access log lines on the same stderr (Apache common log format plus '
           'referer, user agent, request id and duration) have their "[httpd] " logger prefix stripped.')
