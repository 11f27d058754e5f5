#include "pipeline/core/structured.h"

#include "pipeline/core/syslog_message.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <span>

#include "pipeline/core/text.h"

namespace logsift {

// ===========================================================================
// Shared helpers.

namespace {
using text::ascii_lower;
using text::hex_value;
using text::iequals;
using text::is_blank;
using text::is_digit;
using text::trim_blanks;
}  // namespace

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

namespace {

bool read_digits(std::string_view s, size_t* i, size_t n, int* out) {
  if (*i + n > s.size()) return false;
  int v = 0;
  for (size_t k = 0; k < n; ++k) {
    char c = s[*i + k];
    if (!is_digit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *i += n;
  *out = v;
  return true;
}

unsigned days_in_month(int y, int m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
  return kDays[m - 1];
}

}  // namespace

std::optional<int64_t> parse_rfc3339_ms(std::string_view s) {
  size_t i = 0;
  int y, mo, d, h, mi, sec;
  if (!read_digits(s, &i, 4, &y) || i >= s.size() || s[i++] != '-') return std::nullopt;
  if (!read_digits(s, &i, 2, &mo) || i >= s.size() || s[i++] != '-') return std::nullopt;
  if (!read_digits(s, &i, 2, &d) || i >= s.size()) return std::nullopt;
  if (s[i] != 'T' && s[i] != 't' && s[i] != ' ') return std::nullopt;
  ++i;
  if (!read_digits(s, &i, 2, &h) || i >= s.size() || s[i++] != ':') return std::nullopt;
  if (!read_digits(s, &i, 2, &mi) || i >= s.size() || s[i++] != ':') return std::nullopt;
  if (!read_digits(s, &i, 2, &sec)) return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || static_cast<unsigned>(d) > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 60)
    return std::nullopt;
  int ms = 0;
  if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
    ++i;
    size_t n = 0;
    while (i < s.size() && is_digit(s[i])) {
      if (n < 3) ms = ms * 10 + (s[i] - '0');
      ++n, ++i;
    }
    if (n == 0 || n > 12) return std::nullopt;
    for (size_t k = n; k < 3; ++k) ms *= 10;
  }
  int64_t offset_min = 0;
  if (i < s.size()) {
    char z = s[i];
    if (z == 'Z' || z == 'z') {
      ++i;
    } else if (z == '+' || z == '-') {
      ++i;
      int oh, om;
      if (!read_digits(s, &i, 2, &oh)) return std::nullopt;
      if (i < s.size() && s[i] == ':') ++i;
      if (!read_digits(s, &i, 2, &om) || oh > 23 || om > 59) return std::nullopt;
      offset_min = (oh * 60 + om) * (z == '-' ? -1 : 1);
    } else {
      return std::nullopt;
    }
  }
  if (i != s.size()) return std::nullopt;
  if (sec == 60) sec = 59;  // leap second: clamp
  int64_t days = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  int64_t secs = days * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60;
  return secs * 1000 + ms;
}

// ===========================================================================
// LabelBuilder.

std::string_view canonical_label_name(CanonicalLabel c) {
  switch (c) {
    case CanonicalLabel::kService:
      return "service";
    case CanonicalLabel::kLevel:
      return "level";
    case CanonicalLabel::kHost:
      return "host";
    case CanonicalLabel::kNone:
      break;
  }
  return "";
}

LabelBuilder::LabelBuilder(const LabelKeyMap& keys, int max_labels, bool keep_other,
                           const std::vector<std::string>* keep_keys)
    : keys_(keys), max_labels_(std::max(0, max_labels)), keep_other_(keep_other), keep_keys_(keep_keys) {}

CanonicalLabel LabelBuilder::classify(std::string_view key, int* rank) const {
  const std::vector<std::string>* lists[3] = {&keys_.service, &keys_.level, &keys_.host};
  for (int c = 0; c < 3; ++c) {
    const auto& l = *lists[c];
    for (size_t r = 0; r < l.size(); ++r) {
      if (iequals(l[r], key)) {
        if (rank) *rank = static_cast<int>(r);
        return static_cast<CanonicalLabel>(c);
      }
    }
  }
  return CanonicalLabel::kNone;
}

namespace {
bool usable_value(std::string_view v) { return !v.empty() && v.size() <= kMaxLabelValueBytes && text::valid_utf8(v); }
}  // namespace

void LabelBuilder::set(CanonicalLabel c, std::string_view value, int rank) {
  if (c == CanonicalLabel::kNone) return;
  value = trim_blanks(value);
  if (!usable_value(value)) {
    if (!value.empty()) ++dropped_;
    return;
  }
  Slot& s = slots_[static_cast<int>(c)];
  if (rank >= s.rank) return;  // a better (or equal, earlier) source already set it
  s.rank = rank;
  s.value = c == CanonicalLabel::kLevel ? ascii_lower(value) : std::string(value);
}

bool LabelBuilder::add_canonical(std::string_view key, std::string_view value, int priority_offset) {
  int rank = 0;
  CanonicalLabel c = classify(key, &rank);
  if (c == CanonicalLabel::kNone) return false;
  set(c, value, rank + priority_offset);
  return true;
}

void LabelBuilder::add_other(std::string_view key, std::string_view value) {
  value = trim_blanks(value);
  if (key.empty() || key.size() > kMaxLabelKeyBytes || !text::valid_utf8(key) || !usable_value(value)) {
    ++dropped_;
    return;
  }
  for (const auto& [k, v] : others_)
    if (k == key) return;  // first value wins
  // Bounded: more than max_labels others can never be emitted.
  if (others_.size() >= static_cast<size_t>(max_labels_)) {
    ++dropped_;
    return;
  }
  others_.emplace_back(std::string(key), std::string(value));
}

bool LabelBuilder::add(std::string_view key, std::string_view value, int priority_offset) {
  if (add_canonical(key, value, priority_offset)) return true;
  bool keep = keep_other_;
  if (!keep && keep_keys_)
    for (const auto& k : *keep_keys_)
      if (k == key) {
        keep = true;
        break;
      }
  if (!keep) return false;
  add_other(key, value);
  return true;
}

Labels LabelBuilder::finish() {
  Labels out;
  size_t cap = static_cast<size_t>(max_labels_);
  for (int c = 0; c < 3; ++c) {
    if (slots_[c].value.empty()) continue;
    if (out.size() >= cap) {
      ++dropped_;
      continue;
    }
    out.emplace_back(std::string(canonical_label_name(static_cast<CanonicalLabel>(c))), std::move(slots_[c].value));
    slots_[c] = Slot{};
  }
  for (auto& kv : others_) {
    bool clash = false;
    for (const auto& o : out)
      if (o.first == kv.first) clash = true;
    if (clash) continue;
    if (out.size() >= cap) {
      ++dropped_;
      continue;
    }
    out.push_back(std::move(kv));
  }
  others_.clear();
  return out;
}

const LabelKeyMap& structured_label_keys() {
  static const LabelKeyMap m{
      {"service", "app", "service.name", "logger", "component", "SYSLOG_IDENTIFIER", "_SYSTEMD_UNIT"},
      {"level", "severity", "lvl", "log.level", "PRIORITY"},
      {"host", "hostname", "host.name", "_HOSTNAME"},
  };
  return m;
}

// ===========================================================================
// Extraction.

namespace {

void append_utf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool read_hex(std::string_view s, size_t i, size_t n, uint32_t* out) {
  if (i + n > s.size()) return false;
  uint32_t v = 0;
  for (size_t k = 0; k < n; ++k) {
    int h = hex_value(s[i + k]);
    if (h < 0) return false;
    v = (v << 4) | static_cast<uint32_t>(h);
  }
  *out = v;
  return true;
}

// Unescapes the inside of a JSON string (already syntax-checked by the
// scanner). Lone surrogates become U+FFFD.
void json_unescape(std::string_view raw, std::string* out) {
  out->clear();
  out->reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    char e = raw[++i];
    switch (e) {
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'u': {
        uint32_t cp = 0;
        read_hex(raw, i + 1, 4, &cp);
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo = 0;
          if (i + 7 <= raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u' && read_hex(raw, i + 3, 4, &lo) &&
              lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          } else {
            cp = 0xFFFD;
          }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          cp = 0xFFFD;
        }
        append_utf8(cp, out);
        break;
      }
      default:
        out->push_back(e);
        break;  // " \ /
    }
  }
}

