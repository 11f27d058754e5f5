#include "pipeline/stages/aggregator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "pipeline/core/text.h"
#include "pipeline/core/time.h"

namespace logsift {
namespace {

using json = nlohmann::json;

constexpr int64_t kMaxDurationMs = 7LL * 24 * 3600 * 1000;
constexpr int64_t kNever = std::numeric_limits<int64_t>::min();
// Keeps rule ids out of the space of template ids hashed from the same bytes.
constexpr uint64_t kRuleIdSeed = 0x72756c655f696431ULL;  // "rule_id1"

enum class Kind : uint8_t { kNewCluster, kThreshold, kSpike, kInvalid };

Kind kind_of(std::string_view kind) {
  if (kind == "new_cluster") return Kind::kNewCluster;
  if (kind == "threshold") return Kind::kThreshold;
  if (kind == "spike") return Kind::kSpike;
  return Kind::kInvalid;
}

[[noreturn]] void bad(std::string_view where, std::string_view field, const std::string& why) {
  throw std::invalid_argument(std::string(where) + "." + std::string(field) + ": " + why);
}

// Timestamps are epoch ms and positive in practice, but a clock set to 1969 in
// a test must not put a line into the wrong bucket.
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
size_t slot_of(int64_t bucket, int n) {
  int64_t m = bucket % n;
  return static_cast<size_t>(m < 0 ? m + n : m);
}

// A ring of n buckets holding bucket indexes (head - n, head]. Moves the head
// to `bucket` if that is later, zeroing the buckets that fall out; returns
// their sum so the caller can keep a running total.
uint64_t ring_advance(uint32_t* buckets, int n, int64_t* head, int64_t bucket) {
  if (bucket <= *head) return 0;
  uint64_t removed = 0;
  if (bucket - *head >= n) {
    for (int i = 0; i < n; ++i) removed += std::exchange(buckets[i], 0);
  } else {
    for (int64_t k = *head + 1; k <= bucket; ++k) removed += std::exchange(buckets[slot_of(k, n)], 0);
  }
  *head = bucket;
  return removed;
}
// Counts one line in `bucket` (<= head after ring_advance). False if the
// bucket already left the ring (a line older than the window).
// Saturating: a count never wraps.
uint32_t sat_add(uint32_t a, uint32_t k) {
  return a > std::numeric_limits<uint32_t>::max() - k ? std::numeric_limits<uint32_t>::max() : a + k;
}

bool ring_add(uint32_t* buckets, int n, int64_t head, int64_t bucket, uint32_t k = 1) {
  if (bucket <= head - n) return false;
  uint32_t& b = buckets[slot_of(bucket, n)];
  b = sat_add(b, k);
  return true;
}

struct Shape {
  int buckets;
  int64_t bucket_ms;
};
// Up to n buckets per window. Prefer a count that divides the window so a
// "10s" window is exactly 10 s (50 x 200 ms) rather than 60 x 167 ms; fall
// back to ceil(window / n) ms buckets for windows with no such divisor.
Shape window_shape(int64_t window_ms, int n) {
  const int most = static_cast<int>(std::min<int64_t>(n, window_ms));
  for (int b = most; b >= std::max(1, most / 2); --b)
    if (window_ms % b == 0) return {b, window_ms / b};
  return {most, (window_ms + most - 1) / most};
}

json seconds_json(int64_t ms) {
  if (ms % 1000 == 0) return ms / 1000;
  return static_cast<double>(ms) / 1000.0;
}

json labels_json(const Labels& labels) {
  json o = json::object();
  for (const auto& [k, v] : labels) o[k] = v;
  return o;
}

// "<digits><unit>" or an integer of milliseconds. Range checks are validate()'s.
int64_t parse_duration(const json& v, std::string_view where, std::string_view field) {
  const std::string expected = "expected milliseconds or a duration like \"30s\", \"5m\", \"1h\", got ";
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(kMaxDurationMs))
      bad(where, field, "too long (at most 7d): " + v.dump());
    return static_cast<int64_t>(v.get<uint64_t>());
  }
  if (v.is_number_integer()) return v.get<int64_t>();  // negative: rejected by validate()
  if (!v.is_string()) bad(where, field, expected + v.dump());
  std::string_view s = v.get_ref<const std::string&>();
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) bad(where, field, expected + v.dump());
  int64_t n = 0;
  for (size_t i = 0; i < digits; ++i) n = n * 10 + (s[i] - '0');
  std::string_view unit = s.substr(digits);
  int64_t scale = 0;
  if (unit == "ms") scale = 1;
  else if (unit == "s") scale = 1000;
  else if (unit == "m") scale = 60000;
  else if (unit == "h") scale = 3600000;
  else if (unit == "d") scale = 86400000;
  else bad(where, field, expected + v.dump());
  if (n > kMaxDurationMs / scale) bad(where, field, "too long (at most 7d): " + v.dump());
  return n * scale;
}

