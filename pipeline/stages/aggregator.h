// The aggregator and alert rule engine: per-cluster line counts in sliding
// windows, and rules evaluated on them (new cluster, count over a threshold,
// rate spike against the cluster's own baseline), filtered by level and labels.
//
// Threading: NOT thread-safe. The state stage owns the Aggregator and
// serialises every use of it under its mutex (pipeline/stages/state_stage.h:
// its thread, the HTTP series reads, other replicas' counts); persistence and
// alert delivery live one layer up. Keeping
// the core single-threaded keeps observe() cheap on the hot path.
//
// Time: every call takes its time from the caller (an injected clock), and the
// output is a pure function of the calls and their timestamps: no wall clock,
// no randomness, no iteration over hash-ordered containers where order shows.
//
// Windows: a window of W ms is a ring of up to n = buckets_per_window buckets
// aligned to the epoch (W / b ms each, b the largest count in [n/2, n] that
// divides W; else n buckets of ceil(W / n) ms). Its count is the sum of the
// ring, whose newest bucket holds "now": it covers the last W ms minus at
// most one bucket. A line older than the ring is not counted in it (its
// cluster still counts as seen).
//
// Rules. A line counts for a rule when its level (line_severity) is >= the
// rule's min_level and it carries every label filter. Per (rule, cluster):
// - new_cluster fires once, on the first line that passes the filters, for a
//   cluster the catalog reported new (is_new) after the rule was added; if
//   the first line does not pass, a later one that does fires it. A cluster
//   first met with is_new == false (restart, eviction) never fires it. Never
//   resolves.
// - threshold fires when the window count reaches `threshold`, spike when it
//   reaches max(spike_factor * max(baseline, 1), min_count). Then silent while
//   the condition holds; one "resolved" when it stops holding (seen by a line
//   in observe() or by tick()). One incident = one firing + one resolved.
// - cooldown: a rule fires again for a cluster only once it is resolved and
//   cooldown_ms have passed since it last fired; an incident inside the
//   cooldown raises nothing (neither firing nor resolved).
// - spike baseline: EWMA (ewma_alpha) over completed tumbling windows of
//   window_ms; windows with no line learn 0. The window in which the rule met
//   the cluster's first matching line is partial and not learned, so a spike
//   cannot fire before one full window has completed: a brand-new cluster has
//   no baseline and never "spikes" against nothing. The baseline keeps
//   learning during a spike, so a lasting new rate becomes the norm.
// - a firing alert whose cluster is evicted is resolved at that moment.
//
// Memory is bounded: at most `max_clusters` clusters (least-recently-seen one
// evicted and counted). Per cluster: the unfiltered series rings (4 bytes per
// bucket: 3 windows x 60 buckets = 720 B by default), up to `max_examples`
// lines of at most `max_example_bytes`, the template, and, only for rules a
// line of the cluster has matched, a rule state (~100 B + 4 B per bucket).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pipeline/core/record.h"
#include "pipeline/core/severity.h"

namespace logsift {

// One alert rule. JSON form (every field but "kind" optional, defaults below;
// fields that the kind does not use are rejected, so a typo cannot silently
// fall back to a default):
//   {"kind": "new_cluster", "min_level": "warn", "labels": {"service": "api"}}
//   {"kind": "threshold", "window": "5m", "threshold": 100, "cooldown": "5m", ...}
//   {"kind": "spike", "window": "1m", "spike_factor": 3, "min_count": 20,
//    "ewma_alpha": 0.3, "cooldown": "5m", ...}
// Durations: an integer of milliseconds or a string "<int><unit>", unit one
// of ms, s, m, h, d ("30s", "5m", "1h").
struct RuleSpec {
  std::string kind;                 // "new_cluster" | "threshold" | "spike"
  int64_t window_ms = 60000;        // threshold/spike: sliding window, [1s, 7d]
  uint64_t threshold = 100;         // threshold: fires when count in window >= threshold (>= 1)
  double spike_factor = 3.0;        // spike: fires when count >= factor * max(baseline, 1) (>= 1)...
  uint64_t min_count = 20;          // ... and count >= min_count (>= 1)
  double ewma_alpha = 0.3;          // spike: baseline = EWMA of completed windows' counts, (0, 1]
  Severity min_level = Severity::kUnknown;  // only lines at >= this level count (kUnknown = all)
  // Exact match on the line's labels; all must match. Keys unique, non-empty.
  std::vector<std::pair<std::string, std::string>> label_filters;
  int64_t cooldown_ms = 300000;     // threshold/spike, per (rule, cluster), [0, 7d]