// --- A linear JSON scanner: validates a document, returns the top-level
// members of an object (raw views), skips nested values iteratively.

constexpr size_t kMaxJsonDepth = 128;

enum class JKind { kString, kNumber, kTrue, kFalse, kNull, kObject, kArray };

struct JMember {
  std::string_view key;  // raw (escapes not resolved)
  bool key_escaped = false;
  JKind kind = JKind::kNull;
  std::string_view value;  // raw: string contents without quotes, or the whole token/container
  bool value_escaped = false;
};

struct JsonScanner {
  std::string_view s;
  size_t i = 0;

  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool eof() const { return i >= s.size(); }

  bool string(std::string_view* raw, bool* escaped) {
    if (i >= s.size() || s[i] != '"') return false;
    size_t start = ++i;
    bool esc = false;
    while (i < s.size()) {
      unsigned char c = static_cast<unsigned char>(s[i]);
      if (c == '"') {
        *raw = s.substr(start, i - start);
        *escaped = esc;
        ++i;
        return true;
      }
      if (c == '\\') {
        esc = true;
        if (i + 1 >= s.size()) return false;
        char e = s[i + 1];
        if (e == 'u') {
          uint32_t cp;
          if (!read_hex(s, i + 2, 4, &cp)) return false;
          i += 6;
          continue;
        }
        if (!std::strchr("\"\\/bfnrt", e) || e == '\0') return false;
        i += 2;
        continue;
      }
      if (c < 0x20) return false;
      ++i;
    }
    return false;
  }

  bool number() {
    size_t st = i;
    if (i < s.size() && s[i] == '-') ++i;
    if (i >= s.size()) return false;
    if (s[i] == '0') {
      ++i;
    } else if (s[i] >= '1' && s[i] <= '9') {
      while (i < s.size() && is_digit(s[i])) ++i;
    } else {
      return false;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      size_t d = i;
      while (i < s.size() && is_digit(s[i])) ++i;
      if (i == d) return false;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
      size_t d = i;
      while (i < s.size() && is_digit(s[i])) ++i;
      if (i == d) return false;
    }
    return i > st;
  }

  bool literal(std::string_view lit) {
    if (s.substr(i, lit.size()) != lit) return false;
    i += lit.size();
    return true;
  }

  // A scalar at i (string, number, literal); sets kind.
  bool scalar(JKind* kind, std::string_view* raw, bool* escaped) {
    if (eof()) return false;
    char c = s[i];
    size_t st = i;
    *escaped = false;
    if (c == '"') {
      *kind = JKind::kString;
      return string(raw, escaped);
    }
    if (c == 't') {
      *kind = JKind::kTrue;
      if (!literal("true")) return false;
    } else if (c == 'f') {
      *kind = JKind::kFalse;
      if (!literal("false")) return false;
    } else if (c == 'n') {
      *kind = JKind::kNull;
      if (!literal("null")) return false;
    } else {
      *kind = JKind::kNumber;
      if (!number()) return false;
    }
    *raw = s.substr(st, i - st);
    return true;
  }

  bool key_colon() {
    std::string_view k;
    bool e;
    ws();
    if (!string(&k, &e)) return false;
    ws();
    if (eof() || s[i] != ':') return false;
    ++i;
    return true;
  }

  // Skips one value of any kind (iteratively, depth-limited).
  bool value() {
    ws();
    if (eof()) return false;
    if (s[i] != '{' && s[i] != '[') {
      JKind k;
      std::string_view r;
      bool e;
      return scalar(&k, &r, &e);
    }
    std::string stack;  // expected closers
    for (;;) {
      // Here a value starts at i (after ws).
      ws();
      if (eof()) return false;
      char c = s[i];
      bool closed_value = false;
      if (c == '{' || c == '[') {
        if (stack.size() >= kMaxJsonDepth) return false;
        stack.push_back(c == '{' ? '}' : ']');
        ++i;
        ws();
        if (eof()) return false;
        if (s[i] == stack.back()) {
          ++i;
          stack.pop_back();
          closed_value = true;
        } else if (stack.back() == '}') {
          if (!key_colon()) return false;
          continue;
        } else {
          continue;
        }
      } else {
        JKind k;
        std::string_view r;
        bool e;
        if (!scalar(&k, &r, &e)) return false;
        closed_value = true;
      }
      // After a complete value: commas and closers.
      while (closed_value) {
        if (stack.empty()) return true;
        ws();
        if (eof()) return false;
        char d = s[i];
        if (d == ',') {
          ++i;
          if (stack.back() == '}' && !key_colon()) return false;
          break;  // next value
        }
        if (d == stack.back()) {
          ++i;
          stack.pop_back();
          continue;
        }
        return false;
      }
    }
  }

  // Parses a whole object starting at i; fills members (top level only).
  // Requires the object to end at end-of-input (after blanks).
  bool object(std::vector<JMember>* members) {
    ws();
    if (eof() || s[i] != '{') return false;
    ++i;
    ws();
    if (eof()) return false;
    if (s[i] == '}') {
      ++i;
      ws();
      return eof();
    }
    for (;;) {
      JMember m;
      ws();
      if (!string(&m.key, &m.key_escaped)) return false;
      ws();
      if (eof() || s[i] != ':') return false;
      ++i;
      ws();
      if (eof()) return false;
      if (s[i] == '{' || s[i] == '[') {
        m.kind = s[i] == '{' ? JKind::kObject : JKind::kArray;
        size_t st = i;
        if (!value()) return false;
        m.value = s.substr(st, i - st);
      } else if (!scalar(&m.kind, &m.value, &m.value_escaped)) {
        return false;
      }
      members->push_back(m);
      ws();
      if (eof()) return false;
      if (s[i] == ',') {
        ++i;
        continue;
      }
      if (s[i] == '}') {
        ++i;
        ws();
        return eof();
      }
      return false;
    }
  }
};

// The text of a scalar member: unescaped strings, numbers and booleans as
// written; nullopt for null, objects and arrays.
std::optional<std::string_view> member_text(const JMember& m, std::string* tmp) {
  switch (m.kind) {
    case JKind::kString:
      if (!m.value_escaped) return m.value;
      json_unescape(m.value, tmp);
      return std::string_view(*tmp);
    case JKind::kNumber:
    case JKind::kTrue:
    case JKind::kFalse:
      return m.value;
    default:
      return std::nullopt;
  }
}

