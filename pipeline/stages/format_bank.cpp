#include "pipeline/stages/format_bank.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "lsh/lsh.h"
#include "pipeline/core/text.h"

namespace logsift {
namespace {

constexpr unsigned char kMasked = 0xFF;  // a pre-masked span in the line key
constexpr size_t kMaxLineBytes = 1000;
constexpr int kMaxTries = 8;  // occurrences of a literal tried after a typed slot

bool is_alpha(unsigned char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool is_digit(unsigned char c) { return text::is_digit(static_cast<char>(c)); }
bool is_alnum(unsigned char c) { return is_alpha(c) || is_digit(c); }
bool is_hex(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_blank(unsigned char c) { return c == ' ' || c == '\t'; }

uint64_t word_hash(std::string_view w) { return lsh::stable_hash64(w); }

// One conversion at s[i] == '%': its length and slot; nullopt if s[i..] is no
// conversion (the '%' is then literal text). "%%" gives length 2, no slot.
struct Conv {
  size_t len;
  bool slot;
  FormatBank::Slot type;
};

std::optional<Conv> conversion(std::string_view s, size_t i) {
  size_t j = i + 1;
  auto at = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0; };
  if (at(j) == '%') return Conv{2, false, FormatBank::Slot::kText};
  while (std::strchr("-+ #0'", at(j)) && at(j)) ++j;
  if (at(j) == '*') ++j;
  else
    while (is_digit(at(j))) ++j;
  if (at(j) == '.') {
    ++j;
    if (at(j) == '*') ++j;
    else
      while (is_digit(at(j))) ++j;
  }
  if ((at(j) == 'h' && at(j + 1) == 'h') || (at(j) == 'l' && at(j + 1) == 'l')) j += 2;
  else if (at(j) && std::strchr("hlLqjzt", at(j))) ++j;
  const unsigned char c = at(j);
  if (!c) return std::nullopt;
  using S = FormatBank::Slot;
  S type;
  if (std::strchr("diu", c)) type = S::kInt;
  else if (std::strchr("xX", c)) type = S::kHex;
  else if (c == 'o') type = S::kOct;
  else if (std::strchr("eEfFgGaA", c)) type = S::kFloat;
  else if (c == 'c') type = S::kChar;
  else if (c == 'p') type = S::kPtr;
  else if (std::strchr("snm", c)) type = S::kText;
  else return std::nullopt;
  return Conv{j + 1 - i, true, type};
}

// Does s (a slot's text) pass the slot's type? A 0xFF byte (a pre-masked
// span: a number, hex, an address...) passes every type.
bool slot_ok(FormatBank::Slot type, std::string_view s, int max_words) {
  using S = FormatBank::Slot;
  if (type == S::kText) {
    if (max_words > 0) {
      int words = 0;
      bool in = false;
      for (char c : s) {
        const bool w = !is_blank(static_cast<unsigned char>(c));
        words += w && !in;
        in = w;
      }
      if (words > max_words) return false;
    }
    return true;
  }
  size_t i = 0;
  while (i < s.size() && is_blank(static_cast<unsigned char>(s[i]))) ++i;  // width padding
  s.remove_prefix(i);
  if (s.empty()) return false;
  auto all = [&](auto pred) {
    return std::all_of(s.begin(), s.end(), [&](char c) {
      return static_cast<unsigned char>(c) == kMasked || pred(static_cast<unsigned char>(c));
    });
  };
  switch (type) {
    case S::kInt:
      if (s[0] == '-' || s[0] == '+') s.remove_prefix(1);
      return !s.empty() && all(is_digit);
    case S::kHex:
      if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
      return all(is_hex);
    case S::kOct:
      return all([](unsigned char c) { return c >= '0' && c <= '7'; });
    case S::kFloat:
      if (s == "nan" || s == "inf" || s == "-nan" || s == "-inf") return true;
      return std::any_of(s.begin(), s.end(), [](char c) { return is_digit(c) || static_cast<unsigned char>(c) == kMasked; }) &&
             all([](unsigned char c) { return is_digit(c) || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'; });
    case S::kChar:
      return s.size() <= 4;  // one character, UTF-8 or a marker
    case S::kPtr:
      if (s == "(nil)") return true;
      if (s.size() > 2 && s[0] == '0' && s[1] == 'x') s.remove_prefix(2);
      return all(is_hex);
    case S::kText:
      return true;
  }
  return false;
}

std::string decode_line(const std::string& line, const std::string& path, size_t lineno) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\\') {
      out.push_back(line[i]);
      continue;
    }
    const char e = i + 1 < line.size() ? line[i + 1] : 0;
    if (e == '\\') out.push_back('\\');
    else if (e == 'n') out.push_back('\n');
    else if (e == 't') out.push_back('\t');
    else
      throw std::runtime_error(path + ":" + std::to_string(lineno) +
                               ": bad escape (use \\\\, \\n or \\t; a format is one line)");
    ++i;
  }
  return out;
}

}  // namespace

void FormatBank::words_of(std::string_view s, std::vector<std::string_view>* out) {
  out->clear();
  size_t i = 0;
  while (i < s.size()) {
    if (!is_alpha(static_cast<unsigned char>(s[i]))) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < s.size() && (is_alnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    if (j - i >= 3) out->push_back(s.substr(i, j - i));
    i = j;
  }
}

bool FormatBank::parse(std::string_view text, Format* f) {
  f->text.assign(text);
  f->literals.assign(1, std::string());
  f->slots.clear();
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '%') {
      if (auto c = conversion(text, i)) {
        if (!c->slot) {
          f->literals.back().push_back('%');
        } else if (f->literals.back().empty() && !f->slots.empty()) {
          f->slots.back() = Slot::kText;  // adjacent slots: one text slot
        } else {
          f->slots.push_back(c->type);
          f->literals.emplace_back();
        }
        i += c->len;
        continue;
      }
    }
    f->literals.back().push_back(text[i++]);
  }
  // A leading text slot is a prefix the program built elsewhere (a client's
  // address and view, a session tag): the format starts at its first literal
  // and the denoiser reads the prefix, as it reads a header.
  if (f->literals[0].empty() && !f->slots.empty() && f->slots[0] == Slot::kText) {
    f->literals.erase(f->literals.begin());
    f->slots.erase(f->slots.begin());
  }
  f->literal_chars = 0;
  std::string all;
  for (const auto& l : f->literals) {
    for (char c : l) f->literal_chars += is_alnum(static_cast<unsigned char>(c));
    all += l;
    all += '\x01';  // words do not run across a slot
  }
  thread_local std::vector<std::string_view> ws;
  words_of(all, &ws);
  f->words.clear();
  for (auto w : ws) f->words.push_back(word_hash(w));
  std::sort(f->words.begin(), f->words.end());
  f->words.erase(std::unique(f->words.begin(), f->words.end()), f->words.end());
  return !f->words.empty();
}

