"""Tests of the denoiser's training code (unittest; pytest also collects them).

    /usr/bin/python3 -m unittest discover -s models/training/denoiser -p 'test_*.py'

The last test is the training smoke test: ``train.py --tiny`` for a few steps
on 1% of the data, export, reload, check the contract.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import labels as lb  # noqa: E402
import loghub  # noqa: E402  (labels put models/training on the path)
import model as md  # noqa: E402
import tokens as tk  # noqa: E402


def toks(line):
    """The *reference* tokenizer (the spec); the default backend may be the
    serving binary (tokens.py picks `logsift tokenize` when it is built)."""
    b = line.encode()
    return [(b[s:e].decode(), k) for s, e, k in tk._tokenize_bytes_ref(b)]


class TokenizerTest(unittest.TestCase):
    def test_covers_line_in_order(self):
        line = "Failed password for root from 112.95.230.3 port 46577 ssh2 — done."
        b = line.encode()
        t = tk._tokenize_bytes_ref(b)
        self.assertEqual(t[0][0], 0)
        self.assertEqual(t[-1][1], len(b))
        for (s1, e1, _), (s2, _, _) in zip(t, t[1:]):
            self.assertEqual(e1, s2)

    def test_premask_and_split(self):
        self.assertEqual(toks("port 46577 ssh2"),
                         [("port", "word"), (" ", "delim"), ("46577", "var"), (" ", "delim"), ("ssh2", "word")])
        self.assertEqual(toks("to /10.250.6.191:"),
                         [("to", "word"), (" ", "delim"), ("/", "word"), ("10.250.6.191", "var"), (":", "delim")])
        self.assertEqual(toks("ok done."), [("ok", "word"), (" ", "delim"), ("done", "word"), (".", "delim")])
        self.assertEqual(toks("blk_-123"), [("blk_", "word"), ("-123", "var")])
        # the boundary rule: no match glued to a letter/digit
        self.assertEqual(toks("v1.2"), [("v1", "word"), (".", "delim"), ("2", "var")])
        self.assertEqual(toks("ssh2"), [("ssh2", "word")])

    def test_patterns(self):
        for s in ["e3b0c442-98fc-1c14-9afb-f4c8996fb924", "10.1.2.3:8080", "00:1a:2b:3c:4d:5e",
                  "0x1b85fe80", "deadbeef01", "-12.5", "2015-10-18 18:01:47,978", "18:01:47",
                  "http://x.org/a?b=1", "a.b@example.com", "/var/log/app.log", "fe80::1",
                  "0:0:0:0:0:0:0:2181", "Dec 10 06:55:46", "2005-06-03-15.42.50.675872"]:
            self.assertEqual(toks(s), [(s, "var")], s)
        for s in ["deadbeef", "std", "abc123xyz", "/single"]:
            self.assertNotIn("var", [k for _, k in toks(s)], s)

    def test_byte_offsets_utf8(self):
        t = tk._tokenize_bytes_ref("é 12".encode())
        self.assertEqual(t, [(0, 2, "word"), (2, 3, "delim"), (3, 5, "var")])


class AlignTest(unittest.TestCase):
    def var_text(self, content, tpl):
        method, mask = lb.align(content.encode(), tpl.encode())
        if mask is None:
            return method, None
        b = content.encode()
        return method, "".join(chr(c) if m else "_" for c, m in zip(b, mask))

    def test_exact(self):
        m, v = self.var_text("Invalid user admin from 1.2.3.4", "Invalid user <*> from <*>")
        self.assertEqual(m, "exact")
        self.assertEqual(v.replace("_", ""), "admin1.2.3.4")

    def test_multi_token_and_partial(self):
        _, v = self.var_text("took 12 ms total", "took <*> total")
        self.assertEqual(v.replace("_", ""), "12 ms")
        _, v = self.var_text("generating core.8280", "generating core.<*>")
        self.assertEqual(v.replace("_", ""), "8280")
        _, v = self.var_text("x", "<*>x<*>")  # zero-width wildcards
        self.assertEqual(v, "_")

    def test_whitespace_and_dp(self):
        m, v = self.var_text("rhost=1.2.3.4  user=root", "rhost=<*> user=<*>")
        self.assertIn(m, ("exact", "ws"))
        self.assertTrue(v.endswith("root"))
        m, _ = self.var_text("We  launched 1 speculations.", "We launched <*> speculations.")
        self.assertEqual(m, "ws")
        m, v = self.var_text("Failed pasword for root from x", "Failed password for <*> from <*>")
        self.assertEqual(m, "dp")
        self.assertEqual(v.replace("_", ""), "rootx")
        m, v = self.var_text("something else entirely", "Failed password for <*> from <*>")
        self.assertEqual((m, v), ("fail", None))

    def test_token_label_rule(self):
        tk_backend = tk._backend
        tk.set_backend(tk._tokenize_bytes_ref)
        self.addCleanup(tk.set_backend, tk_backend)
        line = lb.label_line("t", b"port11 ok core.8280", bytearray(b"\0\0\0\0\1\1\0\0\0\0\0\0\0\0\0\1\1\1\1"), "g")
        words = [(line.text[s:e], y) for (s, e, k), y in zip(line.toks, line.labels) if k == "word"]
        self.assertEqual(words, [(b"port11", 1), (b"ok", 0), (b"core", 0)])

    @unittest.skipUnless(loghub.have_loghub(), loghub.missing_loghub())
    def test_loghub_aligns(self):
        st = lb._new_stats()
        lines = lb.load_loghub("OpenSSH", stats=st)
        self.assertEqual(len(lines), 2000)
        self.assertEqual(st["align_fail"], 0)

    def test_repository_sets_align(self):
        """The labelled sets the repository holds (what the smoke tests train on) align line by line."""
        for name in loghub.training_sets(loghub.REPO_SETS):
            st = lb._new_stats()
            lines = lb.load_loghub(name, root=loghub.REPO_SETS, stats=st)
            self.assertGreater(len(lines), 1000, name)
            self.assertLessEqual(st["align_fail"], len(lines) // 100, name)


class EncodeTest(unittest.TestCase):
    def test_token_truncation(self):
        ids = md.encode_token(bytes(range(65, 65 + 40)))
        self.assertEqual(len(ids), 32)
        self.assertEqual(ids[:24], [c + 1 for c in range(65, 65 + 24)])
        self.assertEqual(ids[24:], [c + 1 for c in range(65 + 32, 65 + 40)])
        self.assertEqual(md.encode_token(b"ab"), [98, 99] + [0] * 30)

    def test_rows(self):
        b = b"user=root port 22 ssh2"
        t = tk._tokenize_bytes_ref(b)
        words, rows = md.encode_line(b, t, "span")
        self.assertEqual([b[t[w][0]:t[w][1]] for w in words], [b"user", b"root", b"port", b"ssh2"])
        dec = lambda r: bytes(c - 1 for c in r if 0 < c < 257)
        self.assertEqual(dec(rows[1][0]), b"user=")
        self.assertEqual(dec(rows[1][2]), b" port")
        self.assertEqual(rows[3][0][:7], [ord(c) + 1 for c in "port "] + [md.VAR_ID, ord(" ") + 1])
        self.assertEqual(rows[0][0], [0] * 32)
        words, rows = md.encode_line(b, t, "word")
        self.assertEqual(dec(rows[1][0]), b"user")
        self.assertTrue(md.is_scored(b"x") and not md.is_scored(b"/") and md.is_scored("é".encode()))
        t = tk._tokenize_bytes_ref(b"to /10.1.2.3 a / b")
        self.assertEqual([md.unscored_is_variable(t, i) for i, x in enumerate(t) if x[2] == "word"
                          and not md.is_scored(b"to /10.1.2.3 a / b"[x[0]:x[1]])], [True, False])


class ModelTest(unittest.TestCase):
    def test_scripted_matches_eager(self):
        import torch

        torch.manual_seed(0)
        m = md.Denoiser().eval()
        x = torch.randint(0, md.VOCAB, (7, 3, md.MAX_LEN))
        sm = torch.jit.script(m)
        with torch.no_grad():
            a, b = m(x), sm(x)
        self.assertEqual(tuple(a.shape), (7,))
        self.assertLessEqual(float((a - b).abs().max()), 1e-6)
        self.assertEqual(sm.version, md.VERSION)

    def test_train_smoke(self):
        import torch

        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "tiny.pt")
            r = subprocess.run([sys.executable, os.path.join(HERE, "train.py"), "--tiny", "--no-bench",
                                "--data", loghub.REPO_SETS, "--out", out], capture_output=True, text=True,
                               timeout=600)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            m = torch.jit.load(out)
            self.assertEqual(m.version, md.VERSION)
            p = m(torch.zeros(2, 3, md.MAX_LEN, dtype=torch.long))
            self.assertEqual(tuple(p.shape), (2,))
            self.assertTrue(bool(((p >= 0) & (p <= 1)).all()))


class HarvestLinesTest(unittest.TestCase):
    """Rendered harvest lines (harvest/render.py) labelled by their spans."""

    @unittest.skipUnless(lb.harvest_available(), "harvest/templates.jsonl missing")
    def test_labels_follow_spans(self):
        ls = lb.load_harvest(60, 5)
        self.assertEqual(len(ls), 60)
        self.assertEqual(ls[0].source, "harvest")
        self.assertTrue(all(ln.group.startswith("hv:") for ln in ls))
        n_var = 0
        for ln in ls:
            self.assertEqual(len(ln.labels), len(ln.toks))
            for (s, e, k), lab in zip(ln.toks, ln.labels):
                if k != "word":
                    self.assertEqual(lab, -1)
                    continue
                self.assertEqual(lab, lb.token_label(ln.varmask, ln.text, s, e)[0])
                n_var += lab
        self.assertGreater(n_var, 0)
        # deterministic in (n, seed)
        self.assertEqual([ln.text for ln in lb.load_harvest(60, 5)], [ln.text for ln in ls])

    @unittest.skipUnless(lb.harvest_available(), "harvest/templates.jsonl missing")
    def test_train_smoke_with_harvest(self):
        import torch

        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "tiny.pt")
            r = subprocess.run([sys.executable, os.path.join(HERE, "train.py"), "--tiny", "--no-bench",
                                "--harvest-lines", "200", "--version", "denoiser-test",
                                "--data", loghub.REPO_SETS, "--out", out], capture_output=True, text=True, timeout=600)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            self.assertIn("harvest=200", r.stdout)
            m = torch.jit.load(out)
            self.assertEqual(m.version, "denoiser-test")
            p = m(torch.zeros(2, 3, md.MAX_LEN, dtype=torch.long))
            self.assertEqual(tuple(p.shape), (2,))


class RealExtraTest(unittest.TestCase):
    """--real-extra DIR: another labelled set's lines as real training lines."""

    SETS = {"Mailer": [("connect from mx1.example.org[10.0.0.1]", "connect from <*>[<*>]"),
                       ("connect from relay.example.net[10.0.0.2]", "connect from <*>[<*>]"),
                       ("user mateo logged out", "user <*> logged out")],
            "Broker": [("queue orders declared by kenji", "queue <*> declared by <*>")]}

    def args(self, **kw):
        import types
        a = dict(real_extra="", real_extra_systems="", real_extra_share=0.0, tiny=False, count_power=0.25,
                 real_frac=0.5, harvest_frac=0.25)
        a.update(kw)
        return types.SimpleNamespace(**a)

    def test_loads_each_system_as_a_real_source(self):
        import train as tr

        with tempfile.TemporaryDirectory() as d:
            loghub.write_labelled_set(d, self.SETS)
            src = tr.load_real_extra(self.args(real_extra=d))
            self.assertEqual(sorted(src), ["real:Broker", "real:Mailer"])
            self.assertTrue(all(tr.is_real_source(k) for k in src))
            self.assertFalse(tr.is_real_source("synthetic"))
            mateo = src["real:Mailer"][2]
            labels = {mateo.text[s:e].decode(): lab for (s, e, k), lab in zip(mateo.toks, mateo.labels) if k == "word"}
            self.assertEqual(labels, {"user": 0, "mateo": 1, "logged": 0, "out": 0})
            only = tr.load_real_extra(self.args(real_extra=d, real_extra_systems="Broker"))
            self.assertEqual(list(only), ["real:Broker"])
            with self.assertRaises(SystemExit) as e:
                tr.load_real_extra(self.args(real_extra=d, real_extra_systems="Broker,Nope"))
            self.assertIn("Nope", str(e.exception))
            self.assertEqual(tr.load_real_extra(self.args()), {})

    def test_share_splits_the_real_weight(self):
        import numpy as np
        import train as tr

        src = np.array([tr.SRC_REAL, tr.SRC_REAL, tr.SRC_REAL_EXTRA, tr.SRC_SYNTHETIC, tr.SRC_SYNTHETIC])
        cnt = np.ones(len(src), dtype=np.int64)
        quiet = lambda m: None  # noqa: E731
        w = tr.sampling_weights(self.args(real_extra_share=0.2), src, cnt, quiet)
        self.assertAlmostEqual(w[:2].sum(), 0.4)
        self.assertAlmostEqual(w[2], 0.1)
        self.assertAlmostEqual(w[3:].sum(), 0.5)
        # share 0: the extra examples join loghub's pool, as in the v2 recipe
        w0 = tr.sampling_weights(self.args(), src, cnt, quiet)
        self.assertAlmostEqual(w0[:3].sum(), 0.5)
        self.assertAlmostEqual(w0[0], w0[2])
        v2 = tr.sampling_weights(self.args(), np.array([1, 1, 1, 0, 0]), cnt, quiet)
        self.assertTrue(np.allclose(w0, v2))

    def test_train_smoke_with_real_extra(self):
        with tempfile.TemporaryDirectory() as d:
            loghub.write_labelled_set(d, self.SETS)
            out = os.path.join(d, "tiny.pt")
            r = subprocess.run([sys.executable, os.path.join(HERE, "train.py"), "--tiny", "--no-bench",
                                "--data", loghub.REPO_SETS, "--real-extra", d, "--real-extra-share", "0.2",
                                "--out", out],
                               capture_output=True, text=True, timeout=600)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
            self.assertIn("real:Mailer=", r.stdout)
            self.assertIn("sampling weight: loghub 0.40", r.stdout)
            self.assertTrue(os.path.exists(out))


