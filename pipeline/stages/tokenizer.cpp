#include "pipeline/stages/tokenizer.h"

#include <algorithm>

#include <re2/re2.h>
#include <re2/set.h>

#include "pipeline/stages/premask_lexer.h"

namespace logsift {

struct Premasker::Impl {
  // Per pattern: its hand-compiled finder (built-in regexes), else its RE2.
  std::vector<const premask::Finder*> finders;
  std::vector<std::unique_ptr<RE2>> res;
  // One DFA pass tells which RE2 patterns can match at all (null when every
  // pattern has a finder).
  std::unique_ptr<RE2::Set> set;
  std::vector<int> set_index;  // RE2::Set index -> pattern index
};

Premasker::Premasker(const std::vector<PremaskPattern>& patterns, bool builtin_finders)
    : patterns_(patterns), impl_(new Impl) {
  RE2::Options opts;
  opts.set_log_errors(false);
  for (size_t i = 0; i < patterns_.size(); ++i) {
    // Every pattern is compiled by RE2, so a bad one is a config error even
    // when a finder would run it.
    std::string where = "premask[" + std::to_string(i) + "].regex";
    auto re = std::make_unique<RE2>(patterns_[i].regex, opts);
    if (!re->ok()) throw ConfigError(where, "invalid RE2 pattern: " + re->error());
    const premask::Finder* f = builtin_finders ? premask::builtin_finder(patterns_[i].regex) : nullptr;
    impl_->finders.push_back(f);
    if (!f) {
      if (!impl_->set) impl_->set = std::make_unique<RE2::Set>(opts, RE2::UNANCHORED);
      std::string err;
      if (impl_->set->Add(patterns_[i].regex, &err) < 0) throw ConfigError(where, err);
      impl_->set_index.push_back(static_cast<int>(i));
    }
    impl_->res.push_back(std::move(re));
  }
  if (impl_->set && !impl_->set->Compile()) throw ConfigError("premask", "patterns too large to compile");
}

Premasker::~Premasker() = default;

bool Premasker::all_builtin() const {
  return std::all_of(impl_->finders.begin(), impl_->finders.end(), [](auto* f) { return f != nullptr; });
}

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

void Premasker::find(std::string_view line, std::vector<MaskSpan>* spans) const {
  spans->clear();
  if (patterns_.empty() || line.empty()) return;
  // RE2 patterns the line cannot match are skipped (the finders reject fast).
  thread_local std::vector<int> candidates;
  thread_local std::vector<uint8_t> re2_candidate;
  re2_candidate.assign(patterns_.size(), 0);
  if (impl_->set) {
    candidates.clear();
    if (impl_->set->Match(line, &candidates))
      for (int c : candidates) re2_candidate[static_cast<size_t>(impl_->set_index[static_cast<size_t>(c)])] = 1;
  }
  // Overlap with spans of earlier patterns: a line has a few spans, tested
  // one by one; past kFewSpans, covered[i] = bytes of line[0, i) inside them
  // makes the test O(1), so the pre-mask stays linear in the line however
  // many spans it finds (a 64 KB line of "1 1 1 ..." has 32k).
  constexpr size_t kFewSpans = 16;
  thread_local std::vector<uint32_t> covered;
  bool have_covered = false;
  size_t earlier = 0;  // spans of earlier patterns: (*spans)[0, earlier)
  const re2::StringPiece text(line.data(), line.size());
  thread_local premask::LineIndex index;
  premask::index_line(line, &index);
  const size_t n_patterns = patterns_.size();
  for (size_t p = 0; p < n_patterns; ++p) {
    const premask::Finder* f = impl_->finders[p];
    if (f ? !f->may_match(index) : !re2_candidate[p]) continue;
    const PremaskPattern& pat = patterns_[p];
    earlier = spans->size();
    if (earlier > kFewSpans && !have_covered) {
      covered.assign(line.size() + 1, 0);
      for (const auto& s : *spans)
        for (uint32_t i = s.begin; i < s.end; ++i) covered[i + 1] = 1;
      for (size_t i = 1; i <= line.size(); ++i) covered[i] += covered[i - 1];
      have_covered = true;
    }
    const size_t before = spans->size();
    size_t pos = 0;
    while (pos <= line.size()) {
      size_t b, e;
      if (f) {
        if (!f->find(line, pos, &b, &e, &index)) break;
      } else {
        re2::StringPiece m;
        if (!impl_->res[p]->Match(text, pos, line.size(), RE2::UNANCHORED, &m, 1)) break;
        b = static_cast<size_t>(m.data() - line.data());
        e = b + m.size();
      }
      if (e == b) {  // defensive: validate() rejects patterns that match empty
        pos = e + 1;
        continue;
      }
      bool ok = true;
      if (pat.boundary) {
        if (b > 0 && is_ascii_alnum(static_cast<unsigned char>(line[b - 1]))) ok = false;
        if (e < line.size() && is_ascii_alnum(static_cast<unsigned char>(line[e]))) ok = false;
      }
      if (ok && pat.require_digit)
        ok = std::any_of(line.begin() + static_cast<std::ptrdiff_t>(b), line.begin() + static_cast<std::ptrdiff_t>(e),
                         [](char c) { return c >= '0' && c <= '9'; });
      // A built-in finder's match that starts inside an earlier span: every
      // match starting before that span's end overlaps it too, so the next
      // try starts there (the digits of a masked address or id are not
      // found and refused one group at a time). Exact for the finders, whose
      // match at a start depends on the bytes before it only by extending
      // back to `pos`: an extension into the span overlaps it as well.
      size_t inside_end = 0;
      if (ok && have_covered) {
        ok = covered[e] == covered[b];
      } else if (ok) {
        for (size_t k = 0; k < earlier && ok; ++k) {
          const MaskSpan& s = (*spans)[k];
          ok = s.end <= b || e <= s.begin;
          if (!ok && f && s.begin <= b) inside_end = s.end;
        }
      }
      if (ok) {
        spans->push_back({static_cast<uint32_t>(b), static_cast<uint32_t>(e), static_cast<int>(p)});
        pos = e;
      } else {
        // Retry later, at the next position a match could legally start: after
        // a non-alnum character when boundaries are on (e.g. "12" in "x-12" once
        // "-12" was rejected). Skipping whole alnum runs keeps this O(n), never
        // O(n^2) on adversarial lines.
        pos = std::max(b + 1, inside_end);
        if (pat.boundary)
          while (pos < line.size() && is_ascii_alnum(static_cast<unsigned char>(line[pos - 1]))) ++pos;
      }
    }
    if (spans->size() != before) have_covered = false;  // the next pattern must not overlap these either
  }
  std::sort(spans->begin(), spans->end(), [](const MaskSpan& a, const MaskSpan& b) { return a.begin < b.begin; });
}

std::vector<MaskSpan> Premasker::find(std::string_view line) const {
  std::vector<MaskSpan> spans;
  find(line, &spans);
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
      out->push_back({i, i + 1, TokenKind::kDelim, false, -1});
      ++i;
      continue;
    }
    uint32_t j = i;
    while (j < e && !is_delimiter(static_cast<unsigned char>(line[j]))) ++j;
    // Split trailing dots off a word ("available." / "...").
    uint32_t w = j;
    while (w > i && line[w - 1] == '.') --w;
    if (w > i) out->push_back({i, w, TokenKind::kWord, false, -1});
    for (uint32_t d = w; d < j; ++d) out->push_back({d, d + 1, TokenKind::kDelim, false, -1});
    i = j;
  }
}
}  // namespace

void tokenize(std::string_view line, const std::vector<MaskSpan>& masks, std::vector<Token>* out) {
  out->clear();
  append_tokens(line, masks, out);
}

void append_tokens(std::string_view line, const std::vector<MaskSpan>& masks, std::vector<Token>* out) {
  uint32_t pos = 0;
  for (const auto& m : masks) {
    tokenize_gap(line, pos, m.begin, out);
    out->push_back({m.begin, m.end, TokenKind::kVar, false, static_cast<int16_t>(m.pattern)});
    pos = m.end;
  }
  tokenize_gap(line, pos, static_cast<uint32_t>(line.size()), out);
}

void render_template_into(std::string_view line, std::span<const Token> tokens, std::string* out) {
  std::string& t = *out;
  t.clear();
  bool prev_var = false;
  for (const auto& tok : tokens) {
    if (tok.is_var()) {
      if (!prev_var) t += "<*>";
      prev_var = true;
    } else {
      t.append(line.substr(tok.begin, tok.end - tok.begin));
      prev_var = false;
    }
  }
}

std::string render_template(std::string_view line, std::span<const Token> tokens) {
  std::string t;
  t.reserve(line.size());
  render_template_into(line, tokens, &t);
  return t;
}

}  // namespace logsift
