// libFuzzer target: the pre-mask's hand-compiled finders against RE2 itself
// (pipeline/stages/premask_lexer.h). The same spans, or the cluster ids
// would change: any difference traps. Checks the one-pass anchor index
// against its definition too.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "pipeline/core/text.h"
#include "pipeline/stages/premask_lexer.h"
#include "pipeline/stages/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const logsift::Premasker fast(logsift::Config::defaults().premask);
  static const logsift::Premasker reference(logsift::Config::defaults().premask, /*builtin_finders=*/false);
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  // A line reaches the pre-mask as valid UTF-8 without NUL (the envelope
  // refuses the rest), and RE2 reads its bytes as UTF-8: a lone byte >= 0x80
  // ends "[^\s\"'<>]+" there, and a finder's byte classes know no such rule.
  if (!logsift::text::valid_utf8(line) || line.find('\0') != std::string_view::npos) return 0;
  const std::vector<logsift::MaskSpan> a = fast.find(line), b = reference.find(line);
  if (a.size() != b.size()) __builtin_trap();
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].begin != b[i].begin || a[i].end != b[i].end || a[i].pattern != b[i].pattern) __builtin_trap();
  logsift::premask::LineIndex ix;
  logsift::premask::index_line(line, &ix);
  if (ix.anchors != logsift::premask::anchors_of(line)) __builtin_trap();
  const char bytes[4] = {':', '-', '/', '.'};
  for (int slot = 0; slot < 4; ++slot) {
    size_t k = 0;
    for (size_t i = 0; i < line.size(); ++i)
      if (line[i] == bytes[slot] && (k >= ix.at[slot].size() || ix.at[slot][k++] != i)) __builtin_trap();
    if (k != ix.at[slot].size()) __builtin_trap();
  }
  return 0;
}