std::string_view member_key(const JMember& m, std::string* tmp) {
  if (!m.key_escaped) return m.key;
  json_unescape(m.key, tmp);
  return *tmp;
}

// pino / bunyan numeric levels.
std::string_view numeric_level(std::string_view v) {
  if (v == "10") return "trace";
  if (v == "20") return "debug";
  if (v == "30") return "info";
  if (v == "40") return "warn";
  if (v == "50") return "error";
  if (v == "60") return "fatal";
  return {};
}

constexpr std::string_view kCallerKeys[] = {"caller", "source", "logger", "logger_name", "file"};

// Reads the members of a JSON object (already scanned) into labels; returns
// the index of the message member, or -1.
struct JsonFields {
  int message_index = -1;
  std::string caller;
};

void json_labels(const std::vector<JMember>& members, int skip_index, const StructuredOptions& opts, LabelBuilder* lb) {
  std::string kt, vt;
  for (size_t idx = 0; idx < members.size(); ++idx) {
    if (static_cast<int>(idx) == skip_index) continue;
    const JMember& m = members[idx];
    std::string_view key = member_key(m, &kt);
    if (m.kind == JKind::kObject && key == "labels") {
      // Explicit labels (logsift's envelope form): every scalar member kept.
      JsonScanner inner{m.value};
      std::vector<JMember> lm;
      if (!inner.object(&lm)) continue;
      std::string ikt, ivt;
      for (const auto& l : lm) {
        std::string_view lk = member_key(l, &ikt);
        auto lv = member_text(l, &ivt);
        if (!lv) continue;
        if (!lb->add_canonical(lk, *lv)) lb->add_other(lk, *lv);
      }
      continue;
    }
    bool is_message_key = false;
    for (const auto& mk : opts.message_keys)
      if (mk == key) is_message_key = true;
    if (is_message_key) continue;
    auto text = member_text(m, &vt);
    if (!text) continue;
    if (m.kind == JKind::kNumber && lb->classify(key) == CanonicalLabel::kLevel) {
      std::string_view nl = numeric_level(*text);
      if (!nl.empty()) text = nl;
    }
    // journald's PRIORITY is a syslog severity, "0".."7", as a string.
    if (text->size() == 1 && (*text)[0] >= '0' && (*text)[0] <= '7' && iequals(key, "PRIORITY"))
      text = syslog_severity_name((*text)[0] - '0');
    lb->add(key, *text);
  }
}

std::string json_caller(const std::vector<JMember>& members) {
  std::string kt, vt;
  for (std::string_view ck : kCallerKeys) {
    for (const auto& m : members) {
      if (member_key(m, &kt) != ck) continue;
      if (m.kind != JKind::kString) continue;
      auto v = member_text(m, &vt);
      if (!v || trim_blanks(*v).empty()) continue;
      std::string caller(trim_blanks(*v));
      if (ck == "file") {
        for (const auto& l : members)
          if (member_key(l, &kt) == "line" && l.kind == JKind::kNumber) caller += ":" + std::string(l.value);
      }
      return caller;
    }
  }
  return {};
}

// Picks the message member: the first message key (in opts order) holding a
// non-blank string. Sets *text (a view of the line or of *scratch).
int json_message(const std::vector<JMember>& members, const StructuredOptions& opts, std::string* scratch,
                 std::string_view* text) {
  std::string kt;
  for (const auto& mk : opts.message_keys) {
    for (size_t idx = 0; idx < members.size(); ++idx) {
      const JMember& m = members[idx];
      if (m.kind != JKind::kString || member_key(m, &kt) != mk) continue;
      std::string_view v;
      if (m.value_escaped) {
        std::string tmp;
        json_unescape(m.value, &tmp);
        if (trim_blanks(tmp).empty()) continue;
        *scratch = std::move(tmp);
        v = *scratch;
      } else {
        v = m.value;
        if (trim_blanks(v).empty()) continue;
      }
      *text = v;
      return static_cast<int>(idx);
    }
  }
  return -1;
}

// Puts "caller=<caller> " in front of the message (in scratch).
std::string_view with_caller(std::string_view caller, std::string_view message, std::string* scratch) {
  std::string r;
  r.reserve(caller.size() + message.size() + 8);
  r += "caller=";
  r += caller;
  r += ' ';
  r += message;
  *scratch = std::move(r);
  return *scratch;
}

bool try_json(std::string_view line, const StructuredOptions& opts, StructuredLine* out, std::string* scratch) {
  JsonScanner sc{line};
  std::vector<JMember> members;
  if (!sc.object(&members)) return false;
  std::string_view msg;
  int mi = json_message(members, opts, scratch, &msg);
  if (mi < 0) return false;
  LabelBuilder lb(structured_label_keys(), opts.max_labels, false, &opts.keep_keys);
  json_labels(members, mi, opts, &lb);
  if (opts.keep_caller) {
    std::string caller = json_caller(members);
    if (!caller.empty()) msg = with_caller(caller, msg, scratch);
  }
  out->message = msg;
  out->labels = lb.finish();
  out->kind = "json";
  return true;
}

// --- Go-style quoted strings (logfmt and klog values, strconv.Quote).

// At s[i] == '"': finds the closing quote (backslash escapes skipped). Sets
// *end to the index after it, *escaped if any backslash.
bool find_quoted_end(std::string_view s, size_t i, size_t* end, bool* escaped) {
  if (i >= s.size() || s[i] != '"') return false;
  bool esc = false;
  for (size_t k = i + 1; k < s.size(); ++k) {
    if (s[k] == '\\') {
      esc = true;
      ++k;
      continue;
    }
    if (s[k] == '"') {
      *end = k + 1;
      *escaped = esc;
      return true;
    }
  }
  return false;
}

// Unescapes the inside of a Go-quoted string.
bool go_unquote(std::string_view raw, std::string* out) {
  out->clear();
  out->reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (++i >= raw.size()) return false;
    char e = raw[i];
    uint32_t cp = 0;
    switch (e) {
      case 'a':
        out->push_back('\a');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'v':
        out->push_back('\v');
        break;
      case '\\':
      case '"':
      case '\'':
        out->push_back(e);
        break;
      case 'x':
        if (!read_hex(raw, i + 1, 2, &cp)) return false;
        out->push_back(static_cast<char>(cp));
        i += 2;
        break;
      case 'u':
        if (!read_hex(raw, i + 1, 4, &cp)) return false;
        append_utf8(cp >= 0xD800 && cp <= 0xDFFF ? 0xFFFD : cp, out);
        i += 4;
        break;
      case 'U':
        if (!read_hex(raw, i + 1, 8, &cp)) return false;
        append_utf8(cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0xFFFD : cp, out);
        i += 8;
        break;
      default:
        if (e >= '0' && e <= '7') {  // \ooo
          if (i + 3 > raw.size()) return false;
          int v = 0;
          for (int k = 0; k < 3; ++k) {
            char o = raw[i + k];
            if (o < '0' || o > '7') return false;
            v = v * 8 + (o - '0');
          }
          if (v > 255) return false;
          out->push_back(static_cast<char>(v));
          i += 2;
          break;
        }
        return false;
    }
  }
  return true;
}

