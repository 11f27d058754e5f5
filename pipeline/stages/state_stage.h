// The state stage: the one thread that owns what outlives a line, in two
// parts: the catalog (counts, first/last seen, examples; SQLite or Redis:
// commit_to_catalog) and the aggregator (sliding-window counts, alert rules:
// count_in_aggregator). It runs the batching loop of the model stages
// (BatchingStage) as a group commit: every batch queued shares one catalog
// transaction (a lone request commits at once), then the aggregator, then
// each batch's completion. A batch's reply is therefore sent only once its
// lines are durable in the catalog. It ticks once a second so windows close
// and incidents resolve with no traffic.
//
// The aggregator core is single-threaded; this stage serialises access to it
// (the HTTP series reads and rule updates take the same mutex, never for long).
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include <mutex>
#include <optional>

#include <nlohmann/json_fwd.hpp>

#include "config/config.h"
#include "pipeline/core/stage.h"
#include "pipeline/store/curation.h"
#include "pipeline/stages/aggregator.h"
#include "pipeline/store/cluster_store.h"
#include "pipeline/store/write_gate.h"

namespace logsift {


// Called outside the stage's lock with the alerts raised: on the state
// thread, or (store: redis) on the thread that folds in other replicas' counts.
using AlertSink = std::function<void(std::vector<AlertEvent>&&)>;

// Takes the deltas of one applied group (state thread; must not block long).
using CountPublisher = std::function<void(std::vector<CountDelta>&&)>;

class StateStage final : public BatchingStage {
 public:
  // catalog may be null: then only counts (metrics) and the aggregator.
  // gate (may be null: always open) is consulted before each group commit.
  StateStage(const Config& c, ClusterStore* catalog, const WriteGate* gate, AlertSink sink);

  void set_rules(std::vector<RuleSpec> rules);
  // Before traffic: where this replica's counts go (store: redis).
  void set_publisher(CountPublisher p) { publisher_ = std::move(p); }
  // A test-only seam: called on the state thread after a catalog commit that
  // created clusters, before their new_cluster alerts reach the sink (the
  // crash-between-commits test ends the process there). Set before traffic;
  // never set in production.
  void set_after_commit_hook(std::function<void()> hook) { after_commit_ = std::move(hook); }
  // Before traffic: the curation whose merges send a line to the cluster it
  // joined (before the catalog, the windows and the alerts see it), and how
  // to re-read it (at most every 250 ms under traffic, and each tick:
  // another replica's edits reach the next line within a second).
  void set_curation(const Curation* curation, std::function<void()> refresh) {
    curation_ = curation;
    refresh_curation_ = std::move(refresh);
  }
  // Another replica's counts: into the windows and rules, alerts to the sink
  // (any thread).
  void observe_remote(const std::vector<CountDelta>& deltas);
  // Throws std::invalid_argument for a window that is not configured.
  std::optional<nlohmann::json> series(uint64_t cluster_id, int64_t window_ms);
  // Raises the new_cluster alerts of clusters the catalog created but whose
  // alerts never reached the sink (the process died in between). Call once
  // at startup, after the alert rules are set and before traffic. Returns
  // how many clusters were replayed; throws if the sink fails.
  size_t replay_pending();
  std::vector<std::pair<uint64_t, uint64_t>> window_counts(int64_t window_ms);
  // Clusters whose counts the aggregator holds (bounded by aggregator_max_clusters).
  size_t tracked_clusters();
  size_t tracked_bytes();  // Aggregator::bytes()
  // Lines counted on this replica since it started, per cluster exported
  // as a metric (CurationState::pinned).
  std::vector<std::pair<uint64_t, uint64_t>> pinned_counts();

 protected:
  void process_group(std::vector<Batch*>& group) override;
  void on_tick() override;

 private:
  // One group: commit_to_catalog, count_in_aggregator, publish the counts,
  // raise the alerts, then mark the new clusters alerted.
  void apply(std::vector<Batch*>& group);
  // Not ok: the store refused the group (nothing written; see refuse()).
  Status commit_to_catalog(std::vector<Batch*>& group, std::vector<uint64_t>* created,
                           std::vector<AlertEvent>* raised);
  // Marks every live record of the group failed with `why` (Batch::refusal).
  void refuse(std::vector<Batch*>& group, const Status& why);
  // cur: the group's curation snapshot (null: none), for the pinned counts.
  void count_in_aggregator(std::vector<Batch*>& group, const CurationState* cur, std::vector<AlertEvent>* raised);
  void split_to_parts(std::vector<Batch*>& group, const CurationState& cur);
  void map_to_curated(std::vector<Batch*>& group, const std::shared_ptr<const CurationState>& cur);
  void emit(std::vector<AlertEvent>& events);
  void count_evictions_locked();  // mu_ held
  void publish(const std::vector<Batch*>& group);
  // Takes the catalog's late-created clusters into the aggregator (their
  // new_cluster alerts to *raised) and appends their ids to *created.
  void late_new(std::vector<uint64_t>* created, std::vector<AlertEvent>* raised);

  ClusterStore* catalog_;
  const WriteGate* gate_;
  int max_examples_;
  // Clusters this stage stored at least max_examples_ lines of (state thread).
  std::unordered_set<uint64_t> examples_full_;
  std::unordered_map<uint64_t, uint64_t> stored_lines_;  // the others: lines stored so far
  std::mutex mu_;
  Aggregator agg_;
  AlertSink sink_;
  uint64_t evictions_reported_ = 0;  // under mu_
  CountPublisher publisher_;
  std::function<void()> after_commit_;
  const Curation* curation_ = nullptr;
  int64_t last_curation_refresh_ms_ = 0;  // state thread
  int64_t last_curation_error_ms_ = 0;    // state thread
  bool curation_failing_ = false;         // state thread
  void refresh_curation();
  std::unordered_map<uint64_t, uint64_t> pinned_counts_;  // under mu_
  // (template id, cluster id) -> the cluster its lines go to under resolved_under_ (state thread)
  std::unordered_map<uint64_t, uint64_t> resolved_;
  std::shared_ptr<const CurationState> resolved_under_;
  // (template id, part id) -> the part's template, for split clusters (state thread)
  std::unordered_map<uint64_t, TemplateRef> split_templates_;
  std::function<void()> refresh_curation_;
};

AggregatorOptions aggregator_options(const Config& c);

}  // namespace logsift
