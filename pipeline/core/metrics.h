// Process-wide counters, declared once as a list, incremented at the decision
// point, exported as Prometheus text (GET /metrics) and asserted in tests.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace logsift {

struct Counter {
  std::atomic<uint64_t> v{0};
  void inc(uint64_t n = 1) { v.fetch_add(n, std::memory_order_relaxed); }
  uint64_t get() const { return v.load(std::memory_order_relaxed); }
};

struct Gauge {
  std::atomic<int64_t> v{0};
  void add(int64_t n) { v.fetch_add(n, std::memory_order_relaxed); }
  int64_t get() const { return v.load(std::memory_order_relaxed); }
};

// Why input was rejected (logsift_rejected_total{reason=...}).
enum class Reject : int {
  kMalformedJson,
  kWrongType,
  kMissingText,
  kInvalidUtf8,
  kBodyTooLarge,
  kLineTooLong,
  kTooManyLines,
  kEmptyLine,
  kUnsupportedMediaType,
  kHeaderTooLarge,
  kBadRequest,
  kNotFound,
  kMethodNotAllowed,
  kTooManyConnections,
  kOverloaded,
  kCount
};
std::string_view reject_reason_name(Reject r);

struct Metrics {
  Counter lines_total;           // lines accepted into the pipeline
  Counter lines_clustered;       // lines that got a cluster id
  Counter new_clusters;
  Counter http_requests;
  Counter tcp_lines;
  Counter tcp_connections_total;
  Counter http_connections_total;
  Gauge connections_active;
  Counter stage_errors;
  Counter micro_batches;
  Counter micro_batch_lines;
  Counter id_cache_hits;
  Counter id_cache_misses;
  Counter lines_analyzed;   // lines through the analysis (pre-mask + caches)
  Counter line_cache_hits;  // ... answered whole by the line cache
  Counter catalog_errors;
  Counter labels_dropped;
  Counter alerts_raised;       // alert events from the aggregator
  Counter alerts_enqueued;     // outbox rows written (one per matching subscription)
  Counter alerts_delivered;
  Counter alert_attempts_failed;  // attempts that will be retried
  Counter alerts_dead_lettered;
  Counter aggregator_evictions;
  Counter denoise_tokens;
  Counter denoise_token_cache_hits;
  Counter denoise_model_rows;
  std::array<Counter, static_cast<size_t>(Reject::kCount)> rejected;

  void reject(Reject r) { rejected[static_cast<size_t>(r)].inc(); }
  std::string prometheus() const;
};

Metrics& metrics();

}  // namespace logsift
