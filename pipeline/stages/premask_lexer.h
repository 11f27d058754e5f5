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
// and fuzzed differentially (tests/fuzz/premask_fuzzer.cpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace logsift::premask {

struct View;

// A finder for one built-in pattern.
struct Finder {
  bool (*fn)(const View&, size_t, size_t*, size_t*);
  // The leftmost-first match starting at or after `pos`: [*b, *e).
  bool find(std::string_view line, size_t pos, size_t* b, size_t* e) const;
};

// The finder of `regex` if it is the exact text of a built-in pattern, else null.
const Finder* builtin_finder(std::string_view regex);

}  // namespace logsift::premask
