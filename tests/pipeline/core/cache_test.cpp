// GenerationalCache: eviction by generations and promotion of previous-
// generation hits.
#include "pipeline/core/cache.h"

#include <string>

#include <gtest/gtest.h>

namespace logsift {
namespace {

std::string value(int i) { return std::string(200, 'v') + std::to_string(i); }  // heap-allocated

// A hit in the previous generation while the current one is full promotes the
// entry and rotates the generations in the same call. The value must be read
// before the rotation frees the generation it lived in (this was a heap
// use-after-free: ASan aborted on the read below).
TEST(GenerationalCache, PromotionDuringRotationKeepsTheValue) {
  GenerationalCache<int, std::string> c(2);
  c.put(1, value(1));
  c.put(2, value(2));  // current = {1, 2}: full
  c.put(3, value(3));  // rotation: previous = {1, 2}, current = {3}
  c.put(4, value(4));  // current = {3, 4}: full again
  const std::string* v = c.get(1);  // promoted; rotation: previous = {3, 4}, current = {1}
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(*v, value(1));
  EXPECT_EQ(c.get(2), nullptr);  // dropped with the oldest generation
  const std::string* v3 = c.get(3);  // promoted without a rotation
  ASSERT_NE(v3, nullptr);
  EXPECT_EQ(*v3, value(3));
  EXPECT_EQ(*c.get(1), value(1));
}

TEST(GenerationalCache, SizeIsBoundedByTwoGenerations) {
  GenerationalCache<int, std::string> c(16);
  for (int i = 0; i < 1000; ++i) {
    c.put(i, value(i));
    ASSERT_LE(c.size(), 32u);
    if (i >= 8) ASSERT_NE(c.get(i - 8), nullptr);  // recent keys survive
  }
  EXPECT_EQ(c.get(0), nullptr);
}

}  // namespace
}  // namespace logsift
