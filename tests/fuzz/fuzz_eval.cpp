// libFuzzer target: `logsift eval` on a user's own labelled csv
// (pipeline/eval/). The input is parsed as a csv; each row's first field is
// the true event, its second the template logsift printed (the first again
// when there is none), and a hash of the template, folded into a few values,
// is the cluster id, so splits and merges happen. Checks that the
// explanation stays in bounds (ASan/UBSan), that its counts add up, that
// --json serializes whatever bytes came in, and that template_difference
// finds no difference between a template and itself.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/eval/csv.h"
#include "pipeline/eval/eval.h"

namespace ev = logsift::eval;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  // Two templates, cut at the first newline.
  const size_t cut = in.find('\n');
  const std::string_view a = in.substr(0, cut), b = cut == std::string_view::npos ? "" : in.substr(cut + 1);
  (void)ev::template_difference(a, b);
  if (!ev::template_difference(a, a).text.empty()) __builtin_trap();

  std::vector<std::vector<std::string>> rows;
  try {
    rows = logsift::parse_csv(in);
  } catch (const std::runtime_error&) {
    return 0;
  }
  std::vector<std::string> truth, templates;
  std::vector<uint64_t> ids;
  for (const auto& r : rows) {
    if (r.empty()) continue;
    truth.push_back(r[0]);
    templates.push_back(r.size() > 1 ? r[1] : r[0]);
    ids.push_back(std::hash<std::string>{}(templates.back()) % 5);
  }
  const ev::Explanation e = ev::explain(truth, ids, templates, templates, 3, 3);
  size_t caused = 0;
  for (size_t c : e.split_causes) caused += c;
  if (caused > e.split_lines || e.split_lines > truth.size() || e.merged_lines > truth.size()) __builtin_trap();
  for (const auto& s : e.splits)
    if (s.parts.empty() || !s.parts[0].differs.empty()) __builtin_trap();
  ev::EvalReport report;
  ev::DatasetScore d;
  d.name = "fuzz";
  d.lines = truth.size();
  d.ga = ev::grouping_accuracy(truth, ids);
  d.pa = ev::parsing_accuracy(truth, templates);
  d.why = e;
  report.datasets.push_back(std::move(d));
  (void)ev::format_explanation(report);
  (void)ev::to_json(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
