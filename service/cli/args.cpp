#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "pipeline/ingest/envelope.h"
#include "pipeline/pipeline.h"
#include "service/cli/cli.h"

namespace logsift::cli {

void print_config_flags(std::ostream& o) {
  o << "\nconfig options (each also LOGSIFT_<KEY> in the environment; flag > env > --config file > default):\n";
  auto docs = Config::key_docs();
  auto defaults = Config::defaults().to_json();
  for (const auto& k : Config::keys()) {
    std::string flag = k;
    for (auto& c : flag)
      if (c == '_') c = '-';
    std::string def = k == "premask" ? "[...]" : defaults[k].dump();
    o << "  --" << flag << " VALUE";
    for (size_t pad = flag.size() + 8; pad < 36; ++pad) o << ' ';
    o << docs[k] << " (default " << def << ")\n";
  }
}

Args parse_args(int argc, char** argv, int first, const std::vector<std::string>& switches,
                const std::vector<std::string>& options) {
  Args a;
  a.config = Config::defaults();
  std::vector<std::pair<std::string, std::string>> overrides;
  std::string config_file;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-" || arg.rfind("--", 0) != 0) {
      a.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2), value;
    if (std::find(switches.begin(), switches.end(), name) != switches.end()) {
      a.switches_set.push_back(name);
      continue;
    }
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else {
      if (i + 1 >= argc) throw logsift::ConfigError(logsift::normalize_config_key(name), "flag needs a value");
      value = argv[++i];
    }
    if (name == "config") config_file = value;
    else if (std::find(options.begin(), options.end(), name) != options.end()) a.options[name] = value;
    else overrides.emplace_back(name, value);
  }
  if (!config_file.empty()) a.config.apply_file(config_file);
  a.config.apply_env();
  for (const auto& [k, v] : overrides) a.config.apply_string(k, v);
  a.config.validate();
  return a;
}

void setup_logging(const Config& c) {
  auto logger = spdlog::stderr_color_mt("logsift");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(c.log_level));
  spdlog::flush_on(spdlog::level::info);
}

// The FILE|- positional of cluster and tokenize; null (after a message) if unreadable.
std::istream* open_input(const Args& a, const char* cmd, std::ifstream* file) {
  std::string path = a.positional.empty() ? "-" : a.positional[0];
  if (path == "-") return &std::cin;
  file->open(path);
  if (!*file) {
    std::cerr << "logsift " << cmd << ": cannot read " << path << "\n";
    return nullptr;
  }
  return file;
}

// Strict number parsing for command options: the whole text or nothing.
std::optional<double> parse_double(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int> parse_int(const std::string& s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Runs lines through the pipeline exactly as `cluster` does (envelopes,
// limits), in order.
Results cluster_lines(Pipeline& pipeline, const std::vector<std::string>& lines,
                                     const Config& config) {
  auto batch = std::make_unique<Batch>();
  batch->records.reserve(lines.size());
  for (const auto& line : lines) {
    auto& r = batch->records.emplace_back();
    if (auto e = record_from_line(batch->keep(line), config, *batch, &r)) reject_record(r, *e);
  }
  return pipeline.run(std::move(batch));
}

}  // namespace logsift::cli
