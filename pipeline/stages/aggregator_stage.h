// The aggregator stage: after the catalog (it needs Record::is_new), feeds
// every clustered line to the alerts::Aggregator core and hands raised alerts
// to a sink (the service's alert router, which writes them to the outbox).
// Ticks once a second so windows close and incidents resolve with no traffic.
// The core is single-threaded; this stage serialises access to it (the HTTP
// series reads and rule updates take the same mutex, never for long).
#pragma once

#include <functional>
#include <mutex>
#include <optional>

#include <nlohmann/json_fwd.hpp>

#include "config/config.h"
#include "pipeline/stages/aggregator.h"
#include "pipeline/core/stage.h"

namespace logsift {

// Called on the aggregator thread, outside its lock, with the alerts raised.
using AlertSink = std::function<void(std::vector<alerts::AlertEvent>&&)>;

class AggregatorStage final : public Stage {
 public:
  AggregatorStage(const Config& c, AlertSink sink);

  void set_rules(std::vector<alerts::RuleSpec> rules);
  // Throws std::invalid_argument for a window that is not configured.
  std::optional<nlohmann::json> series(uint64_t cluster_id, int64_t window_ms);

 protected:
  void process(Batch& b) override;
  void run() override;

 private:
  void emit(std::vector<alerts::AlertEvent>& events);

  std::mutex mu_;
  alerts::Aggregator agg_;
  AlertSink sink_;
  uint64_t evictions_reported_ = 0;
};

alerts::AggregatorOptions aggregator_options(const Config& c);

}  // namespace logsift
