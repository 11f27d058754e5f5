#!/usr/bin/python3
"""Real-browser test of the logsift dashboard (GET /).

Starts a real `logsift serve` on ephemeral loopback ports with a fresh data
directory, feeds it log lines, makes one alert dead-letter (a webhook to a
closed loopback port), then drives a headless Chromium (python3-selenium +
chromium-driver) through the page:

  * the page and its files load, with no SEVERE (or WARNING) browser console entry;
  * the clusters table shows the template the test just posted;
  * clicking that cluster draws its Chart.js chart (bar pixels on the canvas);
  * the "Fix this cluster" form: naming (exported as a metric) and muting the
    cluster, then merging another cluster into it, each by clicks, checked in
    the API's state (GET /clusters/{id}, GET /curation), and a suggested
    merge accepted by a click (the statement's lines then get one id), and a
    word of a template marked as a value by a click (a word never seen there
    then joins the statement too);
  * the dead-lettered alert is listed, and its Retry button re-queues it (the
    API then reports it pending, delivered, or failed again with a newer
    updated_at);
  * screenshots: $LOGSIFT_ARTIFACT_DIR/dashboard.png (1280x800 viewport) and
    dashboard-full.png (whole page).

Exit 0 = pass, 1 = fail (the reason is printed), 2 = bad setup (no binary),
77 = skipped (Chromium, chromedriver or selenium missing). Everything is bounded
by --time-limit (default 90 s); the server and Chromium are stopped by PID in
every path.

    LOGSIFT_BIN=build/logsift /usr/bin/python3 tests/web/dashboard_test.py [--page-base dev|URL]

--page-base: where the browser loads the page from. Default: the logsift
server itself. `dev`: tests/web/dev_server.py in this process (serves
service/web/* and Debian's Chart.js, forwards the API to the test's logsift).
A URL: an already running page server; if it is dev_server.py it is pointed at
the test's logsift through POST /__dev__/upstream.
"""

import argparse
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

CHROMIUM_CANDIDATES = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"]
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROME_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--window-size=1280,800"]

# Flags the test would like but an older binary may not know; dropped one by one on "unknown key".
OPTIONAL_FLAGS = [["--syslog-port", "0"], ["--webhook-allow-cidrs", "127.0.0.0/8"]]

# Log lines of three distinct events, several of the first.
REPEATED = [f"Connection from 10.0.{i}.{i + 7} port {2200 + 17 * i} closed" for i in range(1, 7)]
OTHERS = ["User alice logged in from 10.1.1.1", "Disk /dev/sda1 is 91% full"]
# Posted after the subscription exists: a new cluster, so a new_cluster alert.
NEW_LINE = "kernel panic on cpu 3"

T0 = time.monotonic()


class Fail(Exception):
    pass


def log(msg):
    print(f"[{time.monotonic() - T0:5.1f}s] {msg}", flush=True)


def on_alarm(signum, frame):
    raise Fail("overall time limit reached")


# ---------------------------------------------------------------- HTTP


def http(base, method, path, body=None, timeout=5.0, accept="application/json"):
    """(status, parsed JSON or text, headers). Never raises for HTTP status codes."""
    data = None
    headers = {"Accept": accept}
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            status, raw, hdrs = res.status, res.read(), res.headers
    except urllib.error.HTTPError as e:
        status, raw, hdrs = e.code, e.read(), e.headers
    except OSError as e:
        raise Fail(f"{method} {base}{path}: {e}") from None
    text = raw.decode("utf-8", "replace")
    ctype = hdrs.get("Content-Type", "")
    if "json" in ctype:
        try:
            return status, json.loads(text), hdrs
        except ValueError:
            raise Fail(f"{method} {path}: invalid JSON answer: {text[:200]!r}") from None
    return status, text, hdrs


