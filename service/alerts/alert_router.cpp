#include "service/alerts/alert_router.h"

#include <spdlog/spdlog.h>

#include "lsh/lsh.h"
#include "pipeline/core/time.h"
#include "pipeline/core/metrics.h"
#include "service/alerts/alert_payload.h"
#include "service/alerts/delivery.h"
#include "service/alerts/address_policy.h"
#include "service/alerts/webhook_client.h"
#include "service/alerts/webhook_signing.h"

namespace logsift {
namespace {

using json = nlohmann::json;

// Rule defaults from config for a rule given by name or without a field.
json rule_defaults(const std::string& kind, const Config& c) {
  if (kind == "threshold")
    return {{"kind", kind},
            {"threshold", static_cast<uint64_t>(c.alert_threshold)},
            {"window", c.alert_threshold_window_ms},
            {"cooldown", c.alert_cooldown_ms}};
  if (kind == "spike")
    return {{"kind", kind},
            {"spike_factor", c.alert_spike_factor},
            {"min_count", static_cast<uint64_t>(c.alert_spike_min_count)},
            {"window", c.alert_spike_window_ms},
            {"cooldown", c.alert_cooldown_ms}};
  return {{"kind", kind}};
}

}  // namespace

AlertRouter::AlertRouter(AlertStore& store, const Config& config, std::shared_ptr<const webhook::AddressPolicy> policy)
    : store_(store), config_(config), policy_(std::move(policy)) {}

void AlertRouter::attach(RulesSink rules, std::shared_ptr<DeliveryWorker> delivery) {
  rules_ = std::move(rules);
  delivery_ = std::move(delivery);
  if (delivery_)
    delivery_->set_on_pump([this] {
      refresh();
      write_held();
    });
  reload();
}

void AlertRouter::refresh() {
  {
    std::lock_guard lock(reload_mu_);
    const int64_t t = now_ms();
    if (t < next_check_ms_) return;
    next_check_ms_ = t + 500;
    try {
      if (store_.subscriptions_version() == version_) return;
    } catch (const std::exception& e) {
      // The shared store is away: the rules in force stay until it is back.
      next_check_ms_ = t + 5000;
      spdlog::warn("alerts: cannot check for changed subscriptions: {}", e.what());
      return;
    }
  }
  spdlog::info("alerts: subscriptions changed in the store, reloading the rules");
  reload();
}

json AlertRouter::create(const json& body) {
  if (!body.is_object()) throw FieldError("body", "body must be a JSON object");
  static const char* known[] = {"url", "secret", "rules", "format", "labels", "min_level", "cooldown"};
  for (auto it = body.begin(); it != body.end(); ++it)
    if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return it.key() == k; }) ==
        std::end(known))
      throw FieldError(it.key(), "unknown field '" + it.key() + "'");

  Subscription s;
  if (!body.contains("url") || !body["url"].is_string()) throw FieldError("url", "'url' must be a string");
  s.url = body["url"].get<std::string>();
  const auto url = webhook::parse_webhook_url(s.url);
  if (!url) throw FieldError("url", "'url' must be an http:// or https:// URL with a host");
  if (policy_) {
    if (std::string why = policy_->check_host(url->host, static_cast<uint16_t>(std::stoi(url->port))); !why.empty())
      throw FieldError("url", why);
  }

  json generated_secret;
  if (body.contains("secret")) {
    if (!body["secret"].is_string() || body["secret"].get<std::string>().empty() ||
        body["secret"].get<std::string>().size() > 1024)
      throw FieldError("secret", "'secret' must be a non-empty string of at most 1024 bytes");
    s.secret = body["secret"].get<std::string>();
    if (!webhook::secret_key(s.secret))
      throw FieldError("secret", "'secret' starting with whsec_ must be followed by base64");
  } else {
    s.secret = webhook::random_secret();  // shown once, in the 201 reply
    generated_secret = s.secret;
  }
  if (body.contains("format")) {
    if (!body["format"].is_string() ||
        (body["format"] != "logsift" && body["format"] != "alertmanager" && body["format"] != "alertmanager_api"))
      throw FieldError("format",
                       "'format' must be \"logsift\", \"alertmanager\" (webhook payload) or \"alertmanager_api\" "
                       "(POST to Alertmanager's /api/v2/alerts)");
    s.format = body["format"].get<std::string>();
  }
  // Subscription-wide filters apply to each of its rules.
  json shared = json::object();
  if (body.contains("labels")) {
    const json& l = body["labels"];
    if (!l.is_object()) throw FieldError("labels", "'labels' must be an object of strings");
    for (auto it = l.begin(); it != l.end(); ++it)
      if (!it->is_string()) throw FieldError("labels." + it.key(), "label values must be strings");
    shared["labels"] = l;
  }
  if (body.contains("min_level")) {
    if (!body["min_level"].is_string() || parse_severity(body["min_level"].get<std::string>()) ==
                                              Severity::kUnknown)
      throw FieldError("min_level", "'min_level' must be a level name such as \"warn\" or \"error\"");
    shared["min_level"] = body["min_level"];
  }
  if (body.contains("cooldown")) {
    const json& c = body["cooldown"];
    if (!(c.is_string() && parse_duration_ms(c.get<std::string>())) && !c.is_number_unsigned())
      throw FieldError("cooldown", "'cooldown' must be a duration like \"5m\" or milliseconds");
    shared["cooldown"] = c;
  }
  if (!body.contains("rules") || !body["rules"].is_array() || body["rules"].empty())
    throw FieldError("rules", "'rules' must be a non-empty array of rule names or objects");
  if (body["rules"].size() > static_cast<size_t>(config_.max_rules_per_subscription))
    throw FieldError("rules", "at most " + std::to_string(config_.max_rules_per_subscription) +
                                  " rules per subscription (max_rules_per_subscription)");
  s.rules = json::array();
  const json& rules = body["rules"];
  for (size_t i = 0; i < rules.size(); ++i) {
    std::string where = "rules[" + std::to_string(i) + "]";
    std::string kind;
    if (rules[i].is_string()) {
      kind = rules[i].get<std::string>();
      if (kind != "new_cluster" && kind != "threshold" && kind != "spike")
        throw FieldError(where, "unknown rule '" + kind + "' (new_cluster, threshold, spike)");
    } else if (rules[i].is_object()) {
      if (!rules[i].contains("kind") || !rules[i]["kind"].is_string())
        throw FieldError(where + ".kind", "a rule object needs \"kind\"");
      kind = rules[i]["kind"].get<std::string>();
    } else {
      throw FieldError(where, "a rule is a name or an object");
    }
    // Precedence: config defaults < the subscription's own fields < the rule's.
    json r = rule_defaults(kind, config_);
    for (auto it = shared.begin(); it != shared.end(); ++it) {
      if (it.key() == "cooldown" && kind == "new_cluster") continue;  // new_cluster has none
      r[it.key()] = it.value();
    }
    if (rules[i].is_object()) r.update(rules[i]);
    try {
      auto spec = RuleSpec::from_json(r, where);
      json canonical = spec.to_json();
      canonical["id"] = spec.id();
      s.rules.push_back(std::move(canonical));
    } catch (const std::invalid_argument& e) {
      std::string msg = e.what();
      throw FieldError(msg.substr(0, msg.find(':')), msg);
    }
  }
  s.id = webhook::random_id("sub_");
  s.created_ms = now_ms();
  if (store_.subscription_count() >= config_.max_subscriptions)
    throw LimitError("there are already " + std::to_string(config_.max_subscriptions) +
                     " subscriptions (max_subscriptions): delete one first");
  store_.add_subscription(s);
  reload();
  json out = s.to_json();
  if (!generated_secret.is_null()) out["secret"] = generated_secret;
  return out;
}

