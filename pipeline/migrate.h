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

#include <functional>
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

// A whole migration of `catalog` to the contract of `config`: reads every
// cluster, re-derives its id with a pipeline of its own (no catalog),
// and (unless dry_run) commits. Returns the report (JSON); *plan gets the
// plan when not null. Throws on failure (nothing is then changed).
nlohmann::json migrate_catalog(const Config& config, Catalog& catalog, const std::string& from_digest,
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

}  // namespace logsift
