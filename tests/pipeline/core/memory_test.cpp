// release_free_heap() gives back free pages that glibc would keep: a heap
// whose top is pinned by one live block cannot shrink by itself.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "pipeline/core/memory.h"
#include "pipeline/core/metrics.h"

namespace logsift {
namespace {

TEST(Memory, ResidentBytesIsTheProcessRss) {
  const int64_t rss = resident_bytes();
  EXPECT_GT(rss, 1 << 20);
  EXPECT_LT(rss, int64_t{64} << 30);
}

#if defined(__GLIBC__)
TEST(Memory, TrimReturnsFreedMiddleOfHeapToTheOs) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizer's allocator replaces glibc malloc: nothing for malloc_trim to give back";
#endif
  // 64 MB in 32 KB blocks (below every mmap threshold: they live in the heap),
  // each written so its pages are resident.
  constexpr size_t kBlock = 32 << 10, kBlocks = 2048;
  std::vector<char*> blocks;
  blocks.reserve(kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) {
    char* p = static_cast<char*>(std::malloc(kBlock));
    ASSERT_NE(p, nullptr);
    std::memset(p, static_cast<int>(i), kBlock);
    blocks.push_back(p);
  }
  // A block allocated last pins the top of the heap, so free() cannot trim.
  std::unique_ptr<char, decltype(&std::free)> pin(static_cast<char*>(std::malloc(kBlock)), &std::free);
  std::memset(pin.get(), 1, kBlock);
  for (char* p : blocks) std::free(p);
  const int64_t before = resident_bytes();
  const uint64_t counted_before = metrics().heap_trim_released_bytes.get();
  const HeapTrim t = release_free_heap();
  EXPECT_GE(t.released_bytes, int64_t{32} << 20) << "rss before " << before << ", after " << resident_bytes();
  EXPECT_GE(resident_bytes(), int64_t{1} << 20);
  EXPECT_GT(t.duration_ns, 0);
  EXPECT_EQ(metrics().heap_trim_released_bytes.get() - counted_before, static_cast<uint64_t>(t.released_bytes));
}
#endif

}  // namespace
}  // namespace logsift
