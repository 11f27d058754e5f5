// The hand-compiled pre-mask finders against RE2 itself: the same spans, on
// real log lines and on millions of random and mutated strings built from the
// characters the patterns care about. A finder that differs from RE2 anywhere
// here changes cluster ids, so this is a contract test.
#include "pipeline/stages/premask_lexer.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/config.h"
#include "pipeline/stages/tokenizer.h"
#include "tests/test_util.h"

namespace logsift {
namespace {

std::string show(std::string_view line, const std::vector<MaskSpan>& spans) {
  std::string s;
  for (const auto& m : spans)
    s += "[" + std::to_string(m.pattern) + ":" + std::string(line.substr(m.begin, m.end - m.begin)) + "]";
  return s;
}

bool same(const std::vector<MaskSpan>& a, const std::vector<MaskSpan>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].begin != b[i].begin || a[i].end != b[i].end || a[i].pattern != b[i].pattern) return false;
  return true;
}

class PremaskLexer : public ::testing::Test {
 protected:
  PremaskLexer() : fast_(Config::defaults().premask), reference_(Config::defaults().premask, false) {}
  size_t mismatches_ = 0;
  void check(const std::string& line) {
    auto a = fast_.find(line), b = reference_.find(line);
    if (!same(a, b) && ++mismatches_ <= 10)
      ADD_FAILURE() << "line: " << line << "\n  finders: " << show(line, a) << "\n  re2:     " << show(line, b);
  }
  Premasker fast_, reference_;
};

TEST_F(PremaskLexer, EveryBuiltinPatternHasAFinder) {
  EXPECT_TRUE(fast_.all_builtin());
  EXPECT_FALSE(reference_.all_builtin());
  for (const auto& p : Config::defaults().premask)
    EXPECT_NE(premask::builtin_finder(p.regex), nullptr) << p.name;
  EXPECT_EQ(premask::builtin_finder("[0-9]+"), nullptr);  // anything else runs through RE2
}

TEST_F(PremaskLexer, SameSpansAsRe2OnRealLines) {
  // Real programs' lines the repository holds, and loghub-2k's when a
  // developer has it beside the clone.
  std::vector<std::string> roots = {LOGSIFT_SOURCE_DIR "/models/validation", LOGSIFT_SOURCE_DIR "/models/tuning"};
  if (test::have_loghub()) roots.push_back(test::loghub_dir());
  std::vector<std::string> lines;
  for (const auto& root : roots)
    for (const auto& e : std::filesystem::recursive_directory_iterator(root))
      if (e.path().extension() == ".log") {
        std::ifstream in(e.path());
        for (std::string l; std::getline(in, l);) lines.push_back(l);
      }
  for (const char* f : {"/tests/pairs/pairs.tsv", "/tests/data/canonical_cases.json"}) {
    std::ifstream in(std::string(LOGSIFT_SOURCE_DIR) + f);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  ASSERT_GT(lines.size(), 100u);
  for (const auto& l : lines) check(l);
  EXPECT_EQ(mismatches_, 0u) << lines.size() << " lines";
}

TEST_F(PremaskLexer, SameSpansAsRe2OnRandomStrings) {
  // Characters the patterns branch on, plus letters and the month names.
  const std::string alphabet = "0123456789abcdefABCDEFxXzZT :.-/\\[]@%+_~$,'\"<>\tJanFebMrApyulgSpOctNvDcm";
  const std::vector<std::string> fragments = {
      "2024-01-15T10:20:30.123Z", "12/Mar/2024:10:20:30 +0100", "Jan  5 10:20:30", "2024-01-15-10.20.30.123",
      "00:1a:2b:3c:4d:5e", "fe80::1ff:fe23:4567:890a", "[2001:db8::1]:443", "2001:db8:0:0:0:0:2:1", "::1",
      "10.0.0.1:8080", "0x7ffde4a1", "a231d9e5-c804-4beb-a5cc-ca0d10868d22", "https://x.example.com/a?b=1",
      "user.name+tag@mail.example.org", "/var/log/syslog", "C:\\Windows\\System32", "-12.5e-3", "deadbeefcafe12",
      "blk_-1608999687919862906", "12:34:56,789", "2024/01/15"};
  std::mt19937_64 rng(20261123);
  for (int it = 0; it < 300000; ++it) {
    std::string s;
    const int parts = 1 + static_cast<int>(rng() % 4);
    for (int p = 0; p < parts; ++p) {
      if (rng() % 2) {
        std::string f = fragments[rng() % fragments.size()];
        for (int k = 0, m = static_cast<int>(rng() % 3); k < m && !f.empty(); ++k)
          f[rng() % f.size()] = alphabet[rng() % alphabet.size()];
        s += f;
      } else {
        for (size_t k = 0, n = rng() % 12; k < n; ++k) s += alphabet[rng() % alphabet.size()];
      }
    }
    check(s);
  }
  EXPECT_EQ(mismatches_, 0u);
}

// The one-pass index (sixteen bytes at a time where the CPU has SSE2)
// against its definition, byte by byte, at every length and offset.
TEST(PremaskIndex, PositionsAndAnchorsAsDefined) {
  const std::string alphabet = "ab:-/.\\@xX09 \xc3\xa9\x80\xff";
  std::mt19937_64 rng(20261129);
  premask::LineIndex ix;
  for (int it = 0; it < 20000; ++it) {
    std::string s;
    for (size_t k = 0, n = rng() % 70; k < n; ++k) s += alphabet[rng() % alphabet.size()];
    premask::index_line(s, &ix);
    EXPECT_EQ(ix.anchors, premask::anchors_of(s)) << s;
    const char bytes[4] = {':', '-', '/', '.'};
    for (int slot = 0; slot < 4; ++slot) {
      std::vector<uint32_t> want;
      for (size_t i = 0; i < s.size(); ++i)
        if (s[i] == bytes[slot]) want.push_back(static_cast<uint32_t>(i));
      ASSERT_EQ(ix.at[slot], want) << "byte " << bytes[slot] << " in " << s;
    }
  }
}

// Linear in the line: a 64 KB line of "1 1 1 ..." is 32k spans (the old
// overlap scan was quadratic in them).
TEST_F(PremaskLexer, LongLineOfNumbers) {
  std::string line;
  while (line.size() < 65534) line += "1 ";
  auto spans = fast_.find(line);
  EXPECT_EQ(spans.size(), line.size() / 2);
  EXPECT_TRUE(same(spans, reference_.find(line)));
}

}  // namespace
}  // namespace logsift
