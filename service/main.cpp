// logsift: serve | cluster | eval | tokenize | wordpiece | pairs | config
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "config/config.h"
#include "lsh/lsh.h"
#include "models/wordpiece.h"
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
    "  wordpiece  print BERT WordPiece token ids of each line (encoder training uses it)\n"
    "  pairs      score clustering on labelled same/diff line pairs (TSV)\n"
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
// Flags listed in `switches` take no value; those in `options` take a value
// but are the command's own, not configuration keys.
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

Args parse_args(int argc, char** argv, int first, const std::vector<std::string>& switches,
                const std::vector<std::string>& options = {}) {
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
    for (const auto& r : records) out.push_back({r.cluster_id, r.template_text, r.template_id});
    return out;
  };
  auto report = logsift::eval::evaluate_dir(a.positional[0], fn);
  pipeline.stop();
  if (a.has("json")) std::cout << logsift::eval::to_json(report).dump() << "\n";
  else std::cout << logsift::eval::format_table(report);
  return 0;
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

// Token ids per line, space-separated, flushed per line (a co-process for
// Python training, like tokenize).
int cmd_wordpiece(const Args& a) {
  const std::string vocab = a.option("vocab");
  if (vocab.empty()) {
    std::cerr << "logsift wordpiece: --vocab FILE is required (see --help)\n";
    return 2;
  }
  logsift::models::WordPieceOptions options;
  options.lower_case = !a.has("no-lower");
  options.wildcard_token = a.option("wildcard-token");
  auto max_len = parse_int(a.option("max-len", "128"));
  if (!max_len || *max_len < 2) {
    std::cerr << "logsift wordpiece: --max-len must be an integer >= 2, got '" << a.option("max-len") << "'\n";
    return 2;
  }
  options.max_len = *max_len;
  auto tokenizer = logsift::models::WordPieceTokenizer::from_file(vocab, options);
  if (!options.wildcard_token.empty() && tokenizer.wildcard_id() < 0) {
    std::cerr << "logsift wordpiece: --wildcard-token '" << options.wildcard_token << "' is not in " << vocab << "\n";
    return 2;
  }
  std::ifstream file;
  std::istream* in = open_input(a, "wordpiece", &file);
  if (!in) return 2;
  std::vector<int64_t> ids;
  std::string line, out;
  while (std::getline(*in, line)) {
    tokenizer.encode(line, &ids);
    out.clear();
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i) out += ' ';
      out += std::to_string(ids[i]);
    }
    out += '\n';
    std::cout << out << std::flush;
  }
  return 0;
}

// Runs lines through the pipeline exactly as `cluster` does (envelopes,
// limits), in order.
std::vector<logsift::Record> cluster_lines(logsift::Pipeline& pipeline, const std::vector<std::string>& lines,
                                           const Config& config) {
  std::vector<logsift::Record> out;
  out.reserve(lines.size());
  const size_t chunk = 4096;
  for (size_t begin = 0; begin < lines.size(); begin += chunk) {
    auto batch = std::make_unique<logsift::Batch>();
    for (size_t i = begin; i < std::min(lines.size(), begin + chunk); ++i) {
      auto& r = batch->records.emplace_back();
      if (auto e = logsift::record_from_line(lines[i], config, &r)) logsift::reject_record(r, *e);
    }
    for (auto& r : pipeline.run(std::move(batch))) out.push_back(std::move(r));
  }
  return out;
}

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
    return s + "cluster " + logsift::lsh::format_id(r.cluster_id) + "  template " + r.template_text + "\n";
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
  } else if (cmd == "wordpiece") {
    std::cout << "usage: logsift wordpiece --vocab FILE [--max-len N] [--no-lower] [--wildcard-token T] [FILE|-]\n"
                 "\nBERT WordPiece (models/wordpiece.h): prints the token ids of each input line, space-\n"
                 "separated, [CLS] first and [SEP] last, one line per input line, flushed per line (Python\n"
                 "training drives it as a co-process, so train and serve tokenize alike).\n"
                 "  --vocab FILE          vocab.txt, one token per line, id = line number - 1 (required)\n"
                 "  --max-len N           ids per line incl. [CLS] and [SEP] (default 128)\n"
                 "  --no-lower            keep case (default: ASCII lower-casing, BERT's do_lower_case)\n"
                 "  --wildcard-token T    each \"<*>\" becomes vocab token T (default: split as punctuation)\n";
    return 0;
  } else if (cmd == "pairs") {
    std::cout << "usage: logsift pairs FILE [--json] [--min-accuracy X] [--config FILE] [--KEY VALUE]...\n"
                 "\nFILE is tab-separated: expect (\"same\" or \"diff\"), line_a, line_b and an optional\n"
                 "note; blank lines and lines starting with '#' are skipped. Every line goes through the\n"
                 "pipeline as in `logsift cluster` (so --encoder-model etc. apply); a pair is correct when\n"
                 "(cluster_id(a) == cluster_id(b)) == (expect == \"same\"). Prints each wrong pair and\n"
                 "`pair accuracy: 0.9667 (29/30); same: 14/15; diff: 15/15`; --json prints\n"
                 "{\"pairs\",\"correct\",\"accuracy\",\"same\":{\"total\",\"correct\"},\"diff\":{...},\"wrong\":[...]}.\n"
                 "Exit 2 on a malformed row (naming its line), 1 if accuracy < --min-accuracy, else 0.\n";
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
  static const char* known[] = {"serve", "cluster", "eval", "tokenize", "wordpiece", "pairs", "config"};
  if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return cmd == k; }) == std::end(known)) {
    std::cerr << "logsift: unknown command '" << cmd << "'\n\n" << kUsage;
    return 2;
  }
  if (wants_help(argc, argv)) return help(cmd);
  Args args;
  try {
    if (cmd == "wordpiece") args = parse_args(argc, argv, 2, {"no-lower"}, {"vocab", "max-len", "wildcard-token"});
    else if (cmd == "pairs") args = parse_args(argc, argv, 2, {"json"}, {"min-accuracy"});
    else args = parse_args(argc, argv, 2, {"json", "stats"});
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
    if (cmd == "wordpiece") return cmd_wordpiece(args);
    if (cmd == "pairs") return cmd_pairs(args);
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
