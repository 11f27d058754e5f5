// Pre-mask (re2 patterns from config) and tokenization that keeps delimiters,
// so a template prints back faithfully. Single-threaded use per instance is not
// required: a Premasker is immutable after construction and safe to share.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"


namespace logsift {

enum class TokenKind : uint8_t {
  kWord,   // a run of non-delimiter characters
  kDelim,  // whitespace or punctuation, kept verbatim
  kVar,    // a variable: pre-masked span or a word the denoiser marked
};

struct Token {
  uint32_t begin = 0;  // byte offsets into the line
  uint32_t end = 0;
  TokenKind kind = TokenKind::kWord;
  int16_t pattern = -1;  // index of the pre-mask pattern for pre-masked vars
};

struct MaskSpan {
  uint32_t begin, end;
  int pattern;
};

class Premasker {
 public:
  // Throws ConfigError naming the bad premask entry.
  explicit Premasker(const std::vector<PremaskPattern>& patterns);
  ~Premasker();
  Premasker(const Premasker&) = delete;
  Premasker& operator=(const Premasker&) = delete;

  // Non-overlapping variable spans, sorted by position. Earlier patterns win overlaps.
  std::vector<MaskSpan> find(std::string_view line) const;
  const std::string& pattern_name(int i) const { return patterns_[i].name; }
  size_t size() const { return patterns_.size(); }

 private:
  struct Impl;
  std::vector<PremaskPattern> patterns_;
  std::unique_ptr<Impl> impl_;
};

// Is `c` a delimiter (whitespace or one of ,;:=()[]{}<>"'|)?
bool is_delimiter(unsigned char c);

// Does `s` hold a letter, a digit or any non-ASCII byte? Tokens without one are
// not scored by the denoiser; templates without one have nothing for an encoder.
bool has_word_char(std::string_view s);

// Tokenizes `line` around the pre-masked spans. Words ending in '.' have it
// split off as a delimiter ("available." -> "available", ".").
void tokenize(std::string_view line, const std::vector<MaskSpan>& masks, std::vector<Token>* out);

// The template: tokens verbatim, variables as "<*>", adjacent variables (no
// delimiter between them) collapsed into one.
std::string render_template(std::string_view line, const std::vector<Token>& tokens);

}  // namespace logsift
