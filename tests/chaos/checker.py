"""Checker for the logsift chaos harness: pure functions over recorded data.

Everything here works on plain lists and dicts (what chaos.py writes to
report.json), so it can be unit-tested with hand-made records
(tests/chaos/test_checker.py) and re-run on a saved report:

    /usr/bin/python3 tests/chaos/checker.py OUT/report.json

Records (times are seconds on one monotonic-ish wall clock, time.time()):

  batches     [t0, t1, server, proto, family, acked, refused, unknown, reason]
              one request/connection of ONE family's lines: t0 when the client
              started sending, t1 when it had the outcome. acked = lines the
              service acknowledged (a reply with a cluster id; for syslog, the
              lines of a connection the server closed after reading them all,
              less the rejections its metrics counted meanwhile); refused =
              lines explicitly refused (503 / an error line / a syslog
              rejection); unknown = lines whose fate the client cannot know
              (the connection broke after sending, a timeout). reason: "store",
              "overload", "down" (connection refused: nothing was sent),
              "other" or "" for the refusal.
  families    {family: {"group": G, "ids": [cluster ids seen in acks]}}
  final       {group: {"catalog": {cluster_id: count}  (every cluster of the
                                                         run's tag at the end),
                       "resolve": {seen_id: final_id or None}}}
              resolve maps every id ever seen (acks, alerts) to the cluster it is
              now (GET /clusters/{id} follows migrations), None when unknown.
  wipes       [[ws, we], ...] Redis lost its data between ws and we (the
              fleet's group only; see count_expectation()).
  servers     {server: group}
  news        [t, group, family, cluster_id, new_flag]: acks that said
              "new": true (or null: the store could not say)
  deliveries  [t, receiver, group, webhook_id, cluster_id, rule, status]
              every webhook POST a receiver saw; status = what it answered.
  subscriptions {group: {receiver: subscription_id}}
  readiness   [t0, t1, server, http_status or None]
  memory      [t, server, rss_mb]
  faults      [{"kind", "targets", "groups", "receivers", "start", "clear", ...}]
  detections  [{"ws", "we", "replica": {name: seconds or None}}]

Rules, and why they are what they are, are in each function's docstring.
"""
import json
import sys
from collections import defaultdict

RECOVERY_GOAL_S = 5.0
DETECTION_GOAL_S = 2.0
READINESS_GRACE_S = 1.0


# ---------------------------------------------------------------- counts

def count_expectation(batch, group, wipes, fleet_group="fleet"):
    """(lo, hi) of what this batch's lines may add to the catalog.

    Acknowledged lines must be counted exactly once; refused lines never;
    lines of unknown fate (the connection broke after sending) 0 or 1 time.

    A Redis data loss (restarted empty) destroys what was stored before it,
    by its nature. The honest rule for the fleet's group is then: a batch
    answered before a loss began (t1 < ws) is expected to be gone (0); one
    that began after the loss ended (t0 >= we) is expected exactly; one that
    overlaps a loss window may be either (0..acked). Whether the service
    reported each loss is checked separately (check_detection()).
    """
    t0, t1, _server, _proto, _family, acked, _refused, unknown = batch[:8]
    if group == fleet_group:
        for ws, we in wipes:
            if t1 < ws:
                return 0, 0, acked  # wiped with Redis
        for ws, we in wipes:
            if ws <= t1 and we > t0:
                return 0, acked + unknown, 0
    return acked, acked + unknown, 0