  // Throws std::invalid_argument("<where>.<field>: <why>") on a bad field.
  void validate(std::string_view where = "rules[]") const;
  // 16 hex digits: a stable hash of to_json(). Same rule -> same id in every
  // process; label order and duration spelling ("5m" vs 300000) do not matter.
  std::string id() const;
  // `where` prefixes error messages, e.g. "rules[3]". Validates.
  static RuleSpec from_json(const nlohmann::json& j, std::string_view where = "rules[]");
  // Canonical form: only the fields the kind uses, durations in ms, labels as
  // an object, min_level only when set. from_json(to_json()) round-trips.
  nlohmann::json to_json() const;
};

struct AlertEvent {
  std::string rule_id, kind;
  std::string state;                 // "firing" | "resolved"
  uint64_t cluster_id = 0;
  uint64_t count = 0;                // count in the window when it fired/resolved (new_cluster: 1)
  int64_t window_ms = 0;             // 0 for new_cluster
  double baseline = 0;               // spike only
  int64_t at_ms = 0;                 // when it was raised
  std::string template_text;         // of the cluster
  Labels labels;                     // of the line that triggered the firing alert (also on its "resolved")
  std::vector<std::string> examples; // recent lines of the cluster, oldest first (the triggering one last)
  int64_t first_seen_ms = 0, last_seen_ms = 0;  // as seen by this aggregator

  // cluster_id as 16 hex digits, times as ms and ISO 8601, labels as an object.
  nlohmann::json to_json() const;
};

struct AggregatorOptions {
  // Windows kept per cluster (unfiltered) for GET /clusters/{id}/series.
  std::vector<int64_t> series_windows_ms = {60000, 300000, 3600000};
  // Buckets per window, for series and rule windows alike: the resolution of
  // a sliding window is window / buckets_per_window. [1, 3600]
  int buckets_per_window = 60;
  // Bounded state: the least-recently-seen cluster is evicted beyond this.
  size_t max_clusters = 100000;
  // Recent lines kept per cluster for alerts, each cut to max_example_bytes
  // (at a UTF-8 boundary). [0, 100] and [16, 1 MiB]
  int max_examples = 3;
  size_t max_example_bytes = 1024;

  // Throws std::invalid_argument("aggregator.<field>: <why>").
  void validate() const;
};

class Aggregator {
 public:
  // Throws std::invalid_argument on bad options.
  explicit Aggregator(AggregatorOptions opts);
  ~Aggregator();
  Aggregator(const Aggregator&) = delete;
  Aggregator& operator=(const Aggregator&) = delete;

  // Replaces the rule set. A rule whose id survives keeps its per-cluster
  // state (counts, baseline, firing, cooldown); state of removed rules is
  // dropped, with no "resolved" notice. Duplicate ids are kept once. Throws
  // std::invalid_argument (naming "rules[i].<field>") and changes nothing if a
  // spec is invalid.
  void set_rules(std::vector<RuleSpec> rules);
  const std::vector<RuleSpec>& rules() const { return specs_; }

