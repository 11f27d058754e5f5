// BERT's WordPiece tokenizer (HuggingFace BertTokenizer, do_lower_case), in
// plain C++: no torch, no ICU. Used by the TorchScript sentence encoder and by
// `logsift wordpiece` (so Python training can tokenize exactly as the service).
//
// Vocab: vocab.txt, one token per line, id = 0-based line number. Loading
// fails (std::runtime_error naming the origin and line) on an empty vocab, an
// empty line, a duplicate token, or a missing [UNK], [CLS] or [SEP]. [PAD] is
// optional (its id, else 0: padding is hidden by the attention mask anyway).
//
// Text -> ids, the same steps as BertTokenizer:
//  1. clean: NUL, U+FFFD and ASCII control characters (0x01-0x1f except
//     \t \n \r, and 0x7f) are dropped; \t \n \r become spaces;
//  2. lower-case ASCII letters (when lower_case);
//  3. split on whitespace, and every ASCII punctuation character
//     (33-47, 58-64, 91-96, 123-126) is a token of its own;
//  4. WordPiece: greedy longest-match-first against the vocab, continuation
//     pieces prefixed "##"; a word longer than max_input_chars_per_word
//     characters, or one that cannot be covered completely, is one [UNK];
//  5. [CLS] pieces... [SEP], cut to max_len ids ([SEP] stays last).
// Wildcards: when wildcard_token is non-empty and in the vocab, every literal
// "<*>" of the input is that one token (a word boundary on both sides) instead
// of the three punctuation tokens "<", "*", ">".
//
// Differences from BertTokenizer, all about non-ASCII text (identical ids for
// ASCII input): non-ASCII bytes are kept as they are (no Unicode lower-casing,
// no accent stripping, no Unicode punctuation or whitespace classes, CJK
// characters are ordinary word characters); text is treated as UTF-8 and never
// split inside a sequence (a malformed byte counts as one character). Special
// token names in the input ("[CLS]") are ordinary text, not special tokens.
//
// Thread-safety: const member functions may be called concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace logsift::models {

struct WordPieceOptions {
  bool lower_case = true;
  std::string wildcard_token;  // "" = "<*>" is split like any punctuation
  int max_len = 128;           // ids per encoded text, [CLS] and [SEP] included (>= 2)
  int max_input_chars_per_word = 100;
};

class WordPieceTokenizer {
 public:
  // `origin` names the vocab in error messages (a path, "archive:vocab.txt").
  WordPieceTokenizer(std::string_view vocab_text, std::string origin, WordPieceOptions options = {});
  static WordPieceTokenizer from_file(const std::string& path, WordPieceOptions options = {});

  // [CLS] pieces... [SEP], at most max_len ids. `ids` is overwritten.
  void encode(std::string_view text, std::vector<int64_t>* ids) const;
  std::vector<int64_t> encode(std::string_view text) const;
  // The pieces as strings, no [CLS]/[SEP], no truncation (tests, debugging).
  std::vector<std::string> tokenize(std::string_view text) const;

  // -1 if absent.
  int64_t id_of(std::string_view token) const;
  const std::string& token_of(int64_t id) const { return tokens_.at(static_cast<size_t>(id)); }
  size_t vocab_size() const { return tokens_.size(); }
  int64_t cls_id() const { return cls_; }
  int64_t sep_id() const { return sep_; }
  int64_t unk_id() const { return unk_; }
  int64_t pad_id() const { return pad_; }
  // -1 unless wildcard_token is set and in the vocab.
  int64_t wildcard_id() const { return wildcard_; }
  const WordPieceOptions& options() const { return options_; }
  const std::string& origin() const { return origin_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // Calls emit(id) for each piece of the basic tokens of `text`, stopping
  // once emit returns false.
  template <typename Emit>
  void for_each_piece(std::string_view text, Emit&& emit) const;
  template <typename Emit>
  bool word_pieces(std::string_view word, Emit& emit) const;

  WordPieceOptions options_;
  std::string origin_;
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> ids_;
  size_t max_token_bytes_ = 0;  // longest vocab entry (bounds the match search)
  int64_t cls_ = -1, sep_ = -1, unk_ = -1, pad_ = 0, wildcard_ = -1;
};

// An encoder model's tokenizer, as both encoder runtimes build it: `wp` as
// the model's attributes give it, its max_len replaced by `max_len_override`
// when that is > 0 and bounded to [2, 8192]; the vocab read from
// `vocab_path` when one is given, else `embedded` (the model's own
// vocab.txt; `missing` says where it was looked for); a wildcard token that
// is in the vocab. Throws std::runtime_error "encoder model 'SOURCE': ...".
WordPieceTokenizer encoder_tokenizer(const std::string& source, WordPieceOptions wp, int max_len_override,
                                     const std::string& vocab_path, std::string_view embedded,
                                     const std::string& missing);

}  // namespace logsift::models
