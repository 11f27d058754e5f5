#include "pipeline/migrate.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <unordered_map>

#include "lsh/lsh.h"
#include "pipeline/core/hash.h"
#include "pipeline/core/time.h"
#include "pipeline/pipeline.h"

namespace logsift {

using json = nlohmann::json;

Contract contract_of(const Pipeline& pipeline) {
  Contract c;
  c.json = pipeline.contract();
  c.digest = lsh::format_id(fast_hash64(c.json.dump()));
  return c;
}

ContractCheck check_contract(const std::string& stored, const json& history, int64_t clusters,
                             const Contract& current, std::string* stored_digest) {
  stored_digest->clear();
  if (!stored.empty()) {
    json s = json::parse(stored, nullptr, false);
    if (s.is_object()) *stored_digest = s.value("digest", std::string());
  }
  if (*stored_digest == current.digest) return ContractCheck::kSame;
  if (stored_digest->empty() && clusters == 0) return ContractCheck::kFresh;
  // This contract served the store before the one it has now: a replica
  // of the release being replaced (or a rollback). Migrating back
  // automatically would let two releases flip the store to and fro.
  if (history.is_object() && history.contains("contracts"))
    for (const auto& c : history["contracts"])
      if (c.is_object() && c.value("digest", std::string()) == current.digest) return ContractCheck::kNewer;
  return ContractCheck::kMigrate;
}

MigrationPlan plan_migration(Pipeline& ids, const std::vector<StoredCluster>& old, const std::string& from_digest,
                             const Contract& to, int max_examples, const MigrationProgress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  struct Derived {
    uint64_t id = 0, template_id = 0;
    std::string template_text;
    bool ok = false;
  };
  // Every example line through the new contract, in chunks (one batch each).
  std::vector<std::vector<Derived>> derived(old.size());
  size_t examples = 0;
  constexpr size_t kChunk = 4096;
  std::vector<std::string> texts;
  std::vector<std::pair<size_t, size_t>> where;  // (cluster, example) of each text
  size_t clusters_done = 0;
  auto run = [&] {
    if (texts.empty()) return;
    Results res = ids.run(std::move(texts));
    for (size_t i = 0; i < res.size(); ++i) {
      const Record& r = res[i];
      Derived d;
      d.ok = r.ok();
      if (d.ok) {
        d.id = r.cluster_id;
        d.template_id = r.template_id;
        d.template_text = std::string(r.template_text);
      }
      derived[where[i].first][where[i].second] = std::move(d);
    }
    texts.clear();
    where.clear();
    if (progress) progress(clusters_done, old.size());
  };
  for (size_t c = 0; c < old.size(); ++c) {
    derived[c].resize(old[c].examples.size());
    for (size_t e = 0; e < old[c].examples.size(); ++e) {
      texts.push_back(old[c].examples[e].text);
      where.emplace_back(c, e);
    }
    examples += old[c].examples.size();
    clusters_done = c + 1;
    if (texts.size() >= kChunk) run();
  }
  run();

  // Group: each new cluster gathers the examples (and the share of each old
  // cluster's count) that went to it.
  MigrationPlan plan;
  std::unordered_map<uint64_t, size_t> at;  // new id -> plan.clusters index
  std::unordered_map<uint64_t, size_t> sources;  // new id -> old clusters that went to it
  // new id -> how many examples each source brought, in the order appended
  std::unordered_map<uint64_t, std::vector<size_t>> source_examples;
  size_t unchanged = 0, changed = 0, split = 0, kept = 0;
  // The first cases of each kind, by id, in the report (for review).
  constexpr size_t kReportedCases = 100;
  json splits = json::array(), merges = json::array();
  std::unordered_map<uint64_t, std::vector<uint64_t>> merged_ids;  // new id -> old ids
  auto cluster_for = [&](uint64_t id, const StoredCluster& like, const Derived* d) -> StoredCluster& {
    auto [it, added] = at.emplace(id, plan.clusters.size());
    if (added) {
      StoredCluster n;
      n.cluster_id = id;
      n.template_id = d ? d->template_id : like.template_id;
      n.template_text = d ? d->template_text : like.template_text;
      n.first_ms = like.first_ms;
      n.last_ms = like.last_ms;
      plan.clusters.push_back(std::move(n));
    }
    return plan.clusters[it->second];
  };
  for (size_t c = 0; c < old.size(); ++c) {
    const StoredCluster& o = old[c];
    // new id -> the examples that went there, in order.
    std::map<uint64_t, std::vector<size_t>> to_ids;
    std::vector<uint64_t> order;  // new ids by their first example
    for (size_t e = 0; e < o.examples.size(); ++e) {
      if (!derived[c][e].ok) continue;
      auto& v = to_ids[derived[c][e].id];
      if (v.empty()) order.push_back(derived[c][e].id);
      v.push_back(e);
    }
    if (to_ids.empty()) {
      // Nothing to re-derive from: kept under its id.
      StoredCluster& n = cluster_for(o.cluster_id, o, nullptr);
      n.count += o.count;
      n.first_ms = std::min(n.first_ms, o.first_ms);
      n.last_ms = std::max(n.last_ms, o.last_ms);
      n.alert_pending = n.alert_pending || o.alert_pending;
      for (const auto& e : o.examples) n.examples.push_back(e);
      source_examples[o.cluster_id].push_back(o.examples.size());
      ++sources[o.cluster_id];
      ++kept;
      continue;
    }
    size_t derived_n = 0;
    for (const auto& [id, v] : to_ids) derived_n += v.size();
    // Counts split by examples, the remainder to the largest share, so the
    // total is exact.
    uint64_t given = 0;
    uint64_t largest = order.front();
    for (const auto& [id, v] : to_ids)
      if (v.size() > to_ids[largest].size()) largest = id;
    std::map<uint64_t, uint64_t> counts;
    for (const auto& [id, v] : to_ids) {
      counts[id] = o.count * v.size() / derived_n;
      given += counts[id];
    }
    counts[largest] += o.count - given;
    for (uint64_t id : order) {
      const auto& v = to_ids[id];
      const Derived& d = derived[c][v.front()];
      StoredCluster& n = cluster_for(id, o, &d);
      n.count += counts[id];
      n.first_ms = std::min(n.first_ms, id == order.front() ? o.first_ms : o.examples[v.front()].ts_ms);
      n.last_ms = std::max(n.last_ms, o.last_ms);
      n.alert_pending = n.alert_pending || o.alert_pending;
      n.examples.reserve(n.examples.size() + v.size());
      for (size_t e : v) n.examples.push_back(o.examples[e]);
      source_examples[id].push_back(v.size());
      ++sources[id];
      if (merged_ids[id].size() < 16) merged_ids[id].push_back(o.cluster_id);
      if (id != o.cluster_id || to_ids.size() > 1)
        plan.map.push_back({o.cluster_id, id, static_cast<double>(v.size()) / static_cast<double>(derived_n)});
    }
    if (to_ids.size() > 1) {
      ++split;
      if (splits.size() < kReportedCases) {
        json into = json::array();
        for (uint64_t id : order) into.push_back(lsh::format_id(id));
        splits.push_back({{"from", lsh::format_id(o.cluster_id)}, {"into", into}});
      }
    } else if (order.front() == o.cluster_id) {
      ++unchanged;
    } else {
      ++changed;
    }
  }
  size_t merged = 0, merged_from = 0;
  for (auto& n : plan.clusters) {
    if (sources[n.cluster_id] > 1) {
      ++merged;
      merged_from += sources[n.cluster_id];
      if (merges.size() < kReportedCases) {
        json from = json::array();
        for (uint64_t id : merged_ids[n.cluster_id]) from.push_back(lsh::format_id(id));
        merges.push_back({{"into", lsh::format_id(n.cluster_id)}, {"from", from}});
      }
    }
    // A merged cluster keeps examples of every cluster it joined (taken in
    // turn, up to kMaxMergedExamples), so that a later contract that tells
    // them apart again can split it back; otherwise the oldest, as the
    // catalog keeps the first of a cluster's life.
    const auto& per = source_examples[n.cluster_id];
    const size_t keep = std::max<size_t>(static_cast<size_t>(std::max(max_examples, 0)),
                                         std::min(per.size(), kMaxMergedExamples));
    if (per.size() > 1 && n.examples.size() > keep) {
      std::vector<StoredExample> picked;
      std::vector<size_t> start(per.size(), 0);
      for (size_t i = 1; i < per.size(); ++i) start[i] = start[i - 1] + per[i - 1];
      for (size_t round = 0; picked.size() < keep; ++round) {
        bool any = false;
        for (size_t i = 0; i < per.size() && picked.size() < keep; ++i)
          if (round < per[i]) {
            picked.push_back(std::move(n.examples[start[i] + round]));
            any = true;
          }
        if (!any) break;
      }
      n.examples = std::move(picked);
    }
    std::stable_sort(n.examples.begin(), n.examples.end(),
                     [](const StoredExample& a, const StoredExample& b) { return a.ts_ms < b.ts_ms; });
    if (n.examples.size() > keep) n.examples.resize(keep);
  }
  plan.contract = to.json.dump();
  plan.digest = to.digest;
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  plan.report = json{{"from", from_digest.empty() ? json(nullptr) : json(from_digest)},
                     {"to", to.digest},
                     {"clusters_before", old.size()},
                     {"clusters_after", plan.clusters.size()},
                     {"unchanged", unchanged},
                     {"mapped", changed},
                     {"merged", merged},
                     {"merged_from", merged_from},
                     {"split", split},
                     {"splits", splits},
                     {"merges", merges},
                     {"kept_without_examples", kept},
                     {"examples_reclustered", examples},
                     {"plan_ms", static_cast<int64_t>(ms)}}
                    .dump();
  if (progress) progress(old.size(), old.size());
  return plan;
}

json migrate_catalog(const Config& config, Catalog& catalog, const std::string& from_digest, bool dry_run,
                     const MigrationProgress& progress, MigrationPlan* plan_out) {
  const auto t0 = std::chrono::steady_clock::now();
  Pipeline ids(config, nullptr);
  const Contract to = contract_of(ids);
  if (!dry_run) catalog.begin_migration(to.digest);
  const std::vector<StoredCluster> old = catalog.read_all();
  MigrationPlan plan = plan_migration(ids, old, from_digest, to, config.catalog_examples, progress);
  ids.stop();
  json report = json::parse(plan.report);
  report["dry_run"] = dry_run;
  report["at"] = format_time_ms(now_ms());
  if (!dry_run) {
    const auto c0 = std::chrono::steady_clock::now();
    plan.report = report.dump();  // what the store keeps
    catalog.commit_migration(plan);
    report["commit_ms"] =
        static_cast<int64_t>(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count());
  }
  report["total_ms"] =
      static_cast<int64_t>(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  if (plan_out) *plan_out = std::move(plan);
  return report;
}

}  // namespace logsift
