// JSON object lines and "free text {json object}" lines (winston): a linear
// scanner that validates the document and returns its top-level members,
// then the message member and the labels.
#include "pipeline/ingest/structured_forms.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/text.h"
#include "pipeline/ingest/labels.h"
#include "pipeline/ingest/syslog_message.h"

namespace logsift::structured_detail {

using text::hex_value;
using text::iequals;
using text::is_digit;
using text::trim_blanks;


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
    if (const char ctl = control_escape(e)) {
      out->push_back(ctl);
      continue;
    }
    switch (e) {
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

// Offers the members of a JSON object (already scanned) as labels, but the
// message member (skip_index) and the message keys; "labels" objects are
// read as explicit labels.
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


// Fills *out for a message found with the object's `members`: the labels
// (all members but the message, index skip), the caller in front when
// opts.keep_caller, and the form's kind.
void finish_json(const std::vector<JMember>& members, int skip, std::string_view msg, const char* kind,
                 const StructuredOptions& opts, StructuredLine* out, std::string* scratch) {
  LabelBuilder lb(structured_label_keys(), opts.max_labels, false, &opts.keep_keys);
  json_labels(members, skip, opts, &lb);
  if (opts.keep_caller) {
    std::string caller = json_caller(members);
    if (!caller.empty()) msg = with_caller(caller, msg, scratch);
  }
  out->message = msg;
  out->labels = lb.finish();
  out->kind = kind;
}

bool try_json(std::string_view line, const StructuredOptions& opts, StructuredLine* out, std::string* scratch) {
  JsonScanner sc{line};
  std::vector<JMember> members;
  if (!sc.object(&members)) return false;
  std::string_view msg;
  int mi = json_message(members, opts, scratch, &msg);
  if (mi < 0) return false;
  finish_json(members, mi, msg, "json", opts, out, scratch);
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
      finish_json(members, -1, msg, "text+json", opts, out, scratch);
      return true;
    }
    pos += 2;
  }
  return false;
}

}  // namespace logsift::structured_detail
