// The pipeline. A batch is admitted (bounded: batches and lines in flight),
// analysed to completion by the pure stages (pipeline/stages/analyzer.h) on
// the submitting thread when it is small, on an analysis thread when it is
// large, and then goes only where it still has work:
//
//   analysis --(unknown token)--> denoise --(new template)--> embed --+
//       |                             |                               |
//       +-----------------------------+-------------------------------+--> state --> on_done
//                                                                  (catalog + aggregator)
//
// A seen line never waits for a timer or a model thread: its analysis is all
// cache hits, and it goes straight to the state stage (or, without a catalog,
// to its callback). Model stages batch adaptively (one forward for whatever
// queued while the model was busy). Batches may complete out of order; each
// caller restores its own order (the TCP session by batch, the CLI by
// sequence number); one HTTP request is one batch.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "config/config.h"
#include "pipeline/contract.h"
#include "pipeline/core/params.h"
#include "pipeline/core/record.h"
#include "pipeline/memory_usage.h"
#include "pipeline/stages/aggregator.h"

namespace logsift {

class ClusterStore;
class WriteGate;
class Curation;
struct CountDelta;

// A finished batch, indexable like its records; it owns their bytes.
class Results {
 public:
  explicit Results(std::unique_ptr<Batch> b) : b_(std::move(b)) {}
  size_t size() const { return b_->records.size(); }
  bool empty() const { return b_->records.empty(); }
  Record& operator[](size_t i) { return b_->records[i]; }
  const Record& operator[](size_t i) const { return b_->records[i]; }
  auto begin() { return b_->records.begin(); }
  auto end() { return b_->records.end(); }
  auto begin() const { return b_->records.cbegin(); }
  auto end() const { return b_->records.cend(); }
  Batch& batch() { return *b_; }

 private:
  std::unique_ptr<Batch> b_;
};

class Pipeline {
 public:
  // catalog may be null (batch CLI use: ids and templates only, no "new",
  // no alerts). With a catalog, the state stage keeps the catalog and the
  // aggregator and sends raised alerts to `sink` (which may be empty); it
  // writes only while `gate` (null: always open) is open.
  // Throws ConfigError / std::runtime_error when a stage cannot be built.
  Pipeline(const Config& config, ClusterStore* catalog,
           std::function<void(std::vector<AlertEvent>&&)> sink = nullptr, const WriteGate* gate = nullptr);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Non-blocking admission: false when the pipeline is full (mailbox_capacity
  // batches or max_inflight_lines lines in flight) or stopped; the batch is
  // then left in `b` for the caller to retry (that is the backpressure). A
  // small batch is analysed on the calling thread before this returns.
  bool try_submit(std::unique_ptr<Batch>& b);
  // Blocking: waits for room. False only once stopped.
  bool submit(std::unique_ptr<Batch>& b);
  // Convenience for CLI and tests: runs texts through and waits.
  Results run(std::vector<std::string> texts);
  // The same for a batch whose records the caller filled (envelopes, rejects).
  Results run(std::unique_ptr<Batch> b);

  // Stops admitting, lets every admitted batch reach its callback, joins.
  // Idempotent.
  void stop();

  // The cluster-id contract's fields and how the pipeline runs
  // (pipeline/contract.h: kInfoDiagnostics).
  nlohmann::json info() const;
  // Only what decides ids: same contract + same line -> same cluster id
  // (pipeline/migrate.h keeps a store's clusters across a change of it).
  IdContract contract() const;
  // Alert rules evaluated by the aggregator (the union over subscriptions).
  void set_alert_rules(std::vector<RuleSpec> rules);
  // Counts over time; nullopt: unknown cluster (or no aggregator). Throws
  // std::invalid_argument for a window that is not configured.
  std::optional<nlohmann::json> series(uint64_t cluster_id, int64_t window_ms);
  // (cluster id, count in the last window_ms) of every cluster counted in
  // it, highest first; std::invalid_argument for a window not kept.
  std::vector<std::pair<uint64_t, uint64_t>> window_counts(int64_t window_ms);
  // store: redis: where this replica's counts go, and the other replicas'
  // counts coming in (pipeline/store/redis_windows.h). The publisher is set
  // once, before traffic.
  void set_count_publisher(std::function<void(std::vector<CountDelta>&&)> publisher);
  // StateStage::set_curation. Before traffic.
  void set_curation(const Curation* curation, std::function<void()> refresh);
  // StateStage::pinned_counts: lines per cluster exported as a metric.
  std::vector<std::pair<uint64_t, uint64_t>> pinned_counts();
  // StateStage::set_after_commit_hook (a test-only seam). Before traffic.
  void set_after_commit_hook(std::function<void()> hook);
  void observe_remote(const std::vector<CountDelta>& deltas);
  // StateStage::replay_pending: new_cluster alerts lost to a crash between
  // the catalog commit and the outbox write. Startup only, before traffic.
  size_t replay_pending_alerts();

  // Cache and model counters (e.g. the denoiser's cache hit rates).
  nlohmann::json stats() const;
  // Where the memory is: each cache, the aggregator, SQLite's heap
  // (memory_prometheus() renders it for /metrics).
  MemoryUsage memory_usage() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace logsift
