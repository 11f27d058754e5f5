// Mailboxes, stages, micro-batching and shutdown, with tiny test stages.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "config/config.h"
#include "pipeline/core/mailbox.h"
#include "pipeline/pipeline.h"
#include "pipeline/core/stage.h"

namespace logsift {
namespace {

std::unique_ptr<Batch> batch_of(int n, const std::string& prefix = "line") {
  auto b = std::make_unique<Batch>();
  for (int i = 0; i < n; ++i) b->records.emplace_back().text = prefix + std::to_string(i);
  return b;
}

TEST(Mailbox, BoundedTryPushFailsWhenFullAndKeepsTheItem) {
  Mailbox<std::unique_ptr<int>> m(2);
  auto a = std::make_unique<int>(1), b = std::make_unique<int>(2), c = std::make_unique<int>(3);
  EXPECT_TRUE(m.try_push(a));
  EXPECT_TRUE(m.try_push(b));
  EXPECT_FALSE(m.try_push(c));
  ASSERT_TRUE(c);  // not lost
  EXPECT_EQ(**m.pop(), 1);
  EXPECT_TRUE(m.try_push(c));
  m.close();
  EXPECT_EQ(**m.pop(), 2);  // closed mailboxes still drain
  EXPECT_EQ(**m.pop(), 3);
  EXPECT_FALSE(m.pop().has_value());
  auto d = std::make_unique<int>(4);
  EXPECT_FALSE(m.push(d));
}

TEST(Mailbox, BlockingPushWaitsForRoom) {
  Mailbox<int> m(1);
  int x = 1, y = 2;
  ASSERT_TRUE(m.push(x));
  std::atomic<bool> pushed{false};
  std::thread t([&] {
    m.push(y);
    pushed = true;
  });
  // The pusher cannot finish until we pop.
  EXPECT_FALSE(pushed.load());
  EXPECT_EQ(*m.pop(), 1);
  t.join();
  EXPECT_TRUE(pushed.load());
  EXPECT_EQ(*m.pop(), 2);
}

// Records each group size it processes.
class RecordingBatcher final : public BatchingStage {
 public:
  RecordingBatcher(size_t max_lines, std::chrono::microseconds delay)
      : BatchingStage("rec", 64, max_lines, delay) {}
  std::vector<size_t> group_lines;
  std::mutex mu;

 protected:
  void process_group(std::vector<Batch*>& group) override {
    size_t n = 0;
    for (auto* b : group) n += b->records.size();
    std::lock_guard l(mu);
    group_lines.push_back(n);
  }
};

class ThrowingStage final : public Stage {
 public:
  ThrowingStage() : Stage("boom", 4) {}
 protected:
  void process(Batch&) override { throw std::runtime_error("kaput"); }
};

TEST(BatchingStage, GathersUpToMaxLinesAndKeepsOrder) {
  RecordingBatcher st(10, std::chrono::seconds(5));
  std::vector<int> done_order;
  std::mutex mu;
  std::promise<void> all;
  // Queue 6 batches of 4 lines before the thread starts: groups must be
  // [4+4+4=12 >= 10], then [4+4+4].
  for (int i = 0; i < 6; ++i) {
    auto b = batch_of(4);
    b->on_done = [&, i](std::unique_ptr<Batch>) {
      std::lock_guard l(mu);
      done_order.push_back(i);
      if (done_order.size() == 6) all.set_value();
    };
    ASSERT_TRUE(st.push(b));
  }
  st.start();
  all.get_future().wait();
  st.stop();
  EXPECT_EQ(done_order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(st.group_lines, (std::vector<size_t>{12, 12}));
}

TEST(BatchingStage, MaxDelayFlushesAPartialBatch) {
  RecordingBatcher st(1000, std::chrono::milliseconds(1));
  st.start();
  std::promise<void> done;
  auto b = batch_of(3);
  b->on_done = [&](std::unique_ptr<Batch>) { done.set_value(); };
  ASSERT_TRUE(st.push(b));
  EXPECT_EQ(done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  st.stop();
  EXPECT_EQ(st.group_lines, std::vector<size_t>{3});
}

TEST(Stage, ExceptionBecomesPerRecordErrorNotACrash) {
  ThrowingStage st;
  st.start();
  std::promise<std::unique_ptr<Batch>> out;
  auto b = batch_of(2);
  b->on_done = [&](std::unique_ptr<Batch> r) { out.set_value(std::move(r)); };
  ASSERT_TRUE(st.push(b));
  auto r = out.get_future().get();
  st.stop();
  for (const auto& rec : r->records) EXPECT_NE(rec.error.find("kaput"), std::string::npos);
}

TEST(Pipeline, StopDrainsEverythingAccepted) {
  Config c = Config::defaults();
  c.mailbox_capacity = 2;
  Pipeline p(c, nullptr);
  std::atomic<int> lines{0};
  for (int i = 0; i < 50; ++i) {
    auto b = batch_of(100, "event number " + std::to_string(i % 3) + " ");
    b->on_done = [&](std::unique_ptr<Batch> r) {
      EXPECT_FALSE(r->aborted);
      for (const auto& rec : r->records) lines += rec.ok() && rec.cluster_id != 0;
    };
    ASSERT_TRUE(p.submit(b));  // blocks when full: backpressure, never growth
  }
  p.stop();
  EXPECT_EQ(lines.load(), 5000);
  auto late = batch_of(1);
  EXPECT_FALSE(p.submit(late));
  EXPECT_FALSE(p.try_submit(late));
}

TEST(Pipeline, ErrorRecordsPassThroughUntouched) {
  Pipeline p(Config::defaults(), nullptr);
  auto b = batch_of(3);
  b->records[1].error = "rejected at ingest";
  std::promise<std::unique_ptr<Batch>> out;
  b->on_done = [&](std::unique_ptr<Batch> r) { out.set_value(std::move(r)); };
  ASSERT_TRUE(p.submit(b));
  auto r = out.get_future().get();
  EXPECT_TRUE(r->records[0].ok());
  EXPECT_EQ(r->records[1].error, "rejected at ingest");
  EXPECT_EQ(r->records[1].template_text, "");
  EXPECT_TRUE(r->records[2].ok());
}

}  // namespace
}  // namespace logsift
