// logsift mine: a format bank from an unlabelled sample of your own lines
// (pipeline/stages/bank_miner.h).
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "pipeline/stages/bank_miner.h"
#include "service/cli/cli.h"

namespace logsift::cli {
namespace {

int cmd_mine(const Args& a) {
  MineOptions opts;
  if (a.options.count("similarity")) {
    auto v = parse_double(a.option("similarity"));
    if (!v || *v <= 0 || *v > 1) {
      std::cerr << "logsift mine: --similarity must be a number in (0, 1], got '" << a.option("similarity") << "'\n";
      return 2;
    }
    opts.similarity = *v;
  }
  if (a.options.count("min-values")) {
    auto v = parse_int(a.option("min-values"));
    if (!v || *v < 2) {
      std::cerr << "logsift mine: --min-values must be an integer of 2 or more, got '" << a.option("min-values")
                << "'\n";
      return 2;
    }
    opts.min_values = *v;
  }
  const std::string out_path = a.option("out", "-");
  std::ifstream file;
  std::istream* in = open_input(a, "mine", &file);
  if (!in) return 2;

  Pipeline pipeline(a.config, nullptr);
  BankMiner miner;
  uint64_t rejected = 0;
  std::vector<std::string> chunk;
  auto flush = [&] {
    if (chunk.empty()) return;
    Results res = cluster_lines(pipeline, chunk, a.config);
    for (const auto& r : res) {
      if (r.ok()) {
        miner.add(r.template_text);
      } else {
        ++rejected;
      }
    }
    chunk.clear();
  };
  std::string line;
  while (std::getline(*in, line)) {
    chunk.push_back(std::move(line));
    if (chunk.size() == 65536) flush();
  }
  flush();
  pipeline.stop();

  const auto formats = miner.mine(opts);
  const std::string text = BankMiner::bank_text(formats, opts, miner.lines(), miner.templates());
  if (out_path == "-") {
    std::cout << text << std::flush;
  } else {
    std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::cerr << "logsift mine: cannot write " << out_path << "\n";
      return 2;
    }
  }
  std::cerr << "logsift mine: " << miner.lines() << " lines (" << rejected << " rejected), " << miner.templates()
            << " templates -> " << formats.size() << " formats\n";
  return 0;
}

}  // namespace

const Command kMine = {"mine", "write a format bank mined from a sample of your own lines (no labels)",
    "usage: logsift mine [FILE|-] [--out BANK] [--similarity X] [--min-values K] [--config FILE] [--KEY VALUE]...\n"
    "\nClusters a sample of your own log lines (plain lines or JSON envelopes, as `cluster` reads\n"
    "them) with the configured pipeline and writes a format bank (config format_bank): where a\n"
    "statement's templates differ in a few word positions (a user, queue or mailbox name the\n"
    "model kept), those positions become %s, so later lines of the statement get one id.\n"
    "Templates of one blank-separated length that agree in at least X of their positions\n"
    "(--similarity, default 0.85) are one statement; a position that differs becomes a slot\n"
    "only with K or more distinct words (--min-values, default 3: \"started\"/\"stopped\" stay\n"
    "two statements). Rule mine-v2, pipeline/stages/bank_miner.h. The bank is written to BANK\n"
    "(default: standard output), a comment above each format saying how many sample lines it\n"
    "joins and which words its slots took: review it, then serve it on every replica with\n"
    "format_bank: BANK.\n",
    true, {}, {"out", "similarity", "min-values"}, &cmd_mine};

}  // namespace logsift::cli
