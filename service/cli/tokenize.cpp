// logsift tokenize: the serving tokenizer's pre-masked tokens per line (training uses it).
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "pipeline/stages/tokenizer.h"
#include "service/cli/cli.h"

namespace logsift::cli {
namespace {

using nlohmann::json;

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

}  // namespace

const Command kTokenize = {"tokenize", "print pre-masked tokens of each line as JSON (training uses it)",
    "usage: logsift tokenize [FILE|-] [--KEY VALUE]...\n"
                 "\nPrints {\"tokens\":[[begin,end,kind(,pattern)]...],\"template\"} per line: the serving\n"
                 "tokenizer, so model training sees exactly what the service sees.\n",
    true, {"json", "stats"}, {}, &cmd_tokenize};

}  // namespace logsift::cli
