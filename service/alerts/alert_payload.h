// Alert records and their two wire formats: logsift's own JSON (also the
// outbox storage format) and the Prometheus Alertmanager webhook payload
// (version "4"), so existing Alertmanager receivers can take logsift alerts.
// Pure functions of their arguments; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace logsift::webhook {

struct Alert {
  std::string id;             // stable alert id (idempotency key)
  std::string rule;           // "new_cluster" | "threshold" | "spike"
  std::string rule_id;        // stable id of the rule definition
  std::string state;          // "firing" | "resolved"
  std::string cluster_id;     // 16 hex
  std::string template_text;
  uint64_t count = 0;         // lines in the window (or total for new_cluster)
  int64_t window_ms = 0;
  int64_t first_seen_ms = 0, last_seen_ms = 0, created_ms = 0;
  double baseline = 0;        // spike: the EWMA baseline rate per window; 0 otherwise
  std::vector<std::pair<std::string, std::string>> labels;  // service, level, host, ...
  std::vector<std::string> examples;                        // up to N example lines
  std::string cluster_name, cluster_note;  // given by a person (pipeline/store/curation.h); "" when none

  bool operator==(const Alert&) const = default;
};

// {"id","rule","rule_id","state","cluster_id","template","count",
//  "window_seconds","first_seen","last_seen","created_at","baseline" (spike
//  only),"labels":{...},"examples":[...],"source":"logsift"}, and
//  "cluster_name" and "cluster_note" when the cluster was named.
// Times are "YYYY-MM-DDTHH:MM:SS.mmmZ"; window_seconds is an integer when
// window_ms is whole seconds, otherwise a fraction (so it round-trips).
nlohmann::json to_logsift_json(const Alert& a);

// Inverse of to_logsift_json. Labels come back sorted by name (a JSON object
// has no order); with duplicate label names the last one wins on output.
// "baseline", "labels" and "examples" are optional; every other field is
// required. Throws std::invalid_argument naming the bad field.
Alert alert_from_json(const nlohmann::json& j);

// Alertmanager webhook payload, version "4", one notification for `alerts`:
//  - status "firing" if any alert fires, else "resolved";
//  - alert labels: the alert's labels, then alertname = "logsift_<rule>",
//    cluster_id and rule_id (these three win over same-named labels);
//  - annotations: summary (template), description (count, window, baseline),
//    examples (newline-joined; omitted when there are none);
//  - startsAt = first_seen (created_at if 0); endsAt = "0001-01-01T00:00:00Z"
//    while firing, created_at of the resolved alert otherwise;
//  - generatorURL = external_url + "/clusters/<cluster_id>" ("" without URL);
//  - fingerprint = Prometheus' label-set fingerprint (FNV-1a 64, 16 hex);
//  - groupLabels = {alertname} when all alerts share it, else {};
//    groupKey = "{}:" + groupLabels in Alertmanager's notation;
//    commonLabels / commonAnnotations = pairs shared by every alert.
nlohmann::json to_alertmanager_json(const std::vector<Alert>& alerts, const std::string& receiver,
                                    const std::string& external_url);

// Alertmanager's own API (POST /api/v2/alerts, format "alertmanager_api"): an
// array of postable alerts with the same labels, annotations, startsAt and
// generatorURL as the webhook payload above; endsAt only for a resolved
// alert (a firing one is kept by Alertmanager until its resolve_timeout
// passes without a repeat, which suits one-shot events such as new_cluster).
nlohmann::json to_alertmanager_api_json(const std::vector<Alert>& alerts, const std::string& external_url);

// "2024-05-01T12:00:00.123Z" for Unix milliseconds (UTC).
std::string format_utc_ms(int64_t unix_ms);
// Inverse of format_utc_ms; also takes no fraction or 1-9 fraction digits
// (truncated to ms). Only the 'Z' zone. nullopt if malformed.
std::optional<int64_t> parse_utc_ms(std::string_view text);

}  // namespace logsift::webhook