  // One line of cluster `cluster_id`. `is_new`: the catalog saw the cluster
  // for the first time. Appends raised alerts to *out (in rule order; a
  // cluster evicted to make room may add "resolved" notices first). `out`
  // may be null (alerts dropped). No allocation in the steady state.
  // count > 1: that many lines alike at ts_ms (the counts of another replica,
  // store: redis); an empty text adds no example. count 0: no line, only the
  // news that the cluster is new (its catalog write landed late): counts
  // nothing, may fire its new_cluster rules.
  void observe(uint64_t cluster_id, bool is_new, std::string_view template_text, const Labels& labels,
               std::string_view text, int64_t ts_ms, std::vector<AlertEvent>* out, uint32_t count = 1);
  // Time passes: raises "resolved" for firing threshold/spike alerts whose
  // condition no longer holds at now_ms. Firing needs a line, so only
  // observe() fires. Cost is proportional to the alerts firing, not to the
  // clusters. Call e.g. every second.
  void tick(int64_t now_ms, std::vector<AlertEvent>* out);

  // {"cluster_id": hex, "window_seconds", "bucket_seconds", "points": [{"t":
  // ISO 8601 start of bucket, "count"}, ...] (oldest first), "total"} as of
  // now_ms. nullopt for an unknown (or evicted) cluster; throws
  // std::invalid_argument for a window not in series_windows_ms.
  std::optional<nlohmann::json> series(uint64_t cluster_id, int64_t window_ms, int64_t now_ms) const;
  // Every cluster with a count in the last window_ms (one of the series
  // windows), by that count, highest first (ties by id). O(clusters x buckets).
  std::vector<std::pair<uint64_t, uint64_t>> window_counts(int64_t window_ms, int64_t now_ms) const;

  size_t clusters() const { return clusters_.size(); }
  // Estimated bytes of the per-cluster state (rings, examples, rule states):
  // at most about max_clusters times the bytes of one cluster.
  size_t bytes() const { return bytes_; }
  uint64_t evictions() const { return evictions_; }

 private:
  struct Rule;
  struct RuleState;
  struct Cluster;

  Cluster& touch(uint64_t cluster_id, bool is_new, std::string_view template_text, int64_t ts_ms,
                 std::vector<AlertEvent>* out);
  void evict_oldest(int64_t ts_ms, std::vector<AlertEvent>* out);
  static size_t cluster_bytes(const Cluster& c);
  void recount(Cluster& c);
  // Count of series window w's bucket (<= its head, within its ring) in either form.
  uint32_t series_at(const Cluster& c, size_t w, int64_t bucket) const;
  void observe_rule(size_t rule_index, Cluster& c, const Labels& labels, int64_t ts_ms,
                    std::vector<AlertEvent>* out, uint32_t count);
  // Advances a threshold/spike state to now_ms; if it is firing and its
  // condition no longer holds, marks it resolved and appends the notice.
  bool maybe_resolve(const Rule& rule, RuleState& s, const Cluster& c, int64_t now_ms,
                     std::vector<AlertEvent>* out);
  AlertEvent make_event(const Rule& rule, const RuleState* s, const Cluster& c, const char* state,
                        int64_t at_ms) const;

  AggregatorOptions opts_;
  struct SeriesWindow {
    int buckets;
    int64_t bucket_ms;
    size_t offset;  // of its ring in Cluster::series
  };
  std::vector<SeriesWindow> series_;  // per series window
  size_t series_buckets_total_ = 0;
  std::vector<RuleSpec> specs_;
  std::vector<Rule> rules_;
  bool rules_need_level_ = false;
  uint32_t generation_ = 1;   // bumped by set_rules; lets new_cluster rules ignore clusters born before them
  uint32_t next_rule_key_ = 1;

  // LRU: front = most recently seen. The map points into the list (stable).
  std::list<Cluster> lru_;
  std::unordered_map<uint64_t, std::list<Cluster>::iterator> clusters_;
  uint64_t evictions_ = 0;
  size_t bytes_ = 0;  // sum of Cluster::bytes

  // (cluster, rule index) of states that fired and may need a "resolved";
  // entries whose state stopped firing are dropped by tick().
  std::vector<std::pair<uint64_t, uint32_t>> firing_;
};

}  // namespace logsift
