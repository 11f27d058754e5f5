// The delivery worker against a real SQLite outbox and a loopback receiver,
// driven the way the server drives it: io threads run the worker's strand
// and the client while other threads enqueue alerts and wake it. These tests
// are also the delivery part of the ThreadSanitizer run (concurrency_tests).
#include "service/alerts/delivery.h"

#include <gtest/gtest.h>

#include <atomic>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "config/config.h"
#include "pipeline/core/metrics.h"
#include "service/alerts/alert_store.h"
#include "tests/service/alerts/loopback_server.h"
#include "tests/test_util.h"

namespace logsift {
namespace {

using webhook::loopback::LoopbackServer;
using webhook::loopback::Reply;
using webhook::loopback::status_reply;
using namespace std::chrono_literals;

class DeliveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = logsift::test::scratch_dir("logsift_delivery_");
    config_ = Config::defaults();
    config_.delivery_first_retry_ms = 20;
    config_.delivery_max_backoff_ms = 80;
    config_.delivery_timeout_ms = 5000;
    config_.delivery_concurrency = 4;
    config_.delivery_max_attempts = 20;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs `body` with a started worker whose io_context has `io_threads`
  // threads; stops and joins everything afterwards. `on_pump` (if set) runs
  // at every pump of the worker.
  template <typename Body>
  void with_worker(AlertStore& store, int io_threads, Body body, std::function<void()> on_pump = {}) {
    boost::asio::io_context ioc;
    auto guard = boost::asio::make_work_guard(ioc);
    auto worker = std::make_shared<DeliveryWorker>(ioc, store, config_);
    if (on_pump) worker->set_on_pump(std::move(on_pump));
    std::vector<std::thread> threads;
    for (int i = 0; i < io_threads; ++i) threads.emplace_back([&ioc] { ioc.run(); });
    worker->start();
    body(*worker);
    worker->stop();
    guard.reset();
    ioc.stop();
    for (auto& t : threads) t.join();
  }

  static Subscription subscription(const std::string& id, const std::string& url) {
    Subscription s;
    s.id = id;
    s.url = url;
    s.secret = "whsec_dGVzdA==";
    s.created_ms = 1;
    return s;
  }

  static OutboxRow row(const std::string& id, const std::string& sub) {
    OutboxRow r;
    r.id = id;
    r.subscription_id = sub;
    r.created_ms = now_ms();
    r.payload = R"({"id":")" + id + R"(","kind":"new_cluster"})";
    return r;
  }

  static bool wait_for(const std::function<bool()>& done, std::chrono::milliseconds limit) {
    return logsift::test::wait_until(done, limit);
  }

  std::filesystem::path dir_;
  Config config_;
};

// Four producers enqueue and wake concurrently while two io threads deliver;
// every alert's first attempt gets a 503. Each webhook-id must reach the
// receiver exactly twice (the 503 and the 200), with the same id and body.
TEST_F(DeliveryTest, ConcurrentProducersEveryAlertDeliveredOnceAfterARetry) {
  std::map<std::string, int> attempts;  // guarded by the server's script lock
  LoopbackServer receiver([&](const auto& req) {
    int n = ++attempts[std::string(req["webhook-id"])];
    return n == 1 ? status_reply(503) : status_reply(200);
  });
  SqliteAlertStore store(dir_.string());
  store.add_subscription(subscription("sub_a", receiver.base_url() + "/hook"));
  constexpr int kProducers = 4, kPerProducer = 40;
  with_worker(store, 2, [&](DeliveryWorker& worker) {
    std::vector<std::thread> producers;
    for (int p = 0; p < kProducers; ++p) {
      producers.emplace_back([&, p] {
        for (int i = 0; i < kPerProducer; ++i) {
          store.enqueue({row("msg_" + std::to_string(p) + "_" + std::to_string(i), "sub_a")});
          worker.wake();
        }
      });
    }
    for (auto& t : producers) t.join();
    EXPECT_TRUE(wait_for([&] { return store.count("delivered") == kProducers * kPerProducer; }, 30s))
        << "delivered " << store.count("delivered") << " pending " << store.count("pending");
  });
  EXPECT_EQ(store.count("pending"), 0);
  EXPECT_EQ(store.count("failed"), 0);
  auto requests = receiver.requests();
  ASSERT_EQ(requests.size(), 2u * kProducers * kPerProducer);
  std::map<std::string, std::vector<std::string>> bodies;
  for (const auto& req : requests) bodies[std::string(req["webhook-id"])].push_back(req.body());
  ASSERT_EQ(bodies.size(), size_t{kProducers * kPerProducer});
  for (const auto& [id, seen] : bodies) {
    ASSERT_EQ(seen.size(), 2u) << id;
    EXPECT_EQ(seen[0], seen[1]) << id;
    EXPECT_NE(seen[0].find(id), std::string::npos);
    auto got = store.get(id);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->attempts, 2);
    EXPECT_EQ(got->last_status, 200);
  }
}