struct KvPair {
  std::string_view key;
  std::string_view value;  // raw: inside the quotes when quoted
  bool quoted = false;
  bool escaped = false;
};

bool is_key_char(char c) { return c > ' ' && c != '=' && c != '"' && c != 0x7f; }

// Parses `k=v k2="q v"` pairs separated by blanks, from s[i] to the end.
// Every token must be a pair. Returns false otherwise.
bool parse_pairs(std::string_view s, size_t i, std::vector<KvPair>* pairs) {
  for (;;) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i >= s.size()) return true;
    size_t ks = i;
    while (i < s.size() && is_key_char(s[i])) ++i;
    if (i == ks || i >= s.size() || s[i] != '=') return false;
    KvPair p;
    p.key = s.substr(ks, i - ks);
    ++i;  // '='
    if (i < s.size() && s[i] == '"') {
      size_t end;
      if (!find_quoted_end(s, i, &end, &p.escaped)) return false;
      p.value = s.substr(i + 1, end - i - 2);
      p.quoted = true;
      i = end;
      if (i < s.size() && s[i] != ' ' && s[i] != '\t') return false;
    } else {
      size_t vs = i;
      while (i < s.size() && s[i] != ' ' && s[i] != '\t') {
        if (s[i] == '"' || s[i] == '=') return false;
        ++i;
      }
      p.value = s.substr(vs, i - vs);
    }
    pairs->push_back(p);
  }
}

std::optional<std::string_view> pair_text(const KvPair& p, std::string* tmp) {
  if (!p.escaped) return p.value;
  if (!go_unquote(p.value, tmp)) return std::nullopt;
  return std::string_view(*tmp);
}

void pair_labels(const std::vector<KvPair>& pairs, int skip, const StructuredOptions& opts, LabelBuilder* lb,
                 std::string* caller) {
  std::string tmp;
  for (size_t idx = 0; idx < pairs.size(); ++idx) {
    if (static_cast<int>(idx) == skip) continue;
    const KvPair& p = pairs[idx];
    bool is_message_key = false;
    for (const auto& mk : opts.message_keys)
      if (mk == p.key) is_message_key = true;
    if (is_message_key) continue;
    auto v = pair_text(p, &tmp);
    if (!v) continue;
    if (caller && caller->empty())
      for (std::string_view ck : kCallerKeys)
        if (ck == p.key && !trim_blanks(*v).empty()) *caller = std::string(trim_blanks(*v));
    lb->add(p.key, *v);
  }
}

bool try_logfmt(std::string_view line, const StructuredOptions& opts, StructuredLine* out, std::string* scratch) {
  // Cheap reject: a logfmt line starts with a key and has an '=' early on.
  size_t eq = line.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  std::vector<KvPair> pairs;
  if (!parse_pairs(line, 0, &pairs) || pairs.size() < 2) return false;
  int mi = -1;
  std::string_view msg;
  for (const auto& mk : opts.message_keys) {
    for (size_t idx = 0; idx < pairs.size() && mi < 0; ++idx) {
      if (pairs[idx].key != mk) continue;
      std::string tmp;
      auto v = pair_text(pairs[idx], &tmp);
      if (!v || trim_blanks(*v).empty()) continue;
      if (pairs[idx].escaped) {
        *scratch = std::move(tmp);
        msg = *scratch;
      } else {
        msg = *v;
      }
      mi = static_cast<int>(idx);
    }
    if (mi >= 0) break;
  }
  if (mi < 0) return false;
  LabelBuilder lb(structured_label_keys(), opts.max_labels, false, &opts.keep_keys);
  std::string caller;
  pair_labels(pairs, mi, opts, &lb, opts.keep_caller ? &caller : nullptr);
  if (opts.keep_caller && !caller.empty()) msg = with_caller(caller, msg, scratch);
  out->message = msg;
  out->labels = lb.finish();
  out->kind = "logfmt";
  return true;
}

// klog / glog header: Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg
bool try_klog(std::string_view line, const StructuredOptions& opts, StructuredLine* out, std::string* scratch) {
  if (line.size() < 30) return false;
  std::string_view level;
  switch (line[0]) {
    case 'I':
      level = "info";
      break;
    case 'W':
      level = "warning";
      break;
    case 'E':
      level = "error";
      break;
    case 'F':
      level = "fatal";
      break;
    default:
      return false;
  }
  // "Immdd hh:mm:ss.uuuuuu"
  static constexpr std::string_view kShape = "0000 00:00:00.000000";
  for (size_t k = 0; k < kShape.size(); ++k) {
    char c = line[1 + k];
    if (kShape[k] == '0' ? !is_digit(c) : c != kShape[k]) return false;
  }
  size_t i = 1 + kShape.size();
  if (i >= line.size() || line[i] != ' ') return false;
  while (i < line.size() && line[i] == ' ') ++i;
  size_t ds = i;
  while (i < line.size() && is_digit(line[i])) ++i;
  if (i == ds || i >= line.size() || line[i] != ' ') return false;
  ++i;
  // file:line]
  size_t fs = i;
  while (i < line.size() && line[i] != ']' && line[i] != ' ') ++i;
  if (i >= line.size() || line[i] != ']') return false;
  std::string_view file_line = line.substr(fs, i - fs);
  size_t colon = file_line.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == file_line.size()) return false;
  for (size_t k = colon + 1; k < file_line.size(); ++k)
    if (!is_digit(file_line[k])) return false;
  ++i;  // ']'
  if (i < line.size() && line[i] == ' ') ++i;
  std::string_view rest = line.substr(i);

  LabelBuilder lb(structured_label_keys(), opts.max_labels, false, &opts.keep_keys);
  lb.set(CanonicalLabel::kLevel, level, 1 << 20);  // a key=value level, if any, wins
  std::string_view msg = rest;
  std::string kind = "klog";
  size_t qend;
  bool esc;
  if (!rest.empty() && rest[0] == '"' && find_quoted_end(rest, 0, &qend, &esc)) {
    std::vector<KvPair> pairs;
    if (qend == rest.size() || ((rest[qend] == ' ') && parse_pairs(rest, qend, &pairs))) {
      std::string tmp;
      std::string_view inner = rest.substr(1, qend - 2);
      bool ok = true;
      if (esc) {
        ok = go_unquote(inner, &tmp);
      }
      if (ok) {
        if (esc) {
          *scratch = std::move(tmp);
          msg = *scratch;
        } else {
          msg = inner;
        }
        kind = "klog-structured";
        pair_labels(pairs, -1, opts, &lb, nullptr);
      }
    }
  }
  if (trim_blanks(msg).empty()) return false;
  if (opts.keep_caller) msg = with_caller(file_line, msg, scratch);
  out->message = msg;
  out->labels = lb.finish();
  out->kind = std::move(kind);
  return true;
}

