// Mailboxes, stages, micro-batching and shutdown, with tiny test stages.
#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <future>
#include <thread>

#include "config/config.h"
#include "pipeline/core/mailbox.h"
#include "pipeline/pipeline.h"
#include "pipeline/core/stage.h"
#include "pipeline/core/time.h"
#include "pipeline/store/catalog.h"
#include "tests/test_util.h"

namespace logsift {
namespace {

std::unique_ptr<Batch> batch_of(int n, const std::string& prefix = "line") {
  auto b = std::make_unique<Batch>();
  for (int i = 0; i < n; ++i) b->records.emplace_back().text = b->keep(prefix + std::to_string(i));
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
  // The pusher is inside push() with the mailbox full: it must stay there
  // until we pop.
  ASSERT_TRUE(test::wait_until([&] { return m.blocked_pushers() == 1; }));
  EXPECT_FALSE(pushed.load());
  EXPECT_EQ(m.size(), 1u);
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

// Each stage's thread carries its name, so `top -H` and perf tell them apart.
class NameRecordingStage final : public Stage {
 public:
  NameRecordingStage() : Stage("state", 4) {}
  std::string seen;
 protected:
  void process(Batch&) override {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof name);
    seen = name;
  }
};

TEST(Stage, ItsThreadIsNamedAfterTheStage) {
  NameRecordingStage st;
  st.start();
  std::promise<void> done;
  auto b = batch_of(1);
  b->on_done = [&](std::unique_ptr<Batch>) { done.set_value(); };
  ASSERT_TRUE(st.push(b));
  done.get_future().wait();
  st.stop();
  EXPECT_EQ(st.seen, "ls-state");
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

// An idle batching stage dispatches a lone batch at once (adaptive batching):
// with no delay configured it never waits for company.
TEST(BatchingStage, IdleStageDispatchesALoneBatchAtOnce) {
  RecordingBatcher st(1000000, std::chrono::microseconds(0));
  st.start();
  std::promise<void> done;
  auto b = batch_of(1);
  b->on_done = [&](std::unique_ptr<Batch>) { done.set_value(); };
  ASSERT_TRUE(st.push(b));
  EXPECT_EQ(done.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  st.stop();
  EXPECT_EQ(st.group_lines, std::vector<size_t>{1});
}

// A line seen before runs to completion in the analysis: no model work, and
// the same result as the first time.
TEST(Pipeline, SeenLinesNeedNoModelWork) {
  Pipeline p(Config::defaults(), nullptr);
  std::vector<std::string> lines;
  for (int i = 0; i < 50; ++i)
    lines.push_back(i % 2 ? "Connection from 10.0.0." + std::to_string(i) + " port 22 closed by user"
                          : "Job " + std::to_string(i) + " finished after " + std::to_string(i * 7) + " retries");
  auto first = p.run(lines);
  const auto rows = p.stats()["denoise"]["model_rows"].get<uint64_t>();
  const auto hits = p.stats()["analysis"]["line_cache_hits"].get<uint64_t>();
  auto second = p.run(lines);
  EXPECT_EQ(p.stats()["denoise"]["model_rows"].get<uint64_t>(), rows);
  EXPECT_EQ(p.stats()["analysis"]["line_cache_hits"].get<uint64_t>() - hits, lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(first[i].cluster_id, second[i].cluster_id);
    EXPECT_EQ(first[i].template_text, second[i].template_text);
  }
}

// A flood of new templates: the native denoiser splits its large passes over
// two threads. The ids must be those of the same lines run a few at a time
// (passes too small to split), in the other order.
TEST(Pipeline, AFloodOfNewTemplatesGivesTheIdsOfTheSameLinesRunFewAtATime) {
  std::vector<std::string> lines;
  uint64_t x = 12345;
  auto word = [&] {
    std::string w;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const int len = 3 + static_cast<int>((x >> 33) % 8);
    for (int k = 0; k < len; ++k) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      w += static_cast<char>('a' + (x >> 33) % 26);
    }
    return w;
  };
  for (int i = 0; i < 1500; ++i) {
    std::string l = word();
    for (int k = 0; k < 5; ++k) l += " " + word();
    lines.push_back(l);
  }
  Pipeline flood(Config::defaults(), nullptr), few(Config::defaults(), nullptr);
  auto a = flood.run(lines);
  EXPECT_GT(flood.stats()["denoise"]["probed_strings"].get<uint64_t>(), 1000u);
  std::vector<std::string> reversed(lines.rbegin(), lines.rend());
  std::vector<std::pair<uint64_t, std::string>> b;  // cluster id, template
  for (size_t i = 0; i < reversed.size(); i += 4) {
    auto part = few.run(std::vector<std::string>(reversed.begin() + static_cast<std::ptrdiff_t>(i),
                                                 reversed.begin() + static_cast<std::ptrdiff_t>(std::min(i + 4, reversed.size()))));
    for (const auto& r : part) b.emplace_back(r.cluster_id, std::string(r.template_text));
  }
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(a[i].cluster_id, b[lines.size() - 1 - i].first) << lines[i];
    EXPECT_EQ(a[i].template_text, b[lines.size() - 1 - i].second) << lines[i];
  }
}

// store: redis folds the other replicas' counts into the windows from its
// own thread while this replica's lines flow through the state stage: every
// count lands once, and the cluster's series totals them.
TEST(Pipeline, OtherReplicasCountsFoldInWhileLinesFlow) {
  const auto dir = std::filesystem::temp_directory_path() / ("logsift-remote-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  {
    Config c = Config::defaults();
    SqliteCatalog catalog(dir.string(), 3);
    Pipeline p(c, &catalog);
    const uint64_t id = p.run({"disk quota exceeded on volume 1"})[0].cluster_id;
    std::thread remote([&] {
      for (int i = 0; i < 200; ++i) {
        CountDelta d;
        d.cluster_id = id;
        d.ts_ms = now_ms();
        d.count = 5;
        d.template_text = "disk quota exceeded on volume <*>";
        p.observe_remote({d});
      }
    });
    for (int i = 2; i < 52; ++i) EXPECT_EQ(p.run({"disk quota exceeded on volume " + std::to_string(i)})[0].cluster_id, id);
    remote.join();
    auto series = p.series(id, 60000);
    ASSERT_TRUE(series);
    EXPECT_EQ((*series)["total"], 1 + 50 + 200 * 5);
    p.stop();
  }
  std::filesystem::remove_all(dir);
}

// Batches may finish out of order (a batch of seen lines overtakes one that
// waits for the models); each completes once with its own records.
TEST(Pipeline, MixedBatchesEachCompleteWithTheirOwnRecords) {
  Config c = Config::defaults();
  c.inline_max_lines = 4;  // small batches analysed by the caller, larger ones by the workers
  Pipeline p(c, nullptr);
  std::vector<std::string> seen = {"Disk /dev/sda1 is full", "User alice logged in"};
  auto known = p.run(seen);
  const std::vector<std::string> seen_templates = {std::string(known[0].template_text),
                                                   std::string(known[1].template_text)};
  std::mutex mu;
  std::map<int, std::vector<std::string>> got;
  std::promise<void> all;
  const int kBatches = 40;
  for (int i = 0; i < kBatches; ++i) {
    auto b = std::make_unique<Batch>();
    const int n = i % 2 ? 2 : 30;
    for (int k = 0; k < n; ++k) {
      std::string t = i % 2 ? seen[k % 2] : "Shard " + std::to_string(i) + " replica event number " + std::to_string(k);
      b->records.emplace_back().text = b->keep(t);
    }
    b->on_done = [&, i](std::unique_ptr<Batch> r) {
      std::lock_guard l(mu);
      for (const auto& rec : r->records) got[i].push_back(std::string(rec.template_text));
      if (got.size() == kBatches) all.set_value();
    };
    ASSERT_TRUE(p.submit(b));
  }
  ASSERT_EQ(all.get_future().wait_for(std::chrono::seconds(60)), std::future_status::ready);
  for (int i = 1; i < kBatches; i += 2) EXPECT_EQ(got[i], seen_templates);
  for (int i = 0; i < kBatches; i += 2) EXPECT_EQ(got[i].size(), 30u);
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
