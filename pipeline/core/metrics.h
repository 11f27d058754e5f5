// Process-wide counters, declared once as a list, incremented at the decision
// point, exported as Prometheus text (GET /metrics) and asserted in tests.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <ostream>
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
  void set(int64_t n) { v.store(n, std::memory_order_relaxed); }
  int64_t get() const { return v.load(std::memory_order_relaxed); }
};

// A Prometheus histogram of durations: fixed buckets from 25 us to 10 s,
// lock-free observe() (one atomic add per bucket hit, sum in nanoseconds).
struct Histogram {
  static constexpr std::array<double, 18> kBounds = {25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3,  2.5e-3,
                                                     5e-3,  10e-3, 25e-3,  50e-3,  100e-3, 250e-3, 500e-3,
                                                     1.0,   2.5,   5.0,    10.0};
  std::array<std::atomic<uint64_t>, kBounds.size() + 1> buckets{};  // last: +Inf
  std::atomic<uint64_t> sum_ns{0};
  void observe_ns(int64_t ns) {
    const double s = static_cast<double>(ns) * 1e-9;
    size_t i = 0;
    while (i < kBounds.size() && s > kBounds[i]) ++i;
    buckets[i].fetch_add(1, std::memory_order_relaxed);
    sum_ns.fetch_add(static_cast<uint64_t>(ns < 0 ? 0 : ns), std::memory_order_relaxed);
  }
  uint64_t count() const;  // observations so far (all buckets)
  void write(std::ostream& o, const std::string& name, const std::string& labels) const;
};

// A Prometheus histogram of sizes (rows in one model forward): buckets at
// powers of two from 1 to 4096.
struct SizeHistogram {
  static constexpr std::array<uint64_t, 13> kBounds = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  std::array<std::atomic<uint64_t>, kBounds.size() + 1> buckets{};  // last: +Inf
  std::atomic<uint64_t> sum{0};
  void observe(uint64_t n) {
    size_t i = 0;
    while (i < kBounds.size() && n > kBounds[i]) ++i;
    buckets[i].fetch_add(1, std::memory_order_relaxed);
    sum.fetch_add(n, std::memory_order_relaxed);
  }
  void write(std::ostream& o, const std::string& name, const std::string& labels) const;
};

// Which model a forward ran (logsift_model_*{model=...}).
enum class Model : int { kDenoiser, kEncoder, kCount };
std::string_view model_name(Model m);  // "denoiser", "encoder"

// Where a duration is measured (logsift_stage_duration_seconds{stage=...}).
enum class StageTimer : int {
  kAnalysis,     // the pure pass over a batch
  kDenoise,      // a denoise stage group (model forwards included)
  kEmbed,        // an embed stage group
  kState,        // a state stage group (catalog commit + aggregator)
  kCommit,       // the catalog transaction alone
  kBatch,        // a batch from admission to its callback
  kCheckpoint,   // a catalog WAL checkpoint pass (background thread)
  kCount
};
std::string_view stage_timer_name(StageTimer t);  // "analysis", ..., "checkpoint"

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
  kStoreUnavailable,
  kUnauthorized,
  kJsonTooDeep,
  kForbidden,
  kCount
};
std::string_view reject_reason_name(Reject r);

