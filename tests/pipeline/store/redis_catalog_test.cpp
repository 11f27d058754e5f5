// The Redis catalog (store: redis) against a real redis-server.
#include "pipeline/store/redis_catalog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "tests/pipeline/store/redis_server.h"
#include "tests/test_util.h"
#include "tests/pipeline/store/store_test_util.h"

namespace logsift {
namespace {

using logsift::testing::have_redis;
using logsift::testing::RedisServer;

ClusterUpdate update(uint64_t id, int count, const std::string& example, int64_t first = 1000, int64_t last = 2000,
                     Labels labels = {{"host", "h1"}}) {
  ClusterUpdate u;
  u.cluster_id = id;
  u.template_id = id ^ 1;
  u.template_text = "Template " + std::to_string(id);
  u.count = static_cast<uint64_t>(count);
  u.first_ms = first;
  u.last_ms = last;
  for (int i = 0; i < count; ++i) u.examples.push_back({example + std::to_string(i), labels});
  return u;
}

class RedisCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
    server_ = std::make_unique<RedisServer>(std::vector<std::string>{"port 0"});
  }
  std::unique_ptr<RedisCatalog> open(const std::string& prefix = "logsift:", int max_examples = 3) {
    return std::make_unique<RedisCatalog>(redis::parse_url("unix://" + server_->socket()), redis::Options{},
                                          prefix, max_examples);
  }
  std::unique_ptr<RedisServer> server_;
};

TEST_F(RedisCatalogTest, NewThenCountedWithTheFirstExamplesAndTheirLabels) {
  const uint64_t big = 0xfedcba9876543210ull;
  auto c = open();
  EXPECT_EQ(test::apply_ok(*c, {update(big, 2, "a"), update(7, 1, "b")}), (std::vector<bool>{true, true}));
  EXPECT_EQ(test::apply_ok(*c, {update(big, 5, "c", 500, 9000)}), std::vector<bool>{false});
  EXPECT_EQ(c->size(), 2);
  auto list = c->list({10, 0});
  EXPECT_EQ(list.total, 2);
  ASSERT_EQ(list.rows.size(), 2u);
  EXPECT_EQ(list.rows[0].cluster_id, big);  // by count
  EXPECT_EQ(list.rows[0].template_id, big ^ 1);
  EXPECT_EQ(list.rows[0].count, 7u);
  EXPECT_EQ(list.rows[0].first_ms, 500);  // the earliest first
  EXPECT_EQ(list.rows[0].last_ms, 9000);
  auto one = c->get(big);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->row, list.rows[0]);
  ASSERT_EQ(one->examples.size(), 3u);  // the first 3 of the cluster's life
  EXPECT_EQ(one->examples[0].text, "a0");
  EXPECT_EQ(one->examples[1].text, "a1");
  EXPECT_EQ(one->examples[2].text, "c0");
  EXPECT_EQ(nlohmann::json::parse(one->examples[0].labels_json)["host"], "h1");
  EXPECT_FALSE(c->get(12345));
  // Reopened (a restarted replica): the same catalog.
  c.reset();
  auto again = open();
  EXPECT_EQ(again->list({10, 0}), list);
}

