#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipeline/stages/bank_miner.h"
#include "pipeline/stages/format_bank.h"

namespace logsift {
namespace {

std::vector<std::string> texts(const std::vector<MinedFormat>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.format);
  return out;
}

TEST(BankMiner, AWordPositionWithManyValuesBecomesASlot) {
  BankMiner m;
  m.add("USER li.wei: Login successful from host <*> port <*>", 5);
  m.add("USER ravi.kumar: Login successful from host <*> port <*>", 3);
  m.add("USER svc-backup: Login successful from host <*> port <*>", 2);
  m.add("disk <*> is full", 4);
  const auto fs = m.mine();  // the defaults: 7 of 8 positions agree
  ASSERT_EQ(fs.size(), 1u) << ::testing::PrintToString(texts(fs));
  EXPECT_EQ(fs[0].format, "USER %s: Login successful from host %s port %s");  // the ':' all three have stays
  EXPECT_EQ(fs[0].lines, 10u);
  EXPECT_EQ(fs[0].templates, 3u);
  ASSERT_EQ(fs[0].slots.size(), 1u);  // the user; the <*> of the sample were no words
  EXPECT_EQ(fs[0].slots[0].examples, (std::vector<std::string>{"li.wei:", "ravi.kumar:", "svc-backup:"}));
  EXPECT_EQ(fs[0].slots[0].values, 3u);
  EXPECT_EQ(m.lines(), 14u);
  EXPECT_EQ(m.templates(), 4u);
}

TEST(BankMiner, TwoValuesStayTwoStatements) {
  BankMiner m;
  for (const char* state : {"healthy", "unhealthy"})
    m.add(std::string("Service payments is ") + state + " after the last probe of <*>", 10);
  for (const char* verb : {"started", "stopped"})
    m.add(std::string("worker pool ") + verb + " after <*> ms on node <*> today", 10);
  EXPECT_TRUE(m.mine().empty());
  // A third value makes the position a slot; min_values 4 takes it back.
  m.add("Service payments is degraded after the last probe of <*>", 1);
  EXPECT_EQ(texts(m.mine()), std::vector<std::string>{"Service payments is %s after the last probe of %s"});
  EXPECT_TRUE(m.mine({0.85, 4}).empty());
}

TEST(BankMiner, TwoShapesOfAMaskedValueAreOneSlotButNotAtTheStart) {
  // mine-v2: the model masked the value in both templates, in two shapes.
  BankMiner m;
  m.add("copied file <*> to the backup volume in <*> seconds", 6);
  m.add("copied file <*>,<*> to the backup volume in <*> seconds", 2);
  // At the first token the same difference is left to the model (a leading
  // %s would be read as a prefix).
  m.add("<*>: scheduler run skipped because the window is closed", 5);
  m.add("<*> scheduler run skipped because the window is closed", 1);
  const auto fs = m.mine();
  ASSERT_EQ(fs.size(), 1u) << ::testing::PrintToString(texts(fs));
  EXPECT_EQ(fs[0].format, "copied file %s to the backup volume in %s seconds");
  EXPECT_EQ(fs[0].lines, 8u);
  ASSERT_EQ(fs[0].slots.size(), 1u);  // the file; the other <*> did not vary
  EXPECT_EQ(fs[0].slots[0].values, 2u);
  // Two words are still two statements (TwoValuesStayTwoStatements).
  BankMiner words;
  words.add("copied file report to the backup volume in <*> seconds", 6);
  words.add("copied file ledger to the backup volume in <*> seconds", 2);
  EXPECT_TRUE(words.mine().empty());
}

TEST(BankMiner, ALowVarietyPositionSplitsTheCluster) {
  // The queue takes two values (two statements), the user many: one format
  // per queue, with the user as a slot.
  BankMiner m;
  for (const char* q : {"orders", "invoices"})
    for (const char* u : {"alice", "bob", "carol"})
      m.add(std::string("queue ") + q + " drained by user " + u + " in <*> ms", 1);
  EXPECT_EQ(texts(m.mine({0.7, 3})), (std::vector<std::string>{"queue invoices drained by user %s in %s ms",
                                                                "queue orders drained by user %s in %s ms"}));
  // A third queue makes the queue a value too.
  m.add("queue refunds drained by user dave in <*> ms", 1);
  EXPECT_EQ(texts(m.mine({0.7, 3})), std::vector<std::string>{"queue %s drained by user %s in %s ms"});
}

TEST(BankMiner, SimilarityAndTheFirstTokenGateAJoin) {
  BankMiner m;
  // Five positions, two differ: 3/5 = 0.6 agree.
  for (const char* a : {"alpha beta", "gamma delta", "epsilon zeta"})
    m.add(std::string("replica ") + a + " joined cluster", 1);
  EXPECT_TRUE(m.mine({0.85, 3}).empty());
  EXPECT_EQ(texts(m.mine({0.6, 3})), std::vector<std::string>{"replica %s %s joined cluster"});
  // A different first token never joins, however alike the rest.
  BankMiner f;
  for (const char* v : {"Opened", "Closed", "Reset", "Dropped"}) f.add(std::string(v) + " connection to the primary", 1);
  EXPECT_TRUE(f.mine({0.5, 3}).empty());
}

TEST(BankMiner, KeepsBlanksEscapesPercentAndWritesSlotsForMaskedValues) {
  BankMiner m;
  for (const char* u : {"alice", "bob", "(carol)"}) m.add(std::string("quota  100% for ") + u + ":\t<*> used", 1);
  const MineOptions o{0.8, 3};  // 5 of 6 positions agree
  EXPECT_TRUE(m.mine().empty());  // 0.83 < 0.85
  const auto fs = m.mine(o);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].format, "quota  100%% for %s:\t%s used");
  const std::string bank = BankMiner::bank_text(fs, o, m.lines(), m.templates());
  EXPECT_EQ(bank.rfind("# logsift format bank, mined by `logsift mine` (mine-v2", 0), 0u) << bank;
  EXPECT_NE(bank.find("# 3 lines, 3 templates; words: (carol): alice: bob:\nquota  100%% for %s:\\t%s used\n"),
            std::string::npos)
      << bank;
}