uint64_t parse_count(const json& v, std::string_view where, std::string_view field) {
  if (!v.is_number_unsigned()) bad(where, field, "expected a positive integer, got " + v.dump());
  return v.get<uint64_t>();
}

double parse_number(const json& v, std::string_view where, std::string_view field) {
  if (!v.is_number()) bad(where, field, "expected a number, got " + v.dump());
  return v.get<double>();
}

bool labels_match(const std::vector<std::pair<std::string, std::string>>& filters, const Labels& labels) {
  for (const auto& [key, value] : filters) {
    bool found = false;
    for (const auto& [k, v] : labels) {
      if (k == key && v == value) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

// Cuts at a UTF-8 boundary so the example stays valid UTF-8 (JSON dumps of
// alerts would throw on a split code point).
std::string_view utf8_prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut);
}

}  // namespace

// ---------------------------------------------------------------- RuleSpec

void RuleSpec::validate(std::string_view where) const {
  Kind k = kind_of(kind);
  if (k == Kind::kInvalid)
    bad(where, "kind", "expected \"new_cluster\", \"threshold\" or \"spike\", got \"" + kind + "\"");
  if (k != Kind::kNewCluster) {
    if (window_ms < 1000 || window_ms > kMaxDurationMs)
      bad(where, "window", "must be in [1s, 7d], got " + std::to_string(window_ms) + " ms");
    if (cooldown_ms < 0 || cooldown_ms > kMaxDurationMs)
      bad(where, "cooldown", "must be in [0, 7d], got " + std::to_string(cooldown_ms) + " ms");
  }
  if (k == Kind::kThreshold && threshold < 1) bad(where, "threshold", "must be at least 1");
  if (k == Kind::kSpike) {
    if (!std::isfinite(spike_factor) || spike_factor < 1.0)
      bad(where, "spike_factor", "must be a number >= 1, got " + json(spike_factor).dump());
    if (min_count < 1) bad(where, "min_count", "must be at least 1");
    if (!std::isfinite(ewma_alpha) || ewma_alpha <= 0.0 || ewma_alpha > 1.0)
      bad(where, "ewma_alpha", "must be in (0, 1], got " + json(ewma_alpha).dump());
  }
  if (min_level < Severity::kUnknown || min_level > Severity::kFatal) bad(where, "min_level", "out of range");
  for (size_t i = 0; i < label_filters.size(); ++i) {
    const std::string& key = label_filters[i].first;
    if (key.empty()) bad(where, "labels", "empty label name");
    for (size_t j = 0; j < i; ++j)
      if (label_filters[j].first == key) bad(where, "labels", "label \"" + key + "\" given twice");
  }
}