// Two receivers, one answering 200 and one rejecting with 400, while
// subscriptions are read and the outbox is listed from other threads (as
// the HTTP routes do): the good one gets all its alerts, the bad one's are
// dead-lettered after one attempt each, nothing is left pending.
TEST_F(DeliveryTest, RejectingReceiverIsDeadLetteredWhileTheOtherDelivers) {
  LoopbackServer good([](const auto&) { return status_reply(200); });
  LoopbackServer bad([](const auto&) { return status_reply(400, {}, "no"); });
  SqliteAlertStore store(dir_.string());
  store.add_subscription(subscription("sub_good", good.base_url() + "/hook"));
  store.add_subscription(subscription("sub_bad", bad.base_url() + "/hook"));
  constexpr int kEach = 60;
  with_worker(store, 2, [&](DeliveryWorker& worker) {
    std::atomic<bool> done{false};
    std::thread reader([&] {
      while (!done) {
        (void)store.list("", 20, 0);
        (void)store.subscriptions();
        logsift::test::let_time_pass(1ms);  // pacing: reads all through the deliveries
      }
    });
    std::thread producer([&] {
      for (int i = 0; i < kEach; ++i) {
        store.enqueue({row("g_" + std::to_string(i), "sub_good"), row("b_" + std::to_string(i), "sub_bad")});
        worker.wake();
      }
    });
    producer.join();
    EXPECT_TRUE(wait_for([&] { return store.count("pending") == 0; }, 30s));
    done = true;
    reader.join();
  });
  EXPECT_EQ(store.count("delivered"), kEach);
  EXPECT_EQ(store.count("failed"), kEach);
  EXPECT_EQ(good.requests().size(), size_t{kEach});
  EXPECT_EQ(bad.requests().size(), size_t{kEach});
  auto b = store.get("b_7");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->status, "failed");
  EXPECT_EQ(b->attempts, 1);
  EXPECT_EQ(b->last_status, 400);
}

// Stopping the worker with alerts still pending keeps them in the outbox;
// a new worker on the same store (a restart) delivers them.
TEST_F(DeliveryTest, StopLeavesPendingRowsForTheNextWorker) {
  std::atomic<bool> up{false};
  LoopbackServer receiver([&](const auto&) { return up ? status_reply(200) : status_reply(503); });
  SqliteAlertStore store(dir_.string());
  store.add_subscription(subscription("sub_a", receiver.base_url() + "/hook"));
  with_worker(store, 2, [&](DeliveryWorker& worker) {
    for (int i = 0; i < 20; ++i) store.enqueue({row("p_" + std::to_string(i), "sub_a")});
    worker.wake();
    EXPECT_TRUE(wait_for([&] { return receiver.requests().size() >= 20; }, 10s));
  });
  EXPECT_EQ(store.count("pending"), 20);
  up = true;
  with_worker(store, 1, [&](DeliveryWorker&) {
    EXPECT_TRUE(wait_for([&] { return store.count("delivered") == 20; }, 30s));
  });
  EXPECT_EQ(store.count("pending"), 0);
}

}  // namespace
}  // namespace logsift

