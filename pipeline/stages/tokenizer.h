// Pre-mask (re2 patterns from config) and tokenization that keeps delimiters,
// so a template prints back faithfully. Single-threaded use per instance is not
// required: a Premasker is immutable after construction and safe to share.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "pipeline/core/token.h"


namespace logsift {

class Premasker {
 public:
  // Throws ConfigError naming the bad premask entry. builtin_finders = false
  // runs every pattern through RE2 (the reference the finders are tested on).
  explicit Premasker(const std::vector<PremaskPattern>& patterns, bool builtin_finders = true);
  ~Premasker();
  Premasker(const Premasker&) = delete;
  Premasker& operator=(const Premasker&) = delete;

  // Non-overlapping variable spans, sorted by position. Earlier patterns win
  // overlaps: each pattern in config order finds its leftmost-first matches
  // (RE2 semantics; the built-in patterns run hand-compiled finders that
  // return exactly what RE2 would, see premask_lexer.h), skipping a match
  // that touches an ASCII alnum (boundary), lacks a digit (require_digit) or
  // overlaps a span of an earlier pattern. Linear in the line.
  void find(std::string_view line, std::vector<MaskSpan>* spans) const;
  std::vector<MaskSpan> find(std::string_view line) const;
  // True when every pattern runs a hand-compiled finder (no RE2 at run time).
  bool all_builtin() const;
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
// split off as a delimiter ("available." -> "available", "."). tokenize()
// replaces *out, append_tokens() appends (one vector for a whole batch).
void tokenize(std::string_view line, const std::vector<MaskSpan>& masks, std::vector<Token>* out);
void append_tokens(std::string_view line, const std::vector<MaskSpan>& masks, std::vector<Token>* out);

// The template: tokens verbatim, variables (pre-masked spans and words the
// denoiser marked) as "<*>", adjacent variables (no delimiter between them)
// collapsed into one. render_template_into() reuses *out.
std::string render_template(std::string_view line, std::span<const Token> tokens);
void render_template_into(std::string_view line, std::span<const Token> tokens, std::string* out);

}  // namespace logsift