RuleSpec RuleSpec::from_json(const json& j, std::string_view where) {
  if (!j.is_object()) throw std::invalid_argument(std::string(where) + ": expected an object, got " + j.dump());
  if (!j.contains("kind")) bad(where, "kind", "missing");
  if (!j["kind"].is_string()) bad(where, "kind", "expected a string, got " + j["kind"].dump());
  RuleSpec r;
  r.kind = j["kind"].get<std::string>();
  Kind k = kind_of(r.kind);
  if (k == Kind::kInvalid)
    bad(where, "kind", "expected \"new_cluster\", \"threshold\" or \"spike\", got \"" + r.kind + "\"");

  for (const auto& [field, v] : j.items()) {
    const bool windowed = k == Kind::kThreshold || k == Kind::kSpike;
    auto unused = [&] { bad(where, field, "not used by kind \"" + r.kind + "\""); };
    if (field == "kind") continue;
    if (field == "window") {
      if (!windowed) unused();
      r.window_ms = parse_duration(v, where, field);
    } else if (field == "cooldown") {
      if (!windowed) unused();
      r.cooldown_ms = parse_duration(v, where, field);
    } else if (field == "threshold") {
      if (k != Kind::kThreshold) unused();
      r.threshold = parse_count(v, where, field);
    } else if (field == "spike_factor") {
      if (k != Kind::kSpike) unused();
      r.spike_factor = parse_number(v, where, field);
    } else if (field == "min_count") {
      if (k != Kind::kSpike) unused();
      r.min_count = parse_count(v, where, field);
    } else if (field == "ewma_alpha") {
      if (k != Kind::kSpike) unused();
      r.ewma_alpha = parse_number(v, where, field);
    } else if (field == "min_level") {
      if (!v.is_string()) bad(where, field, "expected a level name, got " + v.dump());
      const std::string& s = v.get_ref<const std::string&>();
      if (s == "any" || s == "all") {
        r.min_level = Severity::kUnknown;
      } else {
        r.min_level = parse_severity(s);
        if (r.min_level == Severity::kUnknown)
          bad(where, field, "unknown level \"" + s + "\" (expected e.g. \"info\", \"warn\", \"error\", \"any\")");
      }
    } else if (field == "labels") {
      if (!v.is_object()) bad(where, field, "expected an object of label name -> value, got " + v.dump());
      for (const auto& [name, value] : v.items()) {
        if (!value.is_string())
          bad(where, field + "." + name, "expected a string, got " + value.dump());
        r.label_filters.emplace_back(name, value.get<std::string>());
      }
    } else {
      bad(where, field, "unknown field");
    }
  }
  r.validate(where);
  return r;
}

json RuleSpec::to_json() const {
  json j = json::object();
  j["kind"] = kind;
  Kind k = kind_of(kind);
  if (k == Kind::kThreshold || k == Kind::kSpike) {
    j["window"] = window_ms;
    j["cooldown"] = cooldown_ms;
  }
  if (k == Kind::kThreshold) j["threshold"] = threshold;
  if (k == Kind::kSpike) {
    j["spike_factor"] = spike_factor;
    j["min_count"] = min_count;
    j["ewma_alpha"] = ewma_alpha;
  }
  if (min_level != Severity::kUnknown) j["min_level"] = std::string(severity_name(min_level));
  if (!label_filters.empty()) j["labels"] = labels_json(label_filters);  // an object: sorted keys
  return j;
}

std::string RuleSpec::id() const {
  // nlohmann objects are key-sorted and number formatting is fixed, so the
  // dump is canonical.
  return lsh::format_id(lsh::stable_hash64(to_json().dump(), kRuleIdSeed));
}

json AlertEvent::to_json() const {
  return {{"rule_id", rule_id},
          {"kind", kind},
          {"state", state},
          {"cluster_id", lsh::format_id(cluster_id)},
          {"count", count},
          {"window_ms", window_ms},
          {"baseline", baseline},
          {"at_ms", at_ms},
          {"at", format_time_ms(at_ms)},
          {"template", template_text},
          {"labels", labels_json(labels)},
          {"examples", examples},
          {"first_seen", format_time_ms(first_seen_ms)},
          {"last_seen", format_time_ms(last_seen_ms)}};
}

void AggregatorOptions::validate() const {
  const std::string where = "aggregator";
  if (series_windows_ms.empty()) bad(where, "series_windows_ms", "must not be empty");
  for (size_t i = 0; i < series_windows_ms.size(); ++i) {
    if (series_windows_ms[i] < 1000 || series_windows_ms[i] > kMaxDurationMs)
      bad(where, "series_windows_ms", "must be in [1s, 7d], got " + std::to_string(series_windows_ms[i]));
    for (size_t j = 0; j < i; ++j)
      if (series_windows_ms[j] == series_windows_ms[i])
        bad(where, "series_windows_ms", std::to_string(series_windows_ms[i]) + " given twice");
  }
  if (buckets_per_window < 1 || buckets_per_window > 3600)
    bad(where, "buckets_per_window", "must be in [1, 3600], got " + std::to_string(buckets_per_window));
  if (max_clusters < 1) bad(where, "max_clusters", "must be at least 1");
  if (max_examples < 0 || max_examples > 100)
    bad(where, "max_examples", "must be in [0, 100], got " + std::to_string(max_examples));
  if (max_example_bytes < 16 || max_example_bytes > (1u << 20))
    bad(where, "max_example_bytes", "must be in [16, 1048576], got " + std::to_string(max_example_bytes));
}

// ---------------------------------------------------------------- Aggregator

