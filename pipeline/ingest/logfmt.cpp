// logfmt lines (key=value key2="quoted value") and Go-style quoted strings,
// which klog's structured form shares.
#include "pipeline/ingest/structured_forms.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/text.h"
#include "pipeline/ingest/labels.h"

namespace logsift::structured_detail {

using text::trim_blanks;

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
    if (const char ctl = control_escape(e)) {
      out->push_back(ctl);
      continue;
    }
    uint32_t cp = 0;
    switch (e) {
      case 'a':
        out->push_back('\a');
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

}  // namespace logsift::structured_detail

namespace logsift {

bool unquote_go_string(std::string_view inner, std::string* out) { return structured_detail::go_unquote(inner, out); }

}  // namespace logsift