// "free text {json object}": tries the first few " {" positions.
bool try_trailing_json(std::string_view line, const StructuredOptions& opts, StructuredLine* out,
                       std::string* scratch) {
  std::string_view t = trim_blanks(line);
  if (t.size() < 4 || t.back() != '}') return false;
  int tries = 0;
  size_t pos = 0;
  while (tries < 4) {
    pos = t.find(" {", pos);
    if (pos == std::string_view::npos) return false;
    ++tries;
    JsonScanner sc{t.substr(pos + 1)};
    std::vector<JMember> members;
    if (sc.object(&members)) {
      std::string_view msg = trim_blanks(t.substr(0, pos));
      if (msg.empty()) return false;
      LabelBuilder lb(structured_label_keys(), opts.max_labels, false, &opts.keep_keys);
      json_labels(members, -1, opts, &lb);
      if (opts.keep_caller) {
        std::string caller = json_caller(members);
        if (!caller.empty()) msg = with_caller(caller, msg, scratch);
      }
      out->message = msg;
      out->labels = lb.finish();
      out->kind = "text+json";
      return true;
    }
    pos += 2;
  }
  return false;
}

// --- Java layouts ------------------------------------------------------------

// "yyyy-mm-dd[T ]hh:mm:ss[.,frac][Z|+hh:mm|+hhmm]" or logback's "hh:mm:ss.SSS"
// at s[*i]; advances *i past it.
bool skip_java_time(std::string_view s, size_t* i, char end = ' ') {
  auto digits = [&](size_t at, size_t n) {
    if (at + n > s.size()) return false;
    for (size_t k = at; k < at + n; ++k)
      if (!is_digit(s[k])) return false;
    return true;
  };
  size_t j = *i;
  if (digits(j, 4) && j + 10 < s.size() && (s[j + 4] == '-' || s[j + 4] == '/') && digits(j + 5, 2) &&
      s[j + 7] == s[j + 4] && digits(j + 8, 2) && (s[j + 10] == 'T' || s[j + 10] == ' '))
    j += 11;  // yyyy-mm-dd, or Go's yyyy/mm/dd
  if (!(digits(j, 2) && j + 8 <= s.size() && s[j + 2] == ':' && digits(j + 3, 2) && s[j + 5] == ':' &&
        digits(j + 6, 2)))
    return false;
  const bool date = j != *i;
  j += 8;
  if (j < s.size() && (s[j] == '.' || s[j] == ',') && digits(j + 1, 1)) {
    ++j;
    while (j < s.size() && is_digit(s[j])) ++j;
  } else if (!date) {
    return false;  // a bare hh:mm:ss is too little to go on
  }
  if (j < s.size() && s[j] == 'Z') {
    ++j;
  } else if (j < s.size() && (s[j] == '+' || s[j] == '-') && digits(j + 1, 2)) {
    j += 3;
    if (j < s.size() && s[j] == ':') ++j;
    if (digits(j, 2)) j += 2;
  }
  if (j >= s.size() || s[j] != end) return false;
  *i = j;
  return true;
}

void skip_blanks(std::string_view s, size_t* i) {
  while (*i < s.size() && s[*i] == ' ') ++*i;
}

// The run of upper-case letters at s[i]: where a layout writes its level word.
std::string_view upper_run(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && s[j] >= 'A' && s[j] <= 'Z') ++j;
  return s.substr(i, j - i);
}

// Whether `w` is one of a library's level names.
bool one_of(std::string_view w, std::span<const std::string_view> names) {
  return std::find(names.begin(), names.end(), w) != names.end();
}

// An upper-case level word at s[*i], then a blank.
bool read_java_level(std::string_view s, size_t* i, std::string_view* level) {
  static constexpr std::string_view kLevels[] = {"TRACE", "DEBUG", "INFO", "WARN", "WARNING", "ERROR", "FATAL", "SEVERE"};
  const std::string_view w = upper_run(s, *i);
  const size_t j = *i + w.size();
  if (j >= s.size() || s[j] != ' ' || !one_of(w, kLevels)) return false;
  *level = w;
  *i = j;
  return true;
}

// "[...]" at s[*i] (no nesting; a thread name may hold blanks and '|').
bool skip_bracket(std::string_view s, size_t* i) {
  if (*i >= s.size() || s[*i] != '[') return false;
  const size_t close = s.find(']', *i + 1);
  if (close == std::string_view::npos || close - *i > 256) return false;
  *i = close + 1;
  return *i < s.size() && s[*i] == ' ';
}

// A character of a logger name: a Java class, a dotted or hyphenated name.
bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '.' || c == '_' || c == '-' ||
         c == '$';
}

