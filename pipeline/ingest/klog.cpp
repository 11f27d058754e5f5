// klog / glog lines: Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg, and
// structured klog (a quoted message then key="value" pairs).
#include "pipeline/ingest/structured_forms.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/text.h"
#include "pipeline/ingest/labels.h"

namespace logsift::structured_detail {

using text::is_digit;
using text::trim_blanks;

bool try_klog(std::string_view line, const StructuredOptions& opts, StructuredLine* out, std::string* scratch) {
  if (line.size() < 30) return false;
  std::string_view level;
  switch (line[0]) {
    case 'I':
      level = "info";
      break;
    case 'W':
      level = "warning";
      break;
    case 'E':
      level = "error";
      break;
    case 'F':
      level = "fatal";
      break;
    default:
      return false;
  }
  // "Immdd hh:mm:ss.uuuuuu"
  static constexpr std::string_view kShape = "0000 00:00:00.000000";
  for (size_t k = 0; k < kShape.size(); ++k) {
    char c = line[1 + k];
    if (kShape[k] == '0' ? !is_digit(c) : c != kShape[k]) return false;
  }
  size_t i = 1 + kShape.size();
  if (i >= line.size() || line[i] != ' ') return false;
  while (i < line.size() && line[i] == ' ') ++i;
  size_t ds = i;
  while (i < line.size() && is_digit(line[i])) ++i;
  if (i == ds || i >= line.size() || line[i] != ' ') return false;
  ++i;
  // file:line]
  size_t fs = i;
  while (i < line.size() && line[i] != ']' && line[i] != ' ') ++i;
  if (i >= line.size() || line[i] != ']') return false;
  std::string_view file_line = line.substr(fs, i - fs);
  size_t colon = file_line.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == file_line.size()) return false;
  for (size_t k = colon + 1; k < file_line.size(); ++k)
    if (!is_digit(file_line[k])) return false;
  ++i;  // ']'
  if (i < line.size() && line[i] == ' ') ++i;
  std::string_view rest = line.substr(i);

  LabelBuilder lb(structured_label_keys(), opts.max_labels, false, &opts.keep_keys);
  lb.set(CanonicalLabel::kLevel, level, 1 << 20);  // a key=value level, if any, wins
  std::string_view msg = rest;
  std::string kind = "klog";
  size_t qend;
  bool esc;
  if (!rest.empty() && rest[0] == '"' && find_quoted_end(rest, 0, &qend, &esc)) {
    std::vector<KvPair> pairs;
    if (qend == rest.size() || ((rest[qend] == ' ') && parse_pairs(rest, qend, &pairs))) {
      std::string tmp;
      std::string_view inner = rest.substr(1, qend - 2);
      bool ok = true;
      if (esc) {
        ok = go_unquote(inner, &tmp);
      }
      if (ok) {
        if (esc) {
          *scratch = std::move(tmp);
          msg = *scratch;
        } else {
          msg = inner;
        }
        kind = "klog-structured";
        pair_labels(pairs, -1, opts, &lb, nullptr);
      }
    }
  }
  if (trim_blanks(msg).empty()) return false;
  if (opts.keep_caller) msg = with_caller(file_line, msg, scratch);
  out->message = msg;
  out->labels = lb.finish();
  out->kind = std::move(kind);
  return true;
}

}  // namespace logsift::structured_detail
