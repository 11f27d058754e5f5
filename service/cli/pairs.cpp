// logsift pairs: pair accuracy of the cluster id on a same/diff pair suite.
#include <cstdio>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "pipeline/pipeline.h"
#include "pipeline/reply_json.h"
#include "service/cli/cli.h"

namespace logsift::cli {
namespace {

using nlohmann::json;

// Labelled pairs: does the pipeline put same-meaning lines together and
// different ones apart?
int cmd_pairs(const Args& a) {
  if (a.positional.empty()) {
    std::cerr << "logsift pairs: missing FILE (see --help)\n";
    return 2;
  }
  double min_accuracy = 0;
  if (a.options.count("min-accuracy")) {
    auto v = parse_double(a.option("min-accuracy"));
    if (!v || *v < 0 || *v > 1) {
      std::cerr << "logsift pairs: --min-accuracy must be a number in [0, 1], got '" << a.option("min-accuracy")
                << "'\n";
      return 2;
    }
    min_accuracy = *v;
  }
  std::ifstream file;
  std::istream* in = open_input(a, "pairs", &file);
  if (!in) return 2;
  const std::string& path = a.positional[0];

  struct Pair {
    size_t line_no;
    bool same;
    std::string a, b, note;
  };
  std::vector<Pair> pairs;
  std::string line;
  for (size_t line_no = 1; std::getline(*in, line); ++line_no) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#' || line.find_first_not_of(" \t") == std::string::npos) continue;
    std::vector<std::string> cols;
    for (size_t start = 0;;) {
      size_t tab = line.find('\t', start);
      cols.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    auto malformed = [&](const std::string& why) {
      std::cerr << "logsift pairs: " << path << " line " << line_no << ": " << why << "\n";
      return 2;
    };
    if (cols.size() < 3 || cols.size() > 4)
      return malformed("expected 3 or 4 tab-separated columns (expect, line_a, line_b[, note]), got " +
                       std::to_string(cols.size()));
    if (cols[0] != "same" && cols[0] != "diff")
      return malformed("expect must be \"same\" or \"diff\", got '" + cols[0] + "'");
    if (cols[1].empty() || cols[2].empty()) return malformed("line_a and line_b must not be empty");
    pairs.push_back({line_no, cols[0] == "same", cols[1], cols[2], cols.size() > 3 ? cols[3] : ""});
  }
  if (pairs.empty()) {
    std::cerr << "logsift pairs: " << path << " has no pairs\n";
    return 2;
  }

  std::vector<std::string> lines;
  lines.reserve(2 * pairs.size());
  for (const auto& p : pairs) {
    lines.push_back(p.a);
    lines.push_back(p.b);
  }
  logsift::Pipeline pipeline(a.config, nullptr);
  auto records = cluster_lines(pipeline, lines, a.config);
  pipeline.stop();

  size_t correct = 0, same_total = 0, same_correct = 0, diff_total = 0, diff_correct = 0;
  json wrong = json::array();
  std::string wrong_text;
  auto side_json = [](const std::string& text, const logsift::Record& r) {
    json j = logsift::record_result_json(r, false);
    j["text"] = text;
    return j;
  };
  auto side_text = [](const char* name, const std::string& text, const logsift::Record& r) {
    std::string s = std::string("  ") + name + ": " + text + "\n     ";
    if (!r.ok()) return s + "error: " + r.error + "\n";
    return s + "cluster " + logsift::lsh::format_id(r.cluster_id) + "  template " + std::string(r.template_text) + "\n";
  };
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto& p = pairs[i];
    const auto& ra = records[2 * i];
    const auto& rb = records[2 * i + 1];
    const bool together = ra.ok() && rb.ok() && ra.cluster_id == rb.cluster_id;
    const bool ok = ra.ok() && rb.ok() && together == p.same;
    (p.same ? same_total : diff_total)++;
    if (ok) {
      ++correct;
      (p.same ? same_correct : diff_correct)++;
      continue;
    }
    wrong.push_back({{"line", p.line_no},
                     {"expect", p.same ? "same" : "diff"},
                     {"note", p.note},
                     {"a", side_json(p.a, ra)},
                     {"b", side_json(p.b, rb)}});
    wrong_text += "wrong (line " + std::to_string(p.line_no) + ", expect " + (p.same ? "same" : "diff") + ")" +
                  (p.note.empty() ? "" : ": " + p.note) + "\n" + side_text("a", p.a, ra) + side_text("b", p.b, rb);
  }
  const double accuracy = static_cast<double>(correct) / static_cast<double>(pairs.size());
  if (a.has("json")) {
    json j = {{"pairs", pairs.size()},
              {"correct", correct},
              {"accuracy", accuracy},
              {"same", {{"total", same_total}, {"correct", same_correct}}},
              {"diff", {{"total", diff_total}, {"correct", diff_correct}}},
              {"wrong", wrong}};
    std::cout << j.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    char summary[160];
    std::snprintf(summary, sizeof summary, "pair accuracy: %.4f (%zu/%zu); same: %zu/%zu; diff: %zu/%zu\n", accuracy,
                  correct, pairs.size(), same_correct, same_total, diff_correct, diff_total);
    std::cout << wrong_text << summary;
  }
  std::cout << std::flush;
  if (accuracy < min_accuracy) {
    std::cerr << "logsift pairs: pair accuracy " << accuracy << " is below --min-accuracy " << min_accuracy << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

const Command kPairs = {"pairs", "score clustering on labelled same/diff line pairs (TSV)",
    "usage: logsift pairs FILE [--json] [--min-accuracy X] [--config FILE] [--KEY VALUE]...\n"
                 "\nFILE is tab-separated: expect (\"same\" or \"diff\"), line_a, line_b and an optional\n"
                 "note; blank lines and lines starting with '#' are skipped. Every line goes through the\n"
                 "pipeline as in `logsift cluster` (so --encoder-model etc. apply); a pair is correct when\n"
                 "(cluster_id(a) == cluster_id(b)) == (expect == \"same\"). Prints each wrong pair and\n"
                 "`pair accuracy: 0.9667 (29/30); same: 14/15; diff: 15/15`; --json prints\n"
                 "{\"pairs\",\"correct\",\"accuracy\",\"same\":{\"total\",\"correct\"},\"diff\":{...},\"wrong\":[...]}.\n"
                 "Exit 2 on a malformed row (naming its line), 1 if accuracy < --min-accuracy, else 0.\n",
    true, {"json"}, {"min-accuracy"}, &cmd_pairs};

}  // namespace logsift::cli
