// Upgrades keep identity. A cluster id is a pure function of the line and
// the cluster-id contract (Pipeline::contract()); a store written under one
// contract and served under another would see every cluster as new. A
// migration re-derives each stored cluster's id from its stored example
// lines under the new contract and rewrites the catalog in one transaction:
//   - one old -> one new: counts, first/last seen, examples, labels carried;
//   - several old -> one new (the new contract joins them): merged, counts added;
//   - one old -> several new (it splits them): each new cluster gets the
//     examples that went to it and that share of the count;
//   - old ids are kept in an id map, so GET /clusters/{old id} answers with
//     what it became;
//   - a cluster with no example line (none is stored) keeps its id.
// The report says how many of each, and how long it took.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "pipeline/store/cluster_store.h"
#include "pipeline/store/contract_store.h"
#include "pipeline/store/write_gate.h"

namespace logsift {

class Pipeline;

// The contract as JSON and its digest (16 hex digits of a hash of its
// canonical text).
struct Contract {
  nlohmann::json json;
  std::string digest;
};
Contract contract_of(const Pipeline& pipeline);

// Examples a merged cluster keeps at most (one of each cluster it joined
// first), beyond catalog_examples: what a later split is derived from.
inline constexpr size_t kMaxMergedExamples = 64;

// Called as clusters are re-derived: (clusters done, clusters in all).
using MigrationProgress = std::function<void(size_t done, size_t total)>;

// The migration's phases, each its own function (plan_migration runs them
// in order):
// 1. Every stored example line through `ids` (a pipeline under the new
//    contract, no catalog): derived[c][e] is the id example e of cluster c
//    gets now.
struct DerivedId {
  uint64_t id = 0, template_id = 0;
  std::string template_text;
  bool ok = false;  // the line was clustered (an example the pipeline now refuses keeps nothing)
};
std::vector<std::vector<DerivedId>> derive_ids(Pipeline& ids, const std::vector<StoredCluster>& old,
                                               const MigrationProgress& progress = nullptr);
// 2. (Pure) The new catalog: each new id gathers the examples that went to
//    it and that share of each old cluster's count (exact totals); the id
//    map; how many clusters kept their id, moved, split, or had no example.
struct Regrouped {
  std::vector<StoredCluster> clusters;
  std::vector<IdMapping> map;
  // Per new cluster (as clusters): the old clusters it gathered, with how
  // many examples each brought, in the order they joined.
  std::vector<std::vector<std::pair<uint64_t, size_t>>> joined;
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> splits;  // old id -> new ids
  size_t unchanged = 0, mapped = 0, split = 0, kept = 0;
};
Regrouped regroup(const std::vector<StoredCluster>& old, const std::vector<std::vector<DerivedId>>& derived);
// 3. (Pure) The examples each cluster keeps: a merged one some of every
//    cluster it joined (round robin, up to kMaxMergedExamples), so a later
//    contract can split it back; the others their oldest max_examples.
void keep_examples(Regrouped* g, int max_examples);
// 4. (Pure) The report (merges counted from g.joined).
nlohmann::json migration_report(const Regrouped& g, size_t clusters_before, size_t examples,
                                const std::string& from_digest, const std::string& to_digest);

// All four. `ids` clusters lines under the new contract and has no catalog.
// Reads nothing from a store: `old` is what ContractStore::read_all() gave.
MigrationPlan plan_migration(Pipeline& ids, const std::vector<StoredCluster>& old, const std::string& from_digest,
                             const Contract& to, int max_examples, const MigrationProgress& progress = nullptr);

// A whole migration of `store` to the contract of `ids` (a pipeline
// without catalog): reads every cluster, re-derives its id with `ids`, and
// (unless dry_run) commits. Returns the report (JSON); *plan gets the plan
// when not null. Throws on failure (nothing is then changed).
nlohmann::json migrate_catalog(Pipeline& ids, ContractStore& store, const std::string& from_digest, int max_examples,
                               bool dry_run, const MigrationProgress& progress = nullptr,
                               MigrationPlan* plan = nullptr);

// What startup does with a store and the contract it is served under.
enum class ContractCheck {
  kSame,     // written under this contract: nothing to do
  kFresh,    // an empty store: the contract is recorded
  kMigrate,  // another contract, or none recorded over existing clusters
  kNewer,    // the store moved on from this contract to a later one: this
             // process is the older release; it refuses writes (migrating
             // back is an explicit `logsift migrate`)
};
// `stored_digest`: ContractStore::stored_digest() ("" = never recorded);
// `history`: ContractStore::contract_history(); `clusters`: how many the
// store holds.
ContractCheck check_contract(const std::string& stored_digest, const ContractHistory& history, int64_t clusters,
                             const Contract& current);

// What `serve` does with its store's contract at start. It owns the write
// gate (pipeline/store/write_gate.h) that the state stage and /readyz
// consult. check() compares the two contracts before traffic: it records
// the contract on a fresh store, closes the gate on a store that moved on
// past it (kNewer), and closes it while a migration is due. start() runs
// that migration on a thread of its own; replicas sharing a store take turns
// through ContractStore::lock_migration, and one that waited while another
// moved the store to a third contract keeps the gate closed instead of
// migrating again.
class ContractMigrator {
 public:
  // `clusters` and `store` are the same store's two parts (SqliteCatalog,
  // RedisCatalog).
  ContractMigrator(const Config& config, ClusterStore& clusters, ContractStore& store);
  ~ContractMigrator();  // stop()
  ContractMigrator(const ContractMigrator&) = delete;
  ContractMigrator& operator=(const ContractMigrator&) = delete;

  const WriteGate& gate() const { return gate_; }
  const Contract& contract() const { return contract_; }
  // Before traffic, with the contract this process serves; throws on a
  // store error. True: a migration is due.
  bool check(Contract contract);
  // The migration; `then` runs after it committed (or another replica's
  // did), before writes are let in.
  void start(std::function<void()> then);
  // A replica still waiting for another's migration stops waiting; a
  // running migration finishes (it is one transaction). Idempotent.
  void stop();

 private:
  void run(const std::function<void()>& then);
  void refuse(WriteGate::State kind, const std::string& why);
  // Waits up to `span` for stop(); true if stopped.
  bool stopped_within(std::chrono::milliseconds span);

  const Config& config_;
  ClusterStore& clusters_;
  ContractStore& store_;
  WriteGate gate_;
  Contract contract_;
  std::string seen_;  // the store's contract digest at check()
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;  // under stop_mu_
  std::thread thread_;
};

}  // namespace logsift
