// A back end's catalog as one object: its cluster data (ClusterStore) and its
// contract record and id map (ContractStore), which share one file (SQLite)
// or one key prefix (Redis). What `serve` opens and hands out by part: the
// pipeline's state stage gets the cluster data, the migrator both.
#pragma once

#include "pipeline/store/cluster_store.h"
#include "pipeline/store/contract_store.h"
#include "pipeline/store/curation_store.h"

namespace logsift {

class Catalog : public ClusterStore, public ContractStore, public CurationStore {};

}  // namespace logsift