FormatBank FormatBank::from_formats(const std::vector<std::string>& texts, int slot_words) {
  FormatBank b;
  b.slot_words_ = slot_words;
  std::vector<std::string> sorted(texts);
  std::sort(sorted.begin(), sorted.end());
  const size_t distinct = std::unique(sorted.begin(), sorted.end()) - sorted.begin();
  sorted.resize(distinct);
  b.skipped_ = texts.size() - distinct;
  std::string joined;
  for (const auto& t : sorted) {
    Format f;
    if (!parse(t, &f) || f.literal_chars < static_cast<uint32_t>(kMinLiteral)) {
      ++b.skipped_;
      continue;
    }
    joined += t;
    joined += '\n';
    b.formats_.push_back(std::move(f));
  }
  // Anchor: the word of a format that the fewest formats have.
  std::unordered_map<uint64_t, uint32_t> df;
  for (const auto& f : b.formats_)
    for (uint64_t w : f.words) ++df[w];
  for (uint32_t k = 0; k < b.formats_.size(); ++k) {
    const auto& ws = b.formats_[k].words;
    uint64_t anchor = *std::min_element(ws.begin(), ws.end(), [&](uint64_t a, uint64_t c) {
      return df[a] != df[c] ? df[a] < df[c] : a < c;
    });
    b.index_[anchor].push_back(k);
  }
  b.digest_ = lsh::format_id(lsh::stable_hash64(joined));
  return b;
}

