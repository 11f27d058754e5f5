// Subscriptions and the outbox in Redis (store: redis) against a real
// redis-server: two store objects with different consumer names stand for
// two replicas.
#include "service/alerts/redis_alert_store.h"

#include <gtest/gtest.h>

#include <thread>

#include "pipeline/core/metrics.h"
#include "pipeline/core/time.h"
#include "tests/pipeline/store/redis_server.h"
#include "tests/test_util.h"

namespace logsift {
namespace {

using logsift::testing::have_redis;
using logsift::testing::RedisServer;
using namespace std::chrono_literals;

OutboxRow row(const std::string& id, const std::string& sub, int64_t created) {
  OutboxRow r;
  r.id = id;
  r.subscription_id = sub;
  r.created_ms = created;
  r.payload = "{\"id\":\"" + id + "\"}";
  return r;
}

Subscription sub(const std::string& id, int64_t created) {
  Subscription s;
  s.id = id;
  s.url = "http://receiver.example/hook";
  s.secret = "s3cret";
  s.rules = nlohmann::json::array({{{"kind", "new_cluster"}, {"id", "abc"}}});
  s.created_ms = created;
  return s;
}

std::vector<std::string> ids(const std::vector<OutboxRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.id);
  return out;
}

class RedisAlertStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
    server_ = std::make_unique<RedisServer>(std::vector<std::string>{"port 0"});
  }
  std::unique_ptr<RedisAlertStore> open(const std::string& consumer, int64_t claim_idle_ms = 30000) {
    return std::make_unique<RedisAlertStore>(redis::parse_url("unix://" + server_->socket()), redis::Options{},
                                             "t:", claim_idle_ms, consumer);
  }
  std::unique_ptr<RedisServer> server_;
};

TEST_F(RedisAlertStoreTest, SubscriptionsAreSharedAndEveryChangeMovesTheVersion) {
  auto a = open("a"), b = open("b");
  const int64_t v0 = b->subscriptions_version();
  a->add_subscription(sub("sub_2", 20));
  a->add_subscription(sub("sub_1", 10));
  EXPECT_GT(b->subscriptions_version(), v0);
  auto subs = b->subscriptions();
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_EQ(subs[0].id, "sub_1");  // oldest first
  EXPECT_EQ(subs[1].secret, "s3cret");
  EXPECT_EQ(subs[1].rules[0]["kind"], "new_cluster");
  EXPECT_EQ(b->subscription_count(), 2);
  ASSERT_TRUE(b->subscription("sub_2"));
  EXPECT_EQ(b->subscription("sub_2")->url, "http://receiver.example/hook");
  EXPECT_FALSE(b->subscription("sub_9"));

  a->enqueue({row("alrt_p", "sub_2", 5), row("alrt_q", "sub_1", 6)});
  const int64_t v1 = a->subscriptions_version();
  EXPECT_TRUE(b->delete_subscription("sub_2"));
  EXPECT_FALSE(b->delete_subscription("sub_2"));
  EXPECT_GT(a->subscriptions_version(), v1);
  // Its pending rows went with it; the other subscription's row stays.
  EXPECT_FALSE(a->get("alrt_p"));
  EXPECT_EQ(ids(a->list("pending", 10, 0)), std::vector<std::string>{"alrt_q"});
  // The deleted row's stream entry is acked when read, not sent.
  EXPECT_EQ(ids(a->due(100, 10, {})), std::vector<std::string>{"alrt_q"});
}

