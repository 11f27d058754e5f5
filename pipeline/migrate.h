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

#include <atomic>
#include <functional>
#include <thread>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "pipeline/store/catalog.h"

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

// `ids` clusters lines under the new contract and has no catalog. Reads
// nothing from a store: `old` is what Catalog::read_all() gave.
MigrationPlan plan_migration(Pipeline& ids, const std::vector<StoredCluster>& old, const std::string& from_digest,
                             const Contract& to, int max_examples, const MigrationProgress& progress = nullptr);

// A whole migration of `catalog` to the contract of `ids` (a pipeline
// without catalog): reads every cluster, re-derives its id with `ids`, and
// (unless dry_run) commits. Returns the report (JSON); *plan gets the plan
// when not null. Throws on failure (nothing is then changed).
nlohmann::json migrate_catalog(Pipeline& ids, Catalog& catalog, const std::string& from_digest, int max_examples,
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
// `stored`: Catalog::stored_contract() ("" = never recorded); `history`:
// Catalog::contract_history().
ContractCheck check_contract(const std::string& stored, const nlohmann::json& history, int64_t clusters,
                             const Contract& current, std::string* stored_digest);

// What `serve` does with its store's contract at start. check() compares
// the two before traffic: it records the contract on a fresh store, blocks
// writes on a store that moved on past it (kNewer), and blocks them while a
// migration is due. start() runs that migration on a thread of its own;
// replicas sharing a store take turns through Catalog::lock_migration, and
// one that waited while another moved the store to a third contract
// refuses writes instead of migrating again.
class ContractMigrator {
 public:
  ContractMigrator(const Config& config, Catalog& catalog, Contract contract);
  ~ContractMigrator();  // stop()
  ContractMigrator(const ContractMigrator&) = delete;
  ContractMigrator& operator=(const ContractMigrator&) = delete;

  const Contract& contract() const { return contract_; }
  // Before traffic; throws on a store error. True: a migration is due.
  bool check();
  // The migration; `then` runs after it committed (or another replica's
  // did), before writes are let in.
  void start(std::function<void()> then);
  // A replica still waiting for another's migration stops waiting; a
  // running migration finishes (it is one transaction). Idempotent.
  void stop();

 private:
  void run(const std::function<void()>& then);
  void refuse(Catalog::WriteBlock kind, const std::string& why);

  const Config& config_;
  Catalog& catalog_;
  Contract contract_;
  std::string seen_;  // the store's contract digest at check()
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace logsift