def closed_port():
    """A loopback port nothing listens on (bound, then released)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def poll(desc, fn, timeout, interval=0.2):
    """fn() until it returns something truthy; exceptions count as 'not yet'."""
    end = time.monotonic() + timeout
    last_err = None
    while True:
        try:
            v = fn()
            if v:
                return v
        except Fail:
            raise
        except Exception as e:  # stale elements, element not yet there, ...
            last_err = e
        if time.monotonic() >= end:
            extra = f" (last error: {type(last_err).__name__}: {str(last_err).splitlines()[0] if str(last_err) else ''})" \
                if last_err else ""
            raise Fail(f"timed out after {timeout:.0f}s waiting for {desc}{extra}")
        time.sleep(interval)


# ---------------------------------------------------------------- logsift


class Logsift:
    def __init__(self, binary, tmp):
        self.binary = binary
        self.tmp = tmp
        self.proc = None
        self.lines = []
        self.listening = threading.Event()
        self.base = None
        self.dropped = []

    def _reader(self, proc, lines, event, sink):
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            lines.append(line)
            sink.write(line + "\n")
            sink.flush()
            if line.startswith("logsift: listening http="):
                event.set()

    def start(self, timeout=30):
        optional = [list(f) for f in OPTIONAL_FLAGS]
        data_dir = os.path.join(self.tmp, "data")
        for _ in range(len(OPTIONAL_FLAGS) + 1):
            cmd = [self.binary, "serve", "--http-port", "0", "--tcp-port", "0", "--data-dir", data_dir,
                   "--delivery-max-attempts", "1", "--delivery-first-retry-ms", "50"]
            for f in optional:
                cmd += f
            lines, event = [], threading.Event()
            sink = open(os.path.join(self.tmp, "logsift.stderr"), "a")
            sink.write("$ " + " ".join(cmd) + "\n")
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, start_new_session=True)
            self.proc, self.lines, self.listening = proc, lines, event
            threading.Thread(target=self._reader, args=(proc, lines, event, sink), daemon=True).start()
            end = time.monotonic() + timeout
            while not event.is_set() and proc.poll() is None and time.monotonic() < end:
                event.wait(0.1)
            if event.is_set():
                break
            if proc.poll() is None:
                raise Fail(f"logsift printed no 'listening' line within {timeout}s:\n" + "\n".join(lines[-20:]))
            # Exited: an unknown optional flag? Drop it and try again.
            proc.wait()
            text = "\n".join(lines)
            m = re.search(r"'([a-z0-9_-]+)'\s*:\s*unknown", text) or \
                re.search(r"unknown (?:option|flag|argument|key)\W+(?:--)?([a-z0-9_-]+)", text)
            name = m.group(1).replace("_", "-") if m else None
            hit = [f for f in optional if name and f[0] == "--" + name]
            if not hit:
                raise Fail(f"logsift exited with status {proc.returncode} before listening:\n" + "\n".join(lines[-20:]))
            optional.remove(hit[0])
            self.dropped.append(hit[0][0])
        else:
            raise Fail("logsift did not start")
        line = next(l for l in self.lines if l.startswith("logsift: listening http="))
        hostport = line.split("http=", 1)[1].split()[0]
        host, port = hostport.rsplit(":", 1)
        if host in ("0.0.0.0", "::", "[::]"):
            host = "127.0.0.1"
        self.base = f"http://{host}:{port}"
        if self.dropped:
            log(f"this logsift does not know {', '.join(self.dropped)}: started without")
        log(f"logsift pid {self.proc.pid} listening at {self.base}")
        poll("GET /readyz = 200", lambda: http(self.base, "GET", "/readyz")[0] == 200, 20)

    def stop(self):
        if not self.proc or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
            log(f"logsift stopped (SIGTERM), exit status {self.proc.returncode}")
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
            log("logsift did not stop within 10s of SIGTERM: killed")


# ---------------------------------------------------------------- Chromium


def descendants(pid):
    """PIDs of all processes below pid (from /proc), so Chromium can be stopped by PID."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


class Browser:
    def __init__(self, tmp):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        binary = next((b for b in CHROMIUM_CANDIDATES if os.path.exists(b)), None)
        opts = webdriver.ChromeOptions()
        opts.binary_location = binary
        for flag in CHROME_FLAGS:
            opts.add_argument(flag)
        self.profile = os.path.join(tmp, "chromium-profile")
        opts.add_argument(f"--user-data-dir={self.profile}")
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.service = Service(CHROMEDRIVER, log_path=os.path.join(tmp, "chromedriver.log"))
        self.driver = webdriver.Chrome(service=self.service, options=opts)
        self.driver.set_page_load_timeout(20)
        self.driver.set_script_timeout(10)
        # Exactly 1280x800 CSS pixels of viewport, whatever the window decorations.
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
        self.console = []

    def pids(self):
        proc = getattr(self.service, "process", None)
        return ([proc.pid] if proc else []) + (descendants(proc.pid) if proc else [])

    def drain_console(self):
        entries = self.driver.get_log("browser")
        self.console.extend(entries)
        return entries

    def full_screenshot(self, path):
        m = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
        size = m.get("cssContentSize") or m["contentSize"]
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def quit(self):
        pids = self.pids()
        t = threading.Thread(target=self.driver.quit, daemon=True)
        t.start()
        t.join(10)
        # driver.quit() ends Chromium; give its processes a moment, then kill by PID what is left.
        end = time.monotonic() + 3
        while time.monotonic() < end and any(alive(p) for p in pids):
            time.sleep(0.1)
        left = [p for p in pids if alive(p)]
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        log("Chromium stopped" + (f" (killed leftover pids {left})" if left else ""))


