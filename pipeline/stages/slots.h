// Slot rules: syntax that marks a value in any software's log line, applied
// to a line's tokens after the denoiser, before the template is rendered
// (each rule in full, and what is never a value: docs/contract.md, "Each
// slot rule in full").
//
// A rule marks tokens as variables (Token::mark = kMarkVar) and never
// unmarks one; only the words rule (slots-v4) takes back the denoiser's mark
// on a function word, first. The rules read token kinds and the bytes of unmasked tokens
// only, never the bytes of a pre-masked span, so the result is a function
// of the pre-masked line (the line cache's key). Linear in the tokens.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/versions.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {

// Applies the rules of `version` (1 to 4; 0 does nothing) to `tokens` (the
// tokens of `line`, in order). `kept_keys`: keys whose value is not a slot
// (matched ASCII-case-insensitively): slot_rule_kept_keys(message_keys).
void apply_slot_rules(std::string_view line, std::span<Token> tokens, const std::vector<std::string>& kept_keys,
                      int version = kSlotRulesLatest);

// The errtail rule alone (part of slots-v2): true if it marked a cause.
bool mark_error_tail(std::string_view line, std::span<Token> tokens);
// The json, backtick and units rules alone (part of slots-v3): true if they marked.
bool mark_json_spans(std::string_view line, std::span<Token> tokens, const std::vector<std::string>& kept_keys);
bool mark_backtick_spans(std::string_view line, std::span<Token> tokens);
bool mark_units(std::string_view line, std::span<Token> tokens);
// The words rule alone (part of slots-v4): true if it took a mark back.
bool unmark_function_words(std::string_view line, std::span<Token> tokens);
// Is `w` one of the words rule's function words (ASCII, any case)?
bool is_function_word(std::string_view w);

// The message keys and "caller".
std::vector<std::string> slot_rule_kept_keys(const std::vector<std::string>& message_keys);

// The access rule alone: true if `tokens` form an NCSA access-log line (then
// every field is marked).
bool mark_access_line(std::string_view line, std::span<Token> tokens, bool wide = false);

}  // namespace logsift