TEST_F(RedisCatalogTest, PagesSortsSearchesAndFiltersByLabel) {
  auto c = open("logsift:", 1);
  std::vector<ClusterUpdate> ups;
  for (int i = 1; i <= 5; ++i)
    ups.push_back(update(static_cast<uint64_t>(i), i, "x", 100 * i, 1000 - 100 * i,
                         {{"service", i % 2 ? "odd" : "even"}}));
  test::apply_ok(*c, ups);
  auto page = c->list({2, 1});
  EXPECT_EQ(page.total, 5);
  ASSERT_EQ(page.rows.size(), 2u);
  EXPECT_EQ(page.rows[0].count, 4u);
  EXPECT_EQ(page.rows[1].count, 3u);
  EXPECT_EQ(c->list({10, 5}).rows.size(), 0u);
  EXPECT_EQ(c->list({1, 0, ClusterSort::kLastSeen}).rows[0].count, 1u);   // last seen 900
  EXPECT_EQ(c->list({1, 0, ClusterSort::kFirstSeen}).rows[0].count, 5u);  // first seen 500
  auto found = c->list({10, 0, ClusterSort::kCount, "tEMPLATE 3"});
  EXPECT_EQ(found.total, 1);
  EXPECT_EQ(found.rows[0].count, 3u);
  auto odd = c->list({10, 0, ClusterSort::kCount, "", {"service", "odd"}});
  EXPECT_EQ(odd.total, 3);
  EXPECT_EQ(odd.rows[0].count, 5u);
  EXPECT_EQ(odd.rows[2].count, 1u);
  EXPECT_EQ(c->list({10, 0, ClusterSort::kCount, "template 2", {"service", "odd"}}).total, 0);
  EXPECT_EQ(c->list({10, 0, ClusterSort::kCount, "", {"service", "none"}}).total, 0);
  auto even = c->with_label("service", "even");
  EXPECT_EQ(std::set<uint64_t>(even.begin(), even.end()), (std::set<uint64_t>{2, 4}));
  EXPECT_EQ(c->rows({4, 99, 2}).size(), 2u);
}

TEST_F(RedisCatalogTest, NewClustersStayPendingUntilMarkedAlerted) {
  auto c = open();
  test::apply_ok(*c, {update(11, 1, "first line", 1000, 1000, {{"level", "error"}}), update(12, 1, "other")});
  auto pending = c->pending_new_clusters();
  ASSERT_EQ(pending.size(), 2u);
  std::sort(pending.begin(), pending.end(), [](auto& a, auto& b) { return a.cluster_id < b.cluster_id; });
  EXPECT_EQ(pending[0].cluster_id, 11u);
  EXPECT_EQ(pending[0].template_text, "Template 11");
  EXPECT_EQ(pending[0].example, "first line0");
  EXPECT_EQ(pending[0].first_seen_ms, 1000);
  ASSERT_EQ(pending[0].labels.size(), 1u);
  EXPECT_EQ(pending[0].labels[0].second, "error");
  c->mark_alerted({11});
  pending = c->pending_new_clusters();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].cluster_id, 12u);
}

// Replicas: two catalogs on one Redis, writing the same clusters at once.
// Each cluster is new to exactly one of them and the counts add up.
TEST_F(RedisCatalogTest, TwoReplicasWritingAtOnceSeeEachClusterNewExactlyOnce) {
  auto a = open(), b = open();
  constexpr int kClusters = 300, kRounds = 5;
  std::atomic<int> new_a{0}, new_b{0};
  auto writer = [&](RedisCatalog& c, std::atomic<int>& fresh) {
    for (int round = 0; round < kRounds; ++round) {
      std::vector<ClusterUpdate> ups;
      for (int i = 0; i < kClusters; ++i) ups.push_back(update(static_cast<uint64_t>(1000 + i), 2, "l"));
      for (bool f : test::apply_ok(c, ups)) fresh += f;
    }
  };
  std::thread ta(writer, std::ref(*a), std::ref(new_a)), tb(writer, std::ref(*b), std::ref(new_b));
  ta.join();
  tb.join();
  EXPECT_EQ(new_a + new_b, kClusters) << new_a << " + " << new_b;
  auto list = a->list({1000, 0});
  EXPECT_EQ(list.total, kClusters);
  for (const auto& row : list.rows) ASSERT_EQ(row.count, 2u * kRounds * 2) << row.cluster_id;
  EXPECT_EQ(b->list({1000, 0}), list);
  EXPECT_EQ(a->pending_new_clusters().size(), static_cast<size_t>(kClusters));
}