# ---------------------------------------------------------------- the test

CANVAS_PROBE = r"""
const canvas = document.getElementById('chart');
if (!canvas) return {error: 'no #chart canvas'};
const w = canvas.width, h = canvas.height;
if (!w || !h) return {error: 'canvas has no size', w, h};
const chart = window.Chart && window.Chart.getChart ? window.Chart.getChart(canvas) : null;
const img = canvas.getContext('2d').getImageData(0, 0, w, h).data;
const probe = document.createElement('canvas').getContext('2d');
probe.fillStyle = chart ? chart.data.datasets[0].backgroundColor : '#000000';
const hex = probe.fillStyle;  // normalised to #rrggbb
const br = parseInt(hex.slice(1, 3), 16), bg = parseInt(hex.slice(3, 5), 16), bb = parseInt(hex.slice(5, 7), 16);
let painted = 0, bar = 0;
for (let i = 0; i < img.length; i += 4) {
  if (img[i + 3] === 0) continue;
  painted++;
  if (img[i + 3] > 200 && Math.abs(img[i] - br) < 12 && Math.abs(img[i + 1] - bg) < 12 && Math.abs(img[i + 2] - bb) < 12) bar++;
}
const blank = document.createElement('canvas');
blank.width = w; blank.height = h;
return {w, h, painted, bar, barColor: hex, url: canvas.toDataURL().length, blankUrl: blank.toDataURL().length,
        total: chart ? chart.data.datasets[0].data.reduce((a, b) => a + b, 0) : null};
"""


def check_assets(page_base):
    """The page and its files are served with usable content types."""
    # What a browser sends for a page (GET / with Accept: application/json
    # is an Elasticsearch client's version probe).
    status, body, hdrs = http(page_base, "GET", "/", accept="text/html,application/xhtml+xml,*/*;q=0.8")
    if status != 200:
        hint = " (this logsift does not serve the dashboard yet; try --page-base dev)" if status == 404 else ""
        raise Fail(f"GET {page_base}/ answered {status}{hint}")
    if "text/html" not in hdrs.get("Content-Type", ""):
        raise Fail(f"GET / Content-Type is {hdrs.get('Content-Type')!r}, expected text/html")
    for ref in ("/ui/app.js", "/ui/app.css", "/ui/chart.js"):
        if ref not in body:
            raise Fail(f"GET / does not reference {ref}")
    for path, want, marker in (("/ui/app.js", "javascript", "logsift dashboard"),
                               ("/ui/app.css", "text/css", "--bg"),
                               ("/ui/chart.js", "javascript", "Chart")):
        status, body, hdrs = http(page_base, "GET", path)
        ctype = hdrs.get("Content-Type", "")
        if status != 200 or want not in ctype or marker not in body:
            raise Fail(f"GET {path}: status {status}, Content-Type {ctype!r}, {len(body)} chars: not the expected file")


def post_lines(base):
    status, res, _ = http(base, "POST", "/inferences", {"texts": REPEATED + OTHERS})
    if status != 200 or len(res.get("results", [])) != len(REPEATED) + len(OTHERS):
        raise Fail(f"POST /inferences: {status} {res}")
    results = res["results"]
    by_cluster = {}
    for r in results:
        by_cluster.setdefault(r["cluster_id"], []).append(r)
    if len(by_cluster) < 2:
        raise Fail(f"expected distinct clusters, got {sorted(by_cluster)}")
    cid, rs = max(by_cluster.items(), key=lambda kv: len(kv[1]))
    if len(rs) < 3:
        raise Fail(f"the repeated event did not cluster together: {by_cluster}")
    log(f"posted {len(results)} lines: {len(by_cluster)} clusters; main cluster {cid} "
        f"({len(rs)} lines) template {rs[0]['template']!r}")
    return cid, rs[0]["template"], len(rs), by_cluster


