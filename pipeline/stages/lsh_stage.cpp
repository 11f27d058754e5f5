#include "pipeline/stages/lsh_stage.h"

#include <span>

namespace logsift {

LshStage::LshStage(const Config& c, int dim, ClusterIdCache* cache)
    : Stage("lsh", c.mailbox_capacity), lsh_(dim, c.lsh_bits, c.lsh_seed), cache_(cache) {}

void LshStage::process(Batch& b) {
  const size_t dim = static_cast<size_t>(b.embedding_dim);
  std::vector<uint64_t> row_ids(dim ? b.embeddings.size() / dim : 0);
  for (size_t row = 0; row < row_ids.size(); ++row)
    row_ids[row] = lsh_.cluster_id(std::span<const float>(b.embeddings.data() + row * dim, dim));
  for (auto& r : b.records) {
    if (!r.ok() || r.embedding_row < 0) continue;
    r.cluster_id = row_ids[static_cast<size_t>(r.embedding_row)];
    cache_->put(r.template_id, r.cluster_id);
  }
  b.embeddings.clear();
  b.embeddings.shrink_to_fit();
}

}  // namespace logsift