TEST_F(RedisAlertStoreTest, EachRowGoesToOneReplicaAndEndsOnce) {
  auto a = open("a"), b = open("b");
  a->enqueue({row("alrt_1", "sub_1", 100), row("alrt_2", "sub_1", 200)});
  a->enqueue({row("alrt_1", "sub_1", 100)});  // a replay: no second row, no second entry
  EXPECT_EQ(a->count("pending"), 2);

  auto got_a = a->due(1000, 1, {});  // takes both entries, returns one (limit)
  auto got_b = b->due(1000, 10, {});
  EXPECT_EQ(ids(got_a), std::vector<std::string>{"alrt_1"});
  EXPECT_TRUE(got_b.empty()) << "rows held by replica a went to b too";
  EXPECT_EQ(a->owned(), 2u);
  EXPECT_EQ(ids(a->due(1000, 10, {"alrt_1"})), std::vector<std::string>{"alrt_2"});  // busy ids skipped

  a->schedule_retry("alrt_2", 1, 503, "HTTP 503", 5000, 1000);
  EXPECT_EQ(ids(a->due(1000, 10, {"alrt_1"})), std::vector<std::string>{});  // not due before 5000
  EXPECT_EQ(a->next_due([](const std::string& id, const std::string&) { return id != "alrt_1"; }), 5000);
  a->mark_delivered("alrt_1", 1, 200, 1100);
  a->mark_failed("alrt_2", 2, 400, "HTTP 400", 1200);
  EXPECT_EQ(a->owned(), 0u);

  auto r1 = b->get("alrt_1");
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->status, "delivered");
  EXPECT_EQ(r1->attempts, 1);
  EXPECT_EQ(r1->last_status, 200);
  auto r2 = b->get("alrt_2");
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->status, "failed");
  EXPECT_EQ(r2->last_error, "HTTP 400");
  EXPECT_EQ(r2->payload, "{\"id\":\"alrt_2\"}");
  EXPECT_EQ(ids(b->list("", 10, 0)), (std::vector<std::string>{"alrt_2", "alrt_1"}));  // newest first
  EXPECT_EQ(ids(b->list("", 1, 1)), std::vector<std::string>{"alrt_1"});
  EXPECT_EQ(b->count(""), 2);
  EXPECT_EQ(b->count_by_status(),
            (std::vector<std::pair<std::string, int64_t>>{{"delivered", 1}, {"failed", 1}}));

  // A delivered row cannot be retried; a failed one is sent again, once,
  // by whichever replica reads it first.
  EXPECT_FALSE(b->retry("alrt_1", 2000));
  EXPECT_FALSE(b->retry("alrt_nope", 2000));
  EXPECT_TRUE(b->retry("alrt_2", 2000));
  EXPECT_FALSE(b->retry("alrt_2", 2000));
  auto again = b->due(2000, 10, {});
  ASSERT_EQ(ids(again), std::vector<std::string>{"alrt_2"});
  EXPECT_EQ(again[0].attempts, 0);
  EXPECT_TRUE(a->due(2000, 10, {}).empty());
  b->mark_delivered("alrt_2", 1, 204, 2100);
  EXPECT_EQ(b->count("pending"), 0);

  // Retention: finished rows updated before the cut go, newer ones stay.
  EXPECT_EQ(a->prune(2000), 1);  // alrt_1 (updated 1100)
  EXPECT_FALSE(a->get("alrt_1"));
  EXPECT_TRUE(a->get("alrt_2"));
  EXPECT_EQ(a->count(""), 1);
}

