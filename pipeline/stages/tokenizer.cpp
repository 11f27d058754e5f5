#include "pipeline/stages/tokenizer.h"

#include <algorithm>

#include <re2/re2.h>
#include <re2/set.h>

namespace logsift {

struct Premasker::Impl {
  std::vector<std::unique_ptr<RE2>> res;
  std::unique_ptr<RE2::Set> set;  // one DFA pass tells which patterns can match at all
};

Premasker::Premasker(const std::vector<PremaskPattern>& patterns) : patterns_(patterns), impl_(new Impl) {
  RE2::Options opts;
  opts.set_log_errors(false);
  impl_->set = std::make_unique<RE2::Set>(opts, RE2::UNANCHORED);
  for (size_t i = 0; i < patterns_.size(); ++i) {
    std::string where = "premask[" + std::to_string(i) + "].regex";
    auto re = std::make_unique<RE2>(patterns_[i].regex, opts);
    if (!re->ok()) throw ConfigError(where, "invalid RE2 pattern: " + re->error());
    std::string err;
    if (impl_->set->Add(patterns_[i].regex, &err) < 0) throw ConfigError(where, err);
    impl_->res.push_back(std::move(re));
  }
  if (!patterns_.empty() && !impl_->set->Compile()) throw ConfigError("premask", "patterns too large to compile");
}

Premasker::~Premasker() = default;

namespace {
bool is_ascii_alnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
}  // namespace

bool has_word_char(std::string_view s) {
  for (unsigned char c : s)
    if (c >= 0x80 || is_ascii_alnum(c)) return true;
  return false;
}

std::vector<MaskSpan> Premasker::find(std::string_view line) const {
  std::vector<MaskSpan> spans;
  if (patterns_.empty() || line.empty()) return spans;
  std::vector<int> candidates;
  if (!impl_->set->Match(line, &candidates)) return spans;
  std::sort(candidates.begin(), candidates.end());  // priority = config order

  for (int p : candidates) {
    const RE2& re = *impl_->res[p];
    const PremaskPattern& pat = patterns_[p];
    size_t pos = 0;
    re2::StringPiece m;
    while (pos <= line.size() &&
           re.Match(re2::StringPiece(line.data(), line.size()), pos, line.size(), RE2::UNANCHORED, &m, 1)) {
      size_t b = static_cast<size_t>(m.data() - line.data());
      size_t e = b + m.size();
      if (m.empty()) {  // defensive: validate() rejects such patterns
        pos = e + 1;
        continue;
      }
      bool ok = true;
      if (pat.boundary) {
        if (b > 0 && is_ascii_alnum(static_cast<unsigned char>(line[b - 1]))) ok = false;
        if (e < line.size() && is_ascii_alnum(static_cast<unsigned char>(line[e]))) ok = false;
      }
      if (ok && pat.require_digit)
        ok = std::any_of(m.begin(), m.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (ok) {
        for (const auto& s : spans)
          if (b < s.end && s.begin < e) {
            ok = false;
            break;
          }
      }
      if (ok) {
        spans.push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(e), p});
        pos = e;
      } else {
        // Retry later, at the next position a match could legally start: after
        // a non-alnum character when boundaries are on (e.g. "12" in "x-12" once
        // "-12" was rejected). Skipping whole alnum runs keeps this O(n), never
        // O(n^2) on adversarial lines.
        pos = b + 1;
        if (pat.boundary)
          while (pos < line.size() && is_ascii_alnum(static_cast<unsigned char>(line[pos - 1]))) ++pos;
      }
    }
  }
  std::sort(spans.begin(), spans.end(), [](const MaskSpan& a, const MaskSpan& b) { return a.begin < b.begin; });
  return spans;
}

bool is_delimiter(unsigned char c) {
  switch (c) {
    case ' ': case '\t': case '\n': case '\r': case '\v': case '\f':
    case ',': case ';': case ':': case '=': case '(': case ')': case '[': case ']':
    case '{': case '}': case '<': case '>': case '"': case '\'': case '|':
      return true;
    default:
      return false;
  }
}

namespace {
void tokenize_gap(std::string_view line, uint32_t b, uint32_t e, std::vector<Token>* out) {
  uint32_t i = b;
  while (i < e) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    if (is_delimiter(c)) {
      out->push_back({i, i + 1, TokenKind::kDelim, -1});
      ++i;
      continue;
    }
    uint32_t j = i;
    while (j < e && !is_delimiter(static_cast<unsigned char>(line[j]))) ++j;
    // Split trailing dots off a word ("available." / "...").
    uint32_t w = j;
    while (w > i && line[w - 1] == '.') --w;
    if (w > i) out->push_back({i, w, TokenKind::kWord, -1});
    for (uint32_t d = w; d < j; ++d) out->push_back({d, d + 1, TokenKind::kDelim, -1});
    i = j;
  }
}
}  // namespace

void tokenize(std::string_view line, const std::vector<MaskSpan>& masks, std::vector<Token>* out) {
  out->clear();
  uint32_t pos = 0;
  for (const auto& m : masks) {
    tokenize_gap(line, pos, m.begin, out);
    out->push_back({m.begin, m.end, TokenKind::kVar, static_cast<int16_t>(m.pattern)});
    pos = m.end;
  }
  tokenize_gap(line, pos, static_cast<uint32_t>(line.size()), out);
}

std::string render_template(std::string_view line, const std::vector<Token>& tokens) {
  std::string t;
  t.reserve(line.size());
  bool prev_var = false;
  for (const auto& tok : tokens) {
    if (tok.kind == TokenKind::kVar) {
      if (!prev_var) t += "<*>";
      prev_var = true;
    } else {
      t.append(line.substr(tok.begin, tok.end - tok.begin));
      prev_var = false;
    }
  }
  return t;
}

}  // namespace logsift
