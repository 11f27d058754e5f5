// The `logsift` command line: one file per command (service/cli/<command>.cpp),
// each exporting a Command; main.cpp dispatches. Shared here: argument and
// configuration parsing, logging setup, input opening, strict number parsing.
#pragma once

#include <algorithm>
#include <fstream>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "pipeline/core/record.h"

#include "pipeline/pipeline.h"

namespace logsift::cli {

using logsift::Config;

// Parsed `--config FILE`, `--key value` / `--key=value` and positionals.
struct Args {
  Config config;
  std::vector<std::string> positional;
  std::vector<std::string> switches_set;
  std::map<std::string, std::string> options;
  bool has(const std::string& s) const {
    return std::find(switches_set.begin(), switches_set.end(), s) != switches_set.end();
  }
  std::string option(const std::string& name, const std::string& def = "") const {
    auto it = options.find(name);
    return it == options.end() ? def : it->second;
  }
};


// Flags listed in `switches` take no value; those in `options` take a value
// but are the command's own, not configuration keys. Throws ConfigError.
Args parse_args(int argc, char** argv, int first, const std::vector<std::string>& switches,
                const std::vector<std::string>& options = {});
// Every configuration key as a flag, with its documentation and default.
void print_config_flags(std::ostream& o);
void setup_logging(const Config& c);
// The FILE|- positional of cluster, tokenize, wordpiece and pairs; null (after
// a message naming `cmd`) if unreadable.
std::istream* open_input(const Args& a, const char* cmd, std::ifstream* file);
// Strict number parsing for command options: the whole text or nothing.
std::optional<double> parse_double(const std::string& s);
std::optional<int> parse_int(const std::string& s);
// Runs lines through the pipeline exactly as `cluster` does (envelopes,
// limits); the batch's records are in input order.
Results cluster_lines(Pipeline& pipeline, const std::vector<std::string>& lines, const Config& config);

struct Command {
  const char* name;
  const char* summary;  // one line for `logsift --help`
  const char* usage;    // `logsift NAME --help`
  bool config_flags;    // --help also lists every configuration flag
  std::vector<std::string> switches, options;  // see parse_args
  int (*run)(const Args&);
};

extern const Command kServe, kCluster, kEval, kTokenize, kWordpiece, kPairs, kConfig, kMine, kMigrate, kModels;

}  // namespace logsift::cli
