#!/usr/bin/python3
"""Invariants of the committed events sets (models/events/dev and models/events/test), and of holdout and final sets.

    /usr/bin/python3 -m unittest discover -s models/events -p 'test_events_set.py' -v
    /usr/bin/python3 models/events/test_events_set.py
    /usr/bin/python3 models/events/test_events_set.py --holdout /tmp/events-holdout
    /usr/bin/python3 models/events/test_events_set.py --final /tmp/events-final
    /usr/bin/python3 models/events/test_events_set.py --holdout /tmp/events-holdout --final /tmp/events-final
    LOGSIFT_EVENTS_HOLDOUT=/tmp/events-holdout /usr/bin/python3 -m unittest discover -s models/events -p 'test_events_set.py'

Reads the committed files only (no runtime, no build needed): every row has the five columns and
matches its .log line, each Event is one contiguous run of lines with one EventId and template,
EventId <-> EventTemplate is 1:1 in every System (logsift eval keys groups by the template), the first
line of every multi-line event is a head line (not empty, not indented, not "at ..."), dev and test
fault labels are disjoint, Mixed holds every runtime event whole, and the count and fault tables in
README.md are those of the files. With a holdout set (generate.py --faults holdout, not committed; its
directory by --holdout DIR or LOGSIFT_EVENTS_HOLDOUT), every check runs on it too, and its fault labels
are H codes only, disjoint from every dev and test label. A final set (generate.py --faults final, not
committed either; --final DIR or LOGSIFT_EVENTS_FINAL) is checked the same way: K codes only, its labels and
fault templates disjoint from every dev, test and holdout one (holdout ones from README.md's holdout table
when no holdout set is given).
"""

from __future__ import annotations

import csv
import json
import os
import re
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMITTED = ("dev", "test")
# The holdout and final sets' directories (--holdout / --final, or the variables): the committed ones
# by default.
HOLDOUT = os.environ.get("LOGSIFT_EVENTS_HOLDOUT", str(HERE / "holdout") if (HERE / "holdout").is_dir() else "")
FINAL = os.environ.get("LOGSIFT_EVENTS_FINAL", str(HERE / "final") if (HERE / "final").is_dir() else "")
SETS = COMMITTED + (("holdout",) if HOLDOUT else ()) + (("final",) if FINAL else ())
PREFIX = {"dev": "F", "test": "T", "holdout": "H", "final": "K"}
RUNTIME_SYSTEMS = ("JavaOrders", "PythonBilling", "NodeGateway", "GoCache", "RubyJobs")
COLUMNS = ["LineId", "Content", "EventId", "EventTemplate", "Event"]
MAX_BYTES = 5 * 1024 * 1024

csv.field_size_limit(1 << 30)

_cache: dict = {}


def base_of(set_name: str) -> Path:
    return {"holdout": Path(HOLDOUT), "final": Path(FINAL)}.get(set_name, HERE / set_name)


def load(set_name: str) -> dict:
    """{system: {"rows": [...], "raw": [...], "events": [(event, [rows])]}}"""
    if set_name in _cache:
        return _cache[set_name]
    base = base_of(set_name)
    with open(base / "datasets.json", encoding="utf-8") as f:
        index = json.load(f)
    out = {}
    for name, spec in index.items():
        with open(base / spec["truth"], newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader)
            records = list(reader)
        with open(base / spec["log"], encoding="utf-8", newline="") as f:
            raw = f.read().split("\n")
        events: list = []
        for rec in records:
            if len(rec) == len(header):
                row = dict(zip(header, rec))
                if events and events[-1][0] == row["Event"]:
                    events[-1][1].append(row)
                else:
                    events.append((row["Event"], [row]))
        out[name] = {"header": header, "records": records, "raw": raw, "events": events, "spec": spec}
    _cache[set_name] = out
    return out


def counts(events: list) -> dict:
    multi = [len(rows) for _, rows in events if len(rows) > 1]
    return {
        "events": len(events),
        "lines": sum(len(rows) for _, rows in events),
        "multiline_events": len(multi),
        "trace_lines": sum(multi),
        "continuation_lines": sum(multi) - len(multi),
        "single_lines": sum(1 for _, rows in events if len(rows) == 1),
        "labels": len({rows[0]["EventId"] for _, rows in events}),
    }


def readme_section(key: str) -> str:
    text = (HERE / "README.md").read_text(encoding="utf-8")
    b, e = "<!-- BEGIN %s -->" % key, "<!-- END %s -->" % key
    if b not in text or e not in text:
        raise AssertionError("README.md has no %r section" % key)
    return text.split(b, 1)[1].split(e, 1)[0]


def table_rows(section: str) -> list:
    rows = []
    for line in section.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            rows.append(cells)
    return rows[1:]  # without the header row


