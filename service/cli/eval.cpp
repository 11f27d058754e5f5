// logsift eval: GA and PA on loghub-format labelled data.
#include <iostream>

#include <nlohmann/json.hpp>

#include "pipeline/eval/eval.h"
#include "pipeline/pipeline.h"
#include "service/cli/cli.h"

namespace logsift::cli {
namespace {

using nlohmann::json;

int cmd_eval(const Args& a) {
  if (a.positional.empty()) {
    std::cerr << "logsift eval: missing DIR (see --help)\n";
    return 2;
  }
  logsift::Pipeline pipeline(a.config, nullptr);
  auto fn = [&pipeline](const std::vector<std::string>& lines) {
    auto records = pipeline.run(lines);
    std::vector<logsift::eval::Prediction> out;
    out.reserve(records.size());
    for (const auto& r : records) out.push_back({r.cluster_id, std::string(r.template_text), r.template_id});
    return out;
  };
  auto report = logsift::eval::evaluate_dir(a.positional[0], fn);
  pipeline.stop();
  if (a.has("json")) std::cout << logsift::eval::to_json(report).dump() << "\n";
  else std::cout << logsift::eval::format_table(report);
  return 0;
}

}  // namespace

const Command kEval = {"eval", "score clustering (GA, PA) on loghub-format labelled data",
    "usage: logsift eval DIR [--json] [--config FILE] [--KEY VALUE]...\n"
                 "\nDIR is laid out like loghub-2k (a datasets.json naming each set's structured csv).\n"
                 "Clusters each set's Content column and prints Grouping Accuracy (GA) and Parsing\n"
                 "Accuracy (PA) per set and on average; --json prints\n"
                 "{\"datasets\":{NAME:{\"ga\",\"pa\",\"lines\"}},\"avg_ga\",\"avg_pa\"}.\n",
    true, {"json", "stats"}, {}, &cmd_eval};

}  // namespace logsift::cli
