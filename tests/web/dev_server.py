#!/usr/bin/python3
"""Development server for the logsift dashboard.

Serves the dashboard files the way the logsift binary does and forwards every
other request (the JSON API, /metrics) to a running logsift:

    /            -> service/web/index.html
    /ui/app.js   -> service/web/app.js
    /ui/app.css  -> service/web/app.css
    /ui/chart.js -> /usr/share/javascript/chart.js/chart.min.js (Debian libjs-chart.js)
    anything else -> the upstream logsift, same method, path, query, body and
                     Authorization header

Files are read on every request, so an edit shows on the next reload.

    /usr/bin/python3 tests/web/dev_server.py --upstream http://127.0.0.1:PORT [--port 0]

It binds 127.0.0.1 only and prints `dev_server: listening http://127.0.0.1:PORT`.
`POST /__dev__/upstream` with a URL as the body points it at another logsift
(dashboard_test.py --page-base URL uses that). `--require-token T` makes it
answer 401 {"error": ...} to API requests without `Authorization: Bearer T`,
to try the page's token form before the binary has authentication.
"""

import argparse
import http.client
import http.server
import json
import os
import sys
import threading
import urllib.parse

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WEB_DIR = os.path.join(REPO, "service", "web")
CHART_JS = "/usr/share/javascript/chart.js/chart.min.js"

STATIC = {
    "/": (os.path.join(WEB_DIR, "index.html"), "text/html; charset=utf-8"),
    "/ui/app.js": (os.path.join(WEB_DIR, "app.js"), "text/javascript; charset=utf-8"),
    "/ui/app.css": (os.path.join(WEB_DIR, "app.css"), "text/css; charset=utf-8"),
    "/ui/chart.js": (CHART_JS, "text/javascript; charset=utf-8"),
}

# Routes that stay open without a token when --require-token is set (as the
# service plans: liveness, readiness and the page itself).
OPEN_PATHS = {"/healthz", "/readyz"}

# What the page needs and nothing more; the binary can send the same header with index.html.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")

HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
              "trailers", "transfer-encoding", "upgrade", "content-length", "server", "date"}


class DevServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, addr, upstream, require_token=None):
        super().__init__(addr, Handler)
        self.upstream = upstream.rstrip("/")
        self.require_token = require_token
        self.lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "logsift-dev"

    def log_message(self, fmt, *args):  # quiet; errors still go to stderr via send_error paths
        pass

    def _send(self, status, body, ctype, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status, obj):
        self._send(status, (json.dumps(obj) + "\n").encode(), "application/json")

    def _body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def _handle(self):
        path = urllib.parse.urlsplit(self.path).path
        if path == "/__dev__/upstream":
            if self.command != "POST":
                return self._json(405, {"error": "POST a URL"})
            url = self._body().decode().strip().rstrip("/")
            if not url.startswith("http://"):
                return self._json(400, {"error": "upstream must be an http:// URL"})
            with self.server.lock:
                self.server.upstream = url
            return self._json(200, {"upstream": url})
        if path in STATIC and self.command in ("GET", "HEAD"):
            file, ctype = STATIC[path]
            try:
                with open(file, "rb") as f:
                    body = f.read()
            except OSError as e:
                return self._json(500, {"error": f"cannot read {file}: {e.strerror}"})
            extra = [("X-Content-Type-Options", "nosniff")]
            if path == "/":
                extra.append(("Content-Security-Policy", CSP))
            return self._send(200, body, ctype, extra)
        token = self.server.require_token
        if token and path not in OPEN_PATHS and self.headers.get("Authorization") != f"Bearer {token}":
            self._body()
            return self._json(401, {"error": "missing or wrong bearer token"})
        self._proxy()

    def _proxy(self):
        with self.server.lock:
            upstream = self.server.upstream
        u = urllib.parse.urlsplit(upstream)
        body = self._body()
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP and k.lower() != "host"}
        if body:
            headers["Content-Length"] = str(len(body))
        try:
            conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=15)
            conn.request(self.command, self.path, body=body or None, headers=headers)
            res = conn.getresponse()
            data = res.read()
            extra = [(k, v) for k, v in res.getheaders() if k.lower() not in HOP_BY_HOP and k.lower() != "content-type"]
            ctype = res.getheader("Content-Type", "application/octet-stream")
            conn.close()
        except OSError as e:
            return self._json(502, {"error": f"dev_server: upstream {upstream} unreachable: {e}"})
        self._send(res.status, data, ctype, extra)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _handle


def start(upstream, port=0, require_token=None):
    """Starts the server on a daemon thread; returns it (server.server_port, server.shutdown())."""
    server = DevServer(("127.0.0.1", port), upstream, require_token)
    threading.Thread(target=server.serve_forever, name="dev_server", daemon=True).start()
    return server


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True, help="logsift base URL, e.g. http://127.0.0.1:8080")
    ap.add_argument("--port", type=int, default=0, help="0 = ephemeral (default)")
    ap.add_argument("--require-token", help="answer 401 to API requests without this bearer token")
    args = ap.parse_args()
    if not os.path.exists(CHART_JS):
        print(f"dev_server: {CHART_JS} missing: apt-get install -y --no-install-recommends libjs-chart.js",
              file=sys.stderr)
        return 2
    server = DevServer(("127.0.0.1", args.port), args.upstream, args.require_token)
    print(f"dev_server: listening http://127.0.0.1:{server.server_port} upstream={server.upstream}",
          file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