def fault_labels(set_name: str) -> set:
    data = load(set_name)
    return {rows[0]["EventId"] for name in RUNTIME_SYSTEMS for _, rows in data[name]["events"] if len(rows) > 1}


def fault_templates(set_name: str) -> set:
    data = load(set_name)
    return {rows[0]["EventTemplate"] for name in RUNTIME_SYSTEMS for _, rows in data[name]["events"] if len(rows) > 1}


def readme_faults(set_name: str) -> tuple:
    """(labels, templates) of README.md's fault table of a set: for a set whose files are not here."""
    rows = table_rows(readme_section("faults " + set_name))
    labels = {r[0].strip("`") for r in rows}
    templates = {r[2][2:-2].replace("\\|", "|") for r in rows}
    return labels, templates


class EventsSetTest(unittest.TestCase):
    def test_layout_and_sizes(self):
        for s in SETS:
            data = load(s)
            self.assertEqual(sorted(data), sorted(RUNTIME_SYSTEMS + ("Mixed",)), s)
            for name, d in data.items():
                self.assertEqual(d["spec"]["log"], "%s/%s.log" % (name, name))
                self.assertEqual(d["spec"]["truth"], "%s/%s.log_structured.csv" % (name, name))
                for key in ("log", "truth"):
                    size = os.path.getsize(base_of(s) / d["spec"][key])
                    self.assertLess(size, MAX_BYTES, "%s/%s is %d bytes" % (s, d["spec"][key], size))

    def test_rows(self):
        for s in SETS:
            for name, d in load(s).items():
                where = "%s/%s" % (s, name)
                self.assertEqual(d["header"], COLUMNS, where)
                raw = d["raw"]
                self.assertEqual(raw[-1], "", where + ": the .log ends with a newline")
                self.assertEqual(len(raw) - 1, len(d["records"]), where + ": .log lines vs CSV rows")
                for i, rec in enumerate(d["records"], 1):
                    self.assertEqual(len(rec), 5, "%s row %d: %r" % (where, i, rec))
                    self.assertEqual(rec[0], str(i), "%s row %d: LineId" % (where, i))
                    self.assertEqual(rec[1], raw[i - 1], "%s row %d: Content is the physical line" % (where, i))
                    self.assertTrue(rec[2] and rec[3] and rec[4], "%s row %d: empty label" % (where, i))
                    self.assertNotIn("\r", rec[1])

    def test_events_contiguous(self):
        for s in SETS:
            for name, d in load(s).items():
                where = "%s/%s" % (s, name)
                seen = [ev for ev, _ in d["events"]]
                # an Event value starts a run once: runs are numbered 1, 2, 3, ... in line order
                self.assertEqual(seen, [str(i) for i in range(1, len(seen) + 1)], where)
                for ev, rows in d["events"]:
                    self.assertEqual(len({r["EventId"] for r in rows}), 1, "%s Event %s: one EventId" % (where, ev))
                    self.assertEqual(len({r["EventTemplate"] for r in rows}), 1, "%s Event %s: one template" % (where, ev))

    def test_label_template_one_to_one(self):
        for s in SETS:
            for name, d in load(s).items():
                by_id: dict = {}
                by_t: dict = {}
                for _, rows in d["events"]:
                    by_id.setdefault(rows[0]["EventId"], set()).add(rows[0]["EventTemplate"])
                    by_t.setdefault(rows[0]["EventTemplate"], set()).add(rows[0]["EventId"])
                self.assertEqual([k for k, v in by_id.items() if len(v) > 1], [], "%s/%s" % (s, name))
                self.assertEqual([k for k, v in by_t.items() if len(v) > 1], [], "%s/%s" % (s, name))

    def test_heads(self):
        for s in SETS:
            for name, d in load(s).items():
                for ev, rows in d["events"]:
                    head = rows[0]["Content"]
                    where = "%s/%s Event %s (%s)" % (s, name, ev, rows[0]["EventId"])
                    self.assertTrue(head, where + ": empty first line")
                    self.assertFalse(head[0].isspace(), where + ": indented first line %r" % head[:80])
                    self.assertFalse(head.startswith("at "), where + ": first line %r" % head[:80])

    def test_faults_are_multiline_and_singles_single(self):
        for s in SETS:
            data = load(s)
            for name in RUNTIME_SYSTEMS:
                for ev, rows in data[name]["events"]:
                    code = rows[0]["EventId"].split(":", 1)[1]
                    if code.startswith("L"):
                        self.assertEqual(len(rows), 1, "%s/%s Event %s" % (s, name, ev))
                    else:
                        self.assertGreater(len(rows), 1, "%s/%s Event %s" % (s, name, ev))

    def test_dev_test_faults_disjoint(self):
        dev, test = fault_labels("dev"), fault_labels("test")
        self.assertGreaterEqual(len(dev), 19)
        self.assertLessEqual(len(dev), 30)
        self.assertGreater(len(test), 0)
        self.assertEqual(dev & test, set())

    def test_codes_of_each_set(self):
        for s in SETS:
            prefix = PREFIX[s]
            data = load(s)
            for name in RUNTIME_SYSTEMS:
                codes = {rows[0]["EventId"].split(":", 1)[1] for _, rows in data[name]["events"]}
                faults = {c for c in codes if not c.startswith("L")}
                self.assertTrue(faults, "%s/%s has no faults" % (s, name))
                self.assertEqual({c for c in faults if not c.startswith(prefix)}, set(), "%s/%s" % (s, name))

    def test_holdout_faults_disjoint(self):
        if not HOLDOUT:
            self.skipTest("no holdout set (--holdout DIR or LOGSIFT_EVENTS_HOLDOUT)")
        holdout = fault_labels("holdout")
        self.assertGreaterEqual(len(holdout), 10)
        self.assertEqual(holdout & (fault_labels("dev") | fault_labels("test")), set())
        templates = {s: {rows[0]["EventTemplate"] for name in RUNTIME_SYSTEMS for _, rows in load(s)[name]["events"]
                         if len(rows) > 1} for s in SETS}
        self.assertEqual(templates["holdout"] & (templates["dev"] | templates["test"]), set(), "fault templates")

    def test_final_faults_disjoint(self):
        if not FINAL:
            self.skipTest("no final set (--final DIR or LOGSIFT_EVENTS_FINAL)")
        final = fault_labels("final")
        self.assertGreaterEqual(len(final), 10)
        self.assertEqual({l for l in final if not l.split(":", 1)[1].startswith("K")}, set())
        if HOLDOUT:
            holdout_labels, holdout_templates = fault_labels("holdout"), fault_templates("holdout")
        else:
            holdout_labels, holdout_templates = readme_faults("holdout")
        self.assertTrue(holdout_labels and holdout_templates)
        self.assertEqual(final & (fault_labels("dev") | fault_labels("test") | holdout_labels), set())
        others = fault_templates("dev") | fault_templates("test") | holdout_templates
        self.assertEqual(fault_templates("final") & others, set(), "fault templates")

    def test_readme_fault_table_templates(self):
        # the README tables' template column reads back as the files' templates (readme_faults relies on it)
        for s in SETS:
            self.assertEqual(readme_faults(s)[1], fault_templates(s), s)

    def test_mixed_holds_every_runtime_event(self):
        for s in SETS:
            data = load(s)
            want = {}
            for name in RUNTIME_SYSTEMS:
                for _, rows in data[name]["events"]:
                    key = tuple(r["Content"] for r in rows)
                    want[key] = want.get(key, 0) + 1
            got = {}
            for _, rows in data["Mixed"]["events"]:
                if rows[0]["EventId"].split(":", 1)[0] in RUNTIME_SYSTEMS:
                    key = tuple(r["Content"] for r in rows)
                    got[key] = got.get(key, 0) + 1
            self.assertEqual(got, want, s)
            others = {rows[0]["EventId"].split(":", 1)[0] for _, rows in data["Mixed"]["events"]} - set(RUNTIME_SYSTEMS)
            self.assertGreater(len(others), 0, s + ": Mixed has no lines of models/tuning")
            for _, rows in data["Mixed"]["events"]:
                if rows[0]["EventId"].split(":", 1)[0] in others:
                    self.assertEqual(len(rows), 1)

    def test_readme_counts(self):
        for s in SETS:
            data = load(s)
            table = {r[0]: r[1:] for r in table_rows(readme_section("counts " + s))}
            self.assertEqual(sorted(table), sorted(data), s)
            for name, d in data.items():
                c = counts(d["events"])
                want = [str(c[k]) for k in ("events", "lines", "multiline_events", "trace_lines",
                                            "continuation_lines", "single_lines", "labels")]
                self.assertEqual(table[name], want, "README counts %s/%s" % (s, name))

    def test_readme_faults(self):
        for s in SETS:
            data = load(s)
            occ: dict = {}
            for name in RUNTIME_SYSTEMS:
                for _, rows in data[name]["events"]:
                    if len(rows) > 1:
                        occ[rows[0]["EventId"]] = occ.get(rows[0]["EventId"], 0) + 1
            table = {r[0].strip("`"): int(r[5]) for r in table_rows(readme_section("faults " + s))}
            self.assertEqual(table, occ, "README fault table " + s)


if __name__ == "__main__":
    for option in ("--holdout", "--final"):
        if option in sys.argv:
            i = sys.argv.index(option)
            if option == "--holdout":
                HOLDOUT = sys.argv[i + 1]
            else:
                FINAL = sys.argv[i + 1]
            del sys.argv[i:i + 2]
    SETS = COMMITTED + (("holdout",) if HOLDOUT else ()) + (("final",) if FINAL else ())
    unittest.main()