def make_dead_letter(base):
    url = f"http://127.0.0.1:{closed_port()}/hook"
    status, sub, _ = http(base, "POST", "/subscriptions", {"url": url, "rules": ["new_cluster"]})
    if status not in (200, 201):
        raise Fail(f"POST /subscriptions {url}: {status} {sub}")
    status, res, _ = http(base, "POST", "/inferences", {"texts": [NEW_LINE]})
    if status != 200:
        raise Fail(f"POST /inferences (new line): {status} {res}")
    new_cid = res["results"][0]["cluster_id"]

    def failed_alert():
        _, r, _ = http(base, "GET", "/alerts?status=failed&limit=50")
        return next((a for a in r.get("alerts", []) if a.get("alert", {}).get("cluster_id") == new_cid), None)

    alert = poll("the new_cluster alert to be dead-lettered (GET /alerts?status=failed)", failed_alert, 20)
    log(f"subscription {sub.get('id')} -> {url}; alert {alert['id']} dead-lettered "
        f"after {alert['attempts']} attempt(s): {alert.get('last_error')}")
    return sub, alert, new_cid


def run_browser(browser, page_base, base, main_cid, template, n_main, by_cluster, alert, artifacts):
    d = browser.driver
    d.get(page_base + "/")
    log(f"loaded {page_base}/ in Chromium")
    js = d.execute_script

    poll("the first refresh (header 'updated' time)", lambda: js("return document.getElementById('updated').textContent") != "—", 15)

    # The table shows the clusters just posted, with their templates.
    def row_text(cid):
        return js("const r = document.querySelector(`#clusters-body tr[data-cluster-id='${arguments[0]}'] .tpl-button`);"
                  "return r ? r.textContent : null;", cid)

    text = poll(f"cluster {main_cid} in the clusters table", lambda: row_text(main_cid), 15)
    norm = lambda s: " ".join(s.split())
    if norm(template) not in norm(text):
        raise Fail(f"row of {main_cid} shows {text!r}, expected the template {template!r}")
    for cid, rs in by_cluster.items():
        t = row_text(cid)
        if t is None or norm(rs[0]["template"]) not in norm(t):
            raise Fail(f"cluster {cid} ({rs[0]['template']!r}) missing from the table (row text {t!r})")
    log(f"table lists all {len(by_cluster)} posted clusters; {main_cid} shows {norm(text)!r}")

    # Click it: the detail panel and its chart.
    d.find_element("css selector", f"#clusters-body tr[data-cluster-id='{main_cid}'] .tpl-button").click()
    poll("the chart to be drawn (.chart-box[data-state=ready])",
         lambda: js("const b = document.getElementById('chart').parentElement;"
                    "return b.getAttribute('data-state') === 'ready';"), 15)
    shown_tpl = js("return document.getElementById('detail-template').textContent")
    if norm(shown_tpl) != norm(template):
        raise Fail(f"detail panel shows template {shown_tpl!r}, expected {template!r}")
    examples = js("return [...document.querySelectorAll('#detail-examples code')].map(e => e.textContent)")
    if not any(e in REPEATED for e in examples):
        raise Fail(f"detail panel examples {examples!r} contain none of the posted lines")
    px = js(CANVAS_PROBE)
    if px.get("error"):
        raise Fail(f"chart canvas: {px}")
    if px["bar"] < 20 or px["url"] <= px["blankUrl"] + 500:
        raise Fail(f"chart canvas looks empty: {px}")
    if px["total"] is None or px["total"] < n_main:
        raise Fail(f"chart data total {px['total']}, expected >= {n_main} lines: {px}")
    log(f"chart drawn: canvas {px['w']}x{px['h']}, {px['painted']} painted px, {px['bar']} bar px "
        f"({px['barColor']}), data total {px['total']}; {len(examples)} example lines")

    # Fixing clusters with real clicks: name (exported as a metric) and mute
    # the selected cluster, then merge another cluster into it; the API's
    # state says each click took effect.
    d.find_element("css selector", "#curate summary").click()
    name_box = d.find_element("css selector", "#curate-name")
    name_box.clear()
    name_box.send_keys("connections closed")
    d.find_element("css selector", "#curate-metric").click()
    d.find_element("css selector", "#curate-name-save").click()

    def cluster(cid):
        st, c, _ = http(base, "GET", f"/clusters/{cid}")
        return c if st == 200 else None

    poll("the name to be saved", lambda: (cluster(main_cid) or {}).get("name") == "connections closed"
         and cluster(main_cid).get("metric") is True, 10)
    d.find_element("css selector", "#curate-mute").click()
    poll("the mute to be saved", lambda: (cluster(main_cid) or {}).get("muted") is True, 10)
    poll("the table to show the name and the mute",
         lambda: js("const r = document.querySelector(`#clusters-body tr[data-cluster-id='${arguments[0]}']`);"
                    "return r && r.querySelector('.badge.muted') && r.querySelector('.badge.name') &&"
                    " r.querySelector('.badge.name').textContent === 'connections closed';", main_cid), 10)
    other = next(cid for cid in by_cluster if cid != main_cid)
    d.find_element("css selector", f"#clusters-body tr[data-cluster-id='{other}'] .tpl-button").click()
    poll(f"the detail of {other}", lambda: other in js("return document.getElementById('detail-heading').textContent"), 10)
    if not js("return document.getElementById('curate').open"):
        d.find_element("css selector", "#curate summary").click()
    into = d.find_element("css selector", "#curate-into")
    into.clear()
    into.send_keys(main_cid)
    d.find_element("css selector", "#curate-merge").click()
    poll(f"{other} to be merged into {main_cid}",
         lambda: http(base, "GET", "/curation")[1].get("merged", {}).get(other) == main_cid, 10)
    joined = poll(f"GET /clusters/{other} to answer with {main_cid}", lambda: cluster(other), 10)
    if joined.get("cluster_id") != main_cid:
        raise Fail(f"GET /clusters/{other} after the merge answers {joined.get('cluster_id')}, expected {main_cid}")
    poll(f"the table to mark {other} merged", lambda: js(
        "const r = document.querySelector(`#clusters-body tr[data-cluster-id='${arguments[0]}']`);"
        "return r && r.querySelector('.badge.merged');", other), 10)
    st, log_, _ = http(base, "GET", "/curation")
    kinds = [a.get("kind") for a in log_.get("actions", [])]
    if kinds != ["name", "mute", "merge"]:
        raise Fail(f"the curation log after three clicks holds {kinds}")
    log(f"fixing clusters: named and muted {main_cid}, merged {other} into it, by clicks; log {kinds}")

    # A suggested merge, accepted by a click: one statement whose templates
    # differ in the table's name.
    tables = ["orders", "customers", "invoices", "payments", "shipments", "refunds"]
    lines = [f"Replication of table {t} to the standby replica finished within the window" for t in tables]
    st, res, _ = http(base, "POST", "/inferences", {"texts": lines})
    if st != 200:
        raise Fail(f"POST /inferences (replication lines): {st} {res}")
    split = {r["cluster_id"] for r in res["results"]}
    if len(split) < 3:
        raise Fail(f"the replication lines made {len(split)} clusters: nothing to suggest")
    d.find_element("css selector", "#suggestions-load").click()
    sid = poll("a suggested merge of the replication statement", lambda: js(
        "for (const li of document.querySelectorAll('#suggestions-list > li[data-suggestion-id]'))"
        "  if (li.querySelector('pre').textContent.includes('Replication of table')) return li.getAttribute('data-suggestion-id');"
        "return null;"), 15)
    d.find_element("css selector", f"#suggestions-list li[data-suggestion-id='{sid}'] button[data-accept]").click()
    poll(f"suggestion {sid} accepted in the curation log", lambda: any(
        a.get("kind") == "accept" and a.get("suggestion") == sid for a in http(base, "GET", "/curation")[1].get("actions", [])), 10)
    st, res, _ = http(base, "POST", "/inferences", {"texts": lines})
    joined = {r["cluster_id"] for r in res["results"]}
    if len(joined) != 1:
        raise Fail(f"after accepting the suggestion the replication lines still get {len(joined)} ids: {joined}")
    poll("the accepted suggestion to leave the list", lambda: js(
        "return !document.querySelector(`#suggestions-list li[data-suggestion-id='${arguments[0]}']`);", sid), 10)
    log(f"suggestion {sid} accepted by a click: {len(split)} clusters of the replication statement are one")

    # "This word is a value", by clicking the word in a template.
    vac = [f"Vacuum of table {t} skipped because another vacuum holds its lock" for t in ["orders", "customers", "invoices"]]
    st, res, _ = http(base, "POST", "/inferences", {"texts": vac})
    if st != 200:
        raise Fail(f"POST /inferences (vacuum lines): {st} {res}")
    vac_ids = [r["cluster_id"] for r in res["results"]]
    if len(set(vac_ids)) < 2:
        raise Fail(f"the vacuum lines made {len(set(vac_ids))} cluster(s): no word to mark")
    poll(f"cluster {vac_ids[0]} in the table", lambda: row_text(vac_ids[0]), 15)
    d.find_element("css selector", f"#clusters-body tr[data-cluster-id='{vac_ids[0]}'] .tpl-button").click()
    poll(f"the words of {vac_ids[0]}'s template", lambda: js(
        "return [...document.querySelectorAll('#curate-words button[data-position]')].some(b => b.textContent === 'orders');"), 10)
    if not js("return document.getElementById('curate').open"):
        d.find_element("css selector", "#curate summary").click()
    d.find_element("xpath", "//span[@id='curate-words']/button[text()='orders']").click()
    poll("the value rule in the curation log", lambda: any(
        a.get("kind") == "value" for a in http(base, "GET", "/curation")[1].get("actions", [])), 10)
    st, res, _ = http(base, "POST", "/inferences", {"texts": vac + ["Vacuum of table coupons skipped because another vacuum holds its lock"]})
    joined = {r["cluster_id"] for r in res["results"]}
    if joined != {vac_ids[0]}:
        raise Fail(f"after marking the table a value the vacuum lines get {joined}, expected only {vac_ids[0]}")
    log(f"'orders' marked a value by a click: every vacuum line, and a table never seen, gets {vac_ids[0]}")

    # The dead-lettered alert and its Retry button.
    aid = alert["id"]
    sel = f"#failed-body tr[data-alert-id='{aid}'] button[data-retry]"
    poll(f"failed alert {aid} with a Retry button", lambda: d.find_elements("css selector", sel), 15)
    before = alert["updated_at"]
    d.find_element("css selector", sel).click()
    click_time = time.time()

    def requeued():
        for status in ("pending", "delivered", "failed"):
            _, r, _ = http(base, "GET", f"/alerts?status={status}&limit=100")
            a = next((x for x in r.get("alerts", []) if x["id"] == aid), None)
            if a and (status != "failed" or a["updated_at"] > before):
                return status, a
        return None

    status, a = poll(f"alert {aid} to be re-queued by the Retry button", requeued, 15)
    log(f"Retry clicked: the API now reports alert {aid} {status}, attempts {a['attempts']}, "
        f"updated_at {before} -> {a['updated_at']}")
    poll("the status line to confirm the retry",
         lambda: "re-queued" in js("return document.getElementById('status').textContent"), 5)

    # Let the page refresh once more after the retry, then screenshots.
    poll("a refresh after the retry",
         lambda: js("return Date.parse(document.getElementById('updated').getAttribute('datetime') || 0)") / 1000
         > click_time, 10)
    err = js("const s = document.getElementById('status'); return s.classList.contains('error') ? s.textContent : ''")
    if err:
        raise Fail(f"the page's status line shows an error: {err!r}")
    js("window.scrollTo(0, 0); document.querySelectorAll('.table-wrap').forEach(w => { w.scrollLeft = 0; });"
       "if (document.activeElement) document.activeElement.blur();")
    shot = os.path.join(artifacts, "dashboard.png")
    if not d.save_screenshot(shot):
        raise Fail(f"could not save {shot}")
    browser.full_screenshot(os.path.join(artifacts, "dashboard-full.png"))
    log(f"screenshots: {shot} (1280x800), {os.path.join(artifacts, 'dashboard-full.png')} (whole page)")

    browser.drain_console()
    bad = [e for e in browser.console if e.get("level") in ("SEVERE", "WARNING")]
    for e in browser.console:
        print(f"    console {e.get('level')} {e.get('source')}: {e.get('message')}")
    if bad:
        raise Fail(f"{len(bad)} SEVERE/WARNING browser console entries (listed above)")
    log(f"browser console: {len(browser.console)} entries, none SEVERE or WARNING")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.environ.get("LOGSIFT_BIN") or os.path.join(REPO, "build", "logsift"),
                    help="logsift binary (default: $LOGSIFT_BIN, else build/logsift)")
    ap.add_argument("--page-base", default=None,
                    help="load the page from here: 'dev' = tests/web/dev_server.py in-process; "
                         "a URL = a running page server; default = the logsift server itself")
    ap.add_argument("--time-limit", type=int, default=90, help="seconds for the whole test (default 90)")
    args = ap.parse_args()

    if not os.access(args.bin, os.X_OK):
        print(f"FAIL: logsift binary {args.bin!r} not found or not executable (set LOGSIFT_BIN)", file=sys.stderr)
        return 2
    missing = [p for p in (CHROMEDRIVER,) if not os.path.exists(p)]
    if not any(os.path.exists(b) for b in CHROMIUM_CANDIDATES):
        missing.append("chromium")
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("python3-selenium")
    if missing:
        print(f"SKIP: missing {', '.join(missing)} (apt-get install -y --no-install-recommends chromium "
              "chromium-driver python3-selenium)", file=sys.stderr)
        return 77

    tmp = tempfile.mkdtemp(prefix="logsift-web-test-")
    artifacts = os.environ.get("LOGSIFT_ARTIFACT_DIR") or tmp
    os.makedirs(artifacts, exist_ok=True)
    log(f"temp dir {tmp}; artifacts in {artifacts}")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(max(10, args.time_limit - 5))  # leave time for cleanup
    server = Logsift(args.bin, tmp)
    browser = None
    dev = None
    ok = False
    reason = ""
    try:
        server.start()
        base = server.base
        page_base = base
        if args.page_base == "dev":
            sys.path.insert(0, HERE)
            import dev_server
            dev = dev_server.start(base)
            page_base = f"http://127.0.0.1:{dev.server_port}"
            log(f"dev page server at {page_base} (service/web/* + Debian Chart.js, API -> {base})")
        elif args.page_base:
            page_base = args.page_base.rstrip("/")
            req = urllib.request.Request(page_base + "/__dev__/upstream", data=base.encode(), method="POST")
            try:
                with urllib.request.urlopen(req, timeout=5):
                    log(f"pointed dev server {page_base} at {base}")
            except (urllib.error.HTTPError, OSError):
                log(f"{page_base} is not dev_server.py: it must forward the API to {base} itself")

        check_assets(page_base)
        log(f"GET / and /ui/app.js, /ui/app.css, /ui/chart.js served by {page_base}")
        main_cid, template, n_main, by_cluster = post_lines(base)
        _, alert, _ = make_dead_letter(base)

        browser = Browser(tmp)
        log(f"Chromium started (chromedriver pid {browser.service.process.pid})")
        run_browser(browser, page_base, base, main_cid, template, n_main, by_cluster, alert, artifacts)
        ok = True
    except Fail as e:
        reason = str(e)
    except Exception as e:  # selenium errors and the like: still a clean, explained failure
        reason = f"{type(e).__name__}: {e}"
    finally:
        signal.alarm(0)
        if browser is not None:
            if not ok:
                try:
                    browser.driver.save_screenshot(os.path.join(artifacts, "dashboard-failure.png"))
                    browser.drain_console()
                    for e in browser.console:
                        print(f"    console {e.get('level')} {e.get('source')}: {e.get('message')}")
                except Exception:
                    pass
            browser.quit()
        if dev is not None:
            dev.shutdown()
            dev.server_close()
        server.stop()
        if not ok:
            tail = server.lines[-15:]
            if tail:
                print("logsift stderr (last lines):\n  " + "\n  ".join(tail))
            print(f"logs (logsift.stderr, chromedriver.log) kept in {tmp}")
        elif os.path.realpath(artifacts) != os.path.realpath(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
        else:  # the screenshots live here: keep them and the logs, drop the rest
            shutil.rmtree(os.path.join(tmp, "chromium-profile"), ignore_errors=True)
            shutil.rmtree(os.path.join(tmp, "data"), ignore_errors=True)
    log("PASS" if ok else f"FAIL: {reason}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