TEST_F(RedisAlertStoreTest, RowsOfAReplicaThatStoppedAreTakenOverWithTheirAttempts) {
  auto b = open("b", 1000);
  {
    auto a = open("a", 1000);
    a->enqueue({row("alrt_1", "sub_1", 100), row("alrt_2", "sub_1", 100)});
    ASSERT_EQ(a->due(1000, 10, {}).size(), 2u);
    a->schedule_retry("alrt_1", 3, 0, "connection refused", 1500, 1000);
    // While a keeps pumping, its rows stay its own, long past claim_idle_ms.
    for (int i = 0; i < 8; ++i) {
      logsift::test::let_time_pass(200ms);  // a pumps on: the claim's idleness is measured in time
      a->due(now_ms(), 10, {"alrt_1", "alrt_2"});
      EXPECT_TRUE(b->due(now_ms(), 10, {}).empty()) << "b took rows that a still holds";
    }
  }  // a stops (as if killed: nothing acked)
  EXPECT_TRUE(b->due(now_ms(), 10, {}).empty()) << "taken over before claim_idle_ms";
  // Rows become b's after claim_idle_ms (1 s) without a's pumps: a time-based
  // expiry, so a time window is the evidence.
  logsift::test::let_time_pass(1300ms);
  auto taken = b->due(now_ms(), 10, {});
  ASSERT_EQ(ids(taken), (std::vector<std::string>{"alrt_2", "alrt_1"}));  // oldest due first
  EXPECT_EQ(taken[1].attempts, 3);  // the attempts a made count toward the limit
  EXPECT_EQ(taken[1].last_error, "connection refused");
  EXPECT_EQ(taken[1].next_attempt_ms, 1500);
  b->mark_delivered("alrt_1", 4, 200, now_ms());
  b->mark_delivered("alrt_2", 1, 200, now_ms());
  auto c = open("c", 1000);
  logsift::test::let_time_pass(1300ms);  // past claim_idle_ms: c could take them now
  EXPECT_TRUE(c->due(now_ms(), 10, {}).empty()) << "a delivered row was handed out again";
  EXPECT_EQ(c->count("delivered"), 2);
}

// One alert per rule firing: the first replica to claim a key wins it for
// ttl_ms; asking again (a retry whose first reply was lost) still says won.
TEST_F(RedisAlertStoreTest, AClaimHasOneOwnerUntilItExpires) {
  auto a = open("a"), b = open("b");
  EXPECT_TRUE(a->claim("rule1:00000000000000ff:firing", 300));
  EXPECT_FALSE(b->claim("rule1:00000000000000ff:firing", 300));
  EXPECT_TRUE(a->claim("rule1:00000000000000ff:firing", 300));
  EXPECT_TRUE(b->claim("rule1:00000000000000ff:resolved", 300));  // another key
  logsift::test::let_time_pass(400ms);  // past the 300 ms ttl: a time-based expiry
  EXPECT_TRUE(b->claim("rule1:00000000000000ff:firing", 300));  // expired: the next incident
}

}  // namespace
}  // namespace logsift