struct Aggregator::Rule {
  RuleSpec spec;
  std::string id;
  Kind kind = Kind::kInvalid;
  uint32_t key = 0;         // stable for an id across set_rules (state follows it)
  uint32_t generation = 0;  // generation_ when the id first appeared
  int buckets = 0;          // threshold/spike ring
  int64_t bucket_ms = 0;
};

// Per (rule, cluster), created by the first line of the cluster that passes
// the rule's filters.
struct Aggregator::RuleState {
  std::vector<uint32_t> buckets;  // sliding window ring; empty for new_cluster
  int64_t head = 0;               // bucket index of the ring's newest bucket
  uint64_t total = 0;             // sum of `buckets`: the window count
  // Spike: tumbling windows of window_ms feed the baseline. The window the
  // state was created in is partial (the cluster may have started mid-way),
  // so it is not learned: the baseline starts with the first full window.
  int64_t win_index = 0, first_win_index = 0;
  uint64_t win_count = 0;
  double baseline = 0;
  bool has_baseline = false;
  bool firing = false;
  bool listed = false;  // present in firing_
  int64_t last_fired_ms = kNever;
  Labels fired_labels;  // the firing line's, repeated on the "resolved" notice
};

struct Aggregator::Cluster {
  uint64_t id = 0;
  std::string template_text;
  int64_t first_seen_ms = 0, last_seen_ms = 0;
  // generation_ when the catalog reported the cluster new; 0 = it was not new
  // when this aggregator first saw it (restart, eviction), so no new_cluster alert.
  uint32_t born_generation = 0;
  std::vector<int64_t> series_head;  // per series window
  // All series rings, window w's at series_[w].offset. Empty while every line
  // of the cluster fell in bucket series_head[w] of every window (most
  // clusters of a long tail are seen once): then compact_count is that
  // bucket's count and the rings (720 B with the default windows) are not
  // allocated. series_at() reads either form.
  std::vector<uint32_t> series;
  uint32_t compact_count = 0;
  std::vector<std::string> examples; // ring of max_examples lines
  uint32_t examples_next = 0, examples_size = 0;
  std::vector<std::unique_ptr<RuleState>> rules;  // by rule index; null until a line matched
  size_t bytes = 0;  // cluster_bytes() when last counted into Aggregator::bytes_
};

namespace {

// Heap bytes a string owns beyond itself (0 while it fits the SSO buffer).
size_t heap_bytes(const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; }

}  // namespace

// What one cluster costs: the node (list links, map node), its rings, its
// strings and rule states, by capacity. An estimate for /metrics, not a
// malloc count (allocator headers and rounding are not included).
size_t Aggregator::cluster_bytes(const Cluster& c) {
  size_t n = sizeof(Cluster) + 2 * sizeof(void*) + 4 * sizeof(void*) + heap_bytes(c.template_text) +
             c.series_head.capacity() * sizeof(int64_t) + c.series.capacity() * sizeof(uint32_t) +
             c.examples.capacity() * sizeof(std::string) + c.rules.capacity() * sizeof(void*);
  for (const auto& e : c.examples) n += heap_bytes(e);
  for (const auto& r : c.rules) {
    if (!r) continue;
    n += sizeof(RuleState) + r->buckets.capacity() * sizeof(uint32_t) +
         r->fired_labels.capacity() * sizeof(Labels::value_type);
    for (const auto& [k, v] : r->fired_labels) n += heap_bytes(k) + heap_bytes(v);
  }
  return n;
}

void Aggregator::recount(Cluster& c) {
  const size_t now = cluster_bytes(c);
  bytes_ = bytes_ - c.bytes + now;
  c.bytes = now;
}

namespace {

// Threshold/spike condition on the state's current window.
bool condition_holds(const RuleSpec& spec, Kind kind, uint64_t total, double baseline, bool has_baseline) {
  if (kind == Kind::kThreshold) return total >= spec.threshold;
  if (kind == Kind::kSpike)
    return has_baseline && total >= spec.min_count &&
           static_cast<double>(total) >= spec.spike_factor * std::max(baseline, 1.0);
  return false;
}

}  // namespace

Aggregator::Aggregator(AggregatorOptions opts) : opts_(std::move(opts)) {
  opts_.validate();
  size_t offset = 0;
  for (int64_t w : opts_.series_windows_ms) {
    Shape shape = window_shape(w, opts_.buckets_per_window);
    series_.push_back({shape.buckets, shape.bucket_ms, offset});
    offset += shape.buckets;
  }
  series_buckets_total_ = offset;
}

Aggregator::~Aggregator() = default;

