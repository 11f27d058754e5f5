#!/usr/bin/python3
"""Post-process draft_structured.py output for Caddy 2.6 (reviewed by hand):
 * access log: one statement (caddyhttp/server.go: log("handled request", ...)) whose level is chosen at run
   time (info / error for status >= 400) and whose logger name carries the per-site log name -> level and
   logger masked.
 * error log: two statements (logger.Error for status >= 500, logger.Debug otherwise) whose msg is the
   error text -> msg and logger name masked, level kept.
 * events: one statement, the event name is a field.
 * http.stdlib: net/http's "http: TLS handshake error from %s: %v" -> masked."""
import re, sys
seen = {}
for line in sys.stdin:
    if line.startswith('#'): continue
    eid, rx, t = line.rstrip('\n').split('\t')
    if '"logger":"http.log.access' in t:
        t = re.sub(r'"level":"\w+"', '"level":"<*>"', t)
        t = re.sub(r'"logger":"http\.log\.access[^"]*"', '"logger":"http.log.access<*>"', t)
    if '"logger":"http.log.error' in t:
        t = re.sub(r'"logger":"http\.log\.error[^"]*","msg":"(?:[^"\\]|\\.)*"', '"logger":"http.log.error<*>","msg":"<*>"', t)
    # Go net/http server's own log.Printf("http: TLS handshake error from %s: %v", ...) via the http.stdlib logger
    t = re.sub(r'"msg":"http: TLS handshake error from [^"]*?: (?:[^"\\]|\\.)*"', '"msg":"http: TLS handshake error from <*>: <*>"', t)
    if t in seen: continue
    seen[t] = eid
    print('%s\t=\t%s' % (eid, t))