struct Metrics {
  Counter lines_total;           // lines accepted into the pipeline
  Counter lines_clustered;       // lines that got a cluster id
  Counter new_clusters;
  Counter http_requests;
  Counter tcp_lines;
  Counter tcp_batches_reordered;  // a connection's batch that finished before an earlier one (held for order)
  Counter tcp_connections_total;
  Counter syslog_frames;             // syslog frames read (accepted or not)
  Counter syslog_rejected;           // syslog frames refused (framing, header, text), also in rejected{reason}
  Counter syslog_connections_total;
  Counter http_connections_total;
  Counter accept_out_of_fds;  // accepts that failed with EMFILE / ENFILE (the listener backs off)
  Gauge connections_active;
  Counter stage_errors;
  Counter micro_batches;
  Counter micro_batch_lines;
  Counter id_cache_hits;
  Counter id_cache_misses;
  Counter lines_analyzed;   // lines through the analysis (pre-mask + caches)
  Counter format_bank_matches;  // line-cache misses a format bank format decided (analyzer.h)
  Counter line_cache_hits;  // ... answered whole by the line cache
  Counter catalog_errors;
  Counter labels_dropped;
  Counter alerts_raised;       // alert events from the aggregator
  Counter alerts_enqueued;     // outbox rows written (one per matching subscription)
  Counter alerts_delivered;
  Counter alert_attempts_failed;  // attempts that will be retried
  Counter alerts_dead_lettered;
  Counter delivery_wakeups;  // times the delivery worker looked at the outbox
  Counter aggregator_evictions;
  Counter denoise_tokens;
  Counter denoise_token_cache_hits;
  Counter denoise_model_rows;
  std::array<Counter, static_cast<size_t>(Reject::kCount)> rejected;
  std::array<Histogram, static_cast<size_t>(StageTimer::kCount)> stage_seconds;
  Histogram http_inference_seconds;  // POST /inferences: request read -> reply handed to the socket
  Histogram http_other_seconds;      // every other route
  // store: redis (pipeline/store/redis.cpp): pipelined round trips, the
  // commands in them, failed connects / round trips, and their time.
  Counter redis_round_trips;
  Counter redis_commands;
  Counter redis_errors;
  Histogram redis_round_trip_seconds;
  // store: redis. Alerts taken over from a replica that stopped (XAUTOCLAIM);
  // rule firings (or resolutions) another replica had already claimed;
  // catalog writes held while Redis is unreachable, in lines, and lines
  // refused because that buffer was full.
  Counter alerts_taken_over;
  // Queue ingest (redis_ingest_stream): entries read, entries acknowledged.
  Counter queue_lines;
  Counter multiline_events;     // events assembled from two lines or more (pipeline/ingest/multiline.h)
  Counter multiline_truncated;  // events cut at multiline_max_lines / multiline_max_bytes
  Gauge multiline_open_bytes;   // bytes the open events of every source hold
  Gauge multiline_open_events;  // events open (waiting for their next line or their quiet time)
  Counter queue_acked;
  Counter alert_claims_lost;
  Counter redis_data_lost;  // times the deployment marker was found gone (Redis lost its data)
  Counter alerts_dropped;  // alerts held for an unwritable outbox and dropped at the bound
  Counter alerts_muted;    // alerts of muted clusters, not sent (pipeline/store/curation.h)
  Counter curation_actions;  // curation actions taken through this replica's API
  Gauge alerts_held;       // alerts held in memory until the outbox can take them
  Gauge delivery_results_unsaved;  // delivery outcomes the outbox has not taken yet (a storage fault)
  Gauge redis_buffered_lines;
  Counter redis_buffer_rejected;
  Gauge alert_rules;  // rules the aggregator evaluates (the union over subscriptions)
  std::array<Histogram, static_cast<size_t>(Model::kCount)> model_forward_seconds;  // one forward call
  std::array<SizeHistogram, static_cast<size_t>(Model::kCount)> model_batch_rows;   // rows in it
  Histogram heap_trim_seconds;       // release_free_heap() calls (pipeline/core/memory.h)
  Counter heap_trim_released_bytes;  // resident bytes they gave back
  void forward(Model m, size_t rows, int64_t ns) {
    model_forward_seconds[static_cast<size_t>(m)].observe_ns(ns);
    model_batch_rows[static_cast<size_t>(m)].observe(rows);
  }
  Gauge inflight_batches, inflight_lines;
  Gauge denoise_queue, embed_queue, state_queue, analysis_queue;  // batches waiting in each stage

  void reject(Reject r) { rejected[static_cast<size_t>(r)].inc(); }
  void time(StageTimer t, int64_t ns) { stage_seconds[static_cast<size_t>(t)].observe_ns(ns); }
  std::string prometheus() const;
};

Metrics& metrics();

// Monotonic nanoseconds for durations.
int64_t mono_ns();

// Resident set size of this process in bytes (/proc/self/statm); 0 if unknown.
// Exported as process_resident_memory_bytes.
int64_t resident_bytes();

}  // namespace logsift
