#!/usr/bin/python3
"""Unit tests of the chaos checker: recorded data with one planted fault each
(a lost acknowledgement, a double count, a refused line counted, a lost
alert, a duplicate alert, a lying readiness sample, ...) must be caught, and
the clean record must pass.

    /usr/bin/python3 -m unittest tests/chaos/test_checker.py     (from the repo root)
    /usr/bin/python3 tests/chaos/test_checker.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checker  # noqa: E402

T = 1000.0


def clean_record():
    """Two groups: fleet (r0, r1) and sqlite (s0); three families; every
    acknowledged line in the catalog once; every new cluster alerted once to
    each of two receivers; readiness honest."""
    b = [
        # t0, t1, server, proto, family, acked, refused, unknown, reason
        [T + 1.0, T + 1.1, "r0", "http", "fleet:1", 10, 0, 0, ""],
        [T + 2.0, T + 2.1, "r1", "tcp", "fleet:1", 20, 0, 0, ""],
        [T + 3.0, T + 3.1, "r0", "syslog", "fleet:2", 18, 2, 0, "store"],
        [T + 4.0, T + 4.1, "r1", "http", "fleet:2", 0, 10, 0, "store"],     # refused: never counted
        [T + 5.0, T + 9.0, "r0", "tcp", "fleet:2", 5, 0, 15, ""],          # 15 of unknown fate
        [T + 1.0, T + 1.1, "s0", "http", "sqlite:1", 10, 0, 0, ""],
        [T + 2.0, T + 2.1, "s0", "http", "sqlite:1", 0, 10, 0, "down"],    # server down: nothing sent
    ]
    rec = {
        "t_start": T,
        "batches": b,
        "servers": {"r0": "fleet", "r1": "fleet", "s0": "sqlite"},
        "families": {"fleet:1": {"group": "fleet", "ids": ["aaaa"]},
                     "fleet:2": {"group": "fleet", "ids": ["bbbb"]},
                     "sqlite:1": {"group": "sqlite", "ids": ["cccc"]}},
        # fleet:2: 23 acknowledged + 15 unknown: any count in 23..38 is right
        "final": {"fleet": {"catalog": {"aaaa": 30, "bbbb": 30}, "resolve": {"aaaa": "aaaa", "bbbb": "bbbb"}},
                  "sqlite": {"catalog": {"cccc": 10}, "resolve": {"cccc": "cccc"}}},
        "wipes": [],
        "news": [[T + 1.1, "fleet", "fleet:1", "aaaa", True], [T + 3.1, "fleet", "fleet:2", "bbbb", None],
                 [T + 1.1, "sqlite", "sqlite:1", "cccc", True]],
        "subscriptions": {"fleet": {"healthy": "sub_1", "slow": "sub_2"}, "sqlite": {"healthy": "sub_3", "slow": "sub_4"}},
        "deliveries": [
            [T + 1.2, "healthy", "fleet", "alrt_1", "aaaa", "new_cluster", 204],
            [T + 1.5, "slow", "fleet", "alrt_2", "aaaa", "new_cluster", 503],   # refused by the receiver ...
            [T + 2.5, "slow", "fleet", "alrt_2", "aaaa", "new_cluster", 204],   # ... and sent again: same id
            [T + 3.2, "healthy", "fleet", "alrt_3", "bbbb", "new_cluster", 204],
            [T + 3.3, "slow", "fleet", "alrt_4", "bbbb", "new_cluster", 204],
            [T + 3.4, "slow", "fleet", "alrt_4", "bbbb", "new_cluster", 204],   # a redelivery: de-duplicated
            [T + 1.2, "healthy", "sqlite", "alrt_5", "cccc", "new_cluster", 204],
            [T + 1.3, "slow", "sqlite", "alrt_6", "cccc", "new_cluster", 204],
        ],
        "readiness": [
            [T + 0.5, T + 0.51, "r1", 200],
            [T + 4.05, T + 4.06, "r1", 503],
            [T + 10.0, T + 10.01, "r1", 200],
        ],
        "memory": [[T + 1, "r0", 30.0], [T + 2, "s0", 31.0]],
        "faults": [{"kind": "redis_pause", "start": T + 3.5, "clear": T + 4.5, "targets": ["r0"], "groups": ["fleet"],
                    "receivers": []}],
        "detections": [{"ws": T, "we": T + 1, "replica": {"r0": 0.2, "r1": 0.4}}],
        "rss_bound_mb": 100,
    }
    # recovery: an ack on r0 and an alert after the fault clears
    rec["batches"].append([T + 4.6, T + 4.7, "r0", "http", "fleet:1", 10, 0, 0, ""])
    rec["final"]["fleet"]["catalog"]["aaaa"] += 10
    rec["deliveries"].append([T + 4.8, "healthy", "fleet", "alrt_1", "aaaa", "new_cluster", 204])
    return rec


def rules(res, part):
    return [v["rule"] for v in res[part]["violations"]]


class CheckerTest(unittest.TestCase):
    def test_clean_record_passes(self):
        res = checker.check_all(clean_record())
        self.assertTrue(res["ok"], res)
        self.assertEqual(res["counts"]["stats"]["lost"], 0)
        self.assertEqual(res["alerts"]["stats"]["redeliveries_same_id"], 2)  # alrt_4 twice, alrt_1 twice

    def test_unknown_fate_allows_both_ends(self):
        for n in (23, 38):
            rec = clean_record()
            rec["final"]["fleet"]["catalog"]["bbbb"] = n
            self.assertTrue(checker.check_all(rec)["counts"]["ok"], n)

    def test_lost_acknowledgement_is_caught(self):
        rec = clean_record()
        rec["final"]["sqlite"]["catalog"]["cccc"] = 9
        res = checker.check_all(rec)
        self.assertFalse(res["ok"])
        self.assertIn("acknowledged lines lost", rules(res, "counts"))
        self.assertEqual(res["counts"]["stats"]["lost"], 1)

    def test_double_count_is_caught(self):
        rec = clean_record()
        rec["final"]["sqlite"]["catalog"]["cccc"] = 11
        res = checker.check_all(rec)
        self.assertFalse(res["ok"])
        self.assertIn("lines counted twice", rules(res, "counts"))
        self.assertEqual(res["counts"]["stats"]["double"], 1)

    def test_refused_lines_counted_are_caught(self):
        rec = clean_record()
        rec["final"]["fleet"]["catalog"]["bbbb"] = 38 + 10  # the refused request of fleet:2 counted after all
        res = checker.check_all(rec)
        self.assertFalse(res["ok"])
        self.assertTrue(any(r.startswith("refused lines counted") for r in rules(res, "counts")))

    def test_cluster_no_ack_explains_is_caught(self):
        rec = clean_record()
        rec["final"]["fleet"]["catalog"]["dddd"] = 3
        res = checker.check_all(rec)
        self.assertFalse(res["counts"]["ok"])
        self.assertIn("clusters counted that no acknowledged line explains", rules(res, "counts"))

    def test_split_family_counts_per_component(self):
        rec = clean_record()  # fleet:1's lines went to two clusters: the sum is what counts
        rec["families"]["fleet:1"]["ids"] = ["aaaa", "eeee"]
        rec["final"]["fleet"]["resolve"]["eeee"] = "eeee"
        rec["final"]["fleet"]["catalog"]["aaaa"] = 25
        rec["final"]["fleet"]["catalog"]["eeee"] = 15
        rec["news"].append([T + 2.0, "fleet", "fleet:1", "eeee", True])
        for recv, wid in (("healthy", "alrt_7"), ("slow", "alrt_8")):
            rec["deliveries"].append([T + 2.2, recv, "fleet", wid, "eeee", "new_cluster", 204])
        self.assertTrue(checker.check_all(rec)["ok"])

    def test_migrated_ids_resolve(self):
        rec = clean_record()  # a contract upgrade: aaaa became ffff, its alert stays valid
        cat = rec["final"]["fleet"]["catalog"]
        cat["ffff"] = cat.pop("aaaa")
        rec["final"]["fleet"]["resolve"]["aaaa"] = "ffff"
        self.assertTrue(checker.check_all(rec)["ok"])

    def test_redis_wipe_rule(self):
        rec = clean_record()
        # Redis lost its data between T+2.5 and T+2.8: fleet:1's first 30 lines are gone by nature
        rec["wipes"] = [[T + 2.5, T + 2.8]]
        rec["final"]["fleet"]["catalog"]["aaaa"] = 10
        self.assertTrue(checker.check_all(rec)["counts"]["ok"])
        rec["final"]["fleet"]["catalog"]["aaaa"] = 9  # the one after the wipe must stay
        self.assertIn("acknowledged lines lost", rules(checker.check_all(rec), "counts"))

    def test_lost_alert_is_caught(self):
        rec = clean_record()
        rec["deliveries"] = [d for d in rec["deliveries"] if not (d[1] == "slow" and d[4] == "cccc")]
        res = checker.check_all(rec)
        self.assertFalse(res["ok"])
        self.assertIn("alert lost", rules(res, "alerts"))
        self.assertEqual(res["alerts"]["stats"]["lost"], 1)

    def test_alert_only_refused_by_receiver_is_lost(self):
        rec = clean_record()
        rec["deliveries"] = [d for d in rec["deliveries"] if not (d[1] == "slow" and d[4] == "aaaa" and d[6] == 204)]
        self.assertIn("alert lost", rules(checker.check_all(rec), "alerts"))

    def test_new_cluster_without_alert_is_caught_even_if_gone(self):
        rec = clean_record()
        rec["news"].append([T + 6, "fleet", "fleet:2", "9999", True])  # acked new, not in the catalog, never alerted
        self.assertIn("alert lost", rules(checker.check_all(rec), "alerts"))

    def test_dead_lettered_alert_is_caught(self):
        rec = clean_record()
        rec["final"]["fleet"]["dead_lettered"] = [{"id": "alrt_x", "last_error": "subscription deleted"}]
        self.assertIn("alerts dead-lettered (GET /alerts?status=failed)", rules(checker.check_all(rec), "alerts"))

    def test_duplicate_after_dedup_is_caught(self):
        rec = clean_record()
        rec["deliveries"].append([T + 5.0, "healthy", "sqlite", "alrt_99", "cccc", "new_cluster", 204])
        res = checker.check_all(rec)
        self.assertFalse(res["ok"])
        self.assertIn("duplicate alert after webhook-id de-duplication", rules(res, "alerts"))

    def test_realert_after_redis_wipe_is_allowed(self):
        rec = clean_record()
        rec["wipes"] = [[T + 6.0, T + 6.5]]
        rec["batches"].append([T + 7.0, T + 7.1, "r0", "http", "fleet:1", 5, 0, 0, ""])
        rec["final"]["fleet"]["catalog"] = {"aaaa": 5}  # only the lines after the wipe remain
        rec["deliveries"].append([T + 7.2, "healthy", "fleet", "alrt_new", "aaaa", "new_cluster", 204])
        res = checker.check_all(rec)
        self.assertTrue(res["alerts"]["ok"], res["alerts"])
        self.assertTrue(res["counts"]["ok"], res["counts"])

    def test_lying_readiness_is_caught(self):
        rec = clean_record()
        for k in range(8):  # s0 refuses every write for 4 s ...
            rec["batches"].append([T + 20 + k * 0.5, T + 20.01 + k * 0.5, "s0", "http", "sqlite:1", 0, 10, 0, "store"])
        rec["readiness"].append([T + 22.1, T + 22.11, "s0", 200])  # ... and says ready in the middle
        res = checker.check_all(rec)
        self.assertFalse(res["ok"])
        self.assertIn("ready while writes fail", rules(res, "readiness"))

    def test_readiness_at_a_transition_is_not_blamed(self):
        rec = clean_record()
        for k in range(8):
            rec["batches"].append([T + 20 + k * 0.5, T + 20.01 + k * 0.5, "s0", "http", "sqlite:1", 0, 10, 0, "store"])
        rec["readiness"].append([T + 20.3, T + 20.31, "s0", 200])       # within the grace after the first failure
        rec["readiness"].append([T + 23.6, T + 23.61, "s0", 200])       # after the last failure, before any write
        rec["batches"].append([T + 23.7, T + 23.8, "s0", "http", "sqlite:1", 10, 0, 0, ""])
        rec["final"]["sqlite"]["catalog"]["cccc"] += 10
        self.assertTrue(checker.check_all(rec)["readiness"]["ok"])

    def test_memory_over_bound_is_caught(self):
        rec = clean_record()
        rec["memory"].append([T + 3, "r1", 150.0])
        self.assertIn("memory over bound", rules(checker.check_all(rec), "memory"))

    def test_slow_recovery_is_caught(self):
        rec = clean_record()
        rec["faults"][0]["clear"] = T + 4.6 - 6.5  # the first ack after it comes 6.5 s later
        rec["batches"] = [b for b in rec["batches"] if not (b[2] == "r0" and T - 2 <= b[1] < T + 4.6)]
        res = checker.check_all(rec)
        self.assertTrue(any(r.startswith("recovery over") for r in rules(res, "recovery")), res["recovery"])

    def test_alert_clock_starts_with_the_first_new_cluster_when_none_was_owed(self):
        rec = clean_record()
        # Nothing owed at the clearing (aaaa and bbbb were delivered before
        # it); the next new cluster comes 6 s after it and is alerted 0.1 s
        # later: a 0.1 s recovery, not 6.1 s.
        rec["deliveries"] = [d for d in rec["deliveries"] if d[0] < T + 4.5]
        rec["news"].append([T + 10.5, "fleet", "fleet:1", "dddd", True])
        rec["deliveries"] += [[T + 10.6, "healthy", "fleet", "alrt_7", "dddd", "new_cluster", 204],
                              [T + 10.7, "slow", "fleet", "alrt_8", "dddd", "new_cluster", 204]]
        res = checker.check_all(rec)
        self.assertEqual(res["recovery"]["faults"][0]["alert_s"], 0.1, res["recovery"])
        self.assertTrue(res["recovery"]["ok"], res["recovery"])
        # Owed at the clearing (aaaa, new at T + 1.1, not yet delivered): the
        # clock starts there, and its delivery 6.3 s later is slow.
        rec["deliveries"] = [d for d in rec["deliveries"] if d[4] != "aaaa"]
        rec["deliveries"].append([T + 10.8, "healthy", "fleet", "alrt_1", "aaaa", "new_cluster", 204])
        rec["deliveries"].append([T + 10.8, "slow", "fleet", "alrt_2", "aaaa", "new_cluster", 204])
        res = checker.check_all(rec)
        self.assertTrue(any(r.startswith("recovery over") for r in rules(res, "recovery")), res["recovery"])

    def test_data_loss_not_counted_is_caught(self):
        rec = clean_record()
        rec["detections"][0]["replica"]["r1"] = None
        self.assertFalse(checker.check_all(rec)["detection"]["ok"])
        rec["detections"][0]["replica"]["r1"] = 2.5
        self.assertFalse(checker.check_all(rec)["detection"]["ok"])

    def test_unexpected_error_reply_is_caught(self):
        rec = clean_record()
        rec["batches"].append([T + 30, T + 30.1, "r0", "http", "fleet:1", 0, 10, 0,
                               "other: 200 internal error in state stage"])
        self.assertFalse(checker.check_all(rec)["errors"]["ok"])


if __name__ == "__main__":
    unittest.main()