void Aggregator::set_rules(std::vector<RuleSpec> specs) {
  // Validate everything first so a bad spec changes nothing.
  for (size_t i = 0; i < specs.size(); ++i) specs[i].validate("rules[" + std::to_string(i) + "]");

  ++generation_;
  std::vector<Rule> next;
  std::vector<RuleSpec> next_specs;
  std::vector<int> old_index;  // per new rule: its index in rules_, or -1
  for (auto& spec : specs) {
    std::string id = spec.id();
    if (std::any_of(next.begin(), next.end(), [&](const Rule& r) { return r.id == id; })) continue;
    Rule r;
    r.id = std::move(id);
    r.kind = kind_of(spec.kind);
    auto old = std::find_if(rules_.begin(), rules_.end(), [&](const Rule& o) { return o.id == r.id; });
    if (old != rules_.end()) {
      r.key = old->key;
      r.generation = old->generation;
      old_index.push_back(static_cast<int>(old - rules_.begin()));
    } else {
      r.key = next_rule_key_++;
      r.generation = generation_;
      old_index.push_back(-1);
    }
    if (r.kind != Kind::kNewCluster) {
      Shape shape = window_shape(spec.window_ms, opts_.buckets_per_window);
      r.buckets = shape.buckets;
      r.bucket_ms = shape.bucket_ms;
    }
    next_specs.push_back(spec);
    r.spec = std::move(spec);
    next.push_back(std::move(r));
  }

  // Move surviving per-cluster states to their new rule index; drop the rest.
  std::vector<int> new_index(rules_.size(), -1);
  for (size_t j = 0; j < old_index.size(); ++j)
    if (old_index[j] >= 0) new_index[old_index[j]] = static_cast<int>(j);
  for (Cluster& c : lru_) {
    if (c.rules.empty()) continue;
    std::vector<std::unique_ptr<RuleState>> moved(next.size());
    bool any = false;
    for (size_t i = 0; i < c.rules.size(); ++i) {
      if (c.rules[i] && new_index[i] >= 0) {
        moved[new_index[i]] = std::move(c.rules[i]);
        any = true;
      }
    }
    if (any) c.rules = std::move(moved);
    else c.rules.clear();
    recount(c);
  }
  size_t keep = 0;
  for (auto& [cluster_id, rule] : firing_) {
    if (rule < new_index.size() && new_index[rule] >= 0)
      firing_[keep++] = {cluster_id, static_cast<uint32_t>(new_index[rule])};
  }
  firing_.resize(keep);

  rules_ = std::move(next);
  specs_ = std::move(next_specs);
  rules_need_level_ = std::any_of(rules_.begin(), rules_.end(),
                                  [](const Rule& r) { return r.spec.min_level != Severity::kUnknown; });
}

Aggregator::Cluster& Aggregator::touch(uint64_t cluster_id, bool is_new, std::string_view template_text,
                                       int64_t ts_ms, std::vector<AlertEvent>* out) {
  auto it = clusters_.find(cluster_id);
  if (it != clusters_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    Cluster& c = *it->second;
    if (is_new && c.born_generation == 0) c.born_generation = generation_;
    if (c.template_text.empty() && !template_text.empty()) c.template_text = template_text;
    return c;
  }

  if (clusters_.size() >= opts_.max_clusters) {
    evict_oldest(ts_ms, out);
    // Reuse the evicted node: its buffers keep their capacity, so a full
    // aggregator churning through clusters does not allocate rings per line.
    lru_.splice(lru_.begin(), lru_, std::prev(lru_.end()));
  } else {
    lru_.emplace_front();
  }
  Cluster& c = lru_.front();
  c.id = cluster_id;
  c.template_text.assign(template_text);
  c.first_seen_ms = c.last_seen_ms = ts_ms;
  c.born_generation = is_new ? generation_ : 0;
  c.series_head.resize(series_.size());
  for (size_t w = 0; w < series_.size(); ++w) c.series_head[w] = floor_div(ts_ms, series_[w].bucket_ms);
  std::vector<uint32_t>().swap(c.series);  // compact until a second bucket (a reused node frees its rings)
  c.compact_count = 0;
  c.examples.resize(opts_.max_examples);
  for (auto& e : c.examples) e.clear();
  c.examples_next = c.examples_size = 0;
  c.rules.clear();
  clusters_.emplace(cluster_id, lru_.begin());
  return c;
}

