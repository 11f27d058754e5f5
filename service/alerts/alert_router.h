// Between the aggregator and the outbox: owns the subscriptions (validated,
// persisted in the AlertStore), tells the aggregator which rules to evaluate
// (the union over subscriptions, deduplicated by rule id), and turns each
// raised alert into one outbox row per matching subscription, written in one
// transaction before the delivery worker is woken.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "pipeline/store/curation.h"
#include "pipeline/stages/aggregator.h"
#include "service/alerts/alert_store.h"

namespace logsift {

class DeliveryWorker;
namespace webhook {
class AddressPolicy;
}

// A 400 naming the bad field of a request body.
struct FieldError : std::runtime_error {
  FieldError(std::string f, const std::string& what) : std::runtime_error(what), field(std::move(f)) {}
  std::string field;
};

// A 409: the request is fine but a configured cap is reached.
struct LimitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class AlertRouter {
 public:
  // policy: the SSRF guard subscriptions are checked against (IP literals
  // and localhost are refused at creation); null accepts every URL.
  AlertRouter(AlertStore& store, const Config& config, std::shared_ptr<const webhook::AddressPolicy> policy = nullptr);

  // Where the union of the subscriptions' rules goes (the pipeline's
  // aggregator), each time the subscriptions change.
  using RulesSink = std::function<void(std::vector<RuleSpec>)>;
  // Wiring, once, before traffic: where rules go and who to wake. The router
  // only hands rules on; the aggregator hands alerts back through on_alerts(),
  // which the app wires as the pipeline's alert sink.
  void attach(RulesSink rules, std::shared_ptr<DeliveryWorker> delivery);

  // Before traffic: the curation that names clusters in alert payloads and
  // mutes clusters (their alerts are dropped and counted, their lines still
  // counted).
  void set_curation(const Curation* curation) { curation_ = curation; }

  // POST /subscriptions: validates (FieldError), persists, updates rules.
  // Returns the API view (plus "secret" when one was generated).
  nlohmann::json create(const nlohmann::json& body);
  bool remove(const std::string& id);

  // Reloads the subscriptions if the store says they changed (another
  // replica added or deleted one); checks at most every 500 ms.
  void refresh();

  // A retry was requested (POST /alerts/{id}/retry).
  void wake_delivery();

  // The aggregator's sink (its thread). Throws if the alerts could not be
  // written to the outbox: they are then held in memory (bounded) and
  // written by write_held(), and the caller keeps its new clusters
  // alert-pending so a crash meanwhile is repaired by the replay at start.
  void on_alerts(std::vector<AlertEvent>&& events);

  // Writes the alerts held while the outbox could not take them (the
  // delivery worker calls it at every pump, so at least once a second).
  // True when nothing is held any more.
  bool write_held();
  // Why the outbox cannot take alerts now ("" when it can): readiness.
  std::string outbox_fault() const;
  // Alerts held in memory at most; beyond it the oldest are dropped,
  // counted and logged.
  static constexpr size_t kMaxHeld = 100000;

 private:
  const Curation* curation_ = nullptr;
  void reload();  // subscriptions -> rule union + rule_id -> subscriptions
  // Appends `rows` to the held alerts and writes them all; false (with the
  // rows kept) if the outbox refused.
  bool write_or_hold(std::vector<OutboxRow>&& rows);

  AlertStore& store_;
  Config config_;
  std::shared_ptr<const webhook::AddressPolicy> policy_;
  RulesSink rules_;
  std::shared_ptr<DeliveryWorker> delivery_;
  std::mutex mu_;
  std::map<std::string, std::vector<std::string>> subs_by_rule_;  // rule id -> subscription ids
  std::map<std::string, int64_t> cooldown_by_rule_;  // threshold/spike rule id -> cooldown ms (under mu_)
  std::mutex reload_mu_;     // one reload at a time (HTTP threads and the delivery strand)
  int64_t version_ = -1;     // subscriptions_version() at the last reload
  int64_t next_check_ms_ = 0;
  // Alerts the outbox could not take (a full or read-only disk, a shared
  // store away), oldest first, written in order once it can.
  mutable std::mutex held_mu_;
  std::deque<OutboxRow> held_;
  std::string outbox_error_;     // under held_mu_: the last write's error while held_ is not empty
  int64_t next_held_log_ms_ = 0;  // under held_mu_: at most one log line every 10 s while failing
};

}  // namespace logsift
