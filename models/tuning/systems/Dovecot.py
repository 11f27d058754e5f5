SYSTEM = dict(
    header=[r'\w{3} [ \d]\d \d\d:\d\d:\d\d [\w-]+(?:\([^)]*\))?(?:<\d+>)?(?:<[^>]*>)?: (?:Info|Warning|Error|Fatal|Panic|Debug): '
            r'(?:lmtp-server: conn \S+ \[\d+\]: rcpt \S+: )?(?P<c>.*)'],
    format='Dovecot 2.3 log_path file (auth_verbose; auth_debug/mail_debug for part of the run): '
           '"Mon DD HH:MM:SS service[(user|pid)][<pid>][<session>]: Level: " stripped, and for LMTP deliveries also the '
           'per-recipient event prefix "lmtp-server: conn IP:PORT [N]: rcpt USER: ". Other event prefixes '
           '("passwd-file(user,ip,<session>): ", "Mailbox NAME: ", "auth-master: ...: ") stay in the Content.')