void Aggregator::evict_oldest(int64_t ts_ms, std::vector<AlertEvent>* out) {
  Cluster& victim = lru_.back();
  // A firing alert of an evicted cluster could never resolve; close it now.
  // In practice it resolved already: the victim is the least recently seen.
  bool listed = false;
  for (size_t i = 0; i < victim.rules.size(); ++i) {
    RuleState* s = victim.rules[i].get();
    if (!s) continue;
    listed |= s->listed;
    if (!s->firing) continue;
    if (!maybe_resolve(rules_[i], *s, victim, ts_ms, out)) {
      s->firing = false;
      if (out) out->push_back(make_event(rules_[i], s, victim, "resolved", ts_ms));
    }
  }
  if (listed) std::erase_if(firing_, [&](const auto& f) { return f.first == victim.id; });
  clusters_.erase(victim.id);
  bytes_ -= victim.bytes;  // its buffers are reused by the next cluster, which counts them again
  victim.bytes = 0;
  ++evictions_;
}

void Aggregator::observe(uint64_t cluster_id, bool is_new, std::string_view template_text, const Labels& labels,
                         std::string_view text, int64_t ts_ms, std::vector<AlertEvent>* out, uint32_t count) {
  Cluster& c = touch(cluster_id, is_new, template_text, ts_ms, out);
  if (count == 0) {
    // No line: a cluster learned late to be new (its catalog write was
    // delayed). Only its new_cluster rules look at it.
    const Severity level = rules_need_level_ ? line_severity(labels) : Severity::kUnknown;
    for (size_t i = 0; i < rules_.size(); ++i) {
      const RuleSpec& spec = rules_[i].spec;
      if (rules_[i].kind != Kind::kNewCluster || level < spec.min_level) continue;
      if (!spec.label_filters.empty() && !labels_match(spec.label_filters, labels)) continue;
      observe_rule(i, c, labels, ts_ms, out, 0);
    }
    recount(c);
    return;
  }
  c.last_seen_ms = std::max(c.last_seen_ms, ts_ms);

  bool compact = c.series.empty();
  if (compact) {
    for (size_t w = 0; w < series_.size() && compact; ++w)
      compact = floor_div(ts_ms, series_[w].bucket_ms) == c.series_head[w];
    if (compact) {
      c.compact_count = sat_add(c.compact_count, count);
    } else {
      // A second bucket: the rings take over, holding the compact count.
      c.series.assign(series_buckets_total_, 0);
      for (size_t w = 0; w < series_.size(); ++w)
        c.series[series_[w].offset + slot_of(c.series_head[w], series_[w].buckets)] = c.compact_count;
    }
  }
  if (!compact) {
    for (size_t w = 0; w < series_.size(); ++w) {
      const SeriesWindow& sw = series_[w];
      uint32_t* ring = c.series.data() + sw.offset;
      int64_t bucket = floor_div(ts_ms, sw.bucket_ms);
      ring_advance(ring, sw.buckets, &c.series_head[w], bucket);
      ring_add(ring, sw.buckets, c.series_head[w], bucket, count);
    }
  }

  if (opts_.max_examples > 0 && !text.empty()) {
    // assign() reuses the slot's capacity: no allocation once the ring is warm.
    c.examples[c.examples_next].assign(utf8_prefix(text, opts_.max_example_bytes));
    c.examples_next = (c.examples_next + 1) % opts_.max_examples;
    c.examples_size = std::min<uint32_t>(c.examples_size + 1, opts_.max_examples);
  }

  if (!rules_.empty()) {
    const Severity level = rules_need_level_ ? line_severity(labels) : Severity::kUnknown;
    for (size_t i = 0; i < rules_.size(); ++i) {
      const RuleSpec& spec = rules_[i].spec;
      if (level < spec.min_level) continue;  // kUnknown min_level passes every line
      if (!spec.label_filters.empty() && !labels_match(spec.label_filters, labels)) continue;
      observe_rule(i, c, labels, ts_ms, out, count);
    }
  }
  recount(c);  // a few capacity reads: the ring slots and rule states may have grown
}