TEST_F(RedisCatalogTest, KeyPrefixesKeepDeploymentsApart) {
  auto prod = open("prod:"), staging = open("staging:");
  test::apply_ok(*prod, {update(1, 3, "p")});
  test::apply_ok(*staging, {update(2, 1, "s")});
  EXPECT_EQ(prod->size(), 1);
  EXPECT_EQ(prod->list({10, 0}).rows[0].cluster_id, 1u);
  EXPECT_EQ(staging->list({10, 0}).rows[0].cluster_id, 2u);
  EXPECT_FALSE(staging->get(1));
}

// Redis forgets loaded scripts on a restart or SCRIPT FLUSH: apply loads it
// again instead of failing every batch from then on.
TEST_F(RedisCatalogTest, AForgottenScriptIsLoadedAgain) {
  auto c = open();
  test::apply_ok(*c, {update(1, 1, "x")});
  redis::Connection admin(redis::parse_url("unix://" + server_->socket()), {});
  EXPECT_EQ(admin.command({"SCRIPT", "FLUSH"}).str, "OK");
  EXPECT_EQ(test::apply_ok(*c, {update(1, 1, "y"), update(2, 1, "z")}), (std::vector<bool>{false, true}));
  EXPECT_EQ(c->get(1)->row.count, 2u);
}

TEST_F(RedisCatalogTest, AnUnreachableRedisFailsTheStartNamingIt) {
  try {
    RedisCatalog c(redis::parse_url("unix://" + server_->dir().string() + "/nothing.sock"),
                   redis::Options{std::chrono::milliseconds(500), ""}, "logsift:", 3);
    FAIL() << "started without a Redis";
  } catch (const redis::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nothing.sock"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace logsift

namespace logsift {
namespace {

// Redis away: apply() keeps answering (nothing new) and buffers; full, it
// refuses (kUnavailable); back, the buffer lands once, and the
// clusters it created come out of take_created().
TEST(RedisCatalogBuffer, BuffersWhileRedisIsAwayThenWritesEachLineOnce) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  RedisServer server({"port 0", "appendonly yes", "appendfsync always"});
  RedisCatalog c(redis::parse_url("unix://" + server.socket()), redis::Options{std::chrono::milliseconds(300), ""},
                 "b:", 3, /*max_buffer_bytes=*/2000);
  EXPECT_EQ(test::apply_ok(c, {update(1, 2, "a")}), std::vector<bool>{true});
  server.stop();
  EXPECT_EQ(test::apply_ok(c, {update(1, 3, "b"), update(2, 1, "c")}), (std::vector<bool>{false, false}));
  EXPECT_EQ(c.health(), "redis unreachable");
  EXPECT_EQ(test::apply_ok(c, {update(1, 1, "d")}), std::vector<bool>{false});  // merged with the first
  std::vector<ClusterUpdate> big;
  for (int i = 0; i < 20; ++i) big.push_back(update(100 + static_cast<uint64_t>(i), 1, std::string(100, 'x')));
  {
    std::vector<bool> created;
    const Status st = c.apply(big, &created);
    EXPECT_EQ(st.code(), StatusCode::kUnavailable);
    EXPECT_NE(st.reason().find("write buffer is full"), std::string::npos) << st.reason();
  }
  server.start();
  // flush() tries Redis again at most every 200 ms: flush until one got through.
  logsift::test::wait_until([&] {
    c.flush();
    return c.health().empty();
  });
  EXPECT_EQ(c.health(), "");
  auto created = c.take_created();
  ASSERT_EQ(created.size(), 1u);  // cluster 2: born while Redis was away
  EXPECT_EQ(created[0].cluster_id, 2u);
  EXPECT_EQ(created[0].example, "c0");
  EXPECT_TRUE(c.take_created().empty());
  auto one = c.get(1);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->row.count, 6u);  // 2 + 3 + 1: once each
  EXPECT_EQ(c.size(), 2);        // the refused clusters are not there
}

}  // namespace
}  // namespace logsift