// Python logging's level names, the LEVEL of its "LEVEL:name:msg".
constexpr std::string_view kPythonLevels[] = {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"};

// A logger name (a Java class or a dotted name) at s[*i], then blanks, then
// `sep` and a blank. Returns the logger.
bool read_java_logger(std::string_view s, size_t* i, char sep, std::string_view* logger) {
  const size_t b = *i;
  size_t j = b;
  while (j < s.size() && s[j] != ' ') {
    if (!is_name_char(s[j])) return false;
    ++j;
  }
  if (j == b || j - b > 256) return false;
  *logger = s.substr(b, j - b);
  skip_blanks(s, &j);
  if (j + 1 >= s.size() || s[j] != sep || s[j + 1] != ' ') return false;
  *i = j + 2;
  return true;
}

// The default text layouts of the JVM's logging libraries (see structured.h).
bool try_java_layout(std::string_view line, const StructuredOptions& opts, StructuredLine* out,
                     std::string* scratch) {
  size_t i = 0;
  if (line.size() < 24 || !is_digit(line[0]) || !skip_java_time(line, &i)) return false;
  skip_blanks(line, &i);
  if (i >= line.size()) return false;
  std::string_view level, logger;
  if (line[i] == '[') {
    // logback: TIME [THREAD] LEVEL LOGGER - MSG
    if (!skip_bracket(line, &i)) return false;
    skip_blanks(line, &i);
    if (!read_java_level(line, &i, &level)) return false;
    skip_blanks(line, &i);
    if (!read_java_logger(line, &i, '-', &logger)) return false;
  } else {
    if (!read_java_level(line, &i, &level)) return false;
    skip_blanks(line, &i);
    if (i < line.size() && is_digit(line[i])) {
      // Spring Boot: TIME LEVEL PID --- [APP] [THREAD] LOGGER : MSG
      while (i < line.size() && is_digit(line[i])) ++i;
      if (line.substr(i, 5) != " --- ") return false;
      i += 5;
      skip_blanks(line, &i);
      if (!skip_bracket(line, &i)) return false;
      skip_blanks(line, &i);
      if (i < line.size() && line[i] == '[' && !skip_bracket(line, &i)) return false;  // [APP] [THREAD]
      skip_blanks(line, &i);
      if (!read_java_logger(line, &i, ':', &logger)) return false;
    } else {
      // log4j / logback PatternLayout: TIME LEVEL [THREAD] LOGGER - MSG
      if (!skip_bracket(line, &i)) return false;
      skip_blanks(line, &i);
      if (!read_java_logger(line, &i, '-', &logger)) return false;
    }
  }
  std::string_view msg = trim_blanks(line.substr(i));
  if (msg.empty()) return false;
  LabelBuilder lb(structured_label_keys(), opts.max_labels, false, &opts.keep_keys);
  lb.set(CanonicalLabel::kLevel, level);
  lb.set(CanonicalLabel::kService, logger);
  if (opts.keep_caller) msg = with_caller(logger, msg, scratch);
  out->message = msg;
  out->labels = lb.finish();
  out->kind = "java";
  return true;
}

// --- other application layouts (layouts-v2, layouts-v3) -----------------------

bool is_level_word(std::string_view w);

// A level at s[*i]: a bare upper-case level word, or any case in brackets
// ("[INFO]", "[warn]", Apache's "[core:error]": the module goes to *module).
bool read_any_level(std::string_view s, size_t* i, std::string_view* level, std::string_view* module = nullptr) {
  size_t j = *i;
  if (j < s.size() && s[j] == '[') {
    const size_t close = s.find(']', j + 1);
    if (close == std::string_view::npos || close - j > 48) return false;
    std::string_view in = s.substr(j + 1, close - j - 1);
    std::string_view mod;
    if (const size_t colon = in.rfind(':'); colon != std::string_view::npos && module) {
      mod = in.substr(0, colon);
      in = in.substr(colon + 1);
      for (char c : mod)
        if (!is_name_char(c)) return false;
    }
    if (!is_level_word(in)) return false;
    *level = in;
    if (module) *module = mod;
    *i = close + 1;
    return true;
  }
  while (j < s.size() && s[j] >= 'A' && s[j] <= 'Z') ++j;
  if (j == *i || !is_level_word(s.substr(*i, j - *i))) return false;
  *level = s.substr(*i, j - *i);
  *i = j;
  return true;
}

// A logger name at s[*i] (at most 256 bytes); advances *i past it.
bool read_name(std::string_view s, size_t* i, std::string_view* name) {
  size_t j = *i;
  while (j < s.size() && is_name_char(s[j])) ++j;
  if (j == *i || j - *i > 256) return false;
  *name = s.substr(*i, j - *i);
  *i = j;
  return true;
}

// A logger name then `suffix`.
bool read_name_then(std::string_view s, size_t* i, std::string_view suffix, std::string_view* name) {
  size_t j = *i;
  if (!read_name(s, &j, name) || s.substr(j, suffix.size()) != suffix) return false;
  *i = j + suffix.size();
  return true;
}

// A logger name then "[PID]: ".
bool read_name_pid(std::string_view s, size_t* i, std::string_view* name) {
  size_t j = *i;
  if (!read_name(s, &j, name) || j >= s.size() || s[j] != '[') return false;
  size_t k = j + 1;
  while (k < s.size() && is_digit(s[k])) ++k;
  if (k == j + 1 || s.substr(k, 3) != "]: ") return false;
  *i = k + 3;
  return true;
}

// Apache httpd's error-log date "[Www Mmm dd hh:mm:ss[.frac] yyyy]" at s[*i].
bool skip_apache_date(std::string_view s, size_t* i) {
  size_t j = *i;
  if (s.size() < j + 26 || s[j] != '[' || s[j + 4] != ' ' || s[j + 8] != ' ' ||
      month_index(s.substr(j + 5, 3)) == 0)
    return false;
  const size_t close = s.find(']', j + 1);
  if (close == std::string_view::npos || close - j > 40 || s.substr(j + 1, close - j).find(':') == std::string_view::npos)
    return false;
  *i = close + 1;
  return true;
}

// layouts-v3: a bracketed date that ends in a blank-separated zone, as
// gunicorn writes it ("[2024-05-01 12:00:00 +0000]"), at s[*i] = '['.
bool skip_bracketed_date(std::string_view s, size_t* i, bool zone_after_blank) {
  size_t j = *i + 1;
  if (skip_java_time(s, &j, ']')) {
    *i = j + 1;
    return true;
  }
  j = *i + 1;
  if (!zone_after_blank || !skip_java_time(s, &j, ' ')) return false;
  ++j;
  if (j + 6 > s.size() || (s[j] != '+' && s[j] != '-') || s[j + 5] != ']') return false;
  for (size_t k = j + 1; k < j + 5; ++k)
    if (!is_digit(s[k])) return false;
  *i = j + 6;
  return true;
}

// A Rust module path ("my_crate::net::server") at s[*i], then `suffix`.
bool read_rust_target_then(std::string_view s, size_t* i, std::string_view suffix, std::string_view* target) {
  size_t j = *i;
  while (j < s.size()) {
    if (s[j] == ':' && j + 1 < s.size() && s[j + 1] == ':')
      j += 2;
    else if (is_name_char(s[j]) && s[j] != '.' && s[j] != '$')
      ++j;
    else
      break;
  }
  std::string_view t = s.substr(*i, j - *i);
  if (t.empty() || t.size() > 256 || t.find("::") == std::string_view::npos || t.back() == ':') return false;
  if (s.substr(j, suffix.size()) != suffix) return false;
  *target = t;
  *i = j + suffix.size();
  return true;
}

// Ruby's Logger: "I, [2024-05-01T12:00:00.123456 #1234]  INFO -- progname: msg"
// (an empty progname leaves "-- : msg"); the first letter repeats the level.
bool read_ruby_header(std::string_view line, size_t* i, std::string_view* level, std::string_view* logger) {
  static constexpr std::string_view kRuby[] = {"DEBUG", "INFO", "WARN", "ERROR", "FATAL", "ANY"};
  const size_t n = line.size();
  if (n < 12 || line.substr(1, 3) != ", [") return false;
  size_t j = 4;
  if (!skip_java_time(line, &j, ' ') || j + 2 >= n || line[j + 1] != '#') return false;
  j += 2;
  const size_t pid = j;
  while (j < n && is_digit(line[j])) ++j;
  if (j == pid || j >= n || line[j] != ']') return false;
  ++j;
  skip_blanks(line, &j);
  const std::string_view lv = upper_run(line, j);
  j += lv.size();
  if (!one_of(lv, kRuby) || lv[0] != line[0] || line.substr(j, 4) != " -- ") return false;
  j += 4;
  if (line.substr(j, 2) == ": ") {
    *logger = {};
    j += 2;
  } else if (!read_name_then(line, &j, ": ", logger)) {
    return false;
  }
  *level = lv;
  *i = j;
  return true;
}

// A Go caller "path/file.go:NN" (zap's, klog's).
bool is_go_caller(std::string_view f) {
  const size_t colon = f.rfind(':');
  if (colon == std::string_view::npos || colon < 4 || f.substr(colon - 3, 3) != ".go" || colon + 1 == f.size())
    return false;
  for (size_t k = colon + 1; k < f.size(); ++k)
    if (!is_digit(f[k])) return false;
  for (size_t k = 0; k < colon; ++k)
    if (f[k] == ' ' || f[k] == '\t') return false;
  return true;
}

// Go's log package with Lshortfile or Llongfile: a "name.go:NN: " at s[*i]
// (no colon in the name) is the caller, constant per statement; it goes like
// klog's.
void skip_go_shortfile(std::string_view s, size_t* i) {
  size_t j = *i;
  while (j < s.size() && s[j] != ' ' && s[j] != ':') ++j;
  if (j >= s.size() || s[j] != ':') return;
  size_t k = j + 1;
  while (k < s.size() && is_digit(s[k])) ++k;
  if (s.substr(k, 2) == ": " && is_go_caller(s.substr(*i, k - *i))) *i = k + 2;
}

// zap's console encoder (zap.NewDevelopment's default), tab-separated at s[0]:
// "TIME\tLEVEL\t[name\t][caller\t]msg[\t{fields}]". The fields (a JSON
// object) are not part of the statement: *end is where the message ends.
bool read_zap_console(std::string_view s, size_t* i, size_t* end, std::string_view* level, std::string_view* logger,
                      std::string_view* caller) {
  static constexpr std::string_view kZap[] = {"DEBUG", "INFO", "WARN", "ERROR", "DPANIC", "PANIC", "FATAL"};
  size_t j = 0;
  if (!skip_java_time(s, &j, '\t')) return false;
  const std::string_view lv = upper_run(s, ++j);
  j += lv.size();
  if (!one_of(lv, kZap) || j >= s.size() || s[j] != '\t') return false;
  ++j;
  // A logger name is only known as one when a caller follows it.
  std::string_view name, call;
  const size_t t1 = s.find('\t', j);
  if (t1 != std::string_view::npos) {
    std::string_view f1 = s.substr(j, t1 - j);
    if (is_go_caller(f1)) {
      call = f1;
      j = t1 + 1;
    } else if (const size_t t2 = s.find('\t', t1 + 1); t2 != std::string_view::npos && is_go_caller(s.substr(t1 + 1, t2 - t1 - 1))) {
      size_t k = j;
      if (read_name(s, &k, &name) && k == t1) {
        call = s.substr(t1 + 1, t2 - t1 - 1);
        j = t2 + 1;
      } else {
        name = {};
      }
    }
  }
  size_t e = s.size();
  while (e > j && is_blank(s[e - 1])) --e;
  if (e > j && s[e - 1] == '}') {
    const size_t fields = s.rfind("\t{", e - 1);
    if (fields != std::string_view::npos && fields >= j) e = fields;
  }
  *i = j;
  *end = e;
  *level = lv;
  *logger = name;
  *caller = call;
  return true;
}

// layouts-v3's bracketed headers, read whole at s[0] = '[':
//   Rust's env_logger  [DATE LEVEL target] msg
//   spdlog             [DATE] [name] [level] msg
//   gunicorn           [DATE +zone] [pid] [LEVEL] msg   (the pid goes)
//   PHP's Monolog      [DATE] channel.LEVEL: msg
bool read_bracketed_header_v3(std::string_view s, size_t* i, std::string_view* level, std::string_view* logger) {
  const size_t n = s.size();
  std::string_view lv, name;
  size_t j = 1;
  if (skip_java_time(s, &j, ' ')) {
    skip_blanks(s, &j);
    if (read_any_level(s, &j, &lv) && j < n && s[j] == ' ') {
      skip_blanks(s, &j);
      const size_t at = j;
      bool target = read_rust_target_then(s, &j, "] ", &name);
      if (!target) {
        j = at;  // a crate name alone
        target = read_name_then(s, &j, "] ", &name);
      }
      if (target) {
        *level = lv;
        *logger = name;
        *i = j;
        return true;
      }
    }
  }
  j = 0;
  if (!skip_bracketed_date(s, &j, true) || j + 1 >= n || s[j] != ' ') return false;
  ++j;
  if (s[j] == '[') {
    size_t k = j + 1;
    if (!read_name_then(s, &k, "] ", &name) || !read_any_level(s, &k, &lv) || k >= n || s[k] != ' ') return false;
    bool pid = true;
    for (char c : name) pid = pid && is_digit(c);
    *level = lv;
    *logger = pid ? std::string_view() : name;
    *i = k;
    return true;
  }
  if (!read_name(s, &j, &name) || s.substr(j, 2) != ": ") return false;
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  lv = name.substr(dot + 1);
  if (lv.empty() || upper_run(lv, 0).size() != lv.size() || !(is_level_word(lv) || lv == "EMERGENCY")) return false;
  *level = lv;
  *logger = name.substr(0, dot);
  *i = j + 2;
  return true;
}

// Text layouts of Python's logging, Go programs, Kafka, nginx and Apache
// httpd (see structured.h). The message is the rest, the level and a logger
// become labels; the date, pids, thread and connection numbers go.
bool try_text_layout(std::string_view line, const StructuredOptions& opts, StructuredLine* out,
                     std::string* scratch) {
  const size_t n = line.size();
  size_t i = 0;
  std::string_view level, logger;
  bool bracketed_date = false;  // Kafka's layout: then a logger may close the line
  const bool v3 = opts.app_layouts >= 3;
  size_t msg_end = n;
  std::string_view caller;  // zap's console: file.go:NN
  if (v3 && line[0] == '[' && read_bracketed_header_v3(line, &i, &level, &logger)) {
    // env_logger, spdlog, gunicorn, Monolog: read whole
  } else if (v3 && is_digit(line[0]) && read_zap_console(line, &i, &msg_end, &level, &logger, &caller)) {
    // zap's console encoder: read whole
  } else if (v3 && line[0] >= 'A' && line[0] <= 'Z' && n > 4 && line[1] == ',') {
    if (!read_ruby_header(line, &i, &level, &logger)) return false;
  } else if (line[0] >= 'A' && line[0] <= 'Z') {
    // Python's basicConfig(): LEVEL:name:msg
    level = upper_run(line, 0);
    const size_t j = level.size();
    if (!one_of(level, kPythonLevels) || j >= n || line[j] != ':') return false;
    i = j + 1;
    if (!read_name_then(line, &i, ":", &logger)) return false;
  } else if (line[0] == '[' && skip_apache_date(line, &i)) {
    // Apache httpd: [date] [module:level] [pid N:tid N] [client ip:port] msg
    // (2.2: [date] [level] [client ip] msg)
    skip_blanks(line, &i);
    std::string_view module;
    if (!read_any_level(line, &i, &level, &module)) return false;
    logger = module;
    for (std::string_view f : {std::string_view("[pid "), std::string_view("[client "), std::string_view("[remote ")}) {
      skip_blanks(line, &i);
      if (line.substr(i, f.size()) == f && !skip_bracket(line, &i)) return false;
    }
  } else {
    // DATE TIME LEVEL msg, [DATE TIME] LEVEL msg (Kafka), DATE TIME [LEVEL] msg
    // (Go, nginx, HashiCorp), DATE TIME - name - LEVEL - msg (Python)
    if (line[0] == '[') {
      if (!skip_bracketed_date(line, &i, v3)) return false;
      bracketed_date = true;
    } else if (!is_digit(line[0]) || !skip_java_time(line, &i)) {
      return false;
    }
    const bool go_date = !bracketed_date && line[4] == '/';
    skip_blanks(line, &i);
    if (line.substr(i, 2) == "- ") {
      i += 2;
      if (!read_name_then(line, &i, " - ", &logger)) return false;
      size_t j = i;
      while (j < n && line[j] >= 'A' && line[j] <= 'Z') ++j;
      if (!is_level_word(line.substr(i, j - i)) || line.substr(j, 3) != " - ") return false;
      level = line.substr(i, j - i);
      i = j + 3;
    } else if (size_t j = i; read_any_level(line, &j, &level) && j < n && line[j] == ' ') {
      i = j;
      skip_blanks(line, &i);
      const size_t at = i;
      if (v3 && read_rust_target_then(line, &i, ": ", &logger)) {
        // Rust's tracing: DATE LEVEL target: msg
      } else if (i = at; !read_name_pid(line, &i, &logger)) {  // name[pid]: msg
        i = at;
        logger = {};
        // nginx: pid#tid: [*connection ]msg
        size_t j = i;
        while (j < n && is_digit(line[j])) ++j;
        if (j > i && j < n && line[j] == '#') {
          size_t k = j + 1;
          while (k < n && is_digit(line[k])) ++k;
          if (k > j + 1 && line.substr(k, 2) == ": ") {
            i = k + 2;
            if (i < n && line[i] == '*') {
              size_t c = i + 1;
              while (c < n && is_digit(line[c])) ++c;
              if (c > i + 1 && c < n && line[c] == ' ') i = c + 1;
            }
          }
        }
      }
    } else if (v3 && go_date) {
      level = {};  // Go's log package: no level
      skip_go_shortfile(line, &i);
    } else {
      return false;
    }
  }
  std::string_view msg = trim_blanks(line.substr(i, msg_end - i));
  if (bracketed_date && !msg.empty() && msg.back() == ')') {
    // Kafka's log4j layout "[%d] %p %m (%c)": the logger closes the line.
    const size_t open = msg.rfind(" (");
    if (open != std::string_view::npos) {
      std::string_view name = msg.substr(open + 2, msg.size() - open - 3);
      bool ok = !name.empty() && name.find('.') != std::string_view::npos;
      for (char c : name) ok = ok && is_name_char(c);
      if (ok) {
        logger = name;
        msg = trim_blanks(msg.substr(0, open));
      }
    }
  }
  if (msg.empty()) return false;
  LabelBuilder lb(structured_label_keys(), opts.max_labels, false, &opts.keep_keys);
  if (!level.empty()) lb.set(CanonicalLabel::kLevel, level);
  if (!logger.empty()) lb.set(CanonicalLabel::kService, logger);
  if (opts.keep_caller && (!caller.empty() || !logger.empty()))
    msg = with_caller(caller.empty() ? logger : caller, msg, scratch);
  out->message = msg;
  out->labels = lb.finish();
  out->kind = "app";
  return true;
}

// --- syslog header ---------------------------------------------------------

bool is_level_word(std::string_view w) {
  static constexpr std::string_view kLevels[] = {"trace", "debug",    "info",  "information", "notice", "warn",
                                                 "warning", "error",  "err",   "crit",        "critical", "fatal",
                                                 "alert",   "emerg",  "panic", "severe"};
  for (std::string_view l : kLevels)
    if (iequals(w, l)) return true;
  return false;
}

// Takes a syslog header off `line` (see structured.h); false if it has none.
bool try_syslog_text(std::string_view line, int max_labels, SyslogMessage* msg) {
  std::string error;
  SyslogParseOptions po;
  po.now_ms = 1;  // the date is not used: skip the clock
  po.max_sd_params = 0;
  po.max_labels = max_labels;
  if (!parse_syslog(line, msg, &error, po)) return false;
  if (trim_blanks(msg->message).empty()) return false;
  if (msg->severity >= 0) return true;  // "<PRI>": a syslog frame
  if (msg->timestamp_ms == 0 || msg->app_name.empty()) return false;
  const size_t end = static_cast<size_t>(msg->app_name.data() - line.data()) + msg->app_name.size();
  if (end >= line.size() || (line[end] != ':' && line[end] != '[')) return false;
  return msg->hostname.empty() || !is_level_word(msg->hostname);
}

}  // namespace

