// logsift migrate: moves a data dir's catalog to the cluster-id contract of
// the flags given (the same migration `serve` runs at start; offline here).
#include <iostream>

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "pipeline/migrate.h"
#include "pipeline/store/catalog.h"
#include "pipeline/store/dir_lock.h"
#include "service/cli/cli.h"

namespace logsift::cli {
namespace {

int cmd_migrate(const Args& a) {
  const bool dry_run = a.has("dry-run");
  try {
    // The server holds this lock while it runs: one writer per data dir.
    DataDirLock lock(a.config.data_dir);
    SqliteCatalog catalog(a.config.data_dir, a.config.catalog_examples);
    // One pipeline without catalog: its contract is the target, and it
    // re-derives the ids.
    Pipeline ids(a.config, nullptr);
    const Contract to = contract_of(ids);
    const std::string from = catalog.stored_digest();
    // An explicit migrate also moves a store back to an earlier contract.
    ContractCheck check = check_contract(from, catalog.contract_history(), catalog.size(), to);
    if (check == ContractCheck::kNewer) check = ContractCheck::kMigrate;
    nlohmann::json out = {{"data_dir", a.config.data_dir},
                          {"from", from.empty() ? nlohmann::json(nullptr) : nlohmann::json(from)},
                          {"to", to.digest},
                          {"clusters", catalog.size()}};
    if (check == ContractCheck::kSame) {
      out["result"] = "already under this contract: nothing to do";
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    if (check == ContractCheck::kFresh) {
      if (!dry_run) catalog.record_contract(to.json.dump(), to.digest);
      out["result"] = dry_run ? "empty catalog: the contract would be recorded" : "empty catalog: contract recorded";
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    MigrationPlan plan;
    out["report"] = migrate_catalog(ids, catalog, from, a.config.catalog_examples, dry_run, nullptr, &plan);
    ids.stop();
    if (dry_run) {
      // What would change, for review: every id that would move.
      nlohmann::json moves = nlohmann::json::array();
      for (const auto& m : plan.map) {
        if (moves.size() >= 1000) break;
        moves.push_back({{"old", lsh::format_id(m.old_id)}, {"new", lsh::format_id(m.new_id)}, {"share", m.share}});
      }
      out["moves"] = moves;
      out["moves_total"] = plan.map.size();
      out["result"] = "dry run: nothing written";
    } else {
      out["result"] = "migrated";
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "logsift migrate: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

const Command kMigrate = {
    "migrate", "move a data dir's catalog to the cluster-id contract of the flags given (offline)",
    "usage: logsift migrate --data-dir DIR [--dry-run] [configuration flags]\n"
    "Re-derives every stored cluster's id from its example lines under the contract of the\n"
    "configuration given (model versions, LSH, pre-mask, slot rules, layouts, message keys,\n"
    "format bank) and rewrites the catalog in one transaction: counts, first/last seen and\n"
    "examples carry over, clusters the new contract joins are merged, clusters it splits are\n"
    "split by their examples, and old ids keep answering GET /clusters/{id}. Prints a JSON\n"
    "report. --dry-run prints what would change and writes nothing. The server must be\n"
    "stopped (the data dir lock); `serve` does the same at start by itself.",
    true,
    {"dry-run"},
    {},
    &cmd_migrate};

}  // namespace logsift::cli
