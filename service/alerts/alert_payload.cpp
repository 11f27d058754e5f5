#include "service/alerts/alert_payload.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace logsift::webhook {
namespace {

using nlohmann::json;
using LabelMap = std::map<std::string, std::string>;

// Go's zero time.Time, which Alertmanager sends as endsAt while firing.
constexpr std::string_view kZeroTime = "0001-01-01T00:00:00Z";

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

bool parse_fixed(std::string_view s, size_t pos, size_t len, int& out) {
  if (pos + len > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + len; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

[[noreturn]] void bad_field(const char* name, const char* why) {
  throw std::invalid_argument(std::string("alert json: field '") + name + "' " + why);
}

const json& require(const json& j, const char* name) {
  const auto it = j.find(name);
  if (it == j.end()) bad_field(name, "is missing");
  return *it;
}

std::string require_string(const json& j, const char* name) {
  const json& v = require(j, name);
  if (!v.is_string()) bad_field(name, "must be a string");
  return v.get<std::string>();
}

int64_t require_time(const json& j, const char* name) {
  const auto ms = parse_utc_ms(require_string(j, name));
  if (!ms) bad_field(name, "must be an ISO 8601 UTC time");
  return *ms;
}

// "300s", "5m", "1h", "1.5s": short enough for an annotation line.
std::string format_window(int64_t ms) {
  if (ms > 0 && ms % 3'600'000 == 0) return std::to_string(ms / 3'600'000) + "h";
  if (ms > 0 && ms % 60'000 == 0) return std::to_string(ms / 60'000) + "m";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3gs", static_cast<double>(ms) / 1000.0);
  return buf;
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string describe(const Alert& a) {
  const std::string lines = std::to_string(a.count) + (a.count == 1 ? " line" : " lines");
  if (a.rule == "new_cluster") {
    return "New log cluster " + a.cluster_id + " first seen at " + format_utc_ms(a.first_seen_ms) +
           "; " + lines + " so far.";
  }
  std::string text = lines + " in the last " + format_window(a.window_ms);
  if (a.rule == "spike") text += " (baseline " + format_number(a.baseline) + " per window)";
  return text + " for cluster " + a.cluster_id + " (rule " + a.rule + ").";
}

LabelMap alertmanager_labels(const Alert& a) {
  LabelMap labels;
  for (const auto& [k, v] : a.labels) labels[k] = v;
  // Our identity labels win: Alertmanager deduplicates and groups by labels,
  // so a user label named alertname must not change which alert this is.
  labels["alertname"] = "logsift_" + a.rule;
  labels["cluster_id"] = a.cluster_id;
  labels["rule_id"] = a.rule_id;
  return labels;
}

LabelMap alertmanager_annotations(const Alert& a) {
  LabelMap annotations;
  annotations["summary"] = a.cluster_name.empty() ? a.template_text : a.cluster_name + ": " + a.template_text;
  annotations["description"] = describe(a);
  if (!a.examples.empty()) {
    std::string joined;
    for (const auto& e : a.examples) {
      if (!joined.empty()) joined += '\n';
      joined += e;
    }
    annotations["examples"] = joined;
  }
  return annotations;
}

// prometheus/common model.labelSetToFingerprint: FNV-1a 64 over the names
// in byte order, each name and value followed by 0xff. Receivers that
// deduplicate on "fingerprint" then see the same value Alertmanager would send.
std::string fingerprint(const LabelMap& labels) {
  constexpr uint64_t kOffset = 14695981039346656037ull;
  constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t h = kOffset;
  auto add = [&h](std::string_view s) {
    for (const char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= kPrime;
    }
  };
  auto add_separator = [&h] {
    h ^= 0xff;
    h *= kPrime;
  };
  for (const auto& [k, v] : labels) {  // std::map: sorted by name
    add(k);
    add_separator();
    add(v);
    add_separator();
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Go strconv.Quote for the characters that occur in label values.
std::string go_quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

// model.LabelSet.String(): {a="x", b="y"}, names sorted.
std::string label_set_string(const LabelMap& labels) {
  std::string out = "{";
  for (const auto& [k, v] : labels) {
    if (out.size() > 1) out += ", ";
    out += k + "=" + go_quote(v);
  }
  return out + "}";
}

void intersect(LabelMap& common, const LabelMap& other) {
  for (auto it = common.begin(); it != common.end();) {
    const auto found = other.find(it->first);
    if (found == other.end() || found->second != it->second) {
      it = common.erase(it);
    } else {
      ++it;
    }
  }
}

json to_object(const LabelMap& m) {
  json j = json::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

}  // namespace

nlohmann::json to_alertmanager_api_json(const std::vector<Alert>& alerts, const std::string& external_url) {
  const nlohmann::json webhook = to_alertmanager_json(alerts, "api", external_url);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : webhook["alerts"]) {
    nlohmann::json p = {{"labels", a["labels"]},
                        {"annotations", a["annotations"]},
                        {"startsAt", a["startsAt"]},
                        {"generatorURL", a["generatorURL"]}};
    if (a["status"] == "resolved") p["endsAt"] = a["endsAt"];
    out.push_back(std::move(p));
  }
  return out;
}

std::string format_utc_ms(int64_t unix_ms) {
  using namespace std::chrono;
  const int64_t days = floor_div(unix_ms, 86'400'000);
  const int64_t ms_of_day = unix_ms - days * 86'400'000;
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(ms_of_day / 3'600'000), static_cast<int>(ms_of_day / 60'000 % 60),
                static_cast<int>(ms_of_day / 1000 % 60), static_cast<int>(ms_of_day % 1000));
  return buf;
}

std::optional<int64_t> parse_utc_ms(std::string_view s) {
  using namespace std::chrono;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (s.size() < 20 || !parse_fixed(s, 0, 4, y) || s[4] != '-' || !parse_fixed(s, 5, 2, mo) ||
      s[7] != '-' || !parse_fixed(s, 8, 2, d) || s[10] != 'T' || !parse_fixed(s, 11, 2, h) ||
      s[13] != ':' || !parse_fixed(s, 14, 2, mi) || s[16] != ':' || !parse_fixed(s, 17, 2, sec) ||
      h > 23 || mi > 59 || sec > 59) {
    return std::nullopt;
  }
  size_t pos = 19;
  int ms = 0;
  if (s[pos] == '.') {
    ++pos;
    size_t digits = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (digits < 3) ms = ms * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0 || digits > 9) return std::nullopt;
    for (size_t i = digits; i < 3; ++i) ms *= 10;
  }
  if (pos + 1 != s.size() || s[pos] != 'Z') return std::nullopt;
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  const int64_t days = sys_days{ymd}.time_since_epoch().count();
  return days * 86'400'000 + int64_t{h} * 3'600'000 + int64_t{mi} * 60'000 + int64_t{sec} * 1000 + ms;
}

json to_logsift_json(const Alert& a) {
  json j = json::object();
  j["id"] = a.id;
  j["rule"] = a.rule;
  j["rule_id"] = a.rule_id;
  j["state"] = a.state;
  j["cluster_id"] = a.cluster_id;
  j["template"] = a.template_text;
  j["count"] = a.count;
  if (a.window_ms % 1000 == 0) {
    j["window_seconds"] = a.window_ms / 1000;
  } else {
    j["window_seconds"] = static_cast<double>(a.window_ms) / 1000.0;
  }
  j["first_seen"] = format_utc_ms(a.first_seen_ms);
  j["last_seen"] = format_utc_ms(a.last_seen_ms);
  j["created_at"] = format_utc_ms(a.created_ms);
  if (a.rule == "spike") j["baseline"] = a.baseline;
  json labels = json::object();
  for (const auto& [k, v] : a.labels) labels[k] = v;
  j["labels"] = std::move(labels);
  j["examples"] = a.examples;
  j["source"] = "logsift";
  if (!a.cluster_name.empty()) {
    j["cluster_name"] = a.cluster_name;
    j["cluster_note"] = a.cluster_note;
  }
  return j;
}

Alert alert_from_json(const json& j) {
  if (!j.is_object()) throw std::invalid_argument("alert json: not an object");
  Alert a;
  a.id = require_string(j, "id");
  a.rule = require_string(j, "rule");
  a.rule_id = require_string(j, "rule_id");
  a.state = require_string(j, "state");
  a.cluster_id = require_string(j, "cluster_id");
  a.template_text = require_string(j, "template");

  const json& count = require(j, "count");
  if (!count.is_number_unsigned() && !(count.is_number_integer() && count.get<int64_t>() >= 0)) {
    bad_field("count", "must be a non-negative integer");
  }
  a.count = count.get<uint64_t>();

  const json& window = require(j, "window_seconds");
  if (window.is_number_integer()) {
    a.window_ms = window.get<int64_t>() * 1000;
  } else if (window.is_number_float() && std::isfinite(window.get<double>())) {
    a.window_ms = std::llround(window.get<double>() * 1000.0);
  } else {
    bad_field("window_seconds", "must be a number");
  }

  a.first_seen_ms = require_time(j, "first_seen");
  a.last_seen_ms = require_time(j, "last_seen");
  a.created_ms = require_time(j, "created_at");

  if (const auto it = j.find("baseline"); it != j.end()) {
    if (!it->is_number()) bad_field("baseline", "must be a number");
    a.baseline = it->get<double>();
  }
  if (const auto it = j.find("labels"); it != j.end()) {
    if (!it->is_object()) bad_field("labels", "must be an object");
    for (const auto& [k, v] : it->items()) {
      if (!v.is_string()) bad_field("labels", "values must be strings");
      a.labels.emplace_back(k, v.get<std::string>());
    }
  }
  if (const auto it = j.find("examples"); it != j.end()) {
    if (!it->is_array()) bad_field("examples", "must be an array");
    for (const auto& e : *it) {
      if (!e.is_string()) bad_field("examples", "items must be strings");
      a.examples.push_back(e.get<std::string>());
    }
  }
  if (const auto it = j.find("cluster_name"); it != j.end() && it->is_string()) a.cluster_name = it->get<std::string>();
  if (const auto it = j.find("cluster_note"); it != j.end() && it->is_string()) a.cluster_note = it->get<std::string>();
  return a;
}

json to_alertmanager_json(const std::vector<Alert>& alerts, const std::string& receiver,
                          const std::string& external_url) {
  std::string base_url = external_url;
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();

  json items = json::array();
  std::optional<LabelMap> common_labels;
  std::optional<LabelMap> common_annotations;
  bool any_firing = false;
  for (const Alert& a : alerts) {
    const bool firing = a.state != "resolved";
    any_firing = any_firing || firing;
    const LabelMap labels = alertmanager_labels(a);
    const LabelMap annotations = alertmanager_annotations(a);
    if (common_labels) {
      intersect(*common_labels, labels);
      intersect(*common_annotations, annotations);
    } else {
      common_labels = labels;
      common_annotations = annotations;
    }
    json item = json::object();
    item["status"] = firing ? "firing" : "resolved";
    item["labels"] = to_object(labels);
    item["annotations"] = to_object(annotations);
    item["startsAt"] = format_utc_ms(a.first_seen_ms != 0 ? a.first_seen_ms : a.created_ms);
    item["endsAt"] = firing ? std::string(kZeroTime) : format_utc_ms(a.created_ms);
    item["generatorURL"] = base_url.empty() ? std::string() : base_url + "/clusters/" + a.cluster_id;
    item["fingerprint"] = fingerprint(labels);
    items.push_back(std::move(item));
  }

  LabelMap group_labels;
  if (common_labels) {
    if (const auto it = common_labels->find("alertname"); it != common_labels->end()) {
      group_labels.insert(*it);
    }
  }

  json j = json::object();
  j["version"] = "4";
  j["groupKey"] = "{}:" + label_set_string(group_labels);
  j["truncatedAlerts"] = 0;
  j["status"] = any_firing ? "firing" : "resolved";
  j["receiver"] = receiver;
  j["groupLabels"] = to_object(group_labels);
  j["commonLabels"] = to_object(common_labels.value_or(LabelMap{}));
  j["commonAnnotations"] = to_object(common_annotations.value_or(LabelMap{}));
  j["externalURL"] = external_url;
  j["alerts"] = std::move(items);
  return j;
}

}  // namespace logsift::webhook
