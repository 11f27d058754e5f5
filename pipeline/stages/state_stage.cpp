#include "pipeline/stages/state_stage.h"

#include <algorithm>

#include "pipeline/core/hash.h"

#include <unordered_map>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/metrics.h"
#include "pipeline/core/time.h"

namespace logsift {

AggregatorOptions aggregator_options(const Config& c) {
  AggregatorOptions o;
  o.series_windows_ms = c.series_windows_ms();
  o.buckets_per_window = c.series_buckets;
  o.max_clusters = static_cast<size_t>(c.aggregator_max_clusters);
  o.max_examples = c.alert_max_examples;
  return o;
}

// Group commit: everything queued meanwhile (up to 64 model batches' lines)
// shares one catalog transaction; no waiting for company.
StateStage::StateStage(const Config& c, ClusterStore* catalog, const WriteGate* gate, AlertSink sink)
    // A group commit takes whatever arrived during the previous one, up to
    // half the lines the pipeline admits: its costs are per commit and per
    // distinct cluster, so its cost a line falls as load (and the group)
    // grows (bench/state_group_bench: 0.55 us a line at 16k lines a group,
    // 0.35 at 64k), which keeps this one thread from capping the cores.
    : BatchingStage("state", static_cast<size_t>(c.mailbox_capacity),
                    std::max(static_cast<size_t>(c.batch_max_lines) * 64, static_cast<size_t>(c.max_inflight_lines) / 2),
                    std::chrono::microseconds(0)),
      catalog_(catalog),
      gate_(gate),
      max_examples_(c.catalog_examples),
      agg_(aggregator_options(c)),
      sink_(std::move(sink)) {
  count_micro_batches_ = false;
  set_tick(std::chrono::seconds(1));
}

void StateStage::set_rules(std::vector<RuleSpec> rules) {
  std::lock_guard lock(mu_);
  agg_.set_rules(std::move(rules));
}

std::vector<std::pair<uint64_t, uint64_t>> StateStage::window_counts(int64_t window_ms) {
  std::lock_guard lock(mu_);
  return agg_.window_counts(window_ms, now_ms());
}

size_t StateStage::tracked_clusters() {
  std::lock_guard lock(mu_);
  return agg_.clusters();
}

std::vector<std::pair<uint64_t, uint64_t>> StateStage::pinned_counts() {
  std::lock_guard lock(mu_);
  return {pinned_counts_.begin(), pinned_counts_.end()};
}

size_t StateStage::tracked_bytes() {
  std::lock_guard lock(mu_);
  return agg_.bytes();
}

std::optional<nlohmann::json> StateStage::series(uint64_t cluster_id, int64_t window_ms) {
  std::lock_guard lock(mu_);
  return agg_.series(cluster_id, window_ms, now_ms());
}

void StateStage::count_evictions_locked() {
  if (agg_.evictions() != evictions_reported_) {
    metrics().aggregator_evictions.inc(agg_.evictions() - evictions_reported_);
    evictions_reported_ = agg_.evictions();
  }
}

void StateStage::observe_remote(const std::vector<CountDelta>& deltas) {
  std::vector<AlertEvent> raised;
  {
    std::lock_guard lock(mu_);
    for (const auto& d : deltas)
      agg_.observe(d.cluster_id, /*is_new=*/false, d.template_text, d.labels, {}, d.ts_ms, &raised, d.count);
    count_evictions_locked();
  }
  emit(raised);
}

void StateStage::emit(std::vector<AlertEvent>& events) {
  if (events.empty()) return;
  metrics().alerts_raised.inc(events.size());
  if (sink_) sink_(std::move(events));
  events.clear();
}

void StateStage::refresh_curation() {
  const int64_t now = now_ms();
  last_curation_refresh_ms_ = now;
  try {
    refresh_curation_();
    curation_failing_ = false;
  } catch (const std::exception& e) {
    // Tried every 250 ms under traffic: while the store is away (Redis
    // down), said when it starts failing and then once a minute.
    if (!curation_failing_ || now - last_curation_error_ms_ >= 60000) {
      spdlog::error("stage {}: reading the curation log: {} (the last one read stays in use)", name(), e.what());
      last_curation_error_ms_ = now;
    }
    curation_failing_ = true;
  }
}

// Merged clusters and value rules: their lines are counted, stored,
// windowed and alerted under the cluster they joined, and replied with its id.
void StateStage::map_to_curated(std::vector<Batch*>& group, const std::shared_ptr<const CurationState>& cur) {
  if (!cur->value_rules.empty()) {
    // Value rules match templates: each (template, cluster) answer is kept
    // until the curation changes.
    if (cur != resolved_under_ || resolved_.size() > 200000) {
      resolved_.clear();
      resolved_under_ = cur;
    }
    for (Batch* b : group)
      for (auto& r : b->records) {
        if (!r.ok()) continue;
        // Keyed by both: a trace's cluster id is its head's template and its frames.
        auto [it, fresh] = resolved_.try_emplace(r.template_id * 0x9E3779B97F4A7C15ULL ^ r.cluster_id, 0);
        if (fresh) it->second = cur->resolve_line(r.cluster_id, r.template_text);
        r.cluster_id = it->second;
      }
  } else if (!cur->merged_into.empty()) {
    for (Batch* b : group)
      for (auto& r : b->records)
        if (r.ok()) r.cluster_id = cur->resolve(r.cluster_id);
  }
  if (!cur->splits.empty()) split_to_parts(group, *cur);
}

// Split clusters: each line whose template has a value at the split's word
// goes to that value's part, with the part's template.
void StateStage::split_to_parts(std::vector<Batch*>& group, const CurationState& cur) {
  if (split_templates_.size() > 100000) split_templates_.clear();
  for (Batch* b : group)
    for (auto& r : b->records) {
      if (!r.ok()) continue;
      const SplitRule* rule = cur.split_of(r.cluster_id);
      if (!rule) continue;
      auto part = split_part(*rule, r.template_text, r.text);
      if (!part) continue;
      const uint64_t template_id = fast_hash64(part->template_text);
      auto [it, fresh] = split_templates_.try_emplace(template_id * 0x9E3779B97F4A7C15ULL ^ part->cluster_id);
      if (fresh)
        it->second = std::make_shared<const TemplateInfo>(
            TemplateInfo{std::move(part->template_text), template_id, part->cluster_id});
      r.set_template(it->second);
      r.cluster_id = cur.resolve(part->cluster_id);  // a part merged into another cluster goes there
    }
}

void StateStage::apply(std::vector<Batch*>& group) {
  // Another replica's curation reaches this one's lines within a quarter of
  // a second under traffic (the tick does it when idle).
  if (refresh_curation_ && now_ms() - last_curation_refresh_ms_ >= 250) refresh_curation();
  // One snapshot for the whole group: the ids it maps and the pins it counts agree.
  const auto cur = curation_ ? curation_->get() : nullptr;
  if (cur) map_to_curated(group, cur);
  size_t clustered = 0;
  for (Batch* b : group)
    for (auto& r : b->records) clustered += r.ok();
  metrics().lines_clustered.inc(clustered);

  std::vector<uint64_t> created;  // clusters this group created
  std::vector<AlertEvent> raised;
  if (catalog_) {
    if (Status st = commit_to_catalog(group, &created, &raised); !st.ok()) return refuse(group, st);
  }
  count_in_aggregator(group, cur.get(), &raised);
  if (publisher_) publish(group);
  // Outside the lock: the sink writes to SQLite. The lines are in the
  // catalog whatever happens here; the new clusters stay alert-pending until
  // the sink returns, so a failed or interrupted outbox write is repaired by
  // replay_pending() at the next start.
  try {
    emit(raised);
  } catch (const std::exception& e) {
    spdlog::error("stage {}: alert sink: {} (new clusters stay pending until the next start)", name(), e.what());
    return;
  }
  if (!created.empty()) {
    try {
      catalog_->mark_alerted(created);
    } catch (const std::exception& e) {
      spdlog::error("stage {}: cannot mark {} new clusters alerted: {}", name(), created.size(), e.what());
    }
  }
}

// The catalog part: one upsert per distinct cluster of the group, in one
// transaction; marks each cluster's first record new or not and collects the
// clusters created (with those a buffered write created late: their
// new_cluster alerts go to *raised).
Status StateStage::commit_to_catalog(std::vector<Batch*>& group, std::vector<uint64_t>* created,
                                     std::vector<AlertEvent>* raised) {
  // Aggregate the group per cluster: one upsert per distinct cluster.
  std::vector<ClusterUpdate> updates;
  std::unordered_map<uint64_t, size_t> index;
  std::vector<std::pair<Record*, size_t>> firsts;  // first record of each cluster in the group
  for (Batch* b : group) {
    for (auto& r : b->records) {
      if (!r.ok()) continue;
      auto [it, inserted] = index.emplace(r.cluster_id, updates.size());
      if (inserted) {
        ClusterUpdate u;
        u.cluster_id = r.cluster_id;
        u.template_id = r.template_id;
        u.template_text = std::string(r.template_text);
        u.first_ms = r.received_ms;
        updates.push_back(std::move(u));
        firsts.emplace_back(&r, it->second);
      }
      ClusterUpdate& u = updates[it->second];
      u.count += 1;
      u.last_ms = std::max(u.last_ms, r.received_ms);
      // The catalog keeps a cluster's first lines only: once this stage has
      // stored that many of it, no copy is made (most lines, on a busy stream).
      if (static_cast<int>(u.examples.size()) < max_examples_ && !examples_full_.count(r.cluster_id))
        u.examples.emplace_back(std::string(r.text), r.labels);
    }
  }
  std::vector<bool> fresh;
  const int64_t t0 = mono_ns();
  // Closed while the cluster-id contract is migrated (pipeline/migrate.h):
  // what would be written now could be lost by the migration's rewrite.
  Status st = gate_ ? gate_->status() : Status();
  if (st.ok()) {
    try {
      st = catalog_->apply(updates, &fresh);
    } catch (const std::exception&) {
      metrics().catalog_errors.inc();
      throw;  // the loop marks the records failed: the caller is told, nothing is silently lost
    }
  }
  if (!st.ok()) {
    metrics().catalog_errors.inc();
    return st;
  }
  metrics().time(StageTimer::kCommit, mono_ns() - t0);
  // Lines stored per cluster, until its examples are full. Bounded:
  // forgetting only costs copies again.
  if (stored_lines_.size() > 1000000) stored_lines_.clear();
  for (const auto& u : updates) {
    if (examples_full_.count(u.cluster_id)) continue;
    uint64_t& n = stored_lines_[u.cluster_id];
    n += u.count;
    if (n >= static_cast<uint64_t>(std::max(max_examples_, 0))) {
      stored_lines_.erase(u.cluster_id);
      if (examples_full_.size() > 1000000) examples_full_.clear();
      examples_full_.insert(u.cluster_id);
    }
  }
  uint64_t new_clusters = 0;
  const bool unchecked = catalog_->last_apply_unchecked();
  for (auto& [rec, idx] : firsts) {
    rec->is_new = fresh[idx];
    rec->new_unknown = unchecked;
    new_clusters += fresh[idx];
    if (fresh[idx]) created->push_back(rec->cluster_id);
  }
  late_new(created, raised);
  if (after_commit_ && !created->empty()) after_commit_();
  metrics().new_clusters.inc(new_clusters);
  return {};
}

// The aggregator part: every line into the windows and the alert rules.
void StateStage::count_in_aggregator(std::vector<Batch*>& group, const CurationState* cur,
                                     std::vector<AlertEvent>* raised) {
  const bool pins = cur && !cur->pinned.empty();
  std::lock_guard lock(mu_);
  for (Batch* b : group)
    for (const auto& r : b->records) {
      if (!r.ok()) continue;
      if (pins && cur->pinned.count(r.cluster_id)) ++pinned_counts_[r.cluster_id];
      agg_.observe(r.cluster_id, r.is_new, r.template_text, r.labels, r.text, r.received_ms, raised);
    }
  count_evictions_locked();
}

void StateStage::publish(const std::vector<Batch*>& group) {
  // One delta per (cluster, labels) of the group.
  std::vector<CountDelta> deltas;
  std::unordered_map<uint64_t, std::vector<size_t>> by_cluster;
  for (const Batch* b : group)
    for (const auto& r : b->records) {
      if (!r.ok()) continue;
      auto& idx = by_cluster[r.cluster_id];
      CountDelta* d = nullptr;
      for (size_t i : idx)
        if (deltas[i].labels == r.labels) {
          d = &deltas[i];
          break;
        }
      if (!d) {
        idx.push_back(deltas.size());
        d = &deltas.emplace_back();
        d->cluster_id = r.cluster_id;
        d->template_text = std::string(r.template_text);
        d->labels = r.labels;
      }
      ++d->count;
      d->ts_ms = std::max(d->ts_ms, r.received_ms);
    }
  if (!deltas.empty()) publisher_(std::move(deltas));
}

void StateStage::late_new(std::vector<uint64_t>* created, std::vector<AlertEvent>* raised) {
  // Clusters whose buffered catalog writes have just landed and created them.
  auto late = catalog_->take_created();
  if (late.empty()) return;
  std::lock_guard lock(mu_);
  for (const auto& p : late) {
    agg_.observe(p.cluster_id, /*is_new=*/true, p.template_text, p.labels, p.example, p.first_seen_ms, raised,
                 /*count=*/0);
    created->push_back(p.cluster_id);
  }
  metrics().new_clusters.inc(late.size());
}

size_t StateStage::replay_pending() {
  if (!catalog_) return 0;
  auto pending = catalog_->pending_new_clusters();
  if (pending.empty()) return 0;
  std::vector<AlertEvent> raised;
  {
    std::lock_guard lock(mu_);
    for (const auto& p : pending)
      agg_.observe(p.cluster_id, /*is_new=*/true, p.template_text, p.labels, p.example, p.first_seen_ms, &raised);
    count_evictions_locked();
  }
  emit(raised);  // throws: they stay pending
  std::vector<uint64_t> ids;
  for (const auto& p : pending) ids.push_back(p.cluster_id);
  catalog_->mark_alerted(ids);
  return pending.size();
}

void StateStage::process_group(std::vector<Batch*>& group) {
  const int64_t t0 = mono_ns();
  apply(group);
  metrics().time(StageTimer::kState, mono_ns() - t0);
}

void StateStage::refuse(std::vector<Batch*>& group, const Status& why) {
  // Refused, not failed: nothing of the group is stored or acknowledged; the
  // caller is told (503 for kUnavailable: retry).
  const RecordFailure failure =
      why.code() == StatusCode::kUnavailable ? RecordFailure::kStoreUnavailable : RecordFailure::kInternal;
  for (auto* b : group) {
    b->refusal = why;
    for (auto& r : b->records)
      if (r.ok()) r.fail(failure, why.reason());
  }
}

void StateStage::on_tick() {
  if (refresh_curation_) refresh_curation();
  std::vector<AlertEvent> raised;
  if (catalog_) {
    // Writes buffered while the store was unreachable, with no traffic
    // to carry them: retried here.
    try {
      catalog_->flush();
      std::vector<uint64_t> created;
      late_new(&created, &raised);
      if (!created.empty()) {
        emit(raised);
        catalog_->mark_alerted(created);
      }
    } catch (const std::exception& e) {
      spdlog::error("stage {}: delayed catalog writes: {}", name(), e.what());
    }
    raised.clear();
  }
  {
    std::lock_guard lock(mu_);
    agg_.tick(now_ms(), &raised);
    count_evictions_locked();
  }
  try {
    emit(raised);
  } catch (const std::exception& e) {
    spdlog::error("aggregator: alert sink: {}", e.what());
  }
}

}  // namespace logsift