FormatBank FormatBank::load(const std::string& path, int slot_words) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read the format bank");
  std::vector<std::string> texts;
  std::string line;
  size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (line.size() > kMaxLineBytes)
      throw std::runtime_error(path + ":" + std::to_string(lineno) + ": a format over " +
                               std::to_string(kMaxLineBytes) + " bytes");
    texts.push_back(decode_line(line, path, lineno));
  }
  if (in.bad()) throw std::runtime_error(path + ": read error");
  return from_formats(texts, slot_words);
}

bool FormatBank::match_one(std::string_view line, const Format& f, uint32_t* begin) const {
  const auto& lits = f.literals;
  const size_t n = f.slots.size();
  size_t start = 0, pos = 0;
  if (n == 0) {  // a constant message: it must end the line
    if (line.size() < lits[0].size() || line.substr(line.size() - lits[0].size()) != lits[0]) return false;
    *begin = static_cast<uint32_t>(line.size() - lits[0].size());
    return true;
  }
  if (!lits[0].empty()) {
    size_t at = line.find(lits[0]);
    if (at == std::string_view::npos) return false;
    start = at;
    pos = at + lits[0].size();
  }
  for (size_t i = 0; i < n; ++i) {
    const std::string& next = lits[i + 1];
    const Slot type = f.slots[i];
    if (i + 1 == n) {
      if (line.size() < pos + next.size() || line.substr(line.size() - next.size()) != next) return false;
      const size_t end = line.size() - next.size();
      if (!slot_ok(type, line.substr(pos, end - pos), slot_words_)) return false;
      *begin = static_cast<uint32_t>(start);
      return true;
    }
    size_t j = pos;
    int tries = 0;
    for (;;) {
      j = line.find(next, j);
      if (j == std::string_view::npos || ++tries > kMaxTries) return false;
      if (slot_ok(type, line.substr(pos, j - pos), slot_words_)) break;
      ++j;
    }
    pos = j + next.size();
  }
  return false;  // not reached: n > 0 returns in the loop
}

std::optional<FormatBank::Match> FormatBank::match(std::string_view line) const {
  while (!line.empty() && (is_blank(static_cast<unsigned char>(line.back())) || line.back() == '\n' || line.back() == '\r'))
    line.remove_suffix(1);
  thread_local std::vector<std::string_view> ws;
  thread_local std::vector<uint64_t> hashes;
  words_of(line, &ws);
  hashes.clear();
  for (auto w : ws) hashes.push_back(word_hash(w));
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  std::optional<Match> best;
  for (uint64_t h : hashes) {
    auto it = index_.find(h);
    if (it == index_.end()) continue;
    for (uint32_t k : it->second) {
      const Format& f = formats_[k];
      if (best) {
        const Format& b = formats_[best->format];
        if (f.literal_chars < b.literal_chars) continue;
        if (f.literal_chars == b.literal_chars &&
            (f.slots.size() > b.slots.size() || (f.slots.size() == b.slots.size() && f.text > b.text)))
          continue;
      }
      if (!std::includes(hashes.begin(), hashes.end(), f.words.begin(), f.words.end())) continue;
      uint32_t begin = 0;
      if (match_one(line, f, &begin)) best = Match{k, begin};
    }
  }
  return best;
}

std::string FormatBank::render(uint32_t format) const {
  std::string out;
  render_into(format, &out);
  return out;
}

void FormatBank::render_into(uint32_t format, std::string* out) const {
  const Format& f = formats_[format];
  *out += f.literals[0];
  for (size_t i = 0; i < f.slots.size(); ++i) {
    *out += "<*>";
    *out += f.literals[i + 1];
  }
}

}  // namespace logsift
