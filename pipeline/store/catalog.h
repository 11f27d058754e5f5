// The cluster catalog: cluster_id -> template, count, first/last seen, example
// lines with their labels. Two stores implement it: SqliteCatalog (the
// embedded default: SQLite in WAL mode under the data directory) and
// RedisCatalog (store: redis, shared by replicas; pipeline/store/redis_catalog.h).
// One writer (the state stage's thread) and any number of readers (HTTP
// handlers) at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <optional>
#include <stdexcept>
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
// raised (Catalog::pending_new_clusters).
struct PendingNewCluster {
  uint64_t cluster_id = 0;
  std::string template_text;
  int64_t first_seen_ms = 0;
  std::string example;  // its first line
  Labels labels;        // that line's labels
};

// A cluster as stored, with its example lines: what a migration to a new
// cluster-id contract re-derives ids from (pipeline/migrate.h).
struct StoredExample {
  std::string text;
  std::string labels_json;  // the stored JSON object
  int64_t ts_ms = 0;
};
struct StoredCluster {
  uint64_t cluster_id = 0;
  uint64_t template_id = 0;
  std::string template_text;
  uint64_t count = 0;
  int64_t first_ms = 0, last_ms = 0;
  bool alert_pending = false;
  std::vector<StoredExample> examples;  // oldest first
};
// old id -> new id under the new contract; share: the part of the old
// cluster's examples (and so of its count) that went to the new one.
struct IdMapping {
  uint64_t old_id = 0, new_id = 0;
  double share = 1.0;
};
// Everything a migration writes, at once.
struct MigrationPlan {
  std::vector<StoredCluster> clusters;  // the whole catalog under the new contract
  std::vector<IdMapping> map;           // every old id whose id changed
  std::string contract;                 // the new contract, JSON text
  std::string digest;                   // its digest (16 hex digits)
  std::string report;                   // JSON text (pipeline/migrate.h)
};

