// logsift eval: GA and PA on loghub-format labelled data.
#include <iostream>

#include <nlohmann/json.hpp>

#include "pipeline/eval/eval.h"
#include "pipeline/ingest/envelope.h"
#include "pipeline/ingest/multiline.h"
#include "pipeline/ingest/structured.h"
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
  logsift::eval::EvalOptions opts;
  if (auto e = a.option("explain"); !e.empty()) {
    const auto n = parse_int(e);
    if (!n || *n < 0 || *n > 1000) {
      std::cerr << "logsift eval: --explain must be an integer in [0, 1000], got '" << e << "'\n";
      return 2;
    }
    opts.explain = static_cast<size_t>(*n);
  }
  opts.curate = a.has("curate");
  if (auto m = a.option("manual"); !m.empty()) {
    const auto n = parse_int(m);
    if (!n || *n < 0 || *n > 1000) {
      std::cerr << "logsift eval: --manual must be an integer in [0, 1000], got '" << m << "'\n";
      return 2;
    }
    opts.manual = static_cast<size_t>(*n);
  }
  logsift::Pipeline pipeline(a.config, nullptr);
  // Score what the service clusters: with structured_messages (the default)
  // a JSON/logfmt/klog line is clustered on its message field, as every
  // ingest path does (pipeline/ingest/envelope.h apply_structured).
  const bool structured = a.config.structured_messages;
  const logsift::StructuredOptions opts_structured = logsift::structured_options(a.config);
  auto fn = [&pipeline, structured, &opts_structured](const std::vector<std::string>& lines) {
    std::vector<std::string> texts;
    if (structured) {
      texts.reserve(lines.size());
      logsift::StructuredLine s;
      std::string scratch;
      for (const auto& l : lines) {
        if (logsift::extract_structured(l, opts_structured, &s, &scratch) &&
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
  auto predictions = [](const logsift::Results& records) {
    std::vector<logsift::eval::Prediction> out;
    for (const auto& r : records)
      for (uint32_t k = 0; k < r.lines; ++k) out.push_back({r.cluster_id, std::string(r.template_text), r.template_id});
    return out;
  };
  // Sets of multi-line events: line by line as a line input assembles them
  // (pipeline/ingest/multiline.h), and whole, as HTTP or OTLP bring them.
  opts.lines = [&](const std::vector<std::string>& lines) {
    auto b = std::make_unique<logsift::Batch>();
    logsift::EventAssembler events(a.config);
    for (const auto& l : lines) events.add_line(b->keep(l), 0, *b);
    events.flush(*b);
    return predictions(pipeline.run(std::move(b)));
  };
  opts.whole = [&](const std::vector<std::string>& texts) {
    auto b = std::make_unique<logsift::Batch>();
    for (const auto& t : texts) {
      auto& r = b->records.emplace_back();
      r.text = b->keep(t);
      logsift::normalize_event_text(r, a.config, *b);
    }
    return predictions(pipeline.run(std::move(b)));
  };
  auto report = logsift::eval::evaluate_dir(a.positional[0], fn, opts);
  pipeline.stop();
  if (a.has("json")) {
    // A user's own labelled logs may hold bytes that are not UTF-8: print
    // them as U+FFFD rather than losing the whole report to a type_error.
    std::cout << logsift::eval::to_json(report).dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    std::cout << logsift::eval::format_table(report);
    if (opts.curate) std::cout << "\n" << logsift::eval::format_curation(report);
    if (opts.explain > 0) std::cout << logsift::eval::format_explanation(report);
  }
  return 0;
}

}  // namespace

const Command kEval = {"eval", "score clustering (GA, PA) on loghub-format labelled data",
    "usage: logsift eval DIR [--json] [--explain N] [--curate [--manual N]] [--config FILE] [--KEY VALUE]...\n"
                 "\nDIR is any directory laid out like loghub-2k: a datasets.json naming each set's\n"
                 "structured csv ({\"NAME\": {\"truth\": \"path/relative/to/DIR.csv\"}}), each csv with\n"
                 "a Content and an EventTemplate column (one template per true event). Clusters each\n"
                 "set's Content column and prints Grouping Accuracy (GA of the cluster id), GA of the\n"
                 "exact template and Parsing Accuracy (PA) per set and on average, then, per set, why:\n"
                 "how many events were split over several ids and how many ids hold several events,\n"
                 "with the N worst of each (most lines) and example lines (--explain N, default 3;\n"
                 "0 = the table only). Each split piece says how its template differs from the\n"
                 "largest piece's, and each set counts the lines outside its events' largest pieces\n"
                 "by why: a value left in the template, another word, a value's shape, text in some\n"
                 "lines only. --json prints {\"datasets\":{NAME:{\"ga\",\"ga_template\",\n"
                 "\"pa\",\"lines\",\"events\",\"clusters\",\"split_events\",\"split_lines\",\n"
                 "\"merged_clusters\",\"merged_lines\",\"split_causes\":{\"kept_value\",\n"
                 "\"other_word\",\"value_shape\",\"extra_text\"},\"splits\",\"merges\"}},\"avg_ga\",\n"
                 "\"avg_ga_template\",\"avg_pa\"}.\n"
                 "--curate: what fixing clusters buys, as a person with the labels would do it on each\n"
                 "set's first half (correct suggested merges accepted, the others rejected, then at\n"
                 "most N merges of split events' pieces by hand, --manual N, default 5), scored on that\n"
                 "half and on the other half (lines it never saw).\n",
    true, {"json", "stats", "curate"}, {"explain", "manual"}, &cmd_eval};

}  // namespace logsift::cli