namespace {

// Closes the spike's tumbling windows up to `win` (exclusive), learning the
// completed ones into the EWMA baseline.
void roll_windows(const RuleSpec& spec, int64_t win, int64_t* win_index, int64_t first_win_index,
                  uint64_t* win_count, double* baseline, bool* has_baseline) {
  if (win <= *win_index) return;
  const double alpha = spec.ewma_alpha;
  auto learn = [&](double count) {
    *baseline = *has_baseline ? alpha * count + (1.0 - alpha) * *baseline : count;
    *has_baseline = true;
  };
  if (*win_index > first_win_index) learn(static_cast<double>(*win_count));
  // Full windows without a matching line: each one learns a 0.
  int64_t empty = win - *win_index - 1;
  if (empty > 0 && !*has_baseline) {
    learn(0);
    --empty;
  }
  if (empty > 0 && *baseline != 0) *baseline *= std::pow(1.0 - alpha, static_cast<double>(empty));
  *win_index = win;
  *win_count = 0;
}

}  // namespace

void Aggregator::observe_rule(size_t i, Cluster& c, const Labels& labels, int64_t ts_ms,
                              std::vector<AlertEvent>* out, uint32_t count) {
  const Rule& rule = rules_[i];
  if (c.rules.size() < rules_.size()) c.rules.resize(rules_.size());
  std::unique_ptr<RuleState>& slot = c.rules[i];

  if (rule.kind == Kind::kNewCluster) {
    // Fires once, on the first line that passes the filters, for clusters
    // the catalog reported new after this rule was added.
    if (slot || c.born_generation == 0 || c.born_generation < rule.generation) return;
    slot = std::make_unique<RuleState>();
    slot->last_fired_ms = ts_ms;
    if (out) {
      AlertEvent e = make_event(rule, slot.get(), c, "firing", ts_ms);
      e.labels = labels;
      out->push_back(std::move(e));
    }
    return;
  }

  if (!slot) {
    slot = std::make_unique<RuleState>();
    slot->buckets.assign(rule.buckets, 0);
    slot->head = floor_div(ts_ms, rule.bucket_ms);
    slot->win_index = slot->first_win_index = floor_div(ts_ms, rule.spec.window_ms);
  }
  RuleState& s = *slot;
  const int64_t bucket = floor_div(ts_ms, rule.bucket_ms);
  s.total -= ring_advance(s.buckets.data(), rule.buckets, &s.head, bucket);
  if (ring_add(s.buckets.data(), rule.buckets, s.head, bucket, count)) s.total += count;
  if (rule.kind == Kind::kSpike) {
    const int64_t win = floor_div(ts_ms, rule.spec.window_ms);
    roll_windows(rule.spec, win, &s.win_index, s.first_win_index, &s.win_count, &s.baseline, &s.has_baseline);
    if (win == s.win_index) s.win_count += count;  // a late line of a closed window is not re-learned
  }

  const bool holds = condition_holds(rule.spec, rule.kind, s.total, s.baseline, s.has_baseline);
  if (s.firing) {
    if (!holds) {
      s.firing = false;
      if (out) out->push_back(make_event(rule, &s, c, "resolved", ts_ms));
      s.fired_labels.clear();
    }
    return;  // one incident, one firing alert
  }
  if (!holds) return;
  if (s.last_fired_ms != kNever && ts_ms - s.last_fired_ms < rule.spec.cooldown_ms) return;
  s.firing = true;
  s.last_fired_ms = ts_ms;
  s.fired_labels = labels;
  if (!s.listed) {
    firing_.emplace_back(c.id, static_cast<uint32_t>(i));
    s.listed = true;
  }
  if (out) out->push_back(make_event(rule, &s, c, "firing", ts_ms));
}

bool Aggregator::maybe_resolve(const Rule& rule, RuleState& s, const Cluster& c, int64_t now_ms,
                               std::vector<AlertEvent>* out) {
  s.total -= ring_advance(s.buckets.data(), rule.buckets, &s.head, floor_div(now_ms, rule.bucket_ms));
  if (rule.kind == Kind::kSpike)
    roll_windows(rule.spec, floor_div(now_ms, rule.spec.window_ms), &s.win_index, s.first_win_index, &s.win_count,
                 &s.baseline, &s.has_baseline);
  if (!s.firing || condition_holds(rule.spec, rule.kind, s.total, s.baseline, s.has_baseline)) return false;
  s.firing = false;
  if (out) out->push_back(make_event(rule, &s, c, "resolved", now_ms));
  s.fired_labels.clear();
  return true;
}

