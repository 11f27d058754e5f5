// The catalog against a real SQLite file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "pipeline/core/time.h"
#include "pipeline/store/catalog.h"
#include "tests/test_util.h"
#include "tests/pipeline/store/store_test_util.h"

namespace logsift {
namespace {

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = logsift::test::scratch_dir("logsift_catalog_");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static ClusterUpdate update(uint64_t id, int count, const std::string& example) {
    ClusterUpdate u;
    u.cluster_id = id;
    u.template_id = id ^ 1;
    u.template_text = "template " + std::to_string(id);
    u.count = count;
    u.first_ms = 1000;
    u.last_ms = 2000;
    for (int i = 0; i < count; ++i) u.examples.push_back({example + std::to_string(i), {{"host", "h1"}}});
    return u;
  }

  std::filesystem::path dir_;
};

TEST_F(CatalogTest, NewThenCountedAndPersistedAcrossReopen) {
  uint64_t big = 0xfedcba9876543210ull;  // > INT64_MAX: stored by bit pattern
  {
    SqliteCatalog c(dir_.string(), 3);
    auto fresh = test::apply_ok(c, {update(big, 2, "a"), update(7, 1, "b")});
    EXPECT_EQ(fresh, (std::vector<bool>{true, true}));
    fresh = test::apply_ok(c, {update(big, 5, "c")});
    EXPECT_EQ(fresh, std::vector<bool>{false});
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ / "catalog.sqlite"));
  SqliteCatalog c(dir_.string(), 3);
  auto list = c.list({10, 0});
  EXPECT_EQ(list.total, 2);
  ASSERT_EQ(list.rows.size(), 2u);
  EXPECT_EQ(list.rows[0].cluster_id, big);  // by count desc
  EXPECT_EQ(list.rows[0].count, 7u);
  EXPECT_EQ(list.rows[0].first_ms, 1000);
  auto one = c.get(big);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->row.template_text, list.rows[0].template_text);
  // Examples: the first 3 of the cluster's life, with labels.
  ASSERT_EQ(one->examples.size(), 3u);
  EXPECT_EQ(one->examples[0].text, "a0");
  EXPECT_EQ(one->examples[2].text, "c0");
  EXPECT_EQ(nlohmann::json::parse(one->examples[0].labels_json)["host"], "h1");
  EXPECT_FALSE(c.get(12345));
}

TEST_F(CatalogTest, Pagination) {
  SqliteCatalog c(dir_.string(), 1);
  std::vector<ClusterUpdate> ups;
  for (int i = 1; i <= 5; ++i) ups.push_back(update(static_cast<uint64_t>(i), i, "x"));
  test::apply_ok(c, ups);
  auto page = c.list({2, 1});
  EXPECT_EQ(page.total, 5);
  ASSERT_EQ(page.rows.size(), 2u);
  EXPECT_EQ(page.rows[0].count, 4u);
  EXPECT_EQ(page.rows[1].count, 3u);
  EXPECT_EQ(c.list({10, 5}).rows.size(), 0u);
}

TEST_F(CatalogTest, UnwritableDataDirIsAClearError) {
  std::filesystem::create_directories(dir_);
  std::filesystem::path file = dir_ / "not_a_dir";
  { std::ofstream(file) << "x"; }
  EXPECT_THROW(SqliteCatalog((file / "sub").string(), 1), std::runtime_error);
}

TEST(TimeFormat, Iso8601Utc) { EXPECT_EQ(format_time_ms(1700000000123), "2023-11-14T22:13:20.123Z"); }

// The background checkpointer must really copy the WAL into the database
// while the catalog is open: it did nothing before (its connection had not
// read the file, so it did not know the WAL existed) and a one-hour soak grew
// catalog.sqlite-wal to 71 GB with catalog.sqlite still 4 KB.
TEST_F(CatalogTest, WalIsCheckpointedWhileOpenAndStaysBounded) {
  SqliteCatalog c(dir_.string(), 3);
  const auto db = dir_ / "catalog.sqlite", wal = dir_ / "catalog.sqlite-wal";
  uint64_t next = 1;
  auto write_round = [&] {
    for (int batch = 0; batch < 20; ++batch) {
      std::vector<ClusterUpdate> ups;
      for (int i = 0; i < 200; ++i) ups.push_back(update(next++, 1, std::string(100, 'x')));
      test::apply_ok(c, ups);
    }
  };
  write_round();
  // The checkpointer runs every 500 ms: wait for it to copy the WAL in.
  logsift::test::wait_until([&] { return std::filesystem::file_size(db) > (256u << 10); },
                            std::chrono::milliseconds(5000));
  EXPECT_GT(std::filesystem::file_size(db), 256u << 10) << "nothing was checkpointed into the database";
  const auto wal_after_one = std::filesystem::file_size(wal);
  for (int round = 0; round < 4; ++round) {
    write_round();
    // The checkpointer runs on its own 500 ms clock and shows no count of its
    // passes: a window longer than its period is the only way to let one run.
    logsift::test::let_time_pass(std::chrono::milliseconds(700));
  }
  // Each round writes about as much as the first; with checkpoints the WAL is
  // reused from its start instead of growing by every round.
  EXPECT_LT(std::filesystem::file_size(wal), 2 * wal_after_one + (1u << 20))
      << "WAL grew from " << wal_after_one << " to " << std::filesystem::file_size(wal) << " bytes";
  EXPECT_EQ(c.list({1, 0}).total, 5 * 20 * 200);
}

// A writer that never pauses (a busy server): PASSIVE checkpoints never reach
// the end of the WAL, which then never restarts; the checkpointer must force
// a restart past its bound. Before, the WAL grew by everything written
// (about 600 MB a minute in the soak).
TEST_F(CatalogTest, WalStaysBoundedUnderAWriterThatNeverPauses) {
  SqliteCatalog c(dir_.string(), 3);
  const auto wal = dir_ / "catalog.sqlite-wal";
  uint64_t next = 1;
  std::uintmax_t max_wal = 0;
  int batches = 0;
  // At least 4 s, and until checkpoints have moved over 1 MB into the
  // database (a loaded machine writes less in 4 s; 60 s at most).
  const auto start = std::chrono::steady_clock::now();
  auto written_enough = [&] {
    const auto t = std::chrono::steady_clock::now();
    if (t - start < std::chrono::seconds(4)) return false;
    return t - start > std::chrono::seconds(60) || std::filesystem::file_size(dir_ / "catalog.sqlite") > (1u << 20);
  };
  while (!written_enough()) {
    std::vector<ClusterUpdate> ups;
    for (int i = 0; i < 50; ++i) ups.push_back(update(next++, 1, std::string(200, 'y')));
    // Count updates of older clusters too: pages all over the table change.
    for (int i = 0; i < 50; ++i) ups.push_back(update(1 + (next * 7919 + i) % next, 1, "z"));
    test::apply_ok(c, ups);
    ++batches;
    max_wal = std::max(max_wal, std::filesystem::file_size(wal));
  }
  // 4096 frames (16 MB) make the writer restart the WAL after that commit.
  EXPECT_LT(max_wal, std::uintmax_t{24} << 20) << "WAL reached " << max_wal << " bytes in " << batches << " batches";
  EXPECT_GT(std::filesystem::file_size(dir_ / "catalog.sqlite"), 1u << 20);
}

}  // namespace
}  // namespace logsift
