// The cluster catalog: cluster_id -> template, count, first/last seen, example
// lines with their labels. Embedded default: SQLite in WAL mode under the data
// directory. One writer (the catalog stage's thread) and any number of readers
// (HTTP handlers) at once; WAL lets readers proceed while a batch commits.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pipeline/core/record.h"
#include "pipeline/core/time.h"

namespace logsift {

namespace sqlite {
class Db;
class Stmt;
class PreparedTransactions;
}  // namespace sqlite

struct ClusterUpdate {
  uint64_t cluster_id = 0;
  uint64_t template_id = 0;
  std::string template_text;
  uint64_t count = 0;
  int64_t first_ms = 0, last_ms = 0;
  std::vector<std::pair<std::string, Labels>> examples;  // candidates, oldest first
};

// A cluster created but not yet known to have had its new_cluster alerts
// raised (Catalog::pending_new_clusters).
struct PendingNewCluster {
  uint64_t cluster_id = 0;
  std::string template_text;
  int64_t first_seen_ms = 0;
  std::string example;  // its first line
  Labels labels;        // that line's labels
};

class Catalog {
 public:
  // Creates data_dir and the database if needed. Throws std::runtime_error.
  Catalog(const std::string& data_dir, int max_examples);
  ~Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  // Applies all updates in one transaction; result[i] = cluster i is new.
  // Writer thread only. Throws std::runtime_error on a database error (the
  // transaction is rolled back).
  std::vector<bool> apply(const std::vector<ClusterUpdate>& updates);

  // Thread-safe reads. {"clusters": [...], "total": N}, by count descending.
  nlohmann::json list(int64_t limit, int64_t offset);
  // sort: "count" (default), "last_seen" or "first_seen", newest/highest
  // first; q: case-insensitive substring of the template ("" = all).
  // label: {key, value} keeps clusters with an example line carrying that
  // label (the examples are the first catalog_examples lines); empty key = any.
  nlohmann::json list(int64_t limit, int64_t offset, const std::string& sort, const std::string& q,
                      const std::pair<std::string, std::string>& label = {});
  // Clusters whose new_cluster alerts are not known to be in the outbox yet
  // (created, then the process stopped before the alert sink returned), and
  // marking them done. Writer side: call from the thread that applies
  // batches, or before any batch flows (startup).
  std::vector<PendingNewCluster> pending_new_clusters();
  void mark_alerted(const std::vector<uint64_t>& ids);
  // Ids of the clusters with an example line carrying label key=value.
  std::vector<uint64_t> with_label(const std::string& key, const std::string& value);
  // Clusters in the catalog (counted at open, then by apply()): for /metrics.
  int64_t size() const { return clusters_.load(std::memory_order_relaxed); }
  // The cluster rows (no examples) of these ids that exist, in the same order.
  std::vector<nlohmann::json> rows(const std::vector<uint64_t>& ids);
  std::optional<nlohmann::json> get(uint64_t cluster_id);
  // Checkpoints the WAL and truncates it (called at shutdown).
  void checkpoint();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int max_examples_;
  std::unique_ptr<sqlite::Db> writer_, reader_;
  std::unique_ptr<sqlite::Stmt> upsert_, example_;  // prepared once, reused by apply()
  std::unique_ptr<sqlite::PreparedTransactions> tx_;
  std::mutex reader_mu_;
  // WAL checkpoints run here, not inside a commit: SQLite's automatic
  // checkpoint (every 1000 pages, fsync included) would stall the writer and
  // every reply waiting on it for milliseconds. Only when the WAL passes its
  // bound does the writer run one short RESTART checkpoint (see apply()).
  void checkpoint_loop();
  std::unique_ptr<sqlite::Db> checkpointer_db_;
  std::thread checkpointer_;
  std::mutex checkpoint_mu_;
  std::condition_variable checkpoint_cv_;
  bool stopping_ = false;
  std::atomic<bool> restart_wal_{false};  // set by the WAL hook, done by the writer after its commit
  std::atomic<int64_t> clusters_{0};
};


}  // namespace logsift
