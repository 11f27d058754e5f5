"""Self-tests for synthlog, the synthetic log generator.

Run with:
    /usr/bin/python3 -m unittest discover -s models/training -p 'test_*.py'
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import random
import re
import subprocess
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthlog  # noqa: E402

SYNTHLOG = Path(__file__).resolve().parent / "synthlog.py"
# Enough lines to hit every template many times (uniform over ~700 templates).
N_LINES = 20000


def _sample(seed: int, n: int = N_LINES, dist: str = "uniform") -> list:
    return list(synthlog.Generator(seed, distribution=dist).sample(n))


class TemplateSetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.gen = synthlog.Generator(0)

    def test_template_count(self) -> None:
        self.assertGreaterEqual(len(self.gen.templates), 300)

    def test_ids_are_indices_and_texts_unique(self) -> None:
        texts = [synthlog.template_text(t) for t in self.gen.templates]
        self.assertEqual([t.id for t in self.gen.templates], list(range(len(texts))))
        self.assertEqual(len(set(texts)), len(texts))

    def test_template_set_is_stable_across_generator_seeds(self) -> None:
        other = synthlog.Generator(12345)
        self.assertEqual([t.fmt for t in other.templates], [t.fmt for t in self.gen.templates])

    def test_every_slot_type_is_used(self) -> None:
        used = {s for t in self.gen.templates for s in t.slot_types}
        self.assertEqual(set(synthlog.SLOT_TYPES) - used, set())

    def test_many_styles(self) -> None:
        cats = {t.category for t in self.gen.templates}
        for c in ("java", "go", "python", "cpp", "http_access", "http_error", "kv", "json", "k8s",
                  "docker", "sql", "kernel", "syslog", "auth", "batch", "cache", "queue", "db"):
            self.assertIn(c, cats)

    def test_templates_are_single_line(self) -> None:
        for t in self.gen.templates:
            self.assertNotIn("\n", t.fmt)
            self.assertNotIn("\r", t.fmt)

    def test_hard_negative_families(self) -> None:
        families: dict[str, list[str]] = {}
        for t in self.gen.templates:
            if t.family:
                families.setdefault(t.family, []).append(synthlog.template_text(t))
        self.assertGreaterEqual(len(families), 30)
        for fam, texts in families.items():
            self.assertGreaterEqual(len(texts), 2, fam)
            # Variants share their slots and differ only in a few words.
            a_words, b_words = texts[0].split(), texts[1].split()
            self.assertEqual(texts[0].count("<*>"), texts[1].count("<*>"), fam)
            diff = sum(1 for w in a_words if w not in b_words) + sum(1 for w in b_words if w not in a_words)
            self.assertLessEqual(diff, 6, (fam, texts[:2]))
        texts = [synthlog.template_text(t) for t in self.gen.templates]
        self.assertTrue(any(x.endswith("Failed password for <*> from <*> port <*> ssh2") for x in texts))
        self.assertTrue(any(x.endswith("Failed password for invalid user <*> from <*> port <*> ssh2") for x in texts))

    def test_bad_templates_are_rejected(self) -> None:
        with self.assertRaises(ValueError):
            synthlog.compile_template(0, "x", "unknown {ipv4port}")
        with self.assertRaises(ValueError):
            synthlog.compile_template(0, "x", "adjacent {int}{int}")
        with self.assertRaises(ValueError):
            synthlog.compile_template(0, "x", "argument {uuid:3}")
        with self.assertRaises(ValueError):
            synthlog.compile_template(0, "x", "two\nlines {int}")
        t = synthlog.compile_template(0, "x", '{"a":{int},"b":{hex:4}} {localValue:{int}}')
        self.assertEqual(t.slot_types, ("int", "hex", "int"))
        self.assertEqual(synthlog.template_text(t), '{"a":<*>,"b":<*>} {localValue:<*>}')


class DeterminismTest(unittest.TestCase):
    def test_same_seed_same_output(self) -> None:
        self.assertEqual(_sample(7, 3000), _sample(7, 3000))
        self.assertEqual(_sample(7, 3000, "zipf"), _sample(7, 3000, "zipf"))

    def test_different_seed_different_output(self) -> None:
        self.assertNotEqual(_sample(7, 500), _sample(8, 500))

    def test_prefix_stable(self) -> None:
        self.assertEqual(_sample(3, 100), _sample(3, 1000)[:100])

    def test_render_uses_only_given_rng(self) -> None:
        t = synthlog.Generator(0).templates[0]
        self.assertEqual(synthlog.render(t, random.Random(5)), synthlog.render(t, random.Random(5)))

    def test_cli_byte_identical_across_hash_seeds(self) -> None:
        digests = []
        for hash_seed in ("1", "2"):
            env = dict(os.environ, PYTHONHASHSEED=hash_seed)
            for fmt in ("lines", "jsonl"):
                out = subprocess.run([sys.executable, str(SYNTHLOG), "--n", "2000", "--seed", "11", "--format", fmt],
                                     check=True, capture_output=True, env=env).stdout
                digests.append((fmt, hashlib.sha256(out).hexdigest()))
        self.assertEqual(digests[0:2], digests[2:4])


class RenderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.gen = synthlog.Generator(99)
        cls.records = _sample(99)

    def test_lines_single_line_and_utf8(self) -> None:
        saw_non_ascii = False
        for _, line, _ in self.records:
            self.assertNotIn("\n", line)
            self.assertNotIn("\r", line)
            line.encode("utf-8")  # raises on lone surrogates
            saw_non_ascii = saw_non_ascii or not line.isascii()
        self.assertTrue(saw_non_ascii)

    def test_spans_point_at_values_and_do_not_overlap(self) -> None:
        for tid, line, spans in self.records:
            t = self.gen.template(tid)
            self.assertEqual(tuple(s[2] for s in spans), t.slot_types)
            prev_end = 0
            for start, end, typ in spans:
                self.assertIn(typ, synthlog.SLOT_TYPES)
                self.assertLess(start, end, (line, typ))  # values are never empty
                self.assertGreaterEqual(start, prev_end, line)
                self.assertLessEqual(end, len(line))
                self.assertEqual(line[start:end].strip(), line[start:end], (line, typ))
                prev_end = end

    def test_template_text_round_trip(self) -> None:
        for tid, line, spans in self.records:
            parts, pos = [], 0
            for start, end, _ in spans:
                parts.append(line[pos:start])
                parts.append("<*>")
                pos = end
            parts.append(line[pos:])
            self.assertEqual("".join(parts), synthlog.template_text(self.gen.template(tid)))

    def test_all_templates_sampled(self) -> None:
        self.assertEqual({tid for tid, _, _ in self.records}, {t.id for t in self.gen.templates})

    def test_json_templates_render_valid_json(self) -> None:
        for tid, line, _ in self.records:
            if self.gen.template(tid).category == "json":
                json.loads(line)

    def test_slot_value_shapes(self) -> None:
        checks = {
            "uuid": re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"),
            "hex0x": re.compile(r"^0x[0-9a-fA-F]+$"),
            "md5": re.compile(r"^[0-9a-f]{32}$"),
            "sha1": re.compile(r"^[0-9a-f]{40}$"),
            "sha256": re.compile(r"^[0-9a-f]{64}$"),
            "mac": re.compile(r"^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$"),
            "blk": re.compile(r"^blk_-?\d+(_\d+)?$"),
            "jwt": re.compile(r"^eyJ[\w-]+\.[\w-]+\.[\w-]+$"),
            "int": re.compile(r"^\d+$"),
            "neg": re.compile(r"^-\d+(\.\d+)?$"),
            "port": re.compile(r"^\d{1,5}$"),
            "epoch": re.compile(r"^\d{10}(\.\d+)?$"),
            "epoch_ms": re.compile(r"^\d{13}$"),
            "quoted": re.compile(r'^"[^"]+"$'),
            "pod": re.compile(r"^[a-z0-9-]+$"),
        }
        rng = random.Random(1)
        for _ in range(300):
            for name, rx in checks.items():
                v = synthlog.SLOTS[name](rng)
                self.assertRegex(v, rx, name)
            ipaddress.IPv4Address(synthlog.slot_ipv4(rng))
            ipaddress.IPv6Address(synthlog.slot_ipv6(rng))
            host, _, port = synthlog.slot_ipv6_port(rng).rpartition(":")
            ipaddress.IPv6Address(host.strip("[]"))
            self.assertTrue(0 < int(port) < 65536)
            ip, _, port = synthlog.slot_ipv4_port(rng).rpartition(":")
            ipaddress.IPv4Address(ip)
            self.assertEqual(synthlog.slot_hex(rng, 12).__len__(), 12)
            self.assertEqual(len(synthlog.slot_int(rng, 3)), 3)
        for name, fn in synthlog.SLOTS.items():
            for _ in range(200):
                v = fn(rng)
                self.assertTrue(v, name)
                self.assertNotIn("\n", v, name)


class CliTest(unittest.TestCase):
    def test_jsonl_records(self) -> None:
        out = subprocess.run([sys.executable, str(SYNTHLOG), "--n", "300", "--seed", "5", "--format", "jsonl"],
                             check=True, capture_output=True).stdout.decode("utf-8")
        lines = out.splitlines()
        self.assertEqual(len(lines), 300)
        gen = synthlog.Generator(5)
        for raw, (tid, line, spans) in zip(lines, gen.sample(300)):
            rec = json.loads(raw)
            self.assertEqual(list(rec), ["template_id", "template", "line", "spans"])
            self.assertEqual(rec["template_id"], tid)
            self.assertEqual(rec["line"], line)
            self.assertEqual(rec["template"], synthlog.template_text(gen.template(tid)))
            self.assertEqual(rec["spans"], [list(s) for s in spans])
            # Hand-assembled JSON must be byte-identical to the json module's output.
            self.assertEqual(raw, json.dumps(rec, ensure_ascii=False, separators=(",", ":")))

    def test_lines_match_library(self) -> None:
        out = subprocess.run([sys.executable, str(SYNTHLOG), "--n", "200", "--seed", "6"],
                             check=True, capture_output=True).stdout.decode("utf-8")
        self.assertEqual(out.split("\n")[:-1], [line for _, line, _ in synthlog.Generator(6).sample(200)])
        self.assertTrue(out.endswith("\n"))


if __name__ == "__main__":
    unittest.main()
