// The pipeline: premask+tokenize -> template -> embed -> lsh -> catalog.
// Each arrow is a bounded mailbox between two single-threaded stages, so
// batches leave in the order they entered and a slow stage pushes back.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "config/config.h"
#include "pipeline/stages/aggregator.h"
#include "pipeline/core/record.h"

namespace logsift {

class Catalog;
class Stage;

class Pipeline {
 public:
  // catalog may be null (batch CLI use: ids and templates only, no "new",
  // no alerts). With a catalog, an aggregator stage counts windows and sends
  // raised alerts to `sink` (which may be empty: counts and series only).
  // Throws ConfigError / std::runtime_error when a stage cannot be built.
  Pipeline(const Config& config, Catalog* catalog,
           std::function<void(std::vector<alerts::AlertEvent>&&)> sink = nullptr);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Non-blocking: false when the first mailbox is full or the pipeline has
  // stopped; the batch is then left in `b` for the caller to retry or fail.
  bool try_submit(std::unique_ptr<Batch>& b);
  // Blocking: waits for room. False only once stopped.
  bool submit(std::unique_ptr<Batch>& b);
  // Convenience for CLI and tests: runs texts through and waits.
  std::vector<Record> run(std::vector<std::string> texts);
  // The same for a batch whose records the caller filled (envelopes, rejects).
  std::vector<Record> run(std::unique_ptr<Batch> b);

  // Stops accepting, drains every stage in order (all accepted batches reach
  // their callbacks), joins. Idempotent.
  void stop();

  // Model versions and LSH parameters: the cluster-id contract.
  nlohmann::json info() const;
  // Alert rules evaluated by the aggregator (the union over subscriptions).
  void set_alert_rules(std::vector<alerts::RuleSpec> rules);
  // Counts over time; nullopt: unknown cluster (or no aggregator). Throws
  // std::invalid_argument for a window that is not configured.
  std::optional<nlohmann::json> series(uint64_t cluster_id, int64_t window_ms);

  // Cache and model counters (e.g. the denoiser's cache hit rates).
  nlohmann::json stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The JSON reply for one record: {"cluster_id","template_id","template","new"}
// or {"error": ...}.
nlohmann::json record_result_json(const Record& r, bool with_new = true);

}  // namespace logsift
