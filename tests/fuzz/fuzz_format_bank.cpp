// libFuzzer target: the format bank (pipeline/stages/format_bank.h), whose
// file an operator writes and whose matcher runs on every line-cache miss.
// The input is cut at its first NUL: before it, formats one a line (as a bank
// file's lines after decoding); after it, lines to match. Checks that parse,
// the index and the greedy matcher stay in bounds (ASan/UBSan), that the
// match does not depend on the order of the formats (same digest, same
// winning format, same start), and that a match's start is inside the line
// and the line ends with the format's last literal.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/stages/format_bank.h"
#include "tests/fuzz/fuzz_lines.h"

namespace {

using logsift_fuzz::split_lines;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t cut = in.find('\0');
  if (cut == std::string_view::npos) return 0;
  auto formats = split_lines(in.substr(0, cut));
  if (formats.size() > 64) formats.resize(64);
  const int words = size ? data[0] % 5 : 3;
  const auto a = logsift::FormatBank::from_formats(formats, words);
  std::reverse(formats.begin(), formats.end());
  const auto b = logsift::FormatBank::from_formats(formats, words);
  if (a.digest() != b.digest() || a.size() != b.size()) __builtin_trap();
  for (uint32_t k = 0; k < a.size(); ++k) (void)a.render(k);
  for (const auto& line : split_lines(in.substr(cut + 1))) {
    const auto ma = a.match(line), mb = b.match(line);
    if (ma.has_value() != mb.has_value()) __builtin_trap();
    if (!ma) continue;
    const auto& f = a.formats()[ma->format];
    if (f.text != b.formats()[mb->format].text || ma->begin != mb->begin) __builtin_trap();
    if (ma->begin > line.size()) __builtin_trap();
    std::string_view l(line);
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t' || l.back() == '\r')) l.remove_suffix(1);
    const std::string& last = f.literals.back();
    if (l.size() < last.size() || l.substr(l.size() - last.size()) != last) __builtin_trap();
  }
  return 0;
}