void Aggregator::tick(int64_t now_ms, std::vector<AlertEvent>* out) {
  size_t keep = 0;
  for (size_t k = 0; k < firing_.size(); ++k) {
    const auto [cluster_id, rule] = firing_[k];
    auto it = clusters_.find(cluster_id);
    if (it == clusters_.end()) continue;
    Cluster& c = *it->second;
    RuleState* s = rule < c.rules.size() ? c.rules[rule].get() : nullptr;
    if (!s) continue;
    if (s->firing) maybe_resolve(rules_[rule], *s, c, now_ms, out);
    if (s->firing) {
      firing_[keep++] = firing_[k];
    } else {
      s->listed = false;
    }
  }
  firing_.resize(keep);
}

AlertEvent Aggregator::make_event(const Rule& rule, const RuleState* s, const Cluster& c, const char* state,
                                  int64_t at_ms) const {
  AlertEvent e;
  e.rule_id = rule.id;
  e.kind = rule.spec.kind;
  e.state = state;
  e.cluster_id = c.id;
  if (rule.kind == Kind::kNewCluster) {
    e.count = 1;
  } else {
    e.count = s->total;
    e.window_ms = rule.spec.window_ms;
    e.labels = s->fired_labels;
  }
  if (rule.kind == Kind::kSpike) e.baseline = s->baseline;
  e.at_ms = at_ms;
  e.template_text = c.template_text;
  const uint32_t n = static_cast<uint32_t>(opts_.max_examples);
  e.examples.reserve(c.examples_size);
  for (uint32_t k = 0; k < c.examples_size; ++k)
    e.examples.push_back(c.examples[(c.examples_next + n - c.examples_size + k) % n]);  // oldest first
  e.first_seen_ms = c.first_seen_ms;
  e.last_seen_ms = c.last_seen_ms;
  return e;
}

uint32_t Aggregator::series_at(const Cluster& c, size_t w, int64_t bucket) const {
  if (c.series.empty()) return bucket == c.series_head[w] ? c.compact_count : 0;
  return c.series[series_[w].offset + slot_of(bucket, series_[w].buckets)];
}

std::optional<json> Aggregator::series(uint64_t cluster_id, int64_t window_ms, int64_t now_ms) const {
  auto w_it = std::find(opts_.series_windows_ms.begin(), opts_.series_windows_ms.end(), window_ms);
  if (w_it == opts_.series_windows_ms.end())
    throw std::invalid_argument("series: window " + std::to_string(window_ms) + " ms is not one of the series windows");
  auto it = clusters_.find(cluster_id);
  if (it == clusters_.end()) return std::nullopt;
  const Cluster& c = *it->second;
  const size_t w = static_cast<size_t>(w_it - opts_.series_windows_ms.begin());
  const int n = series_[w].buckets;
  const int64_t bucket_ms = series_[w].bucket_ms;
  const int64_t head = c.series_head[w];
  const int64_t now_bucket = floor_div(now_ms, bucket_ms);
  json points = json::array();
  uint64_t total = 0;
  for (int64_t k = now_bucket - n + 1; k <= now_bucket; ++k) {
    // Read-only view as of now_ms: buckets newer than the ring's head are
    // empty, older than its tail are gone.
    uint64_t count = (k <= head && k > head - n) ? series_at(c, w, k) : 0;
    total += count;
    points.push_back({{"t", format_time_ms(k * bucket_ms)}, {"count", count}});
  }
  return json{{"cluster_id", lsh::format_id(cluster_id)},
              {"window_seconds", seconds_json(window_ms)},
              {"bucket_seconds", seconds_json(bucket_ms)},
              {"points", std::move(points)},
              {"total", total}};
}

std::vector<std::pair<uint64_t, uint64_t>> Aggregator::window_counts(int64_t window_ms, int64_t now_ms) const {
  auto w_it = std::find(opts_.series_windows_ms.begin(), opts_.series_windows_ms.end(), window_ms);
  if (w_it == opts_.series_windows_ms.end())
    throw std::invalid_argument("window " + std::to_string(window_ms) + " ms is not one of the series windows");
  const size_t w = static_cast<size_t>(w_it - opts_.series_windows_ms.begin());
  const int n = series_[w].buckets;
  const int64_t now_bucket = floor_div(now_ms, series_[w].bucket_ms);
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& [id, it] : clusters_) {
    const Cluster& c = *it;
    const int64_t head = c.series_head[w];
    uint64_t total = 0;
    for (int64_t k = std::max(now_bucket - n + 1, head - n + 1); k <= std::min(now_bucket, head); ++k)
      total += series_at(c, w, k);
    if (total > 0) out.emplace_back(id, total);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return out;
}

}  // namespace logsift
