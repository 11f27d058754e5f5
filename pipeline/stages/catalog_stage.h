// The catalog stage: counts, first/last seen and examples per cluster.
#pragma once

#include "config/config.h"
#include "pipeline/core/stage.h"

namespace logsift {

class Catalog;

// Counts, first/last seen, examples -> catalog, in one transaction per
// micro-batch; sets Record::is_new. Without a catalog it only counts.
class CatalogStage final : public BatchingStage {
 public:
  CatalogStage(const Config& c, Catalog* catalog);
 protected:
  void process_group(std::vector<Batch*>& group) override;
 private:
  Catalog* catalog_;
  int max_examples_;
};

}  // namespace logsift
