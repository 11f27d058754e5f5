#include "pipeline/core/metrics.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

namespace logsift {

int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return static_cast<int64_t>(resident) * ::sysconf(_SC_PAGESIZE);
}

std::string_view reject_reason_name(Reject r) {
  switch (r) {
    case Reject::kMalformedJson: return "malformed_json";
    case Reject::kWrongType: return "wrong_type";
    case Reject::kMissingText: return "missing_text";
    case Reject::kInvalidUtf8: return "invalid_utf8";
    case Reject::kBodyTooLarge: return "body_too_large";
    case Reject::kLineTooLong: return "line_too_long";
    case Reject::kTooManyLines: return "too_many_lines";
    case Reject::kEmptyLine: return "empty_line";
    case Reject::kUnsupportedMediaType: return "unsupported_media_type";
    case Reject::kHeaderTooLarge: return "header_too_large";
    case Reject::kBadRequest: return "bad_request";
    case Reject::kNotFound: return "not_found";
    case Reject::kMethodNotAllowed: return "method_not_allowed";
    case Reject::kTooManyConnections: return "too_many_connections";
    case Reject::kOverloaded: return "overloaded";
    case Reject::kStoreUnavailable: return "store_unavailable";
    case Reject::kUnauthorized: return "unauthorized";
    case Reject::kJsonTooDeep: return "json_too_deep";
    case Reject::kForbidden: return "forbidden";
    case Reject::kCount: break;
  }
  return "unknown";
}

int64_t mono_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {
constexpr std::string_view kStageTimerNames[] = {"analysis", "denoise", "embed", "state", "commit", "batch", "checkpoint"};
static_assert(std::size(kStageTimerNames) == static_cast<size_t>(StageTimer::kCount));
constexpr std::string_view kModelNames[] = {"denoiser", "encoder"};
static_assert(std::size(kModelNames) == static_cast<size_t>(Model::kCount));
}  // namespace

std::string_view stage_timer_name(StageTimer t) { return kStageTimerNames[static_cast<size_t>(t)]; }
std::string_view model_name(Model m) { return kModelNames[static_cast<size_t>(m)]; }

uint64_t Histogram::count() const {
  uint64_t n = 0;
  for (const auto& b : buckets) n += b.load(std::memory_order_relaxed);
  return n;
}

void Histogram::write(std::ostream& o, const std::string& name, const std::string& labels) const {
  uint64_t cum = 0;
  const std::string sep = labels.empty() ? "" : labels + ",";
  for (size_t i = 0; i < buckets.size(); ++i) {
    cum += buckets[i].load(std::memory_order_relaxed);
    o << name << "_bucket{" << sep << "le=\"";
    if (i < kBounds.size()) o << kBounds[i];
    else o << "+Inf";
    o << "\"} " << cum << '\n';
  }
  o << name << "_sum" << (labels.empty() ? "" : "{" + labels + "}") << ' '
    << static_cast<double>(sum_ns.load(std::memory_order_relaxed)) * 1e-9 << '\n';
  o << name << "_count" << (labels.empty() ? "" : "{" + labels + "}") << ' ' << cum << '\n';
}

void SizeHistogram::write(std::ostream& o, const std::string& name, const std::string& labels) const {
  uint64_t cum = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    cum += buckets[i].load(std::memory_order_relaxed);
    o << name << "_bucket{" << labels << ",le=\"";
    if (i < kBounds.size()) o << kBounds[i];
    else o << "+Inf";
    o << "\"} " << cum << '\n';
  }
  o << name << "_sum{" << labels << "} " << sum.load(std::memory_order_relaxed) << '\n';
  o << name << "_count{" << labels << "} " << cum << '\n';
}

Metrics& metrics() {
  static Metrics m;
  return m;
}

