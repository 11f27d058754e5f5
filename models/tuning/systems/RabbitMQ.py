SYSTEM = dict(
    header=[r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}[+-]\d\d:\d\d \[(?:debug|info|notice|warning|error|critical|alert|emergency)\] <\d+\.\d+\.\d+> (?P<c>\S.*)'],
    format='RabbitMQ 3.10 log file (log.file.level info, debug for a while): '
           '"YYYY-MM-DD HH:MM:SS.uuuuuu+00:00 [level] <erlang pid> " stripped. RabbitMQ repeats that header on every '
           'line of a multi-line message; the lines after the first whose Content is empty or starts with a space '
           '(banner body, plugin / application lists, pretty-printed Erlang terms) are treated as continuation lines '
           'and dropped; un-indented second lines (e.g. the reason line after "Error on AMQP connection ...:") are kept '
           'as lines of their own.')
