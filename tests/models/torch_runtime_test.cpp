// The caching CPU allocator that models/torch_runtime.cpp installs for the
// model stages: forwards reuse their large blocks instead of asking glibc
// (whose per-thread arenas then map and unmap a heap per forward).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config.h"
#include "models/torch_runtime.h"
#include "pipeline/pipeline.h"

namespace logsift {
namespace {

std::vector<std::string> new_lines(int n, const std::string& tag) {
  static const char* words[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
                                "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"};
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    std::string l = tag;
    for (int k = 0; k < 6; ++k) l += std::string(" ") + words[(i * 7 + k * 3 + k * i) % 16] + std::to_string(k);
    out.push_back(l + " request " + std::to_string(i) + " finished");
  }
  return out;
}

TEST(TorchAllocator, ForwardsReuseLargeBlocksWithinTheCap) {
  // The shipped models run natively by default; the allocator serves the
  // TorchScript forwards (any other model, or runtime torchscript).
  Config c = Config::defaults();
  c.denoiser_runtime = "torchscript";
  c.encoder_runtime = "torchscript";
  Pipeline p(c, nullptr);
  p.run(new_lines(300, "warm"));
  const auto before = models::torch_allocator_stats();
  auto out = p.run(new_lines(300, "second"));
  ASSERT_EQ(out.size(), 300u);
  const auto after = models::torch_allocator_stats();
  const uint64_t hits = after.hits - before.hits, misses = after.misses - before.misses;
  EXPECT_GT(hits, 0u);
  EXPECT_GT(hits, misses) << "hits " << hits << " misses " << misses;  // warm: the blocks are there
  EXPECT_LE(after.cached_bytes, size_t{128} << 20);
}

}  // namespace
}  // namespace logsift
