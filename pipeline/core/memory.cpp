#include "pipeline/core/memory.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "pipeline/core/metrics.h"

namespace logsift {

HeapTrim release_free_heap() {
  HeapTrim t;
#if defined(__GLIBC__)
  const int64_t before = resident_bytes();
  const int64_t start = mono_ns();
  ::malloc_trim(0);
  t.duration_ns = mono_ns() - start;
  const int64_t after = resident_bytes();
  t.released_bytes = before > after ? before - after : 0;
  auto& m = metrics();
  m.heap_trim_seconds.observe_ns(t.duration_ns);
  m.heap_trim_released_bytes.inc(static_cast<uint64_t>(t.released_bytes));
#endif
  return t;
}

}  // namespace logsift
