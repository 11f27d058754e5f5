// The embedded catalog: SQLite in WAL mode under the data directory, the
// default store. It holds the cluster data (ClusterStore,
// pipeline/store/cluster_store.h) and the contract record and id map
// (ContractStore, pipeline/store/contract_store.h) in one file; the data
// dir lock makes this process its only writer. One writer thread (the state
// stage's) and any number of readers at once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "pipeline/store/catalog_store.h"

namespace logsift {

namespace sqlite {
class Db;
class Stmt;
class PreparedTransactions;
}  // namespace sqlite

// Thrown when a store was written by a newer release (a schema this one does
// not know): startup stops naming both.
struct StoreTooNew : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class SqliteCatalog final : public Catalog {
 public:
  // How long the integrity check at open may take (PRAGMA quick_check reads
  // every page: about 1 s per GB here); past it the file opens unchecked.
  static constexpr int64_t kIntegrityBudgetMs = 20000;
  // sync_full: PRAGMA synchronous=FULL (every commit fsynced: an acknowledged
  // line survives a power loss or a failing filesystem) instead of NORMAL
  // (it survives a process crash; the last commits before a power loss may go).
  SqliteCatalog(const std::string& data_dir, int max_examples, bool sync_full = false);
  ~SqliteCatalog() override;
  SqliteCatalog(const SqliteCatalog&) = delete;
  SqliteCatalog& operator=(const SqliteCatalog&) = delete;

  // ClusterStore
  Status apply(const std::vector<ClusterUpdate>& updates, std::vector<bool>* created) override;
  ClusterPage list(const ClusterQuery& query) override;
  std::vector<ClusterRow> rows(const std::vector<uint64_t>& ids) override;
  std::optional<ClusterDetail> get(uint64_t cluster_id) override;
  std::vector<uint64_t> with_label(const std::string& key, const std::string& value) override;
  int64_t size() const override { return clusters_.load(std::memory_order_relaxed); }
  std::vector<PendingNewCluster> pending_new_clusters() override;
  void mark_alerted(const std::vector<uint64_t>& ids) override;
  // While a write fails below the database (disk full, read-only, I/O error,
  // damaged file): one small write about once a second, so readiness comes
  // back by itself once writes succeed again.
  void flush() override;
  std::vector<PendingNewCluster> take_created() override { return {}; }
  void checkpoint() override;
  std::string health() const override;

  // ContractStore
  std::string stored_digest() override;
  void record_contract(const std::string& contract_json, const std::string& digest) override;
  ContractHistory contract_history() override;
  void serve_contract(const std::string& digest) override { (void)digest; }  // one process owns the file
  bool lock_migration(int64_t ttl_ms) override {  // the data dir lock already makes this process the only one
    (void)ttl_ms;
    return true;
  }
  void unlock_migration() override {}
  void begin_migration(const std::string& to_digest) override { (void)to_digest; }  // the gate holds the writer
  std::vector<StoredCluster> read_all() override;
  void commit_migration(const MigrationPlan& plan) override;
  std::vector<IdMapping> migrated(uint64_t old_id) override;

  // CurationStore (a table of its own, written on a connection of its own:
  // the API's threads append while the state thread writes clusters)
  std::vector<std::string> curation_log() override;
  int64_t curation_size() override;
  bool append_curation(int64_t expected, const std::string& text) override;

  const std::string& path() const { return path_; }
  // The catalog schema this release writes; a file with a higher one was
  // written by a newer release and is refused (StoreTooNew).
  static constexpr int kSchemaVersion = 2;

 private:
  std::string path_;
  int max_examples_;
  std::unique_ptr<sqlite::Db> writer_, reader_;
  std::unique_ptr<sqlite::Stmt> count_, update_, insert_, example_;  // prepared once, reused by apply()
  // Clusters known to exist with max_examples examples stored (the writer's
  // thread only): their updates skip the count lookup.
  std::unordered_set<uint64_t> saturated_;
  std::unique_ptr<sqlite::PreparedTransactions> tx_;
  std::mutex reader_mu_;
  std::unique_ptr<sqlite::Db> curation_db_;  // under curation_mu_
  std::mutex curation_mu_;
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
