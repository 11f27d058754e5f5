// libFuzzer target: the bank miner (pipeline/stages/bank_miner.h), which
// `logsift mine` runs over the templates of a user's sample. The input's
// first byte picks the options (similarity, min values); the rest, one
// template a line, is the sample (a line's count is 1 + its length % 3).
// Checks that mining stays in bounds (ASan/UBSan), that the result does not
// depend on the order of the sample, that every mined format is one the bank
// keeps (FormatBank::from_formats takes them all, none skipped), and that the
// bank text decodes back to the same formats.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/stages/bank_miner.h"
#include "pipeline/stages/format_bank.h"
#include "tests/fuzz/fuzz_lines.h"

namespace {

using logsift_fuzz::split_lines;

// A bank file's line back to its format (format_bank.h's escapes).
std::string unescape(std::string_view l) {
  std::string out;
  for (size_t i = 0; i < l.size(); ++i) {
    if (l[i] == '\\' && i + 1 < l.size()) {
      const char c = l[++i];
      out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
    } else {
      out += l[i];
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static constexpr double kSim[] = {0.5, 0.6, 0.7, 0.85, 1.0};
  const logsift::MineOptions opts{kSim[data[0] % 5], 2 + (data[0] / 5) % 3};
  auto lines = split_lines(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  if (lines.size() > 256) lines.resize(256);
  logsift::BankMiner a, b;
  for (const auto& l : lines) a.add(l, 1 + l.size() % 3);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) b.add(*it, 1 + it->size() % 3);
  const auto fa = a.mine(opts), fb = b.mine(opts);
  if (fa.size() != fb.size()) __builtin_trap();
  std::vector<std::string> formats;
  for (size_t i = 0; i < fa.size(); ++i) {
    if (fa[i].format != fb[i].format || fa[i].lines != fb[i].lines || fa[i].templates < 2) __builtin_trap();
    if (i && !(fa[i - 1].format < fa[i].format)) __builtin_trap();  // sorted, no duplicates
    formats.push_back(fa[i].format);
  }
  const auto bank = logsift::FormatBank::from_formats(formats);
  if (bank.size() != formats.size() || bank.skipped() != 0) __builtin_trap();
  // The bank text: header comments, then a count comment and the escaped format, per format.
  const std::string text = logsift::BankMiner::bank_text(fa, opts, a.lines(), a.templates());
  std::vector<std::string> decoded;
  for (const auto& l : split_lines(text))
    if (!l.empty() && l[0] != '#') decoded.push_back(unescape(l));
  if (decoded != formats) __builtin_trap();
  return 0;
}
