// Shared windows (store: redis) against a real redis-server: two
// RedisWindows objects stand for two replicas.
#include "pipeline/store/redis_windows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "tests/pipeline/store/redis_server.h"
#include "tests/test_util.h"

namespace logsift {
namespace {

using logsift::testing::have_redis;
using logsift::testing::RedisServer;
using namespace std::chrono_literals;

CountDelta delta(uint64_t id, uint32_t n, Labels labels = {}) {
  CountDelta d;
  d.cluster_id = id;
  d.ts_ms = 1700000000000 + n;
  d.count = n;
  d.template_text = "Template " + std::to_string(id);
  d.labels = std::move(labels);
  return d;
}

TEST(RedisWindowsCodec, RoundTripsAndSkipsMalformedElements) {
  std::vector<CountDelta> in = {delta(0xfedcba9876543210ull, 3, {{"service", "api"}, {"level", "warn"}}), delta(7, 1)};
  auto out = RedisWindows::decode(RedisWindows::encode(in));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].cluster_id, in[0].cluster_id);
  EXPECT_EQ(out[0].count, 3u);
  EXPECT_EQ(out[0].ts_ms, in[0].ts_ms);
  EXPECT_EQ(out[0].template_text, in[0].template_text);
  Labels sorted = {{"level", "warn"}, {"service", "api"}};  // a JSON object: keys come back sorted
  EXPECT_EQ(out[0].labels, sorted);
  EXPECT_TRUE(RedisWindows::decode("not json").empty());
  auto some = RedisWindows::decode(
      R"([["zz", 1, 1, "t", {}], ["0000000000000007", 1, -1, "t", {}], ["0000000000000007", 5, 2, "t", {"k": 1}]])");
  ASSERT_EQ(some.size(), 1u);  // a bad id and a negative count are skipped
  EXPECT_EQ(some[0].count, 2u);
  EXPECT_TRUE(some[0].labels.empty());  // a non-string label value is dropped
}

TEST(RedisWindowsTest, EachReplicaGetsTheOthersCountsNotItsOwn) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  RedisServer server({"port 0"});
  const auto url = redis::parse_url("unix://" + server.socket());
  std::mutex mu;
  std::vector<CountDelta> got_a, got_b;
  RedisWindows a(url, {}, "t:", "replica-a", [&](std::vector<CountDelta>&& d) {
    std::lock_guard lock(mu);
    got_a.insert(got_a.end(), d.begin(), d.end());
  });
  RedisWindows b(url, {}, "t:", "replica-b", [&](std::vector<CountDelta>&& d) {
    std::lock_guard lock(mu);
    got_b.insert(got_b.end(), d.begin(), d.end());
  });
  a.start();
  b.start();
  a.publish({delta(1, 4), delta(2, 1)});
  b.publish({delta(1, 6)});
  auto done = [&] {
    std::lock_guard lock(mu);
    return got_a.size() == 1 && got_b.size() == 2;
  };
  logsift::test::wait_until(done, 2000ms);
  // Nothing more may come: each replica publishes a marker of its own; once
  // each has the other's, whatever was published before it has arrived.
  constexpr uint64_t kMarkerA = 98, kMarkerB = 99;
  a.publish({delta(kMarkerA, 1)});
  b.publish({delta(kMarkerB, 1)});
  auto has = [](const std::vector<CountDelta>& v, uint64_t id) {
    return std::any_of(v.begin(), v.end(), [&](const CountDelta& d) { return d.cluster_id == id; });
  };
  EXPECT_TRUE(logsift::test::wait_until([&] {
    std::lock_guard lock(mu);
    return has(got_a, kMarkerB) && has(got_b, kMarkerA);
  }, 5000ms)) << "the markers did not arrive";
  std::lock_guard lock(mu);
  std::erase_if(got_a, [&](const CountDelta& d) { return d.cluster_id == kMarkerB; });
  std::erase_if(got_b, [&](const CountDelta& d) { return d.cluster_id == kMarkerA; });
  ASSERT_EQ(got_a.size(), 1u);
  EXPECT_EQ(got_a[0].count, 6u);
  ASSERT_EQ(got_b.size(), 2u);
  EXPECT_EQ(got_b[0].cluster_id, 1u);
  EXPECT_EQ(got_b[0].count, 4u);
  EXPECT_EQ(got_b[1].cluster_id, 2u);
  EXPECT_EQ(a.dropped(), 0u);
}

// Redis away: the queue keeps the newest max_queued deltas and counts the
// rest; when Redis is back what was kept flows.
TEST(RedisWindowsTest, WhileRedisIsAwayTheQueueIsBounded) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  RedisServer server({"port 0"});
  const auto url = redis::parse_url("unix://" + server.socket());
  std::mutex mu;
  uint64_t seen = 0;
  RedisWindows a(url, {std::chrono::milliseconds(300), ""}, "t:", "replica-a", [](std::vector<CountDelta>&&) {},
                 /*max_queued=*/10);
  RedisWindows b(url, {std::chrono::milliseconds(300), ""}, "t:", "replica-b", [&](std::vector<CountDelta>&& d) {
    std::lock_guard lock(mu);
    for (const auto& x : d) seen += x.count;
  });
  server.stop();
  a.start();
  b.start();
  for (int i = 0; i < 25; ++i) a.publish({delta(static_cast<uint64_t>(i), 1)});
  // A send that failed puts its batch back (and the queue is trimmed again):
  // wait for the count to reach what the bound leaves.
  logsift::test::wait_until([&] { return a.dropped() >= 15u; }, 2000ms);
  EXPECT_EQ(a.dropped(), 15u);
  server.start();
  logsift::test::wait_until([&] {
    std::lock_guard lock(mu);
    return seen == 10;
  }, 3000ms);
  std::lock_guard lock(mu);
  EXPECT_EQ(seen, 10u);
}

}  // namespace
}  // namespace logsift
