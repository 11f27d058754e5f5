// The catalog against a real SQLite file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "pipeline/store/catalog.h"

namespace logsift {
namespace {

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("logsift_catalog_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
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
    Catalog c(dir_.string(), 3);
    auto fresh = c.apply({update(big, 2, "a"), update(7, 1, "b")});
    EXPECT_EQ(fresh, (std::vector<bool>{true, true}));
    fresh = c.apply({update(big, 5, "c")});
    EXPECT_EQ(fresh, std::vector<bool>{false});
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ / "catalog.sqlite"));
  Catalog c(dir_.string(), 3);
  auto list = c.list(10, 0);
  EXPECT_EQ(list["total"], 2);
  ASSERT_EQ(list["clusters"].size(), 2u);
  EXPECT_EQ(list["clusters"][0]["cluster_id"], lsh::format_id(big));  // by count desc
  EXPECT_EQ(list["clusters"][0]["count"], 7);
  EXPECT_EQ(list["clusters"][0]["first_seen"], "1970-01-01T00:00:01.000Z");
  auto one = c.get(big);
  ASSERT_TRUE(one);
  // Examples: the first 3 of the cluster's life, with labels.
  ASSERT_EQ((*one)["examples"].size(), 3u);
  EXPECT_EQ((*one)["examples"][0]["text"], "a0");
  EXPECT_EQ((*one)["examples"][2]["text"], "c0");
  EXPECT_EQ((*one)["examples"][0]["labels"]["host"], "h1");
  EXPECT_FALSE(c.get(12345));
}

TEST_F(CatalogTest, Pagination) {
  Catalog c(dir_.string(), 1);
  std::vector<ClusterUpdate> ups;
  for (int i = 1; i <= 5; ++i) ups.push_back(update(static_cast<uint64_t>(i), i, "x"));
  c.apply(ups);
  auto page = c.list(2, 1);
  EXPECT_EQ(page["total"], 5);
  ASSERT_EQ(page["clusters"].size(), 2u);
  EXPECT_EQ(page["clusters"][0]["count"], 4);
  EXPECT_EQ(page["clusters"][1]["count"], 3);
  EXPECT_EQ(c.list(10, 5)["clusters"].size(), 0u);
}

TEST_F(CatalogTest, UnwritableDataDirIsAClearError) {
  std::filesystem::create_directories(dir_);
  std::filesystem::path file = dir_ / "not_a_dir";
  { std::ofstream(file) << "x"; }
  EXPECT_THROW(Catalog((file / "sub").string(), 1), std::runtime_error);
}

TEST(TimeFormat, Iso8601Utc) { EXPECT_EQ(format_time_ms(1700000000123), "2023-11-14T22:13:20.123Z"); }

}  // namespace
}  // namespace logsift
