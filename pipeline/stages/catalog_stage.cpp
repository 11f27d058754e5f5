#include "pipeline/stages/catalog_stage.h"

#include <unordered_map>

#include "pipeline/core/metrics.h"
#include "pipeline/store/catalog.h"

namespace logsift {

CatalogStage::CatalogStage(const Config& c, Catalog* catalog)
    : BatchingStage("catalog", c.mailbox_capacity, c.batch_max_lines * 4,
                    std::chrono::microseconds(c.batch_max_delay_us)),
      catalog_(catalog),
      max_examples_(c.catalog_examples) {}

void CatalogStage::process_group(std::vector<Batch*>& group) {
  size_t clustered = 0;
  for (Batch* b : group)
    for (auto& r : b->records) clustered += r.ok();
  metrics().lines_clustered.inc(clustered);
  if (!catalog_) return;

  // Aggregate the group per cluster: one upsert per distinct cluster.
  std::vector<ClusterUpdate> updates;
  std::unordered_map<uint64_t, size_t> index;
  std::vector<std::pair<Record*, size_t>> firsts;  // first record of each cluster in the group
  for (Batch* b : group) {
    for (auto& r : b->records) {
      if (!r.ok()) continue;
      auto [it, inserted] = index.emplace(r.cluster_id, updates.size());
      if (inserted) {
        ClusterUpdate u;
        u.cluster_id = r.cluster_id;
        u.template_id = r.template_id;
        u.template_text = r.template_text;
        u.first_ms = r.received_ms;
        updates.push_back(std::move(u));
        firsts.emplace_back(&r, it->second);
      }
      ClusterUpdate& u = updates[it->second];
      u.count += 1;
      u.last_ms = std::max(u.last_ms, r.received_ms);
      if (static_cast<int>(u.examples.size()) < max_examples_) u.examples.emplace_back(r.text, r.labels);
    }
  }
  std::vector<bool> fresh;
  try {
    fresh = catalog_->apply(updates);
  } catch (const std::exception&) {
    metrics().catalog_errors.inc();
    throw;  // the loop marks the records failed: the caller is told, nothing is silently lost
  }
  for (auto& [rec, idx] : firsts) {
    rec->is_new = fresh[idx];
    if (fresh[idx]) metrics().new_clusters.inc();
  }
}

}  // namespace logsift