namespace logsift {
namespace {

// The store in front of a real SqliteAlertStore, refusing to record an
// outcome while `down` (as a shared store that went away right after the
// receiver answered).
class RecordingDownStore final : public AlertStore {
 public:
  explicit RecordingDownStore(const std::string& dir) : s_(dir) {}
  std::atomic<bool> down{false};
  void add_subscription(const Subscription& x) override { s_.add_subscription(x); }
  std::vector<Subscription> subscriptions() override { return s_.subscriptions(); }
  std::optional<Subscription> subscription(const std::string& id) override { return s_.subscription(id); }
  bool delete_subscription(const std::string& id) override { return s_.delete_subscription(id); }
  int64_t subscription_count() override { return s_.subscription_count(); }
  int64_t subscriptions_version() override { return s_.subscriptions_version(); }
  void enqueue(const std::vector<OutboxRow>& rows) override { s_.enqueue(rows); }
  using AlertStore::due;
  std::vector<OutboxRow> due(int64_t now, size_t limit, size_t per_sub, const Sendable& sendable) override {
    return s_.due(now, limit, per_sub, sendable);
  }
  using AlertStore::next_due;
  std::optional<int64_t> next_due(size_t per_sub, const Sendable& sendable) override {
    return s_.next_due(per_sub, sendable);
  }
  void mark_delivered(const std::string& id, int attempts, int status, int64_t now) override {
    if (down) throw std::runtime_error("store away");
    s_.mark_delivered(id, attempts, status, now);
  }
  void schedule_retry(const std::string& id, int attempts, int status, const std::string& error, int64_t next,
                      int64_t now) override {
    if (down) throw std::runtime_error("store away");
    s_.schedule_retry(id, attempts, status, error, next, now);
  }
  void mark_failed(const std::string& id, int attempts, int status, const std::string& error, int64_t now) override {
    if (down) throw std::runtime_error("store away");
    s_.mark_failed(id, attempts, status, error, now);
  }
  bool retry(const std::string& id, int64_t now) override { return s_.retry(id, now); }
  std::optional<OutboxRow> get(const std::string& id) override { return s_.get(id); }
  std::vector<OutboxRow> list(const std::string& status, int64_t limit, int64_t offset) override {
    return s_.list(status, limit, offset);
  }
  int64_t count(const std::string& status) override { return s_.count(status); }
  std::vector<std::pair<std::string, int64_t>> count_by_status() override { return s_.count_by_status(); }
  std::vector<Backlog> pending_backlog() override { return s_.pending_backlog(); }
  int64_t prune(int64_t before) override { return s_.prune(before); }

 private:
  SqliteAlertStore s_;
};

// The receiver took the alerts but the store could not record it: the worker
// keeps the outcomes and records them once the store is back. No alert is
// sent again meanwhile (a resend would reach the receiver twice), while the
// ones not yet sent still go (delivery_concurrency = 4 of the 5 at first,
// then the fifth): a store that cannot save outcomes does not stop delivery.
TEST_F(DeliveryTest, AnOutcomeTheStoreCouldNotTakeIsRecordedLaterNotResent) {
  LoopbackServer receiver([](const auto&) { return status_reply(200); });
  RecordingDownStore store(dir_.string());
  store.add_subscription(subscription("sub_a", receiver.base_url() + "/hook"));
  store.down = true;
  std::atomic<int> pumps{0};
  with_worker(store, 1, [&](DeliveryWorker& worker) {
    std::vector<OutboxRow> rows;
    for (int i = 0; i < 5; ++i) rows.push_back(row("rec_" + std::to_string(i), "sub_a"));
    store.enqueue(rows);
    worker.wake();
    EXPECT_TRUE(wait_for([&] { return receiver.requests().size() >= 5; }, 10s));
    // A resend would go out at a pump: two more pumps, and it would be here.
    const int seen = pumps.load();
    EXPECT_TRUE(wait_for([&] { return pumps.load() >= seen + 2; }, 10s));
    EXPECT_EQ(receiver.requests().size(), 5u);
    EXPECT_EQ(metrics().delivery_results_unsaved.get(), 5);
    EXPECT_EQ(store.count("pending"), 5);
    store.down = false;
    worker.wake();
    EXPECT_TRUE(wait_for([&] { return store.count("delivered") == 5; }, 10s));
  }, [&] { ++pumps; });
  std::map<std::string, int> per_id;
  for (const auto& req : receiver.requests()) ++per_id[std::string(req["webhook-id"])];
  EXPECT_EQ(per_id.size(), 5u);
  for (const auto& [id, n] : per_id) EXPECT_EQ(n, 1) << id;
  for (int i = 0; i < 5; ++i) {
    auto got = store.get("rec_" + std::to_string(i));
    ASSERT_TRUE(got);
    EXPECT_EQ(got->attempts, 1);
    EXPECT_EQ(got->last_status, 200);
  }
}

}  // namespace
}  // namespace logsift

