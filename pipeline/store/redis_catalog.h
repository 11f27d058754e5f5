#pragma once
// The catalog in Redis (store: redis): one catalog for every replica that
// points at the same Redis and key prefix, so GET /clusters answers the same
// on each and counts add up across them.
//
// Keys (P = redis_key_prefix, ID = the 16-hex cluster id):
//   P c:ID        hash: tid (template id), t (template), n (count),
//                 f / l (first / last seen, ms)
//   P ex:ID       list: the first catalog_examples lines, JSON
//                 {"text","labels","ts"}
//   P by_count    zset ID -> count;  P by_last / P by_first: ID -> ms
//   P label:K=V   set of IDs with an example labelled K=V
//   P pending     set of IDs whose new_cluster alerts are not yet in an outbox
//   P contract:digest  the cluster-id contract the catalog is under; every
//                 write checks it (in the apply script) and a replica
//                 serving another contract is refused: ids of two contracts
//                 never mix. "migrating:<digest>" while a replica migrates.
//   P contract    {"digest","contract"};  P contract:history, P migrations:
//                 lists of JSON;  P idmap: hash old ID -> [[new ID, share]...];
//                 P migrate:lock: the replica migrating (SET NX PX, renewed)
//   P curation    list of the curation log's actions (pipeline/store/curation.h)
// apply() runs one Lua script per cluster, all in one pipelined round trip
// inside MULTI/EXEC: counting, "is this cluster new" and the examples are
// atomic in Redis, so exactly one replica sees a cluster as new, and a group
// runs whole or not at all. The transaction also sets P applied:<random> to
// the group's sequence number, so when a round trip breaks, the next one
// learns whether that group ran (counted once, never twice).
//
// Redis unreachable (max_buffer_bytes > 0): the lines are still answered
// (ids need no Redis, is_new false); their writes wait in memory, merged per
// cluster, and are sent at the next batch or flush() once Redis answers.
// The clusters they create come back from take_created() for their
// new_cluster alerts. When the buffer is full, apply() answers kUnavailable:
// the lines are refused (503), never silently dropped.
//
// Thread safety: apply / pending_new_clusters / mark_alerted come from the
// state stage's thread and use the writer connection; the HTTP readers share
// a second connection under a mutex.

#include <atomic>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "pipeline/store/catalog_store.h"
#include "pipeline/store/redis.h"

namespace logsift {

class RedisCatalog final : public Catalog {
 public:
  // Connects (and loads the script) at once: a wrong URL, password or an
  // unreachable Redis fails the start with a clear error.
  // max_buffer_bytes: while Redis is unreachable, writes wait in memory up
  // to about this many bytes (then apply() answers kUnavailable); 0: no
  // buffer, a failed write is refused at once.
  RedisCatalog(const redis::Url& url, const redis::Options& options, std::string key_prefix, int max_examples,
               size_t max_buffer_bytes = 0);
  ~RedisCatalog() override;

  // ClusterStore
  Status apply(const std::vector<ClusterUpdate>& updates, std::vector<bool>* created) override;
  bool last_apply_unchecked() const override { return unchecked_; }
  ClusterPage list(const ClusterQuery& query) override;
  std::vector<ClusterRow> rows(const std::vector<uint64_t>& ids) override;
  std::optional<ClusterDetail> get(uint64_t cluster_id) override;
  std::vector<uint64_t> with_label(const std::string& key, const std::string& value) override;
  int64_t size() const override;
  std::vector<PendingNewCluster> pending_new_clusters() override;
  void mark_alerted(const std::vector<uint64_t>& ids) override;
  void flush() override;
  std::vector<PendingNewCluster> take_created() override;
  void checkpoint() override {}  // Redis persists on its own
  std::string health() const override;

