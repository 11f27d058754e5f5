"""TCP listener that accepts and never answers (for upstream timeouts); or answers garbage with --garbage."""
import socket, sys, threading, time
port = int(sys.argv[1]); garbage = '--garbage' in sys.argv
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', port)); s.listen(128)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
    if garbage:
        try: c.sendall(b'NOT HTTP AT ALL\r\n\r\n'); c.close()
        except Exception: pass
    conns = conns[-200:]
