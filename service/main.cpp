// logsift: serve | cluster | eval | tokenize | config
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "config/config.h"
#include "lsh/lsh.h"
#include "pipeline/envelope.h"
#include "pipeline/eval.h"
#include "pipeline/pipeline.h"
#include "pipeline/tokenizer.h"
#include "service/server.h"

namespace {

using logsift::Config;
using nlohmann::json;

const char* kUsage =
    "logsift: real-time log clustering\n"
    "\n"
    "usage: logsift <command> [options]\n"
    "\n"
    "commands:\n"
    "  serve      run the service (HTTP API + TCP ingest)\n"
    "  cluster    cluster lines from a file or stdin, one JSON result per line\n"
    "  eval       score clustering (GA, PA) on loghub-format labelled data\n"
    "  tokenize   print pre-masked tokens of each line as JSON (training uses it)\n"
    "  config     print the effective configuration as JSON\n"
    "\n"
    "Run `logsift <command> --help` for a command's options.\n";

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

// Parses `--config FILE`, `--key value` / `--key=value` and positionals.
// Flags listed in `switches` take no value.
struct Args {
  Config config;
  std::vector<std::string> positional;
  std::vector<std::string> switches_set;
  bool has(const std::string& s) const {
    return std::find(switches_set.begin(), switches_set.end(), s) != switches_set.end();
  }
};

Args parse_args(int argc, char** argv, int first, const std::vector<std::string>& switches) {
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

int cmd_tokenize(const Args& a) {
  std::ifstream file;
  std::istream* in = open_input(a, "tokenize", &file);
  if (!in) return 2;
  logsift::Premasker premasker(a.config.premask);
  std::vector<logsift::Token> tokens;
  std::string line;
  while (std::getline(*in, line)) {
    logsift::tokenize(line, premasker.find(line), &tokens);
    json toks = json::array();
    for (const auto& t : tokens) {
      const char* kind = t.kind == logsift::TokenKind::kWord ? "word" : t.kind == logsift::TokenKind::kDelim ? "delim" : "var";
      json tok = {t.begin, t.end, kind};
      if (t.pattern >= 0) tok.push_back(premasker.pattern_name(t.pattern));
      toks.push_back(std::move(tok));
    }
    std::cout << json{{"tokens", toks}, {"template", logsift::render_template(line, tokens)}}.dump(
                     -1, ' ', false, json::error_handler_t::replace)
              << std::endl;  // flushed per line: training drives this as a co-process
  }
  return 0;
}

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
    for (const auto& r : records) out.push_back({r.cluster_id, r.template_text});
    return out;
  };
  auto report = logsift::eval::evaluate_dir(a.positional[0], fn);
  pipeline.stop();
  if (a.has("json")) std::cout << logsift::eval::to_json(report).dump() << "\n";
  else std::cout << logsift::eval::format_table(report);
  return 0;
}

bool wants_help(int argc, char** argv) {
  for (int i = 2; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return true;
  return false;
}

int help(const std::string& cmd) {
  if (cmd == "serve") {
    std::cout << "usage: logsift serve [--config FILE] [--http-port N] [--tcp-port N] [--data-dir DIR] [--KEY VALUE]...\n"
                 "\nRuns the HTTP API (POST /inferences, GET /clusters, /clusters/{id}, /info, /metrics,\n"
                 "/healthz, /readyz) and the newline-delimited TCP ingest. Port 0 picks a free port; the\n"
                 "bound addresses are logged as `listening http=HOST:PORT tcp=HOST:PORT`. SIGINT/SIGTERM\n"
                 "stop accepting, finish accepted work, flush the catalog and exit 0.\n";
  } else if (cmd == "cluster") {
    std::cout << "usage: logsift cluster [FILE|-] [--stats] [--config FILE] [--KEY VALUE]...\n"
                 "\nClusters each input line (a plain line or a JSON envelope) and prints one JSON object\n"
                 "per line, in input order: {\"cluster_id\",\"template_id\",\"template\"} or {\"error\"}.\n"
                 "--stats prints cache and model counters as JSON on stderr at the end.\n";
  } else if (cmd == "eval") {
    std::cout << "usage: logsift eval DIR [--json] [--config FILE] [--KEY VALUE]...\n"
                 "\nDIR is laid out like loghub-2k (a datasets.json naming each set's structured csv).\n"
                 "Clusters each set's Content column and prints Grouping Accuracy (GA) and Parsing\n"
                 "Accuracy (PA) per set and on average; --json prints\n"
                 "{\"datasets\":{NAME:{\"ga\",\"pa\",\"lines\"}},\"avg_ga\",\"avg_pa\"}.\n";
  } else if (cmd == "tokenize") {
    std::cout << "usage: logsift tokenize [FILE|-] [--KEY VALUE]...\n"
                 "\nPrints {\"tokens\":[[begin,end,kind(,pattern)]...],\"template\"} per line: the serving\n"
                 "tokenizer, so model training sees exactly what the service sees.\n";
  } else if (cmd == "config") {
    std::cout << "usage: logsift config [--config FILE] [--KEY VALUE]...\n"
                 "\nPrints the effective configuration (defaults < file < env < flags) as JSON.\n";
  } else {
    std::cout << kUsage;
    return 0;
  }
  print_config_flags(std::cout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") return help(argc > 2 ? argv[2] : "");
  static const char* known[] = {"serve", "cluster", "eval", "tokenize", "config"};
  if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return cmd == k; }) == std::end(known)) {
    std::cerr << "logsift: unknown command '" << cmd << "'\n\n" << kUsage;
    return 2;
  }
  if (wants_help(argc, argv)) return help(cmd);
  Args args;
  try {
    args = parse_args(argc, argv, 2, {"json", "stats"});
  } catch (const logsift::ConfigError& e) {
    std::cerr << "logsift " << cmd << ": invalid configuration: " << e.what() << "\n";
    return 2;
  }
  try {
    setup_logging(args.config);
    if (cmd == "serve") return logsift::run_server(args.config);
    if (cmd == "cluster") return cmd_cluster(args);
    if (cmd == "eval") return cmd_eval(args);
    if (cmd == "tokenize") return cmd_tokenize(args);
    if (cmd == "config") {
      std::cout << args.config.to_json().dump(2) << "\n";
      return 0;
    }
  } catch (const logsift::ConfigError& e) {
    std::cerr << "logsift " << cmd << ": invalid configuration: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "logsift " << cmd << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