// Thrown when a store was written by a newer release (a schema this one does
// not know): startup stops naming both.
struct StoreTooNew : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown by Catalog::apply when the store cannot take the lines now (a
// shared store unreachable and its write buffer full): the lines are
// refused (HTTP 503; an error line on a socket), not accepted.
struct StoreUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Catalog {
 public:
  virtual ~Catalog() = default;

  // Adds counts, first/last seen and examples (the first max_examples lines of
  // a cluster's life); result[i] = this call created cluster i (exactly one
  // writer sees true for a cluster, also across replicas sharing a store). A
  // new cluster stays alert-pending until mark_alerted. Writer thread only.
  // Throws std::runtime_error on a store failure: SQLite rolls the batch
  // back; Redis updates each cluster atomically, so a round trip cut off
  // midway may have counted some clusters of the batch.
  virtual std::vector<bool> apply(const std::vector<ClusterUpdate>& updates) = 0;

  // Thread-safe reads. {"clusters": [rows], "total", "limit", "offset"};
  // sort: "count" (default), "last_seen" or "first_seen", highest/newest
  // first; q: case-insensitive substring of the template ("" = all); label:
  // {key, value} keeps clusters with an example line carrying that label (the
  // examples are the first catalog_examples lines); empty key = any.
  virtual nlohmann::json list(int64_t limit, int64_t offset, const std::string& sort, const std::string& q,
                              const std::pair<std::string, std::string>& label = {}) = 0;
  nlohmann::json list(int64_t limit, int64_t offset);  // by count
  // Clusters whose new_cluster alerts are not known to be in the outbox yet
  // (created, then the process stopped before the alert sink returned), and
  // marking them done. Writer side: the thread that applies batches, or
  // before any batch flows (startup).
  virtual std::vector<PendingNewCluster> pending_new_clusters() = 0;
  virtual void mark_alerted(const std::vector<uint64_t>& ids) = 0;
  // Ids of the clusters with an example line carrying label key=value.
  virtual std::vector<uint64_t> with_label(const std::string& key, const std::string& value) = 0;
  virtual int64_t size() const = 0;  // clusters in the catalog, for /metrics
  // The cluster rows (no examples) of these ids that exist, in the same order.
  virtual std::vector<nlohmann::json> rows(const std::vector<uint64_t>& ids) = 0;
  // A row plus its "examples".
  virtual std::optional<nlohmann::json> get(uint64_t cluster_id) = 0;
  // At shutdown: SQLite checkpoints the WAL and truncates it.
  virtual void checkpoint() {}
  // A store that buffers writes while it is unreachable (Redis) retries
  // them here; the state stage calls it about once a second. Writer thread.
  virtual void flush() {}
  // Clusters created by writes that were buffered and have now landed (the
  // lines were answered is_new=false then): their new_cluster alerts are
  // raised now. Writer thread.
  virtual std::vector<PendingNewCluster> take_created() { return {}; }
  // Empty while the store answers; else a coarse reason ("redis unreachable")
  // that /readyz reports: the last call to the store failed.
  virtual std::string unavailable() const { return {}; }

  // The cluster-id contract. stored_contract(): {"digest", "contract"} as
  // JSON text, "" for a store that never recorded one (empty, or written
  // before contracts were recorded). record_contract() sets it for an empty
  // store and appends it to the history.
  virtual std::string stored_contract() { return {}; }
  virtual void record_contract(const std::string& contract, const std::string& digest) {
    (void)contract;
    (void)digest;
  }
  // {"contracts": [{digest, contract, since}...], "migrations": [report...]}.
  virtual nlohmann::json contract_history();
  // The contract this process writes under. A shared store (Redis) refuses
  // every write of a replica whose contract is not the store's, so ids of
  // two contracts never mix in one catalog (a rolling upgrade: the replicas
  // not yet upgraded answer 503 naming both until they are).
  virtual void serve_contract(const std::string& digest) { (void)digest; }
  // One migration at a time across replicas sharing the store: true if this
  // process may migrate now (Redis: SET NX with a ttl, renewed while it
  // works; SQLite: the data dir lock already makes it the only one).
  virtual bool lock_migration(int64_t ttl_ms) {
    (void)ttl_ms;
    return true;
  }
  virtual void unlock_migration() {}
  // Before read_all(): a shared store makes every replica's writes fail
  // from here until commit_migration() (they would be lost by it).
  virtual void begin_migration(const std::string& to_digest) { (void)to_digest; }
  // Writes this process refuses for the cluster-id contract
  // (pipeline/migrate.h): while a migration runs or after it failed, or
  // because the store is under another contract. While blocked, apply()
  // throws StoreUnavailable with `why` (503 + Retry-After, error lines) and
  // unavailable() reports it; reads go on, under the ids in the store.
  enum class WriteBlock { kNone, kMigrating, kMigrationFailed, kOtherContract };
  void block_writes(WriteBlock kind, std::string why = {});
  WriteBlock write_block() const { return block_.load(std::memory_order_acquire); }
  std::string write_block_reason() const;
  // Every cluster with its examples (reads only).
  virtual std::vector<StoredCluster> read_all() { throw std::runtime_error("this store cannot migrate"); }
  // Replaces the catalog with `plan` in one transaction, with the id map,
  // the new contract and the report: a kill -9 midway leaves the old
  // catalog whole, and the next start migrates again.
  virtual void commit_migration(const MigrationPlan& plan) {
    (void)plan;
    throw std::runtime_error("this store cannot migrate");
  }
  // What an old id became ({} if it is not a migrated id), largest share first.
  virtual std::vector<IdMapping> migrated(uint64_t old_id) {
    (void)old_id;
    return {};
  }

 protected:
  // For apply(): throws StoreUnavailable while writes are blocked.
  void check_writes_allowed() const;

 private:
  mutable std::mutex block_mu_;
  std::string block_why_;  // under block_mu_
  std::atomic<WriteBlock> block_{WriteBlock::kNone};
};

class SqliteCatalog final : public Catalog {
 public:
  // How long the integrity check at open may take (PRAGMA quick_check reads
  // every page: about 1 s per GB here); past it the file opens unchecked.
  static constexpr int64_t kIntegrityBudgetMs = 20000;
  SqliteCatalog(const std::string& data_dir, int max_examples);
  ~SqliteCatalog() override;
  SqliteCatalog(const SqliteCatalog&) = delete;
  SqliteCatalog& operator=(const SqliteCatalog&) = delete;

  using Catalog::list;
  std::vector<bool> apply(const std::vector<ClusterUpdate>& updates) override;
  nlohmann::json list(int64_t limit, int64_t offset, const std::string& sort, const std::string& q,
                      const std::pair<std::string, std::string>& label = {}) override;
  std::vector<PendingNewCluster> pending_new_clusters() override;
  void mark_alerted(const std::vector<uint64_t>& ids) override;
  std::vector<uint64_t> with_label(const std::string& key, const std::string& value) override;
  int64_t size() const override { return clusters_.load(std::memory_order_relaxed); }
  std::vector<nlohmann::json> rows(const std::vector<uint64_t>& ids) override;
  std::optional<nlohmann::json> get(uint64_t cluster_id) override;
  void checkpoint() override;
  // While a write fails below the database (disk full, read-only, I/O error,
  // damaged file): one small write about once a second, so readiness comes
  // back by itself once writes succeed again.
  void flush() override;
  std::string unavailable() const override;
  std::string stored_contract() override;
  void record_contract(const std::string& contract, const std::string& digest) override;
  nlohmann::json contract_history() override;
  std::vector<StoredCluster> read_all() override;
  void commit_migration(const MigrationPlan& plan) override;
  std::vector<IdMapping> migrated(uint64_t old_id) override;
  const std::string& path() const { return path_; }
  // The catalog schema this release writes; a file with a higher one was
  // written by a newer release and is refused (StoreTooNew).
  static constexpr int kSchemaVersion = 2;

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
  // The data dir and the catalog file as opened (device, inode): a data dir
  // removed or replaced under the running server is found by flush() and
  // refuses writes from then on (they would land in unlinked files).
  std::string data_dir_;
  std::pair<uint64_t, uint64_t> dir_id_{0, 0}, file_id_{0, 0};
  std::string files_gone() const;
  bool gone_ = false;  // writer thread
  // Why writes fail (empty: they work); set and cleared by the writer,
  // read by /readyz.
  void set_unavailable(std::string why);
  mutable std::mutex unavailable_mu_;
  std::string unavailable_;
  std::atomic<bool> failing_{false};  // !unavailable_.empty(), read by every commit without the lock
};

}  // namespace logsift