class StageMetricTest(unittest.TestCase):
    """evaluate_set's counts on two hand-labelled lines, with constant-output models."""

    class Const:
        def __init__(self, p):
            self.p = p

        def eval(self):
            return self

        def __call__(self, x):
            import torch
            return torch.full((x.shape[0],), self.p)

    def lines(self):
        def line(text, tpl, group):
            b = text.encode()
            _, mask = lb.align(b, tpl.encode())
            return lb.label_line("t", b, mask, group)
        return [line("Invalid user admin from 10.1.2.3", "Invalid user <*> from <*>", "E1"),
                line("Connection closed by 10.1.2.3", "Connection closed by <*>", "E2")]

    def test_counts(self):
        import train as tr
        ls = self.lines()
        premasked = sum(1 for ln in ls for t in ln.toks if t[2] == "var")
        words = sum(1 for ln in ls for lab in ln.labels if lab >= 0)
        self.assertEqual(premasked, 2)  # the two IPv4 addresses
        # model says "constant" everywhere: the word `admin` is missed, the pre-mask's spans are right
        r = tr.evaluate_set(self.Const(0.0), ls, md.CONTEXT)
        self.assertEqual((r["tp"], r["fp"], r["fn"]), (0, 0, 1))
        self.assertEqual((r["premask_tp"], r["premask_fp"]), (2, 0))
        self.assertAlmostEqual(r["precision_stage"], 1.0)
        self.assertAlmostEqual(r["recall_stage"], 2 / 3)
        self.assertAlmostEqual(r["f1_stage"], 0.8)
        # model says "variable" everywhere: every constant word is a false positive
        r = tr.evaluate_set(self.Const(1.0), ls, md.CONTEXT)
        self.assertEqual((r["tp"], r["fn"]), (1, 0))
        self.assertEqual(r["fp"], words - 1)
        self.assertAlmostEqual(r["precision_stage"], 3 / (3 + words - 1))
        self.assertAlmostEqual(r["recall_stage"], 1.0)


if __name__ == "__main__":
    unittest.main()