namespace logsift {
namespace {

// The stream and its group deleted while the deployment marker stays (an
// operator's DEL, a key eviction): NOGROUP is counted and the group made again.
TEST_F(RedisAlertStoreTest, ALostGroupIsRecreatedAndCounted) {
  auto a = open("a");
  a->enqueue({row("alrt_before", "sub_1", 100)});
  EXPECT_EQ(ids(a->due(1000, 10, {})), std::vector<std::string>{"alrt_before"});
  a->mark_delivered("alrt_before", 1, 200, 1000);

  redis::Connection admin(redis::parse_url("unix://" + server_->socket()), redis::Options{});
  auto del = admin.command({"DEL", "t:outbox"});
  ASSERT_FALSE(del.is_error());
  ASSERT_EQ(del.integer, 1) << "no stream to delete";
  const uint64_t errors_before = metrics().redis_errors.get();
  a->enqueue({row("alrt_after", "sub_1", 2000)});
  EXPECT_EQ(ids(a->due(3000, 10, {})), std::vector<std::string>{"alrt_after"});
  EXPECT_GT(metrics().redis_errors.get(), errors_before) << "the NOGROUP reply was not counted";
  // And it keeps working.
  a->mark_delivered("alrt_after", 1, 200, 3000);
  a->enqueue({row("alrt_later", "sub_1", 4000)});
  EXPECT_EQ(ids(a->due(5000, 10, {})), std::vector<std::string>{"alrt_later"});
}

// Redis lost everything (FLUSHALL): the marker's absence is seen, counted and
// reported; the subscriptions this store knew and the alert it held come
// back, and delivery goes on.
TEST_F(RedisAlertStoreTest, DataLossIsDetectedReportedAndReseeded) {
  auto a = open("a");
  a->add_subscription(sub("sub_1", 10));
  a->add_subscription(sub("sub_2", 20));
  a->enqueue({row("alrt_held", "sub_1", 100)});
  EXPECT_EQ(ids(a->due(1000, 10, {})), std::vector<std::string>{"alrt_held"});  // held, in flight
  EXPECT_EQ(a->fault(), "");

  redis::Connection admin(redis::parse_url("unix://" + server_->socket()), redis::Options{});
  ASSERT_FALSE(admin.command({"FLUSHALL"}).is_error());
  const uint64_t lost_before = metrics().redis_data_lost.get();
  auto subs = a->subscriptions();  // what a rules reload reads first
  EXPECT_EQ(metrics().redis_data_lost.get(), lost_before + 1);
  ASSERT_EQ(subs.size(), 2u);
  EXPECT_EQ(subs[0].id, "sub_1");
  EXPECT_EQ(subs[0].secret, "s3cret");
  EXPECT_EQ(a->fault(), "") << "re-seeded: ready again";
  ASSERT_TRUE(a->get("alrt_held"));
  EXPECT_EQ(a->get("alrt_held")->status, "pending");
  EXPECT_EQ(ids(a->due(2000, 10, {})), std::vector<std::string>{"alrt_held"});
  a->mark_delivered("alrt_held", 1, 200, 2000);
  EXPECT_EQ(a->get("alrt_held")->status, "delivered");
  // Seen once: the marker is back.
  a->enqueue({row("alrt_next", "sub_2", 3000)});
  EXPECT_EQ(ids(a->due(4000, 10, {})), std::vector<std::string>{"alrt_next"});
  EXPECT_EQ(metrics().redis_data_lost.get(), lost_before + 1);
  EXPECT_EQ(admin.command({"EXISTS", "t:deployment"}).integer, 1);
}

// Two replicas, one loss: the first to look re-seeds and sets a new epoch;
// the second finds that epoch, not its own, and counts the loss too, and
// re-seeds the subscription and the alert only it held. Each counts it once.
TEST_F(RedisAlertStoreTest, EveryReplicaSeesTheLossEvenAfterAnotherReseeded) {
  auto a = open("a");
  auto b = open("b");
  a->add_subscription(sub("sub_a", 10));
  b->add_subscription(sub("sub_b", 20));
  b->enqueue({row("alrt_b", "sub_b", 100)});
  EXPECT_EQ(ids(b->due(1000, 10, {})), std::vector<std::string>{"alrt_b"});  // held by b

  redis::Connection admin(redis::parse_url("unix://" + server_->socket()), redis::Options{});
  ASSERT_FALSE(admin.command({"FLUSHALL"}).is_error());
  const uint64_t lost_before = metrics().redis_data_lost.get();
  (void)a->subscriptions();  // a sees the marker gone, re-seeds sub_a, sets a new epoch
  EXPECT_EQ(metrics().redis_data_lost.get(), lost_before + 1);
  auto seen_by_b = b->subscriptions();  // b finds another epoch: its loss too
  EXPECT_EQ(metrics().redis_data_lost.get(), lost_before + 2);
  std::vector<std::string> sub_ids;
  for (const auto& x : seen_by_b) sub_ids.push_back(x.id);
  EXPECT_EQ(sub_ids, (std::vector<std::string>{"sub_a", "sub_b"})) << "what only b held is back";
  ASSERT_TRUE(b->get("alrt_b"));
  EXPECT_EQ(b->get("alrt_b")->status, "pending");
  // Once each: both hold the new epoch now.
  (void)a->subscriptions();
  (void)b->subscriptions();
  EXPECT_EQ(metrics().redis_data_lost.get(), lost_before + 2);
}

}  // namespace
}  // namespace logsift