bool may_start_with_syslog_header(std::string_view t) {
  if (t.size() < 8) return false;
  if (t[0] == '<') return is_digit(t[1]);
  if (t[0] >= 'A' && t[0] <= 'S') return t[3] == ' ' && month_index(t.substr(0, 3)) != 0;  // months: A..S
  return t.size() >= 11 && is_digit(t[0]) && is_digit(t[3]) && t[4] == '-' && t[7] == '-' && t[10] == 'T';
}

bool may_start_with_app_layout(std::string_view t, int version) {
  if (version >= 2 && t.size() >= 8) {
    if (t[0] == '[') return is_digit(t[1]) || (t[1] >= 'A' && t[1] <= 'Z' && t[4] == ' ');  // a date, Apache's "[Www "
    if (version >= 3 && t[0] >= 'A' && t[0] <= 'Z' && t.substr(1, 3) == ", [") return true;  // Ruby's Logger
    if (t[0] >= 'A' && t[0] <= 'Z') {  // Python's LEVEL:name:
      for (std::string_view l : kPythonLevels)
        if (t.starts_with(l) && t.size() > l.size() && t[l.size()] == ':') return true;
      return false;
    }
  }
  if (t.size() < 19 || !is_digit(t[0])) return false;
  size_t i = 0;
  if (skip_java_time(t, &i)) return true;
  i = 0;
  return version >= 3 && skip_java_time(t, &i, '\t');  // zap's console encoder
}