  // ContractStore
  std::string stored_digest() override;
  void record_contract(const std::string& contract_json, const std::string& digest) override;
  ContractHistory contract_history() override;
  void serve_contract(const std::string& digest) override { digest_ = digest; }
  bool lock_migration(int64_t ttl_ms) override;
  void unlock_migration() override;
  void begin_migration(const std::string& to_digest) override;
  std::vector<StoredCluster> read_all() override;
  void commit_migration(const MigrationPlan& plan) override;
  std::vector<IdMapping> migrated(uint64_t old_id) override;

  // CurationStore: P curation, a list of the actions' JSON texts, appended by
  // a script that checks its length first.
  std::vector<std::string> curation_log() override;
  int64_t curation_size() override;
  bool append_curation(int64_t expected, const std::string& text) override;

 private:
  // One pipelined round trip on `c` (writer_ or, under reader_mu_, reader_);
  // keeps down_ up to date.
  std::vector<redis::Reply> call(redis::Connection& c, const std::vector<std::vector<std::string>>& cmds) const;
  std::vector<ClusterRow> rows_locked(const std::vector<std::string>& ids);
  std::string key(std::string_view suffix) const { return prefix_ + std::string(suffix); }
  // The set of clusters with an example labelled k=v (length-prefixed key:
  // a '=' inside k cannot make two labels share a set).
  std::string label_key(const std::string& k, const std::string& v) const {
    return key("label:" + std::to_string(k.size()) + ":" + k + "=" + v);
  }

  // One group in one MULTI/EXEC with the marker; kUnavailable when the
  // store is under another contract (nothing written); throws redis::Error
  // when the round trip fails (then the group may or may not have run).
  Status send(const std::vector<ClusterUpdate>& updates, std::vector<bool>* created);
  // Writes what waits (the uncertain group first: the marker says whether
  // it ran). False while Redis does not answer.
  bool settle();
  Status buffer(const std::vector<ClusterUpdate>& updates);  // kUnavailable when full
  void merge(ClusterUpdate&& u);
  static size_t update_bytes(const ClusterUpdate& u);
  static PendingNewCluster pending_of(const ClusterUpdate& u);

  std::string prefix_;
  redis::Url url_;
  redis::Options options_;
  std::string digest_;  // the contract this replica writes under ("" = unchecked)
  std::atomic<bool> contract_refused_{false};  // the last write was refused: the store is under another contract
  int max_examples_;
  size_t max_buffer_bytes_;
  // Writer thread only: the buffer of writes that wait for Redis.
  std::string marker_;  // P applied:<random>: the seq of this process's last group that ran
  uint64_t seq_ = 0, sent_seq_ = 0, uncertain_seq_ = 0;
  // The writer connection's CLIENT ID in Redis (0: unknown). A write whose
  // round trip broke may still sit unread in that connection: resolving it
  // kills that client first, so the marker read after cannot change later.
  int64_t writer_client_id_ = 0;
  // The marker's answer for the uncertain group: 1 it ran, 0 it did not
  // (and now never will), -1 Redis did not answer. On 1, *created says which
  // of its clusters it created.
  int resolve_uncertain(std::vector<bool>* created);
  Status apply_unbuffered(const std::vector<ClusterUpdate>& updates, std::vector<bool>* created);
  bool unchecked_ = false;  // the last apply() buffered its writes
  std::optional<std::vector<ClusterUpdate>> uncertain_;  // a group whose round trip broke
  std::vector<ClusterUpdate> buffer_;                     // merged per cluster
  std::unordered_map<uint64_t, size_t> buffer_index_;
  size_t buffered_bytes_ = 0;
  uint64_t buffered_lines_ = 0;
  bool full_logged_ = false;
  int64_t next_try_ns_ = 0;  // mono_ns() of the next settle() attempt
  std::vector<PendingNewCluster> created_;
  redis::Connection writer_;
  mutable std::mutex reader_mu_;
  mutable redis::Connection reader_;
  std::string script_sha_;
  mutable std::atomic<int64_t> size_{0};  // last count read (size() on a Redis error)
  mutable std::atomic<bool> down_{false};  // the last round trip (either connection) failed
};

}  // namespace logsift