bool AlertRouter::remove(const std::string& id) {
  bool found = store_.delete_subscription(id);
  if (found) reload();
  return found;
}

void AlertRouter::reload() {
  std::lock_guard reload_lock(reload_mu_);
  // Read first: a change made while we load is seen at the next refresh().
  version_ = store_.subscriptions_version();
  std::map<std::string, std::vector<std::string>> by_rule;
  std::map<std::string, RuleSpec> specs;
  for (const auto& sub : store_.subscriptions()) {
    for (const auto& r : sub.rules) {
      json copy = r;
      copy.erase("id");
      try {
        auto spec = RuleSpec::from_json(copy);
        by_rule[spec.id()].push_back(sub.id);
        specs.emplace(spec.id(), spec);
      } catch (const std::exception& e) {
        spdlog::error("subscription {}: stored rule no longer valid: {}", sub.id, e.what());
      }
    }
  }
  std::vector<RuleSpec> rules;
  std::map<std::string, int64_t> cooldowns;
  for (auto& [id, spec] : specs) {
    rules.push_back(spec);
    if (spec.kind != "new_cluster") cooldowns[id] = spec.cooldown_ms;
  }
  {
    std::lock_guard lock(mu_);
    subs_by_rule_ = std::move(by_rule);
    cooldown_by_rule_ = std::move(cooldowns);
  }
  metrics().alert_rules.set(static_cast<int64_t>(rules.size()));
  if (rules_) rules_(std::move(rules));
}

void AlertRouter::wake_delivery() {
  if (delivery_) delivery_->wake();
}