bool may_be_structured(std::string_view line, const StructuredOptions& opts) {
  // Every other form has '=', '{' or a klog "file.go:NN]" marker.
  if (line.find_first_of("={]") != std::string_view::npos) return true;
  const std::string_view t = trim_blanks(line);
  return (opts.syslog_headers && may_start_with_syslog_header(t)) || (opts.app_layouts > 0 && may_start_with_app_layout(t, opts.app_layouts));
}

bool unquote_go_string(std::string_view inner, std::string* out) { return go_unquote(inner, out); }

bool extract_structured(std::string_view line, const StructuredOptions& opts, StructuredLine* out,
                        std::string* scratch) {
  out->message = {};
  out->labels.clear();
  out->structured = false;
  out->kind.clear();
  scratch->clear();
  std::string_view t = trim_blanks(line);
  bool ok = false;
  bool syslog = false;
  Labels syslog_labels;
  if (opts.syslog_headers && may_start_with_syslog_header(t)) {
    SyslogMessage sm;
    if (try_syslog_text(t, opts.max_labels, &sm)) {
      syslog = true;
      t = trim_blanks(sm.message);
      syslog_labels = std::move(sm.labels);  // service, level, host, as the syslog listener maps them
    }
  }
  if (!t.empty()) {
    if (opts.app_layouts > 0 && is_digit(t[0])) ok = try_java_layout(t, opts, out, scratch);
    if (!ok && opts.app_layouts >= 2 && (is_digit(t[0]) || t[0] == '[' || (t[0] >= 'A' && t[0] <= 'Z')))
      ok = try_text_layout(t, opts, out, scratch);
    if (!ok && t.front() == '{') ok = try_json(t, opts, out, scratch);
    if (!ok && (t[0] == 'I' || t[0] == 'W' || t[0] == 'E' || t[0] == 'F')) ok = try_klog(t, opts, out, scratch);
    if (!ok && t.front() != '{') ok = try_logfmt(t, opts, out, scratch);
    if (!ok && opts.split_trailing_json) ok = try_trailing_json(t, opts, out, scratch);
  }
  if (syslog) {
    if (!ok) {
      out->message = t;
      out->labels.clear();
      out->kind = "syslog";
    } else {
      out->kind = "syslog+" + out->kind;
    }
    // The line's own fields win; the header fills what they leave out.
    merge_labels(&out->labels, syslog_labels, opts.max_labels);
    out->structured = true;
    return true;
  }
  if (!ok) {
    out->message = line;
    out->labels.clear();
    out->kind = "text";
    return false;
  }
  out->structured = true;
  return true;
}

}  // namespace logsift