TEST(BankMiner, LeavesOutFormatsTheBankWouldSkip) {
  BankMiner m;
  for (const char* v : {"a1", "b2", "c3", "d4"}) m.add(std::string("ok <*> ") + v, 1);  // 2 literal characters
  for (const char* v : {" TimeoutIdle", "TimeoutIdle"}) m.add(v, 1);                  // same tokens, other blanks
  EXPECT_TRUE(m.mine({0.6, 3}).empty());
}

TEST(BankMiner, TheResultDoesNotDependOnTheOrderOfTheSample) {
  std::vector<std::pair<std::string, int>> sample;
  for (const char* u : {"alice", "bob", "carol", "dave"}) sample.push_back({std::string("session opened for ") + u, 2});
  for (const char* u : {"x1", "y2", "z3"}) sample.push_back({std::string("session closed for <*> by ") + u, 1});
  sample.push_back({"session opened for root by sudo", 1});
  BankMiner a, b;
  for (const auto& [t, n] : sample) a.add(t, n);
  std::reverse(sample.begin(), sample.end());
  for (const auto& [t, n] : sample) b.add(t, n);
  const auto fa = a.mine({0.7, 3}), fb = b.mine({0.7, 3});
  EXPECT_EQ(texts(fa), texts(fb));
  EXPECT_FALSE(fa.empty());
}

TEST(BankMiner, ItsCommentNamesAFewWordsOfEachSlot) {
  BankMiner m;
  for (const char* q : {"orders", "billing", "audit", "mail", "refunds", "events"})
    m.add(std::string("consumer group lagging on queue ") + q + " behind the producer", 1);
  const auto fs = m.mine();
  ASSERT_EQ(fs.size(), 1u);
  const std::string bank = BankMiner::bank_text(fs, {}, m.lines(), m.templates());
  // Most frequent first, ties by text: all six have one line.
  EXPECT_NE(bank.find("# 6 lines, 6 templates; words: audit billing events mail (6 in all)\n"
                      "consumer group lagging on queue %s behind the producer\n"),
            std::string::npos)
      << bank;
}

TEST(BankMiner, AGroupOfRandomWordsIsBoundedAndKeepsItsFrequentStatements) {
  // A catalog whose words are random (every line its own template, all with
  // one first word and length) would cost templates^2 comparisons; past
  // kMaxCandidates clusters a group starts no more, and the most frequent
  // templates, mined first, still make their format.
  BankMiner m;
  for (const char* queue : {"orders", "billing", "invoices", "audit"})
    m.add(std::string("worker drained queue ") + queue + " after the nightly batch", 50);
  uint64_t x = 88172645463325252ull;  // xorshift: no two random templates agree in 7 of 8 places
  auto word = [&] {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return "w" + std::to_string(x % 1000003);
  };
  const size_t random_templates = 2 * BankMiner::kMaxCandidates + 100;
  for (size_t i = 0; i < random_templates; ++i) {
    std::string t = "worker";
    for (int k = 0; k < 7; ++k) t += " " + word();
    m.add(t, 1);
  }
  const auto fs = m.mine();
  ASSERT_EQ(fs.size(), 1u) << ::testing::PrintToString(texts(fs));
  EXPECT_EQ(fs[0].format, "worker drained queue %s after the nightly batch");
  EXPECT_EQ(fs[0].lines, 200u);
  EXPECT_EQ(m.templates(), 4 + random_templates);
}

TEST(BankMiner, RejectsOptionsOutOfRange) {
  BankMiner m;
  m.add("x y z", 1);
  EXPECT_THROW(m.mine({0.0, 3}), std::invalid_argument);
  EXPECT_THROW(m.mine({1.5, 3}), std::invalid_argument);
  EXPECT_THROW(m.mine({0.85, 1}), std::invalid_argument);
}

TEST(BankMiner, ItsBankServesLaterLinesOfTheStatement) {
  BankMiner m;
  for (const char* u : {"li.wei", "ravi.kumar", "svc-backup"}) m.add(std::string("USER ") + u + ": Login successful.", 1);
  const auto fs = m.mine({0.7, 3});  // 3 of 4 positions agree
  std::vector<std::string> formats = texts(fs);
  FormatBank bank = FormatBank::from_formats(formats);
  ASSERT_EQ(bank.size(), 1u);
  auto hit = bank.match("USER carla.diaz: Login successful.");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(bank.render(hit->format), "USER <*>: Login successful.");
  EXPECT_FALSE(bank.match("USER carla.diaz: Login failed.").has_value());
}

}  // namespace
}  // namespace logsift
