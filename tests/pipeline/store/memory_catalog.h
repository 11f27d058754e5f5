// A catalog in memory, for the tests of what is built on the store
// interfaces (the migration's phases, the migrator): both parts of a back
// end (pipeline/store/catalog_store.h), with the SQLite catalog's semantics
// where the tests look (counts add up, the first examples are kept, an old
// id answers with what it became). Thread-safe.
#pragma once

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include "pipeline/store/catalog_store.h"

namespace logsift::test {

class MemoryCatalog final : public Catalog {
 public:
  explicit MemoryCatalog(int max_examples = 3) : max_examples_(max_examples) {}

  // ClusterStore
  Status apply(const std::vector<ClusterUpdate>& updates, std::vector<bool>* created) override {
    std::lock_guard lock(mu_);
    created->assign(updates.size(), false);
    for (size_t i = 0; i < updates.size(); ++i) {
      const auto& u = updates[i];
      auto [it, fresh] = clusters_.try_emplace(u.cluster_id);
      StoredCluster& c = it->second;
      if (fresh) {
        c.cluster_id = u.cluster_id;
        c.template_id = u.template_id;
        c.template_text = u.template_text;
        c.first_ms = u.first_ms;
        c.alert_pending = true;
      }
      (*created)[i] = fresh;
      c.count += u.count;
      c.last_ms = std::max(c.last_ms, u.last_ms);
      for (const auto& [text, labels] : u.examples)
        if (static_cast<int>(c.examples.size()) < max_examples_) c.examples.push_back({text, "{}", u.last_ms});
    }
    return {};
  }
  ClusterPage list(const ClusterQuery& q) override {
    std::lock_guard lock(mu_);
    ClusterPage p;
    p.total = static_cast<int64_t>(clusters_.size());
    int64_t i = 0;
    for (const auto& [id, c] : clusters_)
      if (i++ >= q.offset && static_cast<int64_t>(p.rows.size()) < q.limit) p.rows.push_back(row(c));
    return p;
  }
  std::vector<ClusterRow> rows(const std::vector<uint64_t>& ids) override {
    std::lock_guard lock(mu_);
    std::vector<ClusterRow> out;
    for (uint64_t id : ids)
      if (auto it = clusters_.find(id); it != clusters_.end()) out.push_back(row(it->second));
    return out;
  }
  std::optional<ClusterDetail> get(uint64_t id) override {
    std::lock_guard lock(mu_);
    auto it = clusters_.find(id);
    if (it == clusters_.end()) return std::nullopt;
    return ClusterDetail{row(it->second), it->second.examples};
  }
  std::vector<uint64_t> with_label(const std::string&, const std::string&) override { return {}; }
  int64_t size() const override {
    std::lock_guard lock(mu_);
    return static_cast<int64_t>(clusters_.size());
  }
  std::vector<PendingNewCluster> pending_new_clusters() override {
    std::lock_guard lock(mu_);
    std::vector<PendingNewCluster> out;
    for (const auto& [id, c] : clusters_)
      if (c.alert_pending) out.push_back({id, c.template_text, c.first_ms, c.examples.empty() ? "" : c.examples[0].text, {}});
    return out;
  }
  void mark_alerted(const std::vector<uint64_t>& ids) override {
    std::lock_guard lock(mu_);
    for (uint64_t id : ids)
      if (auto it = clusters_.find(id); it != clusters_.end()) it->second.alert_pending = false;
  }
  void flush() override {}
  std::vector<PendingNewCluster> take_created() override { return {}; }
  void checkpoint() override {}
  std::string health() const override { return {}; }

  // ContractStore
  std::string stored_digest() override {
    std::lock_guard lock(mu_);
    return digest_;
  }
  void record_contract(const std::string& contract_json, const std::string& digest) override {
    std::lock_guard lock(mu_);
    contract_ = contract_json;
    digest_ = digest;
    history_.contracts.push_back({digest, "now"});
  }
  ContractHistory contract_history() override {
    std::lock_guard lock(mu_);
    return history_;
  }
  void serve_contract(const std::string&) override {}
  // The migration lease: another replica's while held_by_other is set.
  bool lock_migration(int64_t) override {
    ++lock_attempts;
    return !held_by_other.load();
  }
  void unlock_migration() override {}
  void begin_migration(const std::string&) override {}
  std::vector<StoredCluster> read_all() override {
    std::lock_guard lock(mu_);
    std::vector<StoredCluster> out;
    for (const auto& [id, c] : clusters_) out.push_back(c);
    return out;
  }
  void commit_migration(const MigrationPlan& plan) override {
    std::lock_guard lock(mu_);
    clusters_.clear();
    for (const auto& c : plan.clusters) clusters_[c.cluster_id] = c;
    for (const auto& m : plan.map) map_.emplace(m.old_id, m);
    contract_ = plan.contract;
    digest_ = plan.digest;
    history_.contracts.push_back({plan.digest, "now"});
    history_.migrations.push_back(plan.report);
  }
  std::vector<IdMapping> migrated(uint64_t old_id) override {
    std::lock_guard lock(mu_);
    std::vector<IdMapping> out;
    for (auto [it, end] = map_.equal_range(old_id); it != end; ++it) out.push_back(it->second);
    std::sort(out.begin(), out.end(), [](const IdMapping& a, const IdMapping& b) { return a.share > b.share; });
    return out;
  }

  // CurationStore
  std::vector<std::string> curation_log() override {
    std::lock_guard lock(mu_);
    return curation_;
  }
  int64_t curation_size() override {
    std::lock_guard lock(mu_);
    return static_cast<int64_t>(curation_.size());
  }
  bool append_curation(int64_t expected, const std::string& text) override {
    std::lock_guard lock(mu_);
    if (static_cast<int64_t>(curation_.size()) != expected) return false;
    curation_.push_back(text);
    return true;
  }

  std::atomic<bool> held_by_other{false};
  std::atomic<int> lock_attempts{0};

 private:
  static ClusterRow row(const StoredCluster& c) {
    return {c.cluster_id, c.template_id, c.template_text, c.count, c.first_ms, c.last_ms};
  }

  std::vector<std::string> curation_;
  mutable std::mutex mu_;
  int max_examples_;
  std::map<uint64_t, StoredCluster> clusters_;
  std::multimap<uint64_t, IdMapping> map_;
  std::string contract_, digest_;
  ContractHistory history_;
};

}  // namespace logsift::test
