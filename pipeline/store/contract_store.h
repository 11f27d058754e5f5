// The cluster-id contract a store was written under, its history, the map
// of ids that migrations changed, and the migration lease: what
// pipeline/migrate.h needs of a store. The SQLite and Redis catalogs
// implement it beside ClusterStore (pipeline/store/cluster_store.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/store/cluster_store.h"

namespace logsift {

// A cluster as stored, with its example lines: what a migration to a new
// cluster-id contract re-derives ids from (pipeline/migrate.h).
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

// The contracts a store was served under, oldest first, and the reports of
// its migrations (JSON texts, oldest first).
struct ContractHistory {
  struct Entry {
    std::string digest;
    std::string since;  // ISO 8601
  };
  std::vector<Entry> contracts;
  std::vector<std::string> migrations;
};

class ContractStore {
 public:
  virtual ~ContractStore() = default;

  // The digest of the contract the store is under; "" for a store that
  // never recorded one (empty, or written before contracts were recorded).
  // A shared store reads "migrating:<digest>" while a replica migrates it.
  virtual std::string stored_digest() = 0;
  // Sets the contract of an empty store and appends it to the history.
  virtual void record_contract(const std::string& contract_json, const std::string& digest) = 0;
  virtual ContractHistory contract_history() = 0;
  // The contract this process writes under. A shared store (Redis) refuses
  // every write of a replica whose contract is not the store's, so ids of
  // two contracts never mix in one catalog (a rolling upgrade: the replicas
  // not yet upgraded answer 503 naming both until they are). SQLite, which
  // one process owns, needs nothing.
  virtual void serve_contract(const std::string& digest) = 0;
  // One migration at a time across replicas sharing the store: true if this
  // process may migrate now (Redis: SET NX with a ttl, renewed while it
  // works; SQLite: the data dir lock already makes it the only one).
  virtual bool lock_migration(int64_t ttl_ms) = 0;
  virtual void unlock_migration() = 0;
  // Before read_all(): a shared store makes every replica's writes fail
  // from here until commit_migration() (they would be lost by it).
  virtual void begin_migration(const std::string& to_digest) = 0;
  // Every cluster with its examples (reads only).
  virtual std::vector<StoredCluster> read_all() = 0;
  // Replaces the catalog with `plan` in one transaction, with the id map,
  // the new contract and the report: a kill -9 midway leaves the old
  // catalog whole, and the next start migrates again.
  virtual void commit_migration(const MigrationPlan& plan) = 0;
  // What an old id became ({} if it is not a migrated id), largest share first.
  virtual std::vector<IdMapping> migrated(uint64_t old_id) = 0;
};

}  // namespace logsift