class _UF:
    def __init__(self):
        self.p = {}

    def find(self, x):
        self.p.setdefault(x, x)
        while self.p[x] != x:
            self.p[x] = self.p[self.p[x]]
            x = self.p[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.p[rb] = ra


def check_counts(batches, families, final, wipes, servers):
    """Every acknowledged line counted exactly once, per cluster.

    Families (the generator's templates) and final cluster ids are joined
    into components (a family whose lines went to two clusters, or two
    families the service put in one cluster, make one component); per
    component the catalog's count must lie in [lo, hi] from
    count_expectation(). Below lo: acknowledged lines lost. Above hi: lines
    counted twice (or refused lines counted). Clusters of the run's tag
    that no acknowledged line explains may hold at most the unknown-fate
    lines of families whose ids were never learned.
    """
    fam_lo = defaultdict(int)
    fam_hi = defaultdict(int)
    fam_refused_store = defaultdict(int)
    stats = {"acked": 0, "refused": 0, "unknown": 0, "wiped_by_redis_loss": 0, "lines_sent": 0}
    for b in batches:
        fam = b[4]
        group = families.get(fam, {}).get("group") or servers.get(b[2], "?")
        lo, hi, wiped = count_expectation(b, group, wipes)
        fam_lo[fam] += lo
        fam_hi[fam] += hi
        if b[8] == "store":
            fam_refused_store[fam] += b[6]
        stats["acked"] += b[5]
        stats["refused"] += b[6]
        stats["unknown"] += b[7]
        stats["wiped_by_redis_loss"] += wiped
        stats["lines_sent"] += b[5] + b[6] + b[7]
    violations = []
    lost = double = 0
    per_group = {}
    for group, fin in final.items():
        uf = _UF()
        resolve = fin.get("resolve", {})
        catalog = fin.get("catalog", {})
        fams = [f for f, v in families.items() if v.get("group") == group]
        unresolved_hi = 0
        for f in fams:
            uf.find("F:" + f)
            ids = families[f].get("ids", [])
            finals = {resolve.get(i) for i in ids} - {None}
            for cid in finals:
                uf.union("F:" + f, "C:" + cid)
            if not ids:
                unresolved_hi += fam_hi[f]
        for cid in catalog:
            uf.find("C:" + cid)
        comp = defaultdict(lambda: {"lo": 0, "hi": 0, "refused": 0, "count": 0, "families": [], "clusters": []})
        for f in fams:
            c = comp[uf.find("F:" + f)]
            c["lo"] += fam_lo[f]
            c["hi"] += fam_hi[f]
            c["refused"] += fam_refused_store[f]
            c["families"].append(f)
        for cid, n in catalog.items():
            c = comp[uf.find("C:" + cid)]
            c["count"] += n
            c["clusters"].append(cid)
        phantom = 0
        g_acked = g_count = 0
        for root, c in comp.items():
            g_count += c["count"]
            g_acked += c["lo"]
            if not c["families"]:
                phantom += c["count"]
                continue
            if c["count"] < c["lo"]:
                lost += c["lo"] - c["count"]
                violations.append({"rule": "acknowledged lines lost", "group": group, "families": sorted(c["families"])[:5],
                                   "clusters": c["clusters"], "expected_at_least": c["lo"], "counted": c["count"]})
            elif c["count"] > c["hi"]:
                double += c["count"] - c["hi"]
                # Refused lines (503 store unavailable, error lines) must never be counted either: a
                # client retries them, so counting one is counting it twice. Named apart when the
                # excess fits in what the store refused.
                rule = ("refused lines counted (503 store unavailable, yet in the catalog)"
                        if c["count"] - c["hi"] <= c["refused"] else "lines counted twice")
                violations.append({"rule": rule, "group": group,
                                   "families": sorted(c["families"])[:5], "clusters": c["clusters"],
                                   "expected_at_most": c["hi"], "counted": c["count"],
                                   "refused_by_store": c["refused"]})
        if phantom > unresolved_hi:
            double += phantom - unresolved_hi
            violations.append({"rule": "clusters counted that no acknowledged line explains", "group": group,
                               "counted": phantom, "allowed_unknown": unresolved_hi})
        per_group[group] = {"catalog_sum": g_count, "expected_exact": g_acked, "components": len(comp)}
    stats.update({"lost": lost, "double": double, "per_group": per_group})
    return {"ok": not violations, "violations": violations, "stats": stats}


# ---------------------------------------------------------------- alerts

def check_alerts(news, deliveries, subscriptions, final, wipes):
    """Every new cluster alerted, once per subscription after de-duplication
    by webhook-id, none lost.

    - Required clusters: every cluster in a group's final catalog, and every
      cluster id an acknowledgement called "new": true. Each must have, for
      every receiver subscribed in that group, at least one delivery the
      receiver accepted (2xx) whose cluster id resolves to it (migrations
      map old ids to new ones). A new:true cluster wiped with Redis before
      any alert of it was delivered and never seen again is still required:
      the outbox row existed before the wipe (the catalog keeps a cluster
      marked until its alerts are in the outbox) and replicas re-seed the
      alerts they held.
    - Duplicates: after de-duplicating deliveries by webhook-id, one
      (receiver, group, final cluster) must have one id. A second id is
      allowed only when a Redis data loss lies between the first deliveries
      of the two (the cluster was new again, by design, after the loss).
    """
    violations = []
    accepted = [d for d in deliveries if d[6] is not None and 200 <= d[6] < 300 and d[5] == "new_cluster"]
    by_key = defaultdict(dict)  # (receiver, group, final) -> {webhook_id: first t}
    for t, recv, group, wid, cid, rule, status in accepted:
        fin = final.get(group, {}).get("resolve", {}).get(cid) or cid
        d = by_key[(recv, group, fin)]
        d[wid] = min(t, d.get(wid, t))
    required = defaultdict(set)
    for group, fin in final.items():
        for cid, n in fin.get("catalog", {}).items():
            if n > 0:
                required[group].add(cid)
    for t, group, fam, cid, flag in news:
        if flag is True:
            required[group].add(final.get(group, {}).get("resolve", {}).get(cid) or cid)
    lost = dup = 0
    for group, cids in required.items():
        for recv in subscriptions.get(group, {}):
            for cid in sorted(cids):
                if not by_key.get((recv, group, cid)):
                    lost += 1
                    if len([v for v in violations if v["rule"] == "alert lost"]) < 20:
                        violations.append({"rule": "alert lost", "group": group, "receiver": recv, "cluster": cid})
    for (recv, group, cid), ids in by_key.items():
        if len(ids) < 2:
            continue
        times = sorted(ids.values())
        extra = 0
        for a, b in zip(times, times[1:]):
            if not any(a <= ws <= b for ws, we in wipes):
                extra += 1
        if extra:
            dup += extra
            violations.append({"rule": "duplicate alert after webhook-id de-duplication", "group": group,
                               "receiver": recv, "cluster": cid, "webhook_ids": sorted(ids)})
    dead = [dict(x, group=g) for g, fin in final.items() for x in fin.get("dead_lettered", [])]
    if dead:
        reasons = defaultdict(int)
        for x in dead:
            reasons[str(x.get("last_error"))[:80]] += 1
        violations.append({"rule": "alerts dead-lettered (GET /alerts?status=failed)", "count": len(dead),
                           "by_last_error": dict(reasons)})
    raw = defaultdict(int)
    for d in accepted:
        raw[(d[1], d[2], d[3])] += 1
    stats = {"alerts_delivered": len(accepted), "distinct_webhook_ids": len(raw),
             "redeliveries_same_id": sum(n - 1 for n in raw.values()),
             "required_cluster_alerts": sum(len(c) * len(subscriptions.get(g, {})) for g, c in required.items()),
             "lost": lost, "duplicates": dup, "dead_lettered": len(dead),
             "attempts_refused_by_receivers": sum(1 for d in deliveries if d[6] is None or not 200 <= d[6] < 300)}
    return {"ok": not violations, "violations": violations, "stats": stats}


# ---------------------------------------------------------------- readiness

def check_readiness(readiness, batches, grace=READINESS_GRACE_S):
    """/readyz never says ready while writes fail.

    A write "fails" when the store refused it (reason "store": 503
    store unavailable, an error line) or it failed with another error
    ("other": an internal error). Overload (503 pipeline full, shutting
    down) and a server that is down are not write failures readiness
    speaks for. A ready answer (200) from a server is
    a lie when it is bracketed by failing writes to that server: the last
    write that finished before the probe was sent failed, the first write
    that began after the probe's answer failed, no write in between
    succeeded, and writes had been failing for at least `grace` seconds
    before the probe (readiness is re-evaluated about once a second; a
    probe right at a fault's start cannot know yet). Transitions are thus
    never blamed on readiness, a steady failure always is.
    """
    writes = defaultdict(list)
    for b in batches:
        if b[3] == "syslog":
            continue
        if b[5] > 0:
            writes[b[2]].append((b[0], b[1], True))
        elif b[6] > 0 and (b[8] == "store" or b[8].startswith("other")):
            writes[b[2]].append((b[0], b[1], False))
    for w in writes.values():
        w.sort(key=lambda x: x[1])
    by_start = {s: sorted(w, key=lambda x: x[0]) for s, w in writes.items()}
    violations = []
    ready_samples = 0
    import bisect
    ends = {s: [x[1] for x in w] for s, w in writes.items()}
    starts = {s: [x[0] for x in w] for s, w in by_start.items()}
    ok_ends = {s: [x[1] for x in w if x[2]] for s, w in writes.items()}
    run_start = {}  # per server: for each write (by end), the end time of the first failure of its run
    for s, w in writes.items():
        rs, cur = [], None
        for x in w:
            cur = None if x[2] else (cur if cur is not None else x[1])
            rs.append(cur)
        run_start[s] = rs
    for t0, t1, server, status in readiness:
        if status != 200:
            continue
        ready_samples += 1
        w = writes.get(server)
        if not w:
            continue
        i = bisect.bisect_right(ends[server], t0) - 1
        if i < 0 or w[i][2]:
            continue
        j = bisect.bisect_left(starts[server], t1)
        if j >= len(by_start[server]) or by_start[server][j][2]:
            continue
        after = by_start[server][j]
        # no success finishing between the failure before and the failure after
        oe = ok_ends[server]
        k = bisect.bisect_right(oe, w[i][1])
        if k < len(oe) and oe[k] <= after[1]:
            continue
        # how long had it been failing? (the first failure of this run of failures)
        if t0 - run_start[server][i] < grace:
            continue
        violations.append({"rule": "ready while writes fail", "server": server, "probe": [t0, t1],
                           "failing_since": run_start[server][i], "failed_after": after[0]})
    return {"ok": not violations, "violations": violations[:50],
            "stats": {"samples": len(readiness), "ready_samples": ready_samples, "lies": len(violations)}}


# ---------------------------------------------------------------- memory

def check_memory(memory, bound_mb):
    """Every server's RSS stays under the bound in every sample."""
    peak = defaultdict(float)
    violations = []
    for t, server, rss in memory:
        peak[server] = max(peak[server], rss)
        if rss > bound_mb:
            violations.append({"rule": "memory over bound", "server": server, "t": t, "rss_mb": rss,
                               "bound_mb": bound_mb})
    return {"ok": not violations, "violations": violations[:20],
            "stats": {"peak_rss_mb": {k: round(v, 1) for k, v in sorted(peak.items())}, "bound_mb": bound_mb}}


# ---------------------------------------------------------------- recovery

def recovery_times(faults, batches, deliveries, goal=RECOVERY_GOAL_S, news=None):
    """Per fault: from the fault clearing to the first acknowledged write on
    each affected server (the slowest of them is the fault's figure) and to
    the first alert a receiver of an affected group accepted (for a hung
    receiver: that receiver). None when none came before the run ended.

    An alert can only be as early as the new cluster it is about: when no
    alert of the group was owed at the clearing (every new cluster
    acknowledged before it already delivered), the alert clock starts at the
    first new cluster of the group acknowledged after it, not at the
    clearing (else a quiet second of the load generator reads as a slow
    recovery)."""
    acks = defaultdict(list)
    for b in batches:
        if b[5] > 0:
            acks[b[2]].append(b[1])
    for v in acks.values():
        v.sort()
    ok_deliv = sorted((d[0], d[1], d[2]) for d in deliveries if d[6] is not None and 200 <= d[6] < 300)
    # New clusters acknowledged, per group, and when each was first delivered.
    new_by_group = defaultdict(list)
    for n in news or []:
        if n[4]:
            new_by_group[n[1]].append((n[0], n[3]))
    first_delivered = {}
    for d in deliveries:
        if d[6] is not None and 200 <= d[6] < 300:
            key = (d[2], d[4])
            first_delivered[key] = min(first_delivered.get(key, d[0]), d[0])

    def owed_at(groups, t_clear):
        return any(t < t_clear and first_delivered.get((g, c), float("inf")) >= t_clear
                   for g in groups for t, c in new_by_group.get(g, []))
    import bisect
    out = []
    violations = []
    for f in faults:
        clear = f.get("clear")
        if clear is None:
            continue
        per_server = {}
        for s in f.get("targets", []):
            a = acks.get(s, [])
            i = bisect.bisect_left(a, clear)
            per_server[s] = round(a[i] - clear, 3) if i < len(a) else None
        write_s = None
        if per_server:
            vals = list(per_server.values())
            write_s = None if None in vals else max(vals)
        alert_s = None
        recvs = set(f.get("receivers") or [])
        groups = set(f.get("groups") or [])
        since = clear
        if groups and not recvs and news is not None and not owed_at(groups, clear):
            later = [t for g in groups for t, _ in new_by_group.get(g, []) if t >= clear]
            since = min(later) if later else None
        for t, recv, group in ok_deliv if since is not None else []:
            if t < since:
                continue
            if (recvs and recv in recvs) or (not recvs and group in groups):
                alert_s = round(t - clear, 3) if since == clear else round(t - since, 3)
                break
        rec = {"kind": f["kind"], "start": f["start"], "clear": clear, "write_s": write_s, "alert_s": alert_s,
               "per_server_write_s": per_server}
        out.append(rec)
        slow_write = bool(per_server) and (write_s is None or write_s > goal)
        # Nothing owed and no new cluster after the clearing: nothing to measure.
        slow_alert = bool(groups or recvs) and since is not None and (alert_s is None or alert_s > goal)
        if slow_write or slow_alert:
            violations.append({"rule": f"recovery over {goal} s", "kind": f["kind"], "start": f["start"],
                               "write_s": write_s, "alert_s": alert_s, "per_server_write_s": per_server})
    return {"ok": not violations, "violations": violations, "faults": out}


def distribution(values):
    v = sorted(x for x in values if x is not None)
    if not v:
        return {"n": 0}
    q = lambda p: v[min(len(v) - 1, int(round(p * (len(v) - 1))))]
    return {"n": len(v), "min": v[0], "p50": q(0.5), "p90": q(0.9), "max": v[-1]}


# ---------------------------------------------------------------- Redis data loss detection

def check_detection(detections, goal=DETECTION_GOAL_S):
    """Every replica counts a Redis data loss (logsift_redis_data_lost_total
    rises) within `goal` seconds of Redis being back (empty)."""
    violations = []
    delays = []
    for d in detections:
        for name, s in d.get("replica", {}).items():
            delays.append(s)
            if s is None or s > goal:
                violations.append({"rule": f"data loss not counted within {goal} s", "replica": name,
                                   "seconds": s, "redis_back_at": d.get("we")})
    return {"ok": not violations, "violations": violations, "stats": distribution(delays)}


# ---------------------------------------------------------------- all

def check_errors(batches):
    """Refusals other than the store's, overload or a server that is down are
    errors of the service (400s on well-formed input, unparseable replies)."""
    bad = [b for b in batches if b[6] > 0 and b[8].startswith("other")]
    return {"ok": not bad, "violations": [{"rule": "unexpected error reply", "batch": b} for b in bad[:20]],
            "stats": {"other_errors": sum(b[6] for b in bad)}}


def check_deaths(deaths):
    """No server exits that no fault stopped (a crash, an abort, an exit on its own)."""
    return {"ok": not deaths, "violations": [dict(rule="server exited by itself", **d) for d in deaths[:20]],
            "stats": {"deaths": len(deaths)}}


def check_all(rec, rss_bound_mb=None):
    bound = rss_bound_mb if rss_bound_mb is not None else rec.get("rss_bound_mb", 400)
    res = {
        "counts": check_counts(rec["batches"], rec["families"], rec["final"], rec.get("wipes", []), rec["servers"]),
        "alerts": check_alerts(rec.get("news", []), rec.get("deliveries", []), rec.get("subscriptions", {}),
                               rec["final"], rec.get("wipes", [])),
        "readiness": check_readiness(rec.get("readiness", []), rec["batches"]),
        "memory": check_memory(rec.get("memory", []), bound),
        "recovery": recovery_times(rec.get("faults", []), rec["batches"], rec.get("deliveries", []),
                                   news=rec.get("news", [])),
        "detection": check_detection(rec.get("detections", [])),
        "errors": check_errors(rec["batches"]),
        "deaths": check_deaths(rec.get("deaths", [])),
    }
    res["ok"] = all(v["ok"] for v in res.values())
    return res


def summary_lines(rec, res):
    out = []
    kinds = defaultdict(int)
    for f in rec.get("faults", []):
        kinds[f["kind"]] += 1
    c = res["counts"]["stats"]
    a = res["alerts"]["stats"]
    out.append(f"faults: {sum(kinds.values())} of {len(kinds)} kinds: " +
               ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    protos = defaultdict(lambda: [0, 0, 0])
    for b in rec["batches"]:
        p = protos[b[3]]
        p[0] += b[5]
        p[1] += b[6]
        p[2] += b[7]
    out.append("lines by protocol (acked/refused/unknown): " +
               ", ".join(f"{k} {v[0]}/{v[1]}/{v[2]}" for k, v in sorted(protos.items())))
    out.append(f"lines: sent {c['lines_sent']} acked {c['acked']} refused {c['refused']} unknown {c['unknown']} "
               f"wiped-with-redis {c['wiped_by_redis_loss']} | LOST {c['lost']} DOUBLE {c['double']}")
    out.append(f"alerts: delivered {a['alerts_delivered']} distinct ids {a['distinct_webhook_ids']} "
               f"redeliveries(same id) {a['redeliveries_same_id']} required {a['required_cluster_alerts']} | "
               f"LOST {a['lost']} DUPLICATES {a['duplicates']} dead-lettered {a['dead_lettered']}")
    r = res["readiness"]["stats"]
    out.append(f"readiness: {r['samples']} samples, {r['ready_samples']} ready | LIES {r['lies']}")
    out.append(f"memory: peak RSS MB {res['memory']['stats']['peak_rss_mb']} (bound {res['memory']['stats']['bound_mb']})")
    out.append(f"redis data loss counted by every replica: {res['detection']['stats']}")
    out.append(f"{'fault':<18}{'start':>8}{'write_s':>9}{'alert_s':>9}")
    t_base = rec.get("t_start", 0)
    for f in res["recovery"]["faults"]:
        ws = "-" if f["write_s"] is None else f"{f['write_s']:.2f}"
        as_ = "-" if f["alert_s"] is None else f"{f['alert_s']:.2f}"
        out.append(f"{f['kind']:<18}{f['start'] - t_base:>8.1f}{ws:>9}{as_:>9}")
    out.append("recovery write_s " + json.dumps(distribution([f["write_s"] for f in res["recovery"]["faults"]])))
    out.append("recovery alert_s " + json.dumps(distribution([f["alert_s"] for f in res["recovery"]["faults"]])))
    for name in ("counts", "alerts", "readiness", "memory", "recovery", "detection", "errors", "deaths"):
        v = res[name]
        out.append(f"check {name}: {'ok' if v['ok'] else 'FAIL'}")
        for x in v["violations"][:5]:
            out.append("    " + json.dumps(x)[:400])
    out.append("RESULT " + ("PASS" if res["ok"] else "FAIL"))
    return out


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        rec = json.load(f)
    res = check_all(rec)
    print("\n".join(summary_lines(rec, res)))
    sys.exit(0 if res["ok"] else 1)
