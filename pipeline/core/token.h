// A token of a line: byte offsets into the line, never a copy, so a Batch's
// tokens are one flat vector (Record::tok_begin/tok_end). The tokenizer
// (pipeline/stages/tokenizer.h) makes them; every later stage reads or marks
// them. Kept in core, apart from the tokenizer, so that a Record needs no
// config or pre-mask patterns.
#pragma once

#include <cstdint>

namespace logsift {

enum class TokenKind : uint8_t {
  kWord,   // a run of non-delimiter characters
  kDelim,  // whitespace or punctuation, kept verbatim
  kVar,    // a variable: pre-masked span or a word the denoiser marked
};

// The denoiser's decision on a word token (Token::mark). The kind stays
// kWord: model inputs are encoded from the pre-masked tokens alone.
enum : uint8_t {
  kMarkNone = 0,       // a constant (or a word the denoiser does not score)
  kMarkVar = 1,        // a variable: rendered as <*>
  kMarkUndecided = 2,  // not decided from the caches: needs the model
};

struct Token {
  uint32_t begin = 0;  // byte offsets into the line
  uint32_t end = 0;
  TokenKind kind = TokenKind::kWord;
  uint8_t mark = kMarkNone;  // word tokens: the denoiser's decision
  int16_t pattern = -1;      // index of the pre-mask pattern for pre-masked vars
  bool is_var() const { return kind == TokenKind::kVar || mark == kMarkVar; }
};

struct MaskSpan {
  uint32_t begin, end;
  int pattern;
};

}  // namespace logsift
