// The LSH stage: an embedding becomes a cluster_id (see lsh/README.md).
#pragma once

#include "config/config.h"
#include "lsh/lsh.h"
#include "pipeline/core/stage.h"
#include "pipeline/stages/embed_stage.h"

namespace logsift {

// Embedding -> cluster_id.
class LshStage final : public Stage {
 public:
  LshStage(const Config& c, int dim, ClusterIdCache* cache);
  const lsh::HyperplaneLsh& lsh() const { return lsh_; }
 protected:
  void process(Batch& b) override;
 private:
  lsh::HyperplaneLsh lsh_;
  ClusterIdCache* cache_;
};

}  // namespace logsift
