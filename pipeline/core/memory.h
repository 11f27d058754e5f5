// Process memory: what the kernel counts, and handing free heap back to it.
//
// glibc keeps memory freed by a thread in that thread's arena, and returns it
// to the OS only from the top of each heap. The model stages allocate and
// free large tensors on several threads, so free chunks pile up in the middle
// of arenas and stay resident: measured 57 MB of a 392 MB server with 100k
// clusters (bench/RESULTS.md, "Where the memory is"). malloc_trim(0) walks
// every arena and releases whole free pages anywhere in it.
#pragma once
#include <cstdint>

#include "pipeline/core/metrics.h"  // resident_bytes

namespace logsift {

struct HeapTrim {
  int64_t released_bytes = 0;  // resident bytes before minus after (0 if it grew meanwhile)
  int64_t duration_ns = 0;
};

// Releases free heap pages to the OS (glibc malloc_trim(0); a no-op on other
// C libraries) and records it in metrics(). Safe from any thread; each arena
// is locked only while it is walked.
HeapTrim release_free_heap();

}  // namespace logsift
