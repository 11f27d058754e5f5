// logsift cluster: clusters lines from a file or stdin, one JSON result per line, in order.
#include <cstdio>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "pipeline/core/envelope.h"
#include "pipeline/pipeline.h"
#include "service/cli/cli.h"

namespace logsift::cli {
namespace {

using nlohmann::json;

// Reads lines from a file or stdin and streams results to stdout in order.
int cmd_cluster(const Args& a) {
  std::ifstream file;
  std::istream* in = open_input(a, "cluster", &file);
  if (!in) return 2;
  std::ios::sync_with_stdio(false);
  logsift::Pipeline pipeline(a.config, nullptr);
  const size_t chunk = 4096;
  std::string line;
  bool eof = false;
  while (!eof) {
    auto batch = std::make_unique<logsift::Batch>();
    batch->records.reserve(chunk);
    while (batch->records.size() < chunk) {
      if (!std::getline(*in, line)) {
        eof = true;
        break;
      }
      auto& r = batch->records.emplace_back();
      if (auto e = logsift::record_from_line(line, a.config, &r)) logsift::reject_record(r, *e);
    }
    if (batch->records.empty()) break;
    // Batches complete in submission order (FIFO stages), so writing from the
    // last stage's thread keeps input order.
    batch->on_done = [](std::unique_ptr<logsift::Batch> b) {
      std::string out;
      for (const auto& r : b->records) {
        out += logsift::record_result_json(r, false).dump(-1, ' ', false, json::error_handler_t::replace);
        out += '\n';
      }
      std::fwrite(out.data(), 1, out.size(), stdout);
    };
    pipeline.submit(batch);
  }
  pipeline.stop();
  std::fflush(stdout);
  if (a.has("stats")) std::cerr << pipeline.stats().dump() << "\n";
  return 0;
}

}  // namespace

const Command kCluster = {"cluster", "cluster lines from a file or stdin, one JSON result per line",
    "usage: logsift cluster [FILE|-] [--stats] [--config FILE] [--KEY VALUE]...\n"
                 "\nClusters each input line (a plain line or a JSON envelope) and prints one JSON object\n"
                 "per line, in input order: {\"cluster_id\",\"template_id\",\"template\"} or {\"error\"}.\n"
                 "--stats prints cache and model counters as JSON on stderr at the end.\n",
    true, {"json", "stats"}, {}, &cmd_cluster};

}  // namespace logsift::cli
