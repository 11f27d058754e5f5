#include "models/wordpiece.h"

#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace logsift::models {
namespace {

bool is_ascii_punct(unsigned char c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

// Length of the UTF-8 character starting at s[i]: the lead byte's length,
// shortened to the continuation bytes actually present (a malformed byte is
// a character of its own), so a valid sequence is never split.
size_t utf8_char_len(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 1;
  size_t k = 1;
  while (k < n && i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80) ++k;
  return k;
}

constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD, dropped like BERT does
constexpr std::string_view kWildcard = "<*>";

}  // namespace

WordPieceTokenizer::WordPieceTokenizer(std::string_view text, std::string origin, WordPieceOptions options)
    : options_(std::move(options)), origin_(std::move(origin)) {
  auto fail = [&](const std::string& what) { throw std::runtime_error("vocab " + origin_ + ": " + what); };
  if (options_.max_len < 2) fail("max_len must be at least 2 ([CLS] and [SEP]), got " + std::to_string(options_.max_len));
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 BOM
  size_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view tok = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    if (!tok.empty() && tok.back() == '\r') tok.remove_suffix(1);
    if (tok.empty()) fail("line " + std::to_string(line_no) + " is empty (one token per line, id = line number - 1)");
    auto [it, inserted] = ids_.emplace(std::string(tok), static_cast<int64_t>(tokens_.size()));
    if (!inserted)
      fail("line " + std::to_string(line_no) + ": duplicate token '" + std::string(tok) + "' (first on line " +
           std::to_string(it->second + 1) + ")");
    tokens_.emplace_back(tok);
    max_token_bytes_ = std::max(max_token_bytes_, tok.size());
  }
  if (tokens_.empty()) fail("is empty");
  auto special = [&](const char* name) {
    int64_t id = id_of(name);
    if (id < 0) fail(std::string("has no ") + name + " token");
    return id;
  };
  unk_ = special("[UNK]");
  cls_ = special("[CLS]");
  sep_ = special("[SEP]");
  pad_ = std::max<int64_t>(id_of("[PAD]"), 0);
  if (!options_.wildcard_token.empty()) wildcard_ = id_of(options_.wildcard_token);
}

WordPieceTokenizer WordPieceTokenizer::from_file(const std::string& path, WordPieceOptions options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("vocab " + path + ": cannot read file");
  std::stringstream ss;
  ss << in.rdbuf();
  return WordPieceTokenizer(ss.str(), path, std::move(options));
}

int64_t WordPieceTokenizer::id_of(std::string_view token) const {
  auto it = ids_.find(token);
  return it == ids_.end() ? -1 : it->second;
}

// Greedy longest-match-first over character boundaries. Emits the word's
// pieces, or one [UNK]. Returns emit's verdict (false = stop).
template <typename Emit>
bool WordPieceTokenizer::word_pieces(std::string_view word, Emit& emit) const {
  // Character boundaries: bounds[k] is the byte offset of character k.
  std::vector<size_t> bounds;
  bounds.reserve(word.size() + 1);
  for (size_t i = 0; i < word.size(); i += utf8_char_len(word, i)) bounds.push_back(i);
  const size_t chars = bounds.size();
  bounds.push_back(word.size());
  if (chars > static_cast<size_t>(options_.max_input_chars_per_word)) return emit(unk_);

  std::vector<int64_t> pieces;
  std::string candidate;
  size_t start = 0;
  while (start < chars) {
    const size_t prefix = start > 0 ? 2 : 0;
    size_t end = chars;
    // No vocab entry is longer than max_token_bytes_: skip hopeless candidates.
    while (end > start && prefix + bounds[end] - bounds[start] > max_token_bytes_) --end;
    int64_t id = -1;
    for (; end > start; --end) {
      candidate.assign(prefix ? "##" : "");
      candidate.append(word.substr(bounds[start], bounds[end] - bounds[start]));
      if ((id = id_of(candidate)) >= 0) break;
    }
    if (id < 0) return emit(unk_);
    pieces.push_back(id);
    start = end;
  }
  for (int64_t id : pieces)
    if (!emit(id)) return false;
  return true;
}

template <typename Emit>
void WordPieceTokenizer::for_each_piece(std::string_view text, Emit&& emit) const {
  std::string word;
  auto flush = [&] {
    if (word.empty()) return true;
    bool more = word_pieces(word, emit);
    word.clear();
    return more;
  };
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (wildcard_ >= 0 && c == '<' && text.compare(i, kWildcard.size(), kWildcard) == 0) {
      if (!flush() || !emit(wildcard_)) return;
      i += kWildcard.size();
    } else if (c >= 0x80) {
      size_t n = utf8_char_len(text, i);
      if (text.compare(i, n, kReplacementChar) != 0) word.append(text.substr(i, n));
      i += n;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!flush()) return;
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      ++i;  // control character: removed (it does not split the word around it)
    } else if (is_ascii_punct(c)) {
      if (!flush()) return;
      char p = static_cast<char>(c);
      if (!word_pieces(std::string_view(&p, 1), emit)) return;
      ++i;
    } else {
      word.push_back(options_.lower_case && c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A'))
                                                                 : static_cast<char>(c));
      ++i;
    }
  }
  flush();
}

void WordPieceTokenizer::encode(std::string_view text, std::vector<int64_t>* ids) const {
  ids->clear();
  ids->push_back(cls_);
  const size_t limit = static_cast<size_t>(options_.max_len) - 1;  // room for [SEP]
  if (ids->size() < limit)
    for_each_piece(text, [&](int64_t id) {
      ids->push_back(id);
      return ids->size() < limit;
    });
  ids->push_back(sep_);
}

std::vector<int64_t> WordPieceTokenizer::encode(std::string_view text) const {
  std::vector<int64_t> ids;
  encode(text, &ids);
  return ids;
}

std::vector<std::string> WordPieceTokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> out;
  for_each_piece(text, [&](int64_t id) {
    out.push_back(tokens_[static_cast<size_t>(id)]);
    return true;
  });
  return out;
}

WordPieceTokenizer encoder_tokenizer(const std::string& source, WordPieceOptions wp, int max_len_override,
                                     const std::string& vocab_path, std::string_view embedded,
                                     const std::string& missing) {
  constexpr int kMaxLenLimit = 8192;
  auto error = [&](const std::string& what) { return std::runtime_error("encoder model '" + source + "': " + what); };
  if (max_len_override > 0) wp.max_len = max_len_override;
  if (wp.max_len < 2 || wp.max_len > kMaxLenLimit)
    throw error("max_len must be in [2, " + std::to_string(kMaxLenLimit) + "], got " + std::to_string(wp.max_len));
  std::optional<WordPieceTokenizer> tokenizer;
  try {
    if (!vocab_path.empty()) {
      tokenizer.emplace(WordPieceTokenizer::from_file(vocab_path, wp));
    } else {
      if (embedded.empty()) throw error("no vocab: " + missing + " and no vocab file was given (encoder_vocab)");
      tokenizer.emplace(embedded, source + ":vocab.txt", wp);
    }
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    if (what.rfind("encoder model '", 0) == 0) throw;
    throw error(what);
  }
  if (!wp.wildcard_token.empty() && tokenizer->wildcard_id() < 0)
    throw error("wildcard_token '" + wp.wildcard_token + "' is not in the vocab (" + tokenizer->origin() + ")");
  return std::move(*tokenizer);
}

}  // namespace logsift::models
