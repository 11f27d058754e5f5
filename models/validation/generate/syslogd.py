"""Minimal syslog receiver on a unix datagram socket; writes rsyslog 'traditional' file lines
(Mon DD HH:MM:SS host tag[pid]: msg) like /var/log/syslog would. usage: syslogd.py SOCKET OUTFILE"""
import os, re, socket, sys
path, out = sys.argv[1], sys.argv[2]
if os.path.exists(path): os.unlink(path)
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(path); os.chmod(path, 0o666)
host = 'validation-host'
with open(out, 'a', buffering=1) as f:
    while True:
        d = s.recv(65536).decode('utf-8', 'replace').rstrip('\n\x00')
        m = re.match(r'<\d+>(\w{3} [ \d]\d \d\d:\d\d:\d\d) (.*)', d, re.S)
        if not m: continue
        msg = m.group(2).replace('\n', '#012')
        f.write('%s %s %s\n' % (m.group(1), host, msg))
