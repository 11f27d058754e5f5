// The migration to a new cluster-id contract (pipeline/migrate.h), phase by
// phase: regroup, keep_examples and the report as pure functions on stored
// clusters; then the whole migration and the migrator against a catalog in
// memory, with real pipelines under two contracts.
#include "pipeline/migrate.h"

#include <chrono>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "pipeline/pipeline.h"
#include "tests/pipeline/store/memory_catalog.h"
#include "tests/test_util.h"

namespace logsift {
namespace {

StoredCluster stored(uint64_t id, uint64_t count, size_t examples, int64_t first_ms = 1000) {
  StoredCluster c;
  c.cluster_id = id;
  c.template_id = id ^ 0xff;
  c.template_text = "template " + std::to_string(id);
  c.count = count;
  c.first_ms = first_ms;
  c.last_ms = first_ms + 1000;
  for (size_t e = 0; e < examples; ++e)
    c.examples.push_back({"line " + std::to_string(id) + "." + std::to_string(e), "{}", first_ms + static_cast<int64_t>(e)});
  return c;
}

DerivedId to(uint64_t id) {
  DerivedId d;
  d.ok = true;
  d.id = id;
  d.template_id = id ^ 0xabc;
  d.template_text = "new template " + std::to_string(id);
  return d;
}

const StoredCluster* find(const Regrouped& g, uint64_t id) {
  for (const auto& c : g.clusters)
    if (c.cluster_id == id) return &c;
  return nullptr;
}

TEST(MigrationRegroup, EachCaseWithExactCounts) {
  const std::vector<StoredCluster> old = {
      stored(1, 10, 2),  // unchanged: both examples keep id 1
      stored(2, 7, 1),   // mapped: to 20
      stored(3, 9, 3),   // split: 2 examples to 30, 1 to 31
      stored(4, 5, 1),   // merged with 5 into 40
      stored(5, 6, 2),
      stored(6, 4, 0),   // no example: kept under its id
  };
  const std::vector<std::vector<DerivedId>> derived = {
      {to(1), to(1)}, {to(20)}, {to(30), to(31), to(30)}, {to(40)}, {to(40), to(40)}, {},
  };
  const Regrouped g = regroup(old, derived);
  EXPECT_EQ(g.unchanged, 1u);
  EXPECT_EQ(g.mapped, 3u);  // 2 -> 20, 4 -> 40, 5 -> 40
  EXPECT_EQ(g.split, 1u);
  EXPECT_EQ(g.kept, 1u);
  uint64_t total = 0;
  for (const auto& c : g.clusters) total += c.count;
  EXPECT_EQ(total, 10u + 7 + 9 + 5 + 6 + 4) << "a migration neither loses nor invents a line";
  ASSERT_TRUE(find(g, 30) && find(g, 31));
  EXPECT_EQ(find(g, 30)->count, 6u);  // 9 * 2/3
  EXPECT_EQ(find(g, 31)->count, 3u);
  EXPECT_EQ(find(g, 40)->count, 11u);
  EXPECT_EQ(find(g, 40)->examples.size(), 3u);
  EXPECT_EQ(find(g, 20)->template_text, "new template 20");
  ASSERT_TRUE(find(g, 6));
  EXPECT_EQ(find(g, 6)->template_text, "template 6");
  // The map: every old id whose id changed, with its share.
  std::set<std::pair<uint64_t, uint64_t>> moved;
  for (const auto& m : g.map) moved.emplace(m.old_id, m.new_id);
  EXPECT_EQ(moved, (std::set<std::pair<uint64_t, uint64_t>>{{2, 20}, {3, 30}, {3, 31}, {4, 40}, {5, 40}}));
  for (const auto& m : g.map)
    if (m.old_id == 3 && m.new_id == 31) EXPECT_DOUBLE_EQ(m.share, 1.0 / 3);
}

TEST(MigrationRegroup, AnExampleThePipelineRefusesCountsForNothing) {
  // One of two examples fails now: the whole count follows the other.
  DerivedId failed;
  const Regrouped g = regroup({stored(1, 8, 2)}, {{to(9), failed}});
  ASSERT_EQ(g.clusters.size(), 1u);
  EXPECT_EQ(g.clusters[0].cluster_id, 9u);
  EXPECT_EQ(g.clusters[0].count, 8u);
  EXPECT_EQ(g.clusters[0].examples.size(), 1u);
}

TEST(MigrationKeepExamples, AMergedClusterKeepsSomeOfEachSoALaterContractCanSplitItBack) {
  std::vector<StoredCluster> old;
  std::vector<std::vector<DerivedId>> derived;
  for (uint64_t i = 1; i <= 5; ++i) {
    old.push_back(stored(i, 3, 3, static_cast<int64_t>(1000 * i)));
    derived.push_back({to(100), to(100), to(100)});
  }
  old.push_back(stored(7, 9, 6));
  derived.push_back({to(200), to(200), to(200), to(200), to(200), to(200)});
  Regrouped g = regroup(old, derived);
  keep_examples(&g, /*max_examples=*/3);
  const StoredCluster* merged = find(g, 100);
  ASSERT_TRUE(merged);
  // Five clusters joined: one example of each (more than max_examples), oldest first.
  ASSERT_EQ(merged->examples.size(), 5u);
  std::set<std::string> from;
  for (const auto& e : merged->examples) from.insert(e.text.substr(0, e.text.find('.')));
  EXPECT_EQ(from.size(), 5u);
  for (size_t i = 1; i < merged->examples.size(); ++i)
    EXPECT_LE(merged->examples[i - 1].ts_ms, merged->examples[i].ts_ms);
  // Not merged: its first max_examples lines.
  ASSERT_TRUE(find(g, 200));
  EXPECT_EQ(find(g, 200)->examples.size(), 3u);
  EXPECT_EQ(find(g, 200)->examples[0].text, "line 7.0");
}

TEST(MigrationReport, CountsEveryCase) {
  const Regrouped g = regroup({stored(1, 2, 1), stored(2, 2, 1), stored(3, 2, 2)},
                              {{to(10)}, {to(10)}, {to(30), to(31)}});
  const auto r = migration_report(g, 3, 4, "", "abc");
  EXPECT_EQ(r["from"], nullptr);
  EXPECT_EQ(r["to"], "abc");
  EXPECT_EQ(r["clusters_before"], 3);
  EXPECT_EQ(r["clusters_after"], 3);
  EXPECT_EQ(r["merged"], 1);
  EXPECT_EQ(r["merged_from"], 2);
  EXPECT_EQ(r["split"], 1);
  EXPECT_EQ(r["splits"][0]["into"].size(), 2u);
  EXPECT_EQ(r["examples_reclustered"], 4);
}

TEST(MigrationCheck, SameFreshNewerOrMigrate) {
  Contract now{nlohmann::json::object(), "bbbb"};
  ContractHistory h;
  EXPECT_EQ(check_contract("bbbb", h, 5, now), ContractCheck::kSame);
  EXPECT_EQ(check_contract("", h, 0, now), ContractCheck::kFresh);
  EXPECT_EQ(check_contract("", h, 3, now), ContractCheck::kMigrate);  // clusters from before contracts were recorded
  EXPECT_EQ(check_contract("aaaa", h, 3, now), ContractCheck::kMigrate);
  h.contracts.push_back({"bbbb", "then"});
  h.contracts.push_back({"cccc", "later"});
  EXPECT_EQ(check_contract("cccc", h, 3, now), ContractCheck::kNewer);  // this release was replaced
}

// Clusters written under one contract (LSH seed 4242), then the migration to
// another (the default seed), through a catalog in memory.
class MigrationOnAStore : public ::testing::Test {
 protected:
  void SetUp() override {
    old_config_ = Config::defaults();
    old_config_.lsh_seed = 4242;
    Pipeline before(old_config_, &store_);
    for (int round = 0; round < 3; ++round) before.run(lines_);
    before.stop();
    const Contract c = contract_of(before);
    store_.record_contract(c.json.dump(), c.digest);
    old_ids_ = ids_of(store_);
  }
  static std::set<uint64_t> ids_of(test::MemoryCatalog& s) {
    std::set<uint64_t> out;
    for (const auto& r : s.list({1000, 0}).rows) out.insert(r.cluster_id);
    return out;
  }
  const std::vector<std::string> lines_ = {"User alice logged in from host web-1", "Disk /dev/sda1 is 91% full",
                                           "Connection from 10.0.0.1 closed after 35 seconds",
                                           "Job 4711 finished in 120 ms"};
  Config old_config_;
  test::MemoryCatalog store_;
  std::set<uint64_t> old_ids_;
};

TEST_F(MigrationOnAStore, MigrateCatalogMovesEveryIdAndKeepsCounts) {
  ASSERT_EQ(old_ids_.size(), lines_.size());
  Pipeline ids(Config::defaults(), nullptr);
  const std::string from = store_.stored_digest();
  const auto dry = migrate_catalog(ids, store_, from, 3, /*dry_run=*/true);
  EXPECT_EQ(ids_of(store_), old_ids_) << "a dry run changes nothing";
  EXPECT_EQ(dry["mapped"], 4);
  const auto report = migrate_catalog(ids, store_, from, 3, /*dry_run=*/false);
  EXPECT_EQ(report["mapped"], 4);
  EXPECT_EQ(report["examples_reclustered"], 12);
  const auto now = ids_of(store_);
  EXPECT_EQ(now.size(), old_ids_.size());
  for (uint64_t id : now) EXPECT_FALSE(old_ids_.count(id)) << "the seed changed: every id must too";
  for (uint64_t old : old_ids_) {
    const auto became = store_.migrated(old);
    ASSERT_EQ(became.size(), 1u);
    ASSERT_TRUE(store_.get(became[0].new_id));
    EXPECT_EQ(store_.get(became[0].new_id)->row.count, 3u);
  }
  EXPECT_EQ(store_.stored_digest(), contract_of(ids).digest);
  // The same lines now land on the migrated clusters.
  std::vector<std::string> again = lines_;
  auto out = ids.run(again);
  for (const auto& r : out) EXPECT_TRUE(now.count(r.cluster_id)) << r.text;
}

TEST_F(MigrationOnAStore, TheMigratorClosesTheGateMigratesThenOpensIt) {
  const Config c = Config::defaults();
  ContractMigrator m(c, store_, store_);
  Pipeline p(c, nullptr);
  ASSERT_TRUE(m.check(contract_of(p)));
  EXPECT_EQ(m.gate().state(), WriteGate::State::kMigrating);
  EXPECT_EQ(m.gate().status().code(), StatusCode::kUnavailable);
  std::atomic<bool> then_ran{false};
  m.start([&] { then_ran = true; });
  ASSERT_TRUE(test::wait_until([&] { return m.gate().is_open(); }, std::chrono::milliseconds(30000)));
  EXPECT_TRUE(then_ran);
  EXPECT_EQ(store_.stored_digest(), contract_of(p).digest);
  for (uint64_t id : ids_of(store_)) EXPECT_FALSE(old_ids_.count(id));
  m.stop();
}

TEST_F(MigrationOnAStore, AnOlderReleaseKeepsTheGateClosed) {
  // The store moved on from this release's contract: it refuses writes.
  Pipeline newer(Config::defaults(), nullptr);
  migrate_catalog(newer, store_, store_.stored_digest(), 3, false);
  ContractMigrator m(old_config_, store_, store_);
  Pipeline older(old_config_, nullptr);
  EXPECT_FALSE(m.check(contract_of(older)));
  EXPECT_EQ(m.gate().state(), WriteGate::State::kOtherContract);
  EXPECT_NE(m.gate().reason().find("which replaced this release's"), std::string::npos) << m.gate().reason();
}

TEST_F(MigrationOnAStore, StopEndsTheWaitForAnotherReplicasLeaseAtOnce) {
  store_.held_by_other = true;  // another replica migrates
  const Config c = Config::defaults();
  ContractMigrator m(c, store_, store_);
  Pipeline p(c, nullptr);
  ASSERT_TRUE(m.check(contract_of(p)));
  m.start([] {});
  ASSERT_TRUE(test::wait_until([&] { return m.gate().reason().find("another replica") != std::string::npos; }));
  const auto t0 = std::chrono::steady_clock::now();
  m.stop();  // wakes the wait: no sleep to finish
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(900));
  EXPECT_EQ(m.gate().state(), WriteGate::State::kMigrating);  // writes stay refused: nothing was migrated
  EXPECT_EQ(ids_of(store_), old_ids_);
}

}  // namespace
}  // namespace logsift