std::string Metrics::prometheus() const {
  std::ostringstream o;
  auto counter = [&](const char* name, const char* help, uint64_t v) {
    o << "# HELP " << name << ' ' << help << "\n# TYPE " << name << " counter\n" << name << ' ' << v << '\n';
  };
  counter("logsift_lines_total", "Lines accepted into the pipeline.", lines_total.get());
  counter("logsift_lines_clustered_total", "Lines that received a cluster id.", lines_clustered.get());
  counter("logsift_new_clusters_total", "Clusters seen for the first time.", new_clusters.get());
  counter("logsift_http_requests_total", "HTTP requests read.", http_requests.get());
  counter("logsift_tcp_lines_total", "Lines read from TCP connections.", tcp_lines.get());
  counter("logsift_tcp_batches_reordered_total",
          "Batches of a TCP connection that finished before an earlier one of it and waited, so replies keep input order.",
          tcp_batches_reordered.get());
  counter("logsift_tcp_connections_total", "TCP connections accepted.", tcp_connections_total.get());
  counter("logsift_syslog_frames_total", "Syslog frames read from the syslog listener.", syslog_frames.get());
  counter("logsift_syslog_rejected_total", "Syslog frames refused (bad framing, header or message).",
          syslog_rejected.get());
  counter("logsift_syslog_connections_total", "Syslog connections accepted.", syslog_connections_total.get());
  counter("logsift_http_connections_total", "HTTP connections accepted.", http_connections_total.get());
  counter("logsift_accept_out_of_fds_total",
          "Accepts that failed for want of file descriptors (EMFILE, ENFILE); the listener backs off.",
          accept_out_of_fds.get());
  counter("logsift_stage_errors_total", "Batches failed by an internal stage error.", stage_errors.get());
  counter("logsift_micro_batches_total", "Micro-batches formed by batching stages.", micro_batches.get());
  counter("logsift_micro_batch_lines_total", "Lines in those micro-batches.", micro_batch_lines.get());
  counter("logsift_id_cache_hits_total", "Lines whose cluster id came from a cache (the line cache or the template cache).", id_cache_hits.get());
  counter("logsift_id_cache_misses_total", "Templates embedded and hashed.", id_cache_misses.get());
  counter("logsift_lines_analyzed_total", "Lines through the analysis (pre-mask and the caches).",
          lines_analyzed.get());
  counter("logsift_format_bank_matches_total", "Lines (line-cache misses) whose template a format of the format bank decided.",
          format_bank_matches.get());
  counter("logsift_line_cache_hits_total", "Lines whose template came whole from the line cache.",
          line_cache_hits.get());
  counter("logsift_catalog_errors_total", "Catalog write failures.", catalog_errors.get());
  counter("logsift_redis_round_trips_total", "Pipelined round trips to Redis (store: redis).", redis_round_trips.get());
  counter("logsift_redis_commands_total", "Commands sent to Redis in those round trips.", redis_commands.get());
  counter("logsift_redis_errors_total", "Redis connects or round trips that failed or timed out, and commands answered with an error.", redis_errors.get());
  counter("logsift_queue_entries_total", "Entries read from the Redis Stream of queue ingest.", queue_lines.get());
  counter("logsift_multiline_events_total", "Events assembled from two input lines or more (a stack trace and its head).",
          multiline_events.get());
  counter("logsift_multiline_truncated_total",
          "Events cut at multiline_max_lines or multiline_max_bytes (clustered as cut; the rest starts a new event).",
          multiline_truncated.get());
  counter("logsift_queue_acked_total", "Queue entries acknowledged (in the catalog, or rejected for good).",
          queue_acked.get());
  counter("logsift_alerts_taken_over_total", "Alerts taken over from a replica that stopped holding them (store: redis).",
          alerts_taken_over.get());
  counter("logsift_alert_claims_lost_total",
          "Rule firings or resolutions not sent because another replica claimed them first (store: redis).",
          alert_claims_lost.get());
  counter("logsift_redis_buffer_rejected_total",
          "Lines refused (503) because the buffer of catalog writes waiting for Redis was full.",
          redis_buffer_rejected.get());
  counter("logsift_labels_dropped_total", "Labels dropped over max_labels.", labels_dropped.get());
  counter("logsift_alerts_raised_total", "Alert events raised by the rules.", alerts_raised.get());
  counter("logsift_alerts_enqueued_total", "Alerts written to the outbox (per subscription).", alerts_enqueued.get());
  counter("logsift_alerts_delivered_total", "Alerts acknowledged by a receiver (2xx).", alerts_delivered.get());
  counter("logsift_alert_attempts_failed_total", "Delivery attempts that failed and will be retried.",
          alert_attempts_failed.get());
  counter("logsift_redis_data_lost_total",
          "Times Redis was found to have lost its data (the deployment marker gone); each is re-seeded.",
          redis_data_lost.get());
  counter("logsift_alerts_dropped_total",
          "Alerts dropped because the outbox could not take them and the in-memory hold was full.",
          alerts_dropped.get());
  counter("logsift_alerts_muted_total", "Alerts of muted clusters, not sent (their lines are still counted).",
          alerts_muted.get());
  counter("logsift_curation_actions_total", "Curation actions (merge, name, mute, undo) taken through this replica.",
          curation_actions.get());
  counter("logsift_alerts_dead_lettered_total", "Alerts moved to failed (dead letter).", alerts_dead_lettered.get());
  counter("logsift_delivery_wakeups_total", "Times the delivery worker looked at the outbox.", delivery_wakeups.get());
  counter("logsift_aggregator_evictions_total", "Clusters evicted from the aggregator's bounded state.",
          aggregator_evictions.get());
  counter("logsift_denoise_tokens_total", "Word tokens scored by the denoiser.", denoise_tokens.get());
  counter("logsift_denoise_token_cache_hits_total", "Tokens decided by the context-free token cache.",
          denoise_token_cache_hits.get());
  counter("logsift_denoise_model_rows_total", "Rows run through the denoiser model.", denoise_model_rows.get());
  o << "# HELP logsift_connections_active Open HTTP and TCP connections.\n"
    << "# TYPE logsift_connections_active gauge\nlogsift_connections_active " << connections_active.get() << '\n';
  auto gauge = [&](const char* name, const char* help, int64_t v) {
    o << "# HELP " << name << ' ' << help << "\n# TYPE " << name << " gauge\n" << name << ' ' << v << '\n';
  };
  gauge("logsift_redis_buffered_lines", "Lines whose catalog writes wait in memory for Redis to come back.",
        redis_buffered_lines.get());
  gauge("logsift_alerts_held", "Alerts held in memory until the outbox can take them (a storage fault).",
        alerts_held.get());
  gauge("logsift_delivery_results_unsaved",
        "Delivery outcomes held in memory until the outbox can take them (a storage fault); delivery goes on meanwhile.",
        delivery_results_unsaved.get());
  gauge("logsift_alert_rules", "Alert rules evaluated (the union over subscriptions).", alert_rules.get());
  gauge("logsift_multiline_open_events", "Events open on line inputs, waiting for their next line or quiet time.",
        multiline_open_events.get());
  gauge("logsift_multiline_open_bytes", "Bytes held by the open events of line inputs.", multiline_open_bytes.get());
  gauge("logsift_inflight_batches", "Batches admitted to the pipeline and not finished.", inflight_batches.get());
  gauge("logsift_inflight_lines", "Lines admitted to the pipeline and not finished.", inflight_lines.get());
  o << "# HELP logsift_stage_queue_batches Batches waiting for a pipeline stage.\n"
       "# TYPE logsift_stage_queue_batches gauge\n";
  o << "logsift_stage_queue_batches{stage=\"analysis\"} " << analysis_queue.get() << '\n';
  o << "logsift_stage_queue_batches{stage=\"denoise\"} " << denoise_queue.get() << '\n';
  o << "logsift_stage_queue_batches{stage=\"embed\"} " << embed_queue.get() << '\n';
  o << "logsift_stage_queue_batches{stage=\"state\"} " << state_queue.get() << '\n';
  o << "# HELP logsift_stage_duration_seconds Time per unit of work: a batch's analysis, a model stage's group,"
       " a state group, the catalog commit, a batch from admission to reply.\n"
       "# TYPE logsift_stage_duration_seconds histogram\n";
  for (size_t i = 0; i < stage_seconds.size(); ++i)
    stage_seconds[i].write(o, "logsift_stage_duration_seconds",
                           "stage=\"" + std::string(stage_timer_name(static_cast<StageTimer>(i))) + "\"");
  o << "# HELP logsift_http_request_duration_seconds HTTP requests, read to reply.\n"
       "# TYPE logsift_http_request_duration_seconds histogram\n";
  http_inference_seconds.write(o, "logsift_http_request_duration_seconds", "route=\"inferences\"");
  http_other_seconds.write(o, "logsift_http_request_duration_seconds", "route=\"other\"");
  o << "# HELP logsift_redis_round_trip_seconds One pipelined Redis round trip (store: redis).\n"
       "# TYPE logsift_redis_round_trip_seconds histogram\n";
  redis_round_trip_seconds.write(o, "logsift_redis_round_trip_seconds", "");
  auto model_label = [](size_t i) { return "model=\"" + std::string(model_name(static_cast<Model>(i))) + "\""; };
  o << "# HELP logsift_model_forward_seconds One model forward call (a batch of rows).\n"
       "# TYPE logsift_model_forward_seconds histogram\n";
  for (size_t i = 0; i < model_forward_seconds.size(); ++i)
    model_forward_seconds[i].write(o, "logsift_model_forward_seconds", model_label(i));
  o << "# HELP logsift_model_batch_rows Rows in one model forward call (denoiser: token contexts; encoder: "
       "templates).\n# TYPE logsift_model_batch_rows histogram\n";
  for (size_t i = 0; i < model_batch_rows.size(); ++i)
    model_batch_rows[i].write(o, "logsift_model_batch_rows", model_label(i));
  o << "# HELP logsift_rejected_total Input rejected, by reason.\n# TYPE logsift_rejected_total counter\n";
  for (size_t i = 0; i < rejected.size(); ++i)
    o << "logsift_rejected_total{reason=\"" << reject_reason_name(static_cast<Reject>(i)) << "\"} "
      << rejected[i].get() << '\n';
  o << "# HELP logsift_heap_trim_seconds Time of one pass handing free heap pages back to the OS "
       "(memory_trim_interval_ms).\n# TYPE logsift_heap_trim_seconds histogram\n";
  heap_trim_seconds.write(o, "logsift_heap_trim_seconds", "");
  counter("logsift_heap_trim_released_bytes_total", "Resident bytes the heap trim passes gave back to the OS.",
          heap_trim_released_bytes.get());
  // The standard process metric (what Prometheus client libraries export).
  if (const int64_t rss = resident_bytes(); rss > 0)
    o << "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
         "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes "
      << rss << '\n';
  return o.str();
}

}  // namespace logsift
