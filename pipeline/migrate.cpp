#include "pipeline/migrate.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <unordered_map>

#include <spdlog/spdlog.h>

#include "lsh/lsh.h"
#include "pipeline/core/hash.h"
#include "pipeline/core/thread_name.h"
#include "pipeline/core/time.h"
#include "pipeline/pipeline.h"

namespace logsift {

using json = nlohmann::json;

namespace {

int64_t ms_since(std::chrono::steady_clock::time_point t0) {
  return static_cast<int64_t>(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
}

}  // namespace

Contract contract_of(const Pipeline& pipeline) {
  const IdContract ids = pipeline.contract();
  return {ids.to_json(), ids.digest()};
}

ContractCheck check_contract(const std::string& stored_digest, const ContractHistory& history, int64_t clusters,
                             const Contract& current) {
  if (stored_digest == current.digest) return ContractCheck::kSame;
  if (stored_digest.empty() && clusters == 0) return ContractCheck::kFresh;
  // This contract served the store before the one it has now: a replica
  // of the release being replaced (or a rollback). Migrating back
  // automatically would let two releases flip the store to and fro.
  for (const auto& c : history.contracts)
    if (c.digest == current.digest) return ContractCheck::kNewer;
  return ContractCheck::kMigrate;
}

std::vector<std::vector<DerivedId>> derive_ids(Pipeline& ids, const std::vector<StoredCluster>& old,
                                               const MigrationProgress& progress) {
  // Every example line through the new contract, in chunks (one batch each).
  std::vector<std::vector<DerivedId>> derived(old.size());
  constexpr size_t kChunk = 4096;
  std::vector<std::string> texts;
  std::vector<std::pair<size_t, size_t>> where;  // (cluster, example) of each text
  size_t clusters_done = 0;
  auto run = [&] {
    if (texts.empty()) return;
    Results res = ids.run(std::move(texts));
    for (size_t i = 0; i < res.size(); ++i) {
      const Record& r = res[i];
      DerivedId d;
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
    clusters_done = c + 1;
    if (texts.size() >= kChunk) run();
  }
  run();
  return derived;
}

Regrouped regroup(const std::vector<StoredCluster>& old, const std::vector<std::vector<DerivedId>>& derived) {
  // Each new cluster gathers the examples (and the share of each old
  // cluster's count) that went to it.
  Regrouped g;
  std::unordered_map<uint64_t, size_t> at;  // new id -> g.clusters index
  auto cluster_for = [&](uint64_t id, const StoredCluster& like, const DerivedId* d) -> StoredCluster& {
    auto [it, added] = at.emplace(id, g.clusters.size());
    if (added) {
      StoredCluster n;
      n.cluster_id = id;
      n.template_id = d ? d->template_id : like.template_id;
      n.template_text = d ? d->template_text : like.template_text;
      n.first_ms = like.first_ms;
      n.last_ms = like.last_ms;
      g.clusters.push_back(std::move(n));
      g.joined.emplace_back();
    }
    return g.clusters[it->second];
  };
  auto joined_of = [&](uint64_t id) -> std::vector<std::pair<uint64_t, size_t>>& { return g.joined[at.at(id)]; };
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
      joined_of(o.cluster_id).emplace_back(o.cluster_id, o.examples.size());
      ++g.kept;
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
      const DerivedId& d = derived[c][v.front()];
      StoredCluster& n = cluster_for(id, o, &d);
      n.count += counts[id];
      n.first_ms = std::min(n.first_ms, id == order.front() ? o.first_ms : o.examples[v.front()].ts_ms);
      n.last_ms = std::max(n.last_ms, o.last_ms);
      n.alert_pending = n.alert_pending || o.alert_pending;
      n.examples.reserve(n.examples.size() + v.size());
      for (size_t e : v) n.examples.push_back(o.examples[e]);
      joined_of(id).emplace_back(o.cluster_id, v.size());
      if (id != o.cluster_id || to_ids.size() > 1)
        g.map.push_back({o.cluster_id, id, static_cast<double>(v.size()) / static_cast<double>(derived_n)});
    }
    if (to_ids.size() > 1) {
      ++g.split;
      g.splits.emplace_back(o.cluster_id, order);
    } else if (order.front() == o.cluster_id) {
      ++g.unchanged;
    } else {
      ++g.mapped;
    }
  }
  return g;
}

void keep_examples(Regrouped* g, int max_examples) {
  for (size_t k = 0; k < g->clusters.size(); ++k) {
    StoredCluster& n = g->clusters[k];
    const auto& per = g->joined[k];
    // A merged cluster keeps examples of every cluster it joined (taken in
    // turn, up to kMaxMergedExamples), so that a later contract that tells
    // them apart again can split it back; otherwise the oldest, as the
    // catalog keeps the first of a cluster's life.
    const size_t keep = std::max<size_t>(static_cast<size_t>(std::max(max_examples, 0)),
                                         std::min(per.size(), kMaxMergedExamples));
    if (per.size() > 1 && n.examples.size() > keep) {
      std::vector<StoredExample> picked;
      std::vector<size_t> start(per.size(), 0);
      for (size_t i = 1; i < per.size(); ++i) start[i] = start[i - 1] + per[i - 1].second;
      for (size_t round = 0; picked.size() < keep; ++round) {
        bool any = false;
        for (size_t i = 0; i < per.size() && picked.size() < keep; ++i)
          if (round < per[i].second) {
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
}

json migration_report(const Regrouped& g, size_t clusters_before, size_t examples, const std::string& from_digest,
                      const std::string& to_digest) {
  // The first cases of each kind, by id, in the report (for review).
  constexpr size_t kReportedCases = 100;
  json splits = json::array(), merges = json::array();
  for (const auto& [from, into] : g.splits) {
    if (splits.size() >= kReportedCases) break;
    json to = json::array();
    for (uint64_t id : into) to.push_back(lsh::format_id(id));
    splits.push_back({{"from", lsh::format_id(from)}, {"into", to}});
  }
  size_t merged = 0, merged_from = 0;
  for (size_t k = 0; k < g.clusters.size(); ++k) {
    const auto& per = g.joined[k];
    if (per.size() <= 1) continue;
    ++merged;
    merged_from += per.size();
    if (merges.size() < kReportedCases) {
      json from = json::array();
      for (size_t i = 0; i < per.size() && i < 16; ++i) from.push_back(lsh::format_id(per[i].first));
      merges.push_back({{"into", lsh::format_id(g.clusters[k].cluster_id)}, {"from", from}});
    }
  }
  return {{"from", from_digest.empty() ? json(nullptr) : json(from_digest)},
          {"to", to_digest},
          {"clusters_before", clusters_before},
          {"clusters_after", g.clusters.size()},
          {"unchanged", g.unchanged},
          {"mapped", g.mapped},
          {"merged", merged},
          {"merged_from", merged_from},
          {"split", g.split},
          {"splits", splits},
          {"merges", merges},
          {"kept_without_examples", g.kept},
          {"examples_reclustered", examples}};
}

MigrationPlan plan_migration(Pipeline& ids, const std::vector<StoredCluster>& old, const std::string& from_digest,
                             const Contract& to, int max_examples, const MigrationProgress& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto derived = derive_ids(ids, old, progress);
  size_t examples = 0;
  for (const auto& c : old) examples += c.examples.size();
  Regrouped g = regroup(old, derived);
  keep_examples(&g, max_examples);
  json report = migration_report(g, old.size(), examples, from_digest, to.digest);
  report["plan_ms"] = ms_since(t0);
  MigrationPlan plan;
  plan.clusters = std::move(g.clusters);
  plan.map = std::move(g.map);
  plan.contract = to.json.dump();
  plan.digest = to.digest;
  plan.report = report.dump();
  if (progress) progress(old.size(), old.size());
  return plan;
}

json migrate_catalog(Pipeline& ids, ContractStore& store, const std::string& from_digest, int max_examples,
                     bool dry_run, const MigrationProgress& progress, MigrationPlan* plan_out) {
  const auto t0 = std::chrono::steady_clock::now();
  const Contract to = contract_of(ids);
  if (!dry_run) store.begin_migration(to.digest);
  const std::vector<StoredCluster> old = store.read_all();
  MigrationPlan plan = plan_migration(ids, old, from_digest, to, max_examples, progress);
  json report = json::parse(plan.report);
  report["dry_run"] = dry_run;
  report["at"] = format_time_ms(now_ms());
  if (!dry_run) {
    const auto c0 = std::chrono::steady_clock::now();
    plan.report = report.dump();  // what the store keeps
    store.commit_migration(plan);
    report["commit_ms"] = ms_since(c0);
  }
  report["total_ms"] = ms_since(t0);
  if (plan_out) *plan_out = std::move(plan);
  return report;
}

namespace {

// Why writes are refused when the store moved on to a later contract.
std::string newer_store_message(const std::string& stored, const std::string& ours) {
  return "the catalog is under cluster-id contract " + stored + ", which replaced this release's " + ours +
         ": writes are refused so that ids of two contracts never mix. Upgrade this replica, or move the store back "
         "explicitly with `logsift migrate` and this release's flags";
}

// A digest the store settled on ("" while it reads "migrating:<digest>").
std::string settled(const std::string& digest) { return digest.rfind("migrating:", 0) == 0 ? std::string() : digest; }

}  // namespace

ContractMigrator::ContractMigrator(const Config& config, ClusterStore& clusters, ContractStore& store)
    : config_(config), clusters_(clusters), store_(store) {}

ContractMigrator::~ContractMigrator() { stop(); }

void ContractMigrator::refuse(WriteGate::State kind, const std::string& why) {
  spdlog::error("catalog: {}", why);
  gate_.close(kind, why);
}

bool ContractMigrator::check(Contract contract) {
  contract_ = std::move(contract);
  store_.serve_contract(contract_.digest);
  seen_ = store_.stored_digest();
  switch (check_contract(seen_, store_.contract_history(), clusters_.size(), contract_)) {
    case ContractCheck::kSame:
      return false;
    case ContractCheck::kFresh:
      store_.record_contract(contract_.json.dump(), contract_.digest);
      return false;
    case ContractCheck::kNewer:
      refuse(WriteGate::State::kOtherContract, newer_store_message(seen_, contract_.digest));
      return false;
    case ContractCheck::kMigrate:
      break;
  }
  spdlog::warn("catalog: written under cluster-id contract {}, served under {}: migrating {} clusters (writes wait; "
               "reads go on)",
               seen_.empty() ? std::string("(not recorded)") : seen_, contract_.digest, clusters_.size());
  gate_.close(WriteGate::State::kMigrating, "migrating cluster ids to contract " + contract_.digest + ": starting");
  return true;
}

void ContractMigrator::start(std::function<void()> then) {
  thread_ = std::thread([this, then = std::move(then)] {
    set_thread_name("ls-migrate");
    run(then);
  });
}

void ContractMigrator::stop() {
  {
    std::lock_guard lock(stop_mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool ContractMigrator::stopped_within(std::chrono::milliseconds span) {
  std::unique_lock lock(stop_mu_);
  return stop_cv_.wait_for(lock, span, [this] { return stop_; });
}

void ContractMigrator::run(const std::function<void()>& then) {
  using State = WriteGate::State;
  const std::string doing = "migrating cluster ids to contract " + contract_.digest;
  try {
    // Replicas sharing a store: one migrates, the others wait for it (its
    // lease is renewed while it works; a dead one's expires).
    while (!store_.lock_migration(60000)) {
      gate_.close(State::kMigrating, doing + ": another replica is migrating the store; waiting");
      if (stopped_within(std::chrono::seconds(1))) return;
    }
    const std::string from = store_.stored_digest();
    const auto check = check_contract(from, store_.contract_history(), clusters_.size(), contract_);
    const std::string now = settled(from);
    if (check == ContractCheck::kMigrate && now != settled(seen_) && !now.empty()) {
      // Another replica moved the store to a third contract while this one
      // waited: two releases must not take turns rewriting it.
      store_.unlock_migration();
      refuse(State::kOtherContract, "the catalog was migrated to cluster-id contract " + now +
                                        " by another replica while this one (contract " + contract_.digest +
                                        ") waited: writes are refused so that ids of two contracts never mix");
      return;
    }
    if (check == ContractCheck::kNewer) {
      store_.unlock_migration();
      refuse(State::kOtherContract, newer_store_message(from, contract_.digest));
      return;
    }
    if (check == ContractCheck::kMigrate) {
      Pipeline ids(config_, nullptr);  // the same contract, no catalog
      const auto report =
          migrate_catalog(ids, store_, from, config_.catalog_examples, /*dry_run=*/false,
                          [&](size_t done, size_t total) {
                            store_.lock_migration(60000);  // renewed while it works
                            gate_.close(State::kMigrating, doing + ": " + std::to_string(done) + " of " +
                                                               std::to_string(total) + " clusters");
                          });
      ids.stop();
      spdlog::warn("catalog: migrated to contract {}: {}", contract_.digest, report.dump());
    } else {
      spdlog::info("catalog: another replica migrated the store to contract {}", contract_.digest);
    }
    store_.unlock_migration();
    then();
    gate_.open();
  } catch (const std::exception& e) {
    // Nothing was changed (one transaction): the old catalog stays whole.
    try {
      store_.unlock_migration();
    } catch (const std::exception&) {  // the lock expires by itself
    }
    spdlog::critical("catalog: migration to contract {} failed: {}; writes stay refused. Restart to try again, or "
                     "serve with the earlier release's flags",
                     contract_.digest, e.what());
    gate_.close(State::kMigrationFailed, std::string("migration failed: ") + e.what());
  }
}

}  // namespace logsift