void AlertRouter::on_alerts(std::vector<AlertEvent>&& events) {
  std::vector<OutboxRow> rows;
  // Muted clusters' alerts go nowhere (counted); named ones carry the name.
  std::shared_ptr<const CurationState> cur = curation_ ? curation_->get() : nullptr;
  if (cur && !cur->muted_until.empty()) {
    const int64_t now = now_ms();
    const size_t before = events.size();
    std::erase_if(events, [&](const AlertEvent& e) { return cur->muted(e.cluster_id, now); });
    if (events.size() != before) metrics().alerts_muted.inc(before - events.size());
  }
  // Replicas sharing a store each see a threshold or spike rule cross (the
  // windows are shared): the first to claim (rule, cluster, state) sends it.
  // A claim lives for the rule's cooldown (at least 2 s), within which the
  // same rule cannot fire again for that cluster on any replica. new_cluster
  // needs none: the catalog tells exactly one replica a cluster is new. The
  // claims go to the store outside mu_.
  std::vector<std::pair<size_t, int64_t>> to_claim;  // (event, claim ttl)
  {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < events.size(); ++i)
      if (auto c = cooldown_by_rule_.find(events[i].rule_id); c != cooldown_by_rule_.end())
        to_claim.emplace_back(i, std::max<int64_t>(c->second, 2000));
  }
  std::vector<bool> claimed(events.size(), true);
  for (const auto& [i, ttl] : to_claim) {
    const auto& e = events[i];
    if (!store_.claim(e.rule_id + ":" + lsh::format_id(e.cluster_id) + ":" + e.state, ttl)) {
      claimed[i] = false;
      metrics().alert_claims_lost.inc();
    }
  }
  {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < events.size(); ++i) {
      const auto& e = events[i];
      if (!claimed[i]) continue;  // another replica sends it
      auto it = subs_by_rule_.find(e.rule_id);
      if (it == subs_by_rule_.end()) continue;  // its subscription was deleted meanwhile
      for (const auto& sub_id : it->second) {
        webhook::Alert a;
        // A new_cluster alert is raised once per (subscription, rule,
        // cluster): its id is derived, so a replay after a crash (see
        // Pipeline::replay_pending_alerts) cannot duplicate it.
        a.id = e.kind == "new_cluster"
                   ? webhook::derived_id("alrt_", sub_id + "/" + e.rule_id + "/" + lsh::format_id(e.cluster_id))
                   : webhook::random_id("alrt_");
        a.rule = e.kind;
        a.rule_id = e.rule_id;
        a.state = e.state;
        a.cluster_id = lsh::format_id(e.cluster_id);
        a.template_text = e.template_text;
        a.count = e.count;
        a.window_ms = e.window_ms;
        a.first_seen_ms = e.first_seen_ms;
        a.last_seen_ms = e.last_seen_ms;
        a.created_ms = e.at_ms;
        a.baseline = e.baseline;
        a.labels = e.labels;
        a.examples = e.examples;
        if (cur)
          if (const auto* n = cur->named(e.cluster_id)) {
            a.cluster_name = n->name;
            a.cluster_note = n->note;
          }
        OutboxRow row;
        row.id = a.id;
        row.subscription_id = sub_id;
        row.created_ms = e.at_ms;
        row.payload = webhook::to_logsift_json(a).dump(-1, ' ', false, json::error_handler_t::replace);
        rows.push_back(std::move(row));
      }
    }
  }
  if (rows.empty()) return;
  const size_t n = rows.size();
  if (!write_or_hold(std::move(rows)))
    throw std::runtime_error("the outbox cannot take " + std::to_string(n) +
                             " alerts now; held in memory and written when it can");
  if (delivery_) delivery_->wake();
}

bool AlertRouter::write_or_hold(std::vector<OutboxRow>&& rows) {
  std::lock_guard lock(held_mu_);
  for (auto& r : rows) held_.push_back(std::move(r));
  if (held_.size() > kMaxHeld) {
    const size_t over = held_.size() - kMaxHeld;
    held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(over));
    metrics().alerts_dropped.inc(over);
    spdlog::error("alerts: dropped the {} oldest alerts held for the outbox (at most {} are held in memory)", over,
                  kMaxHeld);
  }
  if (held_.empty()) return true;
  try {
    // One transaction; rows already written (a derived id) are skipped.
    store_.enqueue(std::vector<OutboxRow>(held_.begin(), held_.end()));
  } catch (const std::exception& e) {
    const bool first = outbox_error_.empty();
    outbox_error_ = e.what();
    metrics().alerts_held.set(static_cast<int64_t>(held_.size()));
    if (const int64_t t = now_ms(); first || t >= next_held_log_ms_) {
      next_held_log_ms_ = t + 10000;
      spdlog::error("alerts: the outbox cannot take alerts: {}; {} held in memory, written when it can", e.what(),
                    held_.size());
    }
    return false;
  }
  metrics().alerts_enqueued.inc(held_.size());
  if (!outbox_error_.empty())
    spdlog::info("alerts: the outbox takes alerts again; wrote the {} held meanwhile", held_.size());
  held_.clear();
  outbox_error_.clear();
  metrics().alerts_held.set(0);
  return true;
}

bool AlertRouter::write_held() {
  {
    std::lock_guard lock(held_mu_);
    if (held_.empty()) return true;
  }
  if (!write_or_hold({})) return false;
  if (delivery_) delivery_->wake();
  return true;
}

std::string AlertRouter::outbox_fault() const {
  std::lock_guard lock(held_mu_);
  return outbox_error_;
}

}  // namespace logsift
