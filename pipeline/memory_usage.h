// Where the pipeline's memory is (each cache, the aggregator, SQLite's heap),
// and its Prometheus text, appended to GET /metrics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/cache.h"

namespace logsift {

struct MemoryUsage {
  std::vector<CacheUsage> caches;
  bool has_aggregator = false;  // a pipeline without the state stage (logsift cluster) has none
  size_t aggregator_clusters = 0;
  size_t aggregator_bytes = 0;
  int64_t sqlite_heap_bytes = 0;
};

// logsift_cache_bytes / _entries{cache}, logsift_aggregator_clusters / _bytes,
// logsift_sqlite_heap_bytes.
std::string memory_prometheus(const MemoryUsage& u);

}  // namespace logsift