namespace logsift {
namespace {

// Two receivers that hang (one never answers, one accepts and says nothing)
// with 300 alerts each due before a healthy receiver's 10: each hung receiver
// holds only its own delivery_concurrency attempts, the healthy one gets
// every alert, and the worker does not spin while the others hang (it used
// to take the first 256 due rows, all of hung receivers, and re-arm its
// timer every millisecond).
TEST_F(DeliveryTest, HungReceiversDoNotHoldBackAHealthyOne) {
  config_.delivery_timeout_ms = 60000;  // the hung attempts stay in flight for the whole test
  LoopbackServer hung_a([](const auto&) {
    Reply r;
    r.hang = true;
    return r;
  });
  LoopbackServer hung_b([](const auto&) {
    Reply r;
    r.hang = true;
    r.raw = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n";  // a trickle that never completes
    return r;
  });
  LoopbackServer healthy([](const auto&) { return status_reply(200); });
  SqliteAlertStore store(dir_.string());
  store.add_subscription(subscription("sub_hung_a", hung_a.base_url() + "/hook"));
  store.add_subscription(subscription("sub_hung_b", hung_b.base_url() + "/hook"));
  store.add_subscription(subscription("sub_ok", healthy.base_url() + "/hook"));
  std::vector<OutboxRow> rows;
  for (int i = 0; i < 300; ++i) {
    rows.push_back(row("hung_a_" + std::to_string(i), "sub_hung_a"));
    rows.push_back(row("hung_b_" + std::to_string(i), "sub_hung_b"));
  }
  store.enqueue(rows);
  with_worker(store, 2, [&](DeliveryWorker& worker) {
    worker.wake();
    EXPECT_TRUE(wait_for([&] { return hung_a.requests().size() >= 4 && hung_b.requests().size() >= 4; }, 10s));
    std::vector<OutboxRow> ok;
    for (int i = 0; i < 10; ++i) ok.push_back(row("ok_" + std::to_string(i), "sub_ok"));
    store.enqueue(ok);
    const uint64_t wakeups_before = metrics().delivery_wakeups.get();
    worker.wake();
    EXPECT_TRUE(wait_for([&] { return store.count("delivered") == 10; }, 10s))
        << "the healthy receiver got " << healthy.requests().size() << " of 10";
    // Not spinning: one pump per result (10) and per wake, plus its timer
    // (at most one a second), not one a millisecond.
    const uint64_t wakeups = metrics().delivery_wakeups.get() - wakeups_before;
    EXPECT_LT(wakeups, 100u) << wakeups << " pumps";
  });
  // Each hung receiver held its concurrency and no more.
  EXPECT_EQ(hung_a.requests().size(), 4u);
  EXPECT_EQ(hung_b.requests().size(), 4u);
  EXPECT_EQ(healthy.requests().size(), 10u);
}

}  // namespace
}  // namespace logsift
