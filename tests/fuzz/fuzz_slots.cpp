// libFuzzer target: the slot rules (pipeline/stages/slots.h) on the default
// pre-mask's tokens. Checks that they stay in bounds (ASan/UBSan), never
// unmark a variable but a function word (slots-v4), leave the tokens
// themselves alone, and are idempotent.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "pipeline/stages/slots.h"
#include "pipeline/stages/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const logsift::Premasker premasker(logsift::Config::defaults().premask);
  static const std::vector<std::string> kept = logsift::slot_rule_kept_keys({"msg", "message", "log", "text"});
  std::string_view line(reinterpret_cast<const char*>(data), size);
  std::vector<logsift::Token> toks;
  logsift::tokenize(line, premasker.find(line), &toks);
  // Words marked variable before the rules, as the denoiser would have.
  for (size_t i = 0; i < toks.size(); ++i)
    if (toks[i].kind == logsift::TokenKind::kWord &&
        ((toks[i].end - toks[i].begin) % 5 == 0 ||
         logsift::is_function_word(line.substr(toks[i].begin, toks[i].end - toks[i].begin))))
      toks[i].mark = logsift::kMarkVar;
  const std::vector<logsift::Token> before = toks;
  logsift::apply_slot_rules(line, toks, kept);
  if (toks.size() != before.size()) __builtin_trap();
  for (size_t i = 0; i < toks.size(); ++i) {
    if (toks[i].begin != before[i].begin || toks[i].end != before[i].end || toks[i].kind != before[i].kind)
      __builtin_trap();
    if (before[i].is_var() && !toks[i].is_var() &&
        !(toks[i].kind == logsift::TokenKind::kWord &&
          logsift::is_function_word(line.substr(toks[i].begin, toks[i].end - toks[i].begin))))
      __builtin_trap();
  }
  const std::string once = logsift::render_template(line, toks);
  logsift::apply_slot_rules(line, toks, kept);
  if (logsift::render_template(line, toks) != once) __builtin_trap();
  return 0;
}
