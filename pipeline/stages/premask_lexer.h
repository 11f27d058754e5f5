// Hand-compiled finders for the built-in pre-mask regexes.
//
// The pre-mask is configured as RE2 patterns (config/logsift.jsonc), and RE2
// defines what each one matches. Running 16 patterns through RE2 costs about
// 6 us per log line, most of the line budget. For each built-in pattern this
// file has a finder that returns exactly the match RE2 returns (leftmost
// start, then RE2's leftmost-first choice among matches there), written as a
// direct scan anchored on the bytes a match must contain; a pattern whose
// regex text is not one of these runs through RE2 as before. Exactness is
// tested against RE2 on the loghub sets, the bench corpus and millions of
// random and mutated strings (tests/pipeline/stages/premask_lexer_test.cpp)
// and fuzzed differentially (tests/fuzz/fuzz_premask.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace logsift::premask {

struct View;

// Bytes some patterns cannot match without: a line's set of them is taken in
// one pass (index_line), and a pattern whose required bytes are missing is
// not scanned. Most lines lack several ('@', 'x', '\\', digits in a message
// part), and each scan for an absent byte reads the whole line.
enum Anchor : uint8_t {
  kDigitAnchor = 1, kDash = 2, kSlash = 4, kBackslash = 8, kColon = 16, kDot = 32, kAt = 64, kLetterX = 128,
};
// A line's anchors byte by byte: the definition index_line's are tested against.
uint8_t anchors_of(std::string_view line);

// A line's anchor bytes and where the four the finders walk (':', '-', '/',
// '.') are, taken in one pass: the finders step through these positions
// instead of searching the line for each next one (a log line has a few of
// each, and each search was a call that read on to the next).
struct LineIndex {
  uint8_t anchors = 0;
  std::vector<uint32_t> at[4];
};
void index_line(std::string_view line, LineIndex* ix);

// A finder for one built-in pattern.
struct Finder {
  bool (*fn)(const View&, size_t, size_t*, size_t*);
  // Every group needs one of its anchors in the line for a match to exist
  // (0 = an unused group).
  uint8_t needs[3] = {0, 0, 0};
  // A match holds at least this many of LineIndex::at's bytes (':', '-',
  // '/', '.'), and of its two `either` bytes together (the date's "[-/]"
  // twice; both 0 = none).
  uint8_t min_at[4] = {0, 0, 0, 0};
  uint8_t either[2] = {0, 0};
  uint8_t min_either = 0;
  bool may_match(const LineIndex& ix) const {
    for (uint8_t g : needs)
      if (g && !(ix.anchors & g)) return false;
    for (size_t k = 0; k < 4; ++k)
      if (ix.at[k].size() < min_at[k]) return false;
    return ix.at[either[0]].size() + ix.at[either[1]].size() >= min_either;
  }
  // The leftmost-first match starting at or after `pos`: [*b, *e). `ix`,
  // when given, is index_line(line).
  bool find(std::string_view line, size_t pos, size_t* b, size_t* e, const LineIndex* ix = nullptr) const;
};

// The finder of `regex` if it is the exact text of a built-in pattern, else null.
const Finder* builtin_finder(std::string_view regex);

}  // namespace logsift::premask
