// Cluster data: cluster_id -> template, count, first/last seen, the first
// example lines with their labels. What the state stage writes and the API
// reads, as typed rows (the API layer makes the JSON). Two back ends
// implement it: SqliteCatalog (the embedded default: pipeline/store/catalog.h)
// and RedisCatalog (store: redis, shared by replicas:
// pipeline/store/redis_catalog.h).
//
// One writer (the state stage's thread) and any number of readers (HTTP
// handlers) at once. Reads throw a StoreError (pipeline/store/store_error.h)
// when the store cannot answer; the API maps its status.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/core/record.h"
#include "pipeline/core/status.h"

namespace logsift {

struct ClusterUpdate {
  uint64_t cluster_id = 0;
  uint64_t template_id = 0;
  std::string template_text;
  uint64_t count = 0;
  int64_t first_ms = 0, last_ms = 0;
  std::vector<std::pair<std::string, Labels>> examples;  // candidates, oldest first
};

// Lines alike counted by one replica: the unit replicas share so that each
// one's windows (series, threshold and spike rules) count every replica's
// lines (store: redis; pipeline/store/redis_windows.h).
struct CountDelta {
  uint64_t cluster_id = 0;
  int64_t ts_ms = 0;  // the newest of those lines
  uint32_t count = 0;
  std::string template_text;
  Labels labels;
};

// A cluster created but not yet known to have had its new_cluster alerts
// raised (ClusterStore::pending_new_clusters).
struct PendingNewCluster {
  uint64_t cluster_id = 0;
  std::string template_text;
  int64_t first_seen_ms = 0;
  std::string example;  // its first line
  Labels labels;        // that line's labels
};

// One cluster as the catalog lists it.
struct ClusterRow {
  uint64_t cluster_id = 0;
  uint64_t template_id = 0;
  std::string template_text;
  uint64_t count = 0;
  int64_t first_ms = 0, last_ms = 0;
  bool operator==(const ClusterRow&) const = default;
};

// An example line as stored.
struct StoredExample {
  std::string text;
  std::string labels_json;  // the stored JSON object
  int64_t ts_ms = 0;
  bool operator==(const StoredExample&) const = default;
};

// A row with its example lines, oldest first.
struct ClusterDetail {
  ClusterRow row;
  std::vector<StoredExample> examples;
  bool operator==(const ClusterDetail&) const = default;
};

enum class ClusterSort { kCount, kLastSeen, kFirstSeen };  // highest / newest first

struct ClusterQuery {
  ClusterQuery(int64_t limit = 50, int64_t offset = 0, ClusterSort sort = ClusterSort::kCount, std::string text = {},
               std::pair<std::string, std::string> label = {})
      : limit(limit), offset(offset), sort(sort), text(std::move(text)), label(std::move(label)) {}
  int64_t limit;
  int64_t offset;
  ClusterSort sort;
  std::string text;  // case-insensitive substring of the template ("" = all)
  // {key, value}: clusters with an example line carrying that label (the
  // examples are the first catalog_examples lines); empty key = any.
  std::pair<std::string, std::string> label;
};

struct ClusterPage {
  std::vector<ClusterRow> rows;
  int64_t total = 0;  // clusters matching the query
  bool operator==(const ClusterPage&) const = default;
};

class ClusterStore {
 public:
  virtual ~ClusterStore() = default;

  // Adds counts, first/last seen and examples (the first max_examples lines of
  // a cluster's life); (*created)[i] = this call created cluster i (exactly
  // one writer sees true for a cluster, also across replicas sharing a
  // store). A new cluster stays alert-pending until mark_alerted. Writer
  // thread only. kUnavailable when the store cannot take the lines now (a
  // disk full or read-only, the data dir gone, Redis unreachable with its
  // write buffer full, the store under another contract): nothing of the
  // group is written, and the lines are refused (HTTP 503; an error line on
  // a socket). Throws only on the unexpected.
  virtual Status apply(const std::vector<ClusterUpdate>& updates, std::vector<bool>* created) = 0;
  // Whether the last apply() accepted the lines without reaching the store
  // (Redis away: its writes wait in a buffer), so `created` is not known:
  // the replies say "new": null rather than a guess.
  virtual bool last_apply_unchecked() const { return false; }

  // Thread-safe reads.
  virtual ClusterPage list(const ClusterQuery& query) = 0;
  // The rows (no examples) of these ids that exist, in the same order.
  virtual std::vector<ClusterRow> rows(const std::vector<uint64_t>& ids) = 0;
  virtual std::optional<ClusterDetail> get(uint64_t cluster_id) = 0;
  // Ids of the clusters with an example line carrying label key=value.
  virtual std::vector<uint64_t> with_label(const std::string& key, const std::string& value) = 0;
  virtual int64_t size() const = 0;  // clusters in the catalog, for /metrics

  // Clusters whose new_cluster alerts are not known to be in the outbox yet
  // (created, then the process stopped before the alert sink returned), and
  // marking them done. Writer side: the thread that applies batches, or
  // before any batch flows (startup).
  virtual std::vector<PendingNewCluster> pending_new_clusters() = 0;
  virtual void mark_alerted(const std::vector<uint64_t>& ids) = 0;
  // About once a second on the writer thread: SQLite probes a failing disk
  // and checks that its files are still where it opened them; Redis writes
  // what it buffered while unreachable.
  virtual void flush() = 0;
  // Clusters created by writes that were buffered and have now landed (the
  // lines were answered is_new=false then): their new_cluster alerts are
  // raised now. Writer thread. Always empty for a store that never buffers.
  virtual std::vector<PendingNewCluster> take_created() = 0;
  // At shutdown: SQLite checkpoints the WAL and truncates it.
  virtual void checkpoint() = 0;
  // Empty while the store answers; else a coarse reason ("redis
  // unreachable", "disk full: ...") that /readyz reports.
  virtual std::string health() const = 0;
};

}  // namespace logsift
