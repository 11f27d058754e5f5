// GenerationalCache: eviction by generations and promotion of previous-
// generation hits.
#include "pipeline/core/cache.h"

#include <string>
#include <thread>
#include <vector>

#include "pipeline/core/hash.h"

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

// Bounded in bytes, not only in entries: long keys fill the byte budget first.
TEST(ConcurrentCache, BoundedInBytes) {
  ConcurrentCache<std::string, int, StringHash> c(/*max_entries=*/1000000, /*max_bytes=*/1 << 20);
  for (int i = 0; i < 20000; ++i) {
    std::string key(500, static_cast<char>('a' + i % 26));
    key += std::to_string(i);
    c.put(key, i, key.size());
    ASSERT_LE(c.bytes(), size_t{1} << 20);
  }
  EXPECT_LT(c.size(), 20000u);  // rotated
  EXPECT_GT(c.size(), 500u);    // but kept about the budget's worth
}

TEST(ConcurrentCache, HeterogeneousLookupAndPromotion) {
  ConcurrentCache<std::string, int, StringHash> c(64, 1 << 20);
  c.put("connection", 1, 10);
  std::string_view probe = "connection";  // no std::string is built for the lookup
  ASSERT_TRUE(c.get(probe).has_value());
  EXPECT_EQ(*c.get(probe), 1);
  EXPECT_FALSE(c.get(std::string_view("nope")).has_value());
  EXPECT_EQ(c.hits(), 2u);
  EXPECT_EQ(c.misses(), 1u);
}

TEST(ConcurrentCache, SharedByThreads) {
  ConcurrentCache<uint64_t, uint64_t, std::hash<uint64_t>> c(1 << 16, 1 << 24);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&c, t] {
      for (uint64_t i = 0; i < 20000; ++i) {
        const uint64_t k = (i * 2654435761u) ^ static_cast<uint64_t>(t);
        c.put(k, k + 1);
        if (auto v = c.get(k)) ASSERT_EQ(*v, k + 1);  // a value is never torn or mixed up
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_GT(c.size(), 0u);
}

}  // namespace
}  // namespace logsift
