#include "pipeline/memory_usage.h"

#include <fmt/format.h>

namespace logsift {

std::string memory_prometheus(const MemoryUsage& u) {
  std::string o =
      "# HELP logsift_cache_bytes Approximate bytes held by each cache (keys and values; bounded by its *_cache_bytes).\n"
      "# TYPE logsift_cache_bytes gauge\n";
  for (const auto& c : u.caches) o += fmt::format("logsift_cache_bytes{{cache=\"{}\"}} {}\n", c.name, c.bytes);
  o += "# HELP logsift_cache_entries Entries in each cache (both generations).\n# TYPE logsift_cache_entries gauge\n";
  for (const auto& c : u.caches) o += fmt::format("logsift_cache_entries{{cache=\"{}\"}} {}\n", c.name, c.entries);
  if (u.has_aggregator)
    o += fmt::format(
        "# HELP logsift_aggregator_clusters Clusters whose counts the aggregator holds (at most "
        "aggregator_max_clusters).\n# TYPE logsift_aggregator_clusters gauge\nlogsift_aggregator_clusters {}\n"
        "# HELP logsift_aggregator_bytes Estimated bytes of those clusters' rings, examples and rule states.\n"
        "# TYPE logsift_aggregator_bytes gauge\nlogsift_aggregator_bytes {}\n",
        u.aggregator_clusters, u.aggregator_bytes);
  o += fmt::format(
      "# HELP logsift_sqlite_heap_bytes Memory SQLite has allocated (page caches of the catalog, outbox and "
      "subscriptions).\n# TYPE logsift_sqlite_heap_bytes gauge\nlogsift_sqlite_heap_bytes {}\n",
      u.sqlite_heap_bytes);
  return o;
}

}  // namespace logsift
