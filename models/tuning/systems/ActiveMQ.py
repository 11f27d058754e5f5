SYSTEM = dict(
    header=[r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \| (?:TRACE|DEBUG|INFO |WARN |ERROR|FATAL) \| (?P<c>.*) \| [A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+ \| [^|]*'],
    format='ActiveMQ 5.17 activemq.log (Debian build logs through slf4j-log4j12 / log4j 1.2; upstream layout '
           '"%d | %-5p | %m | %c | %t%n"): the leading "YYYY-MM-DD HH:MM:SS,mmm | LEVEL | " and the trailing '
           '" | logger.class | thread" stripped, the Content is the message. Stack-trace and other continuation '
           'lines dropped.')
