// logsift eval: GA and PA on loghub-format labelled data.
#include <iostream>

#include <nlohmann/json.hpp>

#include "pipeline/core/structured.h"
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
  // Score what the service clusters: with structured_messages (the default)
  // a JSON/logfmt/klog line is clustered on its message field, as every
  // ingest path does (pipeline/core/envelope.h apply_structured).
  const bool structured = a.config.structured_messages;
  const std::vector<std::string> message_keys = a.config.message_key_list();
  const bool keep_caller = a.config.structured_keep_caller;
  auto fn = [&pipeline, structured, &message_keys, keep_caller](const std::vector<std::string>& lines) {
    std::vector<std::string> texts;
    if (structured) {
      texts.reserve(lines.size());
      logsift::StructuredOptions opts;
      opts.message_keys = message_keys;
      opts.keep_caller = keep_caller;
      logsift::StructuredLine s;
      std::string scratch;
      for (const auto& l : lines) {
        if (logsift::extract_structured(l, opts, &s, &scratch) &&
            s.message.find_first_not_of(" \t") != std::string_view::npos)
          texts.emplace_back(s.message);
        else
          texts.push_back(l);
      }
    }
    auto records = pipeline.run(structured ? texts : lines);
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
