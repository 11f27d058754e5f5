#include "pipeline/stages/aggregator_stage.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/time.h"
#include "pipeline/core/metrics.h"

namespace logsift {

alerts::AggregatorOptions aggregator_options(const Config& c) {
  alerts::AggregatorOptions o;
  o.series_windows_ms = c.series_windows_ms();
  o.buckets_per_window = c.series_buckets;
  o.max_clusters = static_cast<size_t>(c.aggregator_max_clusters);
  o.max_examples = c.alert_max_examples;
  return o;
}

AggregatorStage::AggregatorStage(const Config& c, AlertSink sink)
    : Stage("aggregator", c.mailbox_capacity), agg_(aggregator_options(c)), sink_(std::move(sink)) {}

void AggregatorStage::set_rules(std::vector<alerts::RuleSpec> rules) {
  std::lock_guard lock(mu_);
  agg_.set_rules(std::move(rules));
}

std::optional<nlohmann::json> AggregatorStage::series(uint64_t cluster_id, int64_t window_ms) {
  std::lock_guard lock(mu_);
  return agg_.series(cluster_id, window_ms, now_ms());
}

void AggregatorStage::emit(std::vector<alerts::AlertEvent>& events) {
  if (agg_.evictions() != evictions_reported_) {
    metrics().aggregator_evictions.inc(agg_.evictions() - evictions_reported_);
    evictions_reported_ = agg_.evictions();
  }
  if (events.empty()) return;
  metrics().alerts_raised.inc(events.size());
  if (sink_) sink_(std::move(events));
  events.clear();
}

void AggregatorStage::process(Batch& b) {
  std::vector<alerts::AlertEvent> raised;
  {
    std::lock_guard lock(mu_);
    for (const auto& r : b.records) {
      if (!r.ok()) continue;
      agg_.observe(r.cluster_id, r.is_new, r.template_text, r.labels, r.text, r.received_ms, &raised);
    }
  }
  emit(raised);  // outside the lock: the sink writes to SQLite
}

void AggregatorStage::run() {
  using clock = std::chrono::steady_clock;
  auto next_tick = clock::now() + std::chrono::seconds(1);
  std::vector<alerts::AlertEvent> raised;
  while (true) {
    auto b = mailbox_.pop_until(next_tick);
    if (b) {
      process_and_forward(std::move(*b));
    } else if (mailbox_.closed_and_empty()) {
      break;
    }
    if (clock::now() >= next_tick) {
      {
        std::lock_guard lock(mu_);
        agg_.tick(now_ms(), &raised);
      }
      try {
        emit(raised);
      } catch (const std::exception& e) {
        spdlog::error("aggregator: alert sink: {}", e.what());
      }
      raised.clear();
      next_tick = clock::now() + std::chrono::seconds(1);
    }
  }
}

}  // namespace logsift
