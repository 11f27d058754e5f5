#!/usr/bin/python3
"""Tests for the harvested template set and its renderers.

    /usr/bin/python3 -m unittest discover -s models/training/harvest -p 'test_*.py'
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402
import printfmt  # noqa: E402
import devset  # noqa: E402
import render  # noqa: E402
import slots  # noqa: E402

TEMPLATES = os.path.join(HERE, "templates.jsonl")

# name fragments of the software reserved for validation (must never be a source)
EXCLUDED_NAMES = ("nginx", "postgresql", "libpq", "redis", "memcached", "mariadb", "mysql", "haproxy",
                  "prometheus", "alertmanager", "etcd", "caddy", "tomcat", "mosquitto", "squid", "dnsmasq",
                  "dpkg", "libapt", "cron")


def _records():
    with open(TEMPLATES, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _check_spans(tc: unittest.TestCase, line: str, spans):
    pos = 0
    for s, e, typ in spans:
        tc.assertGreaterEqual(s, pos, (line, spans))
        tc.assertGreater(e, s, (line, spans))
        tc.assertLessEqual(e, len(line))
        tc.assertIn(typ, slots.ALL_SLOTS, typ)
        tc.assertNotEqual(typ, "const_ident")
        pos = e
    tc.assertNotIn("\n", line)


class TemplateFileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.recs = _records()
        cls.tpls = render.load_templates(TEMPLATES)

    def test_size_and_breadth(self):
        self.assertGreater(len(self.recs), 20000)
        self.assertLess(os.path.getsize(TEMPLATES), 10 * 1024 * 1024)
        pkgs = {r["source"].partition(":")[0] for r in self.recs}
        self.assertGreater(len(pkgs), 150)

    def test_fields(self):
        for r in self.recs:
            for k in ("fmt", "raw", "source", "lang", "kind"):
                self.assertIn(k, r)
            self.assertIn(r["lang"], ("c", "go", "java", "python", "kernel", "js"))
            self.assertLessEqual(len(r["fmt"]), 300)
            self.assertRegex(common.constant_text(r["fmt"]), r"[A-Za-z]{2}", r["fmt"])
            for kv in r.get("kv", []):
                self.assertEqual(len(kv), 2)
                self.assertIn(kv[1], slots.ALL_SLOTS)

    def test_unique(self):
        keys = [(r["fmt"], tuple(k for k, _ in r.get("kv", []))) for r in self.recs]
        self.assertEqual(len(keys), len(set(keys)))

    def test_deterministic_order(self):
        keys = [(r["lang"], r["source"], r["fmt"]) for r in self.recs]
        self.assertEqual(keys, sorted(keys))

    def test_no_excluded_source(self):
        for r in self.recs:
            pkg, _, path = r["source"].partition(":")
            self.assertFalse(common.is_excluded_pkg(pkg), r["source"])
            self.assertFalse(common.is_excluded_path(path), r["source"])
            low = pkg.lower()
            for name in EXCLUDED_NAMES:
                self.assertNotIn(name, low, r["source"])
            self.assertFalse(low == "apt" or low.startswith("apt-"), r["source"])
            self.assertIsNone(common.EXCLUDED_TEXT_RE.search(r["raw"]), r["raw"])

    def test_every_template_renders(self):
        rng = random.Random(11)
        for t in self.tpls:
            for style in ("plain", render.pick_style(t, rng)):
                line, spans = render.render(t, rng, style)
                _check_spans(self, line, spans)

    def test_plain_spans_cover_exactly_the_slots(self):
        rng = random.Random(3)
        for t in self.tpls[::7]:
            if t.kv:
                continue
            line, spans = render.render(t, rng, "plain")
            rest, pos = [], 0
            for s, e, _ in spans:
                rest.append(line[pos:s])
                pos = e
            rest.append(line[pos:])
            expect = "".join(lit + (t.const if i < len(t.slots) and t.slots[i][0] == "const_ident" else "")
                             for i, lit in enumerate(t.literals))
            self.assertEqual("".join(rest), expect, t.fmt)
            self.assertEqual(len(spans), sum(1 for n, _ in t.slots if n != "const_ident"))
            # span types follow the template order
            self.assertEqual([s[2] for s in spans], [n for n, _ in t.slots if n != "const_ident"])


class RenderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tpls = render.load_templates(TEMPLATES)

    def test_determinism(self):
        a = list(render.generate(500, seed=5, templates=self.tpls))
        b = list(render.generate(500, seed=5, templates=self.tpls))
        c = list(render.generate(500, seed=6, templates=self.tpls))
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)

    def test_generate_mix_and_spans(self):
        styles = set()
        n_access = n_json = 0
        for line, spans, tid in render.generate(3000, seed=1, templates=self.tpls):
            _check_spans(self, line, spans)
            self.assertGreaterEqual(tid, 0)
            if tid >= len(self.tpls):
                n_access += 1
            if line.startswith('{"'):
                try:
                    json.loads(line)
                    n_json += 1
                except ValueError:  # a plain message that happens to start with {"
                    pass
            if re.match(r"^[IWEF]\d{4} ", line):
                styles.add("klog")
            if " msg=" in line or line.startswith(("ts=", "time=")):
                styles.add("logfmt")
        self.assertGreater(n_access, 50)
        self.assertGreater(n_json, 100)
        self.assertTrue({"klog", "logfmt"} <= styles, styles)

    def test_span_values_typed(self):
        checks = {"ipv4": r"\d+\.\d+\.\d+\.\d+", "int": r"-?\d+", "pid": r"\d+", "port": r"\d+",
                  "mac": r"[0-9a-fA-F:.-]+", "uuid": r"[0-9a-f-]{36}", "status": r"\d{3}"}
        for line, spans, _ in render.generate(3000, seed=2, templates=self.tpls):
            for s, e, typ in spans:
                if typ in checks:
                    self.assertRegex(line[s:e], "^" + checks[typ] + "$", (line, typ))

    def test_json_styles_valid(self):
        rng = random.Random(9)
        for t in self.tpls[::50]:
            line, spans = render.render(t, rng, "json")
            obj = json.loads(line)
            self.assertIsInstance(obj, dict)
            _check_spans(self, line, spans)
            line, spans = render.render(t, rng, "docker")
            json.loads(line)

    def test_literal_brace_escaping(self):
        t = render.compile_template(0, {"fmt": "got {{}} from {ipv4} in {{{int}}} map{{a:{word}}}", "lang": "go",
                                        "kind": "printf", "source": "x:y"})
        line, spans = render.render(t, random.Random(1), "plain")
        self.assertRegex(line, r"^got \{\} from \d+\.\d+\.\d+\.\d+ in \{\d+\} map\{a:[^{}]+\}$")
        self.assertEqual([s[2] for s in spans], ["ipv4", "int", "word"])
        s, e, _ = spans[1]
        self.assertEqual(line[s - 1], "{")
        self.assertEqual(line[e], "}")
        self.assertEqual(common.esc("a{b}c"), "a{{b}}c")
        with self.assertRaises(ValueError):
            render.compile_template(0, {"fmt": "bad {nosuchslot}", "source": "x:y"})
        with self.assertRaises(ValueError):
            render.compile_template(0, {"fmt": "bad { brace", "source": "x:y"})

    def test_const_ident_is_constant(self):
        t = render.compile_template(0, {"fmt": "{const_ident}: link up on {iface}", "lang": "c", "kind": "printf",
                                        "source": "pkg:/usr/sbin/foo"})
        prefixes = set()
        for seed in range(20):
            line, spans = render.render(t, random.Random(seed), "plain")
            self.assertEqual(len(spans), 1)
            prefixes.add(line.split(":")[0])
        self.assertEqual(len(prefixes), 1)

    def test_access_lines(self):
        for k in render.ACCESS_FORMATS:
            line, spans = render.render_access(k, random.Random(4))
            _check_spans(self, line, spans)
            if k == "json":
                json.loads(line)


class FormatParsingTest(unittest.TestCase):
    def t(self, raw, dialect, lang=None):
        return printfmt.to_template(raw, dialect, lang or dialect)

    def test_c(self):
        self.assertEqual(self.t("Failed password for invalid user %s from %s port %d ssh2", "c")[0],
                         "Failed password for invalid user {user} from {ipaddr} port {port} ssh2")
        self.assertEqual(self.t("%s: open(%s) failed: %m", "c")[0], "{const_ident}: open({path}) failed: {errmsg}")
        self.assertEqual(self.t("connect to %s:%d failed: %s", "c")[0],
                         "connect to {host}:{port} failed: {errmsg}")
        self.assertEqual(self.t("used %d%% of %lu", "c")[0], "used {int}% of {int}")
        self.assertEqual(self.t("value {%d}", "c")[0], "value {{{int}}}")
        self.assertIsNone(self.t("%s%s", "c"))

    def test_kernel(self):
        self.assertEqual(self.t("martian source %pI4 from %pI4, on dev %s", "kernel")[0],
                         "martian source {ipv4} from {ipv4}, on dev {iface}")
        self.assertEqual(self.t("addr %pM reg 0x%08x", "kernel")[0], "addr {mac} reg 0x{hex}")

    def test_go_python_brace(self):
        self.assertEqual(self.t("failed to dial %q: %v", "go")[0], 'failed to dial "{host}": {err_text}')
        self.assertEqual(self.t("Connection to %(host)s:%(port)d lost", "python")[0],
                         "Connection to {host}:{port} lost")
        self.assertEqual(self.t("{} bytes from {{}}", "brace", "java")[0], "{int} bytes from {{}}")

    def test_infer_names(self):
        self.assertEqual(common.infer_from_name("self.client_ip"), "ipaddr")
        self.assertEqual(common.infer_from_name("req.URL"), "url")
        self.assertEqual(common.infer_from_name("podName"), "pod")
        self.assertEqual(common.infer_from_name("err"), "err_text")


class SlotTest(unittest.TestCase):
    def test_new_slots_deterministic_single_line(self):
        for name, fn in slots.NEW_SLOTS.items():
            a = [fn(random.Random(7)) for _ in range(3)]
            self.assertEqual(len(set(a)), 1, name)
            rng = random.Random(1)
            for _ in range(200):
                v = fn(rng)
                self.assertTrue(v and "\n" not in v, name)


if __name__ == "__main__":
    unittest.main()


class DevsetTest(unittest.TestCase):
    """devset.py: the loghub-layout dev set that `logsift eval` reads."""

    def build(self, d):
        return devset.build(d, seed=5, n_templates=4, renders=3)

    def test_layout_labels_and_determinism(self):
        import csv
        import filecmp
        import tempfile
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            idx = self.build(a)
            self.build(b)
            self.assertEqual(sorted(idx), sorted("H-" + s for s in devset.STYLES + ("access",)))
            with open(os.path.join(a, "datasets.json")) as f:
                on_disk = json.load(f)
            self.assertEqual(on_disk, idx)
            for name, spec in idx.items():
                path = os.path.join(a, spec["truth"])
                self.assertTrue(filecmp.cmp(path, os.path.join(b, spec["truth"]), shallow=False), name)
                with open(path, newline="", encoding="utf-8") as f:
                    rows = list(csv.DictReader(f))
                want = len(render.ACCESS_FORMATS) * 30 if name == "H-access" else 4 * 3
                self.assertEqual(len(rows), want, name)
                events = {}
                for r in rows:
                    self.assertTrue(r["Content"], name)
                    # one template per event; in the bare-message set every
                    # line fits it (the other formats vary their header
                    # layout from line to line: the template is the first's)
                    events.setdefault(r["EventId"], set()).add(r["EventTemplate"])
                    if name == "H-plain":
                        parts = [re.escape(p) for p in r["EventTemplate"].split("<*>")]
                        self.assertRegex(r["Content"], "^" + "(?s:.*?)".join(parts) + "$")
                self.assertTrue(all(len(t) == 1 for t in events.values()), name)
