// The outbox and subscriptions against a real SQLite file; the backoff curve.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include <unistd.h>

#include "service/alerts/alert_store.h"
#include "pipeline/store/sqlite.h"
#include "service/alerts/delivery.h"
#include "tests/test_util.h"

namespace logsift {
namespace {

class AlertStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = logsift::test::scratch_dir("logsift_alerts_");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static OutboxRow row(const std::string& id, int64_t t) {
    OutboxRow r;
    r.id = id;
    r.subscription_id = "sub_1";
    r.created_ms = t;
    r.payload = R"({"id":")" + id + R"("})";
    return r;
  }
  std::filesystem::path dir_;
};

TEST_F(AlertStoreTest, OutboxLifecycleSurvivesReopen) {
  {
    SqliteAlertStore s(dir_.string());
    Subscription sub;
    sub.id = "sub_1";
    sub.url = "http://127.0.0.1:1/x";
    sub.secret = "k";
    sub.created_ms = 1;
    s.add_subscription(sub);
    s.enqueue({row("a", 100), row("b", 200), row("c", 300)});
    EXPECT_EQ(s.count("pending"), 3);
    // Due rows, oldest first, skipping ones in flight.
    auto due = s.due(250, 10, {"a"});
    ASSERT_EQ(due.size(), 1u);
    EXPECT_EQ(due[0].id, "b");
    s.mark_delivered("a", 1, 200, 400);
    s.schedule_retry("b", 1, 503, "HTTP 503", 5000, 400);
    s.mark_failed("c", 1, 400, "HTTP 400", 400);
    auto any = [](const std::string&, const std::string&) { return true; };
    EXPECT_EQ(s.next_due(any), 5000);
    // A row the worker cannot send now (in flight) does not set its next wake-up.
    s.enqueue({row("d", 900)});
    EXPECT_EQ(s.next_due(any), 900);
    EXPECT_EQ(s.next_due([](const std::string& id, const std::string&) { return id != "d"; }), 5000);
    s.mark_delivered("d", 1, 200, 901);
  }
  SqliteAlertStore s(dir_.string());  // like a restart
  EXPECT_EQ(s.count("delivered"), 2);
  EXPECT_EQ(s.count("pending"), 1);
  EXPECT_EQ(s.count("failed"), 1);
  EXPECT_TRUE(s.due(4999, 10, {}).empty());
  EXPECT_EQ(s.due(5000, 10, {}).size(), 1u);
  auto c = s.get("c");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->last_status, 400);
  EXPECT_EQ(c->attempts, 1);
  // Only failed alerts can be retried; the retry resets attempts.
  EXPECT_FALSE(s.retry("a", 600));
  EXPECT_TRUE(s.retry("c", 600));
  EXPECT_EQ(s.get("c")->status, "pending");
  EXPECT_EQ(s.get("c")->attempts, 0);
  EXPECT_EQ(s.list("", 10, 0).size(), 4u);
  EXPECT_EQ(s.list("", 10, 0)[0].id, "d");  // newest first
  // Deleting a subscription drops its pending rows.
  EXPECT_TRUE(s.delete_subscription("sub_1"));
  EXPECT_EQ(s.count("pending"), 0);
  EXPECT_FALSE(s.delete_subscription("sub_1"));
}

TEST(DeliveryBackoff, FirstRetryWithinFirstAndCapped) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 1000; ++i) {
    int64_t first = DeliveryWorker::backoff_ms(1, 1000, 30000, rng);
    EXPECT_GE(first, 500);
    EXPECT_LE(first, 1000);
    int64_t later = DeliveryWorker::backoff_ms(4, 1000, 30000, rng);
    EXPECT_GE(later, 4000);
    EXPECT_LE(later, 8000);
    int64_t capped = DeliveryWorker::backoff_ms(40, 1000, 30000, rng);
    EXPECT_GE(capped, 15000);
    EXPECT_LE(capped, 30000);
  }
}

// Retention: delivered and dead-lettered rows older than the cutoff go,
// pending rows stay whatever their age.
TEST_F(AlertStoreTest, PruneDropsOldFinishedRowsOnly) {
  SqliteAlertStore s(dir_.string());
  s.enqueue({row("old_delivered", 100), row("old_failed", 100), row("old_pending", 100), row("new_delivered", 100)});
  s.mark_delivered("old_delivered", 1, 200, 1000);
  s.mark_failed("old_failed", 1, 400, "HTTP 400", 1000);
  s.mark_delivered("new_delivered", 1, 200, 9000);
  EXPECT_EQ(s.prune(5000), 2);
  EXPECT_FALSE(s.get("old_delivered"));
  EXPECT_FALSE(s.get("old_failed"));
  EXPECT_TRUE(s.get("old_pending"));
  EXPECT_TRUE(s.get("new_delivered"));
  EXPECT_EQ(s.prune(5000), 0);
}

// delete_subscription is two statements in one transaction: when the second
// fails, the first is rolled back and the connection is left usable (it was
// left inside the open transaction, so everything after it was lost).
TEST_F(AlertStoreTest, FailedDeleteRollsBackAndLeavesTheStoreUsable) {
  Subscription a;
  a.id = "sub_a";
  a.url = "http://127.0.0.1:1/x";
  a.secret = "k";
  a.created_ms = 1;
  Subscription b = a;
  b.id = "sub_b";
  {
    SqliteAlertStore s(dir_.string());
    s.add_subscription(a);
    {
      sqlite::Db side((dir_ / "alerts.sqlite").string(), "test");
      side.exec("DROP TABLE outbox");  // the delete's second statement now fails
    }
    EXPECT_THROW(s.delete_subscription("sub_a"), std::runtime_error);
    s.add_subscription(b);
  }
  SqliteAlertStore reopened(dir_.string());
  EXPECT_TRUE(reopened.subscription("sub_a").has_value());  // the failed delete was rolled back
  EXPECT_TRUE(reopened.subscription("sub_b").has_value());  // and what came after was committed
}

}  // namespace
}  // namespace logsift
