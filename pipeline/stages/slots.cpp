#include "pipeline/stages/slots.h"

#include <algorithm>
#include <vector>

#include "pipeline/core/text.h"

namespace logsift {
namespace {

// The byte of a delimiter token (delimiters are single bytes).
char delim_char(std::string_view line, const Token& t) { return line[t.begin]; }

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool is_blank_tok(std::string_view line, const Token& t) {
  return t.kind == TokenKind::kDelim && is_blank(delim_char(line, t));
}

bool is_delim(std::string_view line, const Token& t, char c) {
  return t.kind == TokenKind::kDelim && delim_char(line, t) == c;
}

// A word or a pre-masked span (whose bytes the rules never read).
bool is_solid(const Token& t) { return t.kind != TokenKind::kDelim; }

void mark(std::span<Token> toks, size_t b, size_t e) {
  for (size_t i = b; i < e; ++i) toks[i].mark = kMarkVar;
}

// --- access --------------------------------------------------------------

struct Field {
  enum Kind { kBare, kBracket, kQuoted } kind;
  size_t inner_begin, inner_end;  // the tokens inside the brackets / quotes, or the bare run
};

// Calls on_field(field) for each blank-separated field in order, until it
// returns false; false if it did, or if the line does not have that shape (a
// bracket or quote never closed, text glued to a closing bracket or quote).
// No allocation: this runs on every new line, on the threads that run the
// model stages too.
template <class OnField>
bool scan_fields(std::string_view line, std::span<const Token> toks, OnField&& on_field) {
  size_t i = 0;
  const size_t n = toks.size();
  while (i < n) {
    if (is_blank_tok(line, toks[i])) {
      ++i;
      continue;
    }
    const char open = toks[i].kind == TokenKind::kDelim ? delim_char(line, toks[i]) : 0;
    if (open == '[' || open == '"') {
      const char close = open == '[' ? ']' : '"';
      size_t j = i + 1;
      while (j < n && !is_delim(line, toks[j], close)) ++j;
      if (j == n) return false;
      if (!on_field(Field{open == '[' ? Field::kBracket : Field::kQuoted, i + 1, j})) return false;
      i = j + 1;
      if (i < n && !is_blank_tok(line, toks[i])) return false;
      continue;
    }
    size_t j = i;
    while (j < n && !is_blank_tok(line, toks[j])) ++j;
    if (!on_field(Field{Field::kBare, i, j})) return false;
    i = j;
  }
  return true;
}

// A status or byte count: one pre-masked span (a number) or "-".
bool is_count_field(std::string_view line, std::span<const Token> toks, const Field& f) {
  if (f.kind != Field::kBare || f.inner_end != f.inner_begin + 1) return false;
  const Token& t = toks[f.inner_begin];
  if (t.kind == TokenKind::kVar) return true;
  return t.kind == TokenKind::kWord && line.substr(t.begin, t.end - t.begin) == "-";
}

bool has_span(std::span<const Token> toks, const Field& f) {
  for (size_t i = f.inner_begin; i < f.inner_end; ++i)
    if (toks[i].kind == TokenKind::kVar) return true;
  return false;
}

bool is_kept_key(std::string_view key, const std::vector<std::string>& keys) {
  for (const auto& k : keys)
    if (text::iequals(key, k)) return true;
  return false;
}

// The key of a value starting at token v: `key=v`, `key: v`, `"key": v`
// (blanks after the ':' allowed); "" if none.
std::string_view key_of(std::string_view line, std::span<const Token> toks, size_t v) {
  size_t i = v;
  while (i > 0 && is_blank_tok(line, toks[i - 1])) --i;
  if (i == 0 || toks[i - 1].kind != TokenKind::kDelim) return {};
  const char sep = delim_char(line, toks[i - 1]);
  if (sep == '=' && i != v) return {};  // key=value has no blanks
  if (sep != '=' && sep != ':') return {};
  --i;
  if (i > 0 && toks[i - 1].kind == TokenKind::kWord) return line.substr(toks[i - 1].begin, toks[i - 1].end - toks[i - 1].begin);
  if (i > 2 && is_delim(line, toks[i - 1], '"') && toks[i - 2].kind == TokenKind::kWord && is_delim(line, toks[i - 3], '"'))
    return line.substr(toks[i - 2].begin, toks[i - 2].end - toks[i - 2].begin);
  return {};
}

// --- errtail --------------------------------------------------------------

std::string_view text_of(std::string_view line, const Token& t) { return line.substr(t.begin, t.end - t.begin); }

// An unmarked word that says something failed. `toks[i]` is a word.
bool is_failure_word(std::string_view line, std::span<const Token> toks, size_t i) {
  static constexpr std::string_view kWords[] = {"error", "errors",    "failed",  "fail",   "fails",
                                                "failure", "unable",  "cannot",  "problem", "exception",
                                                "refused", "denied",  "invalid"};
  const std::string_view w = text_of(line, toks[i]);
  for (std::string_view k : kWords)
    if (text::iequals(w, k)) return true;
  const size_t n = toks.size();
  // could not; couldn't, can't (the apostrophe is a delimiter of its own).
  if (text::iequals(w, "could") && i + 2 < n && is_blank_tok(line, toks[i + 1]) && toks[i + 2].kind == TokenKind::kWord &&
      toks[i + 2].mark != kMarkVar && text::iequals(text_of(line, toks[i + 2]), "not"))
    return true;
  if ((text::iequals(w, "couldn") || text::iequals(w, "can")) && i + 2 < n && is_delim(line, toks[i + 1], '\'') &&
      toks[i + 2].kind == TokenKind::kWord && text::iequals(text_of(line, toks[i + 2]), "t"))
    return true;
  return false;
}

bool has_letter(std::string_view w) {
  for (char c : w)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return false;
}

}  // namespace

bool mark_error_tail(std::string_view line, std::span<Token> toks) {
  const size_t n = toks.size();
  size_t words = 0;      // solid tokens of the current clause
  bool failure = false;  // the clause has a failure word
  bool in_quote = false; // inside a double-quoted span
  for (size_t i = 0; i < n; ++i) {
    const Token& t = toks[i];
    const bool dash = t.kind != TokenKind::kVar && t.end == t.begin + 1 && line[t.begin] == '-' && i > 0 && i + 1 < n &&
                      is_blank_tok(line, toks[i - 1]) && is_blank_tok(line, toks[i + 1]);
    if (t.kind != TokenKind::kDelim && !dash) {
      ++words;
      if (!failure && t.kind == TokenKind::kWord && t.mark != kMarkVar) failure = is_failure_word(line, toks, i);
      continue;
    }
    const char c = delim_char(line, t);
    if (c == '"') in_quote = !in_quote;
    const bool blank_next = i + 1 < n && is_blank_tok(line, toks[i + 1]);
    // ", ", "; " and " - " start a new clause too: "Request failed - status: 500"
    // is a status, not a cause. (A lone '-' is a word or a delimiter token.)
    if (dash || ((c == ',' || c == ';') && blank_next)) {
      words = 0;
      failure = false;
      continue;
    }
    if (c != ':' || !blank_next) continue;
    // ": " ends a clause.
    if (failure && words >= 2 && i > 0 && !is_delim(line, toks[i - 1], '"') && !is_delim(line, toks[i - 1], '\'')) {
      size_t b = i + 1;
      while (b < n && is_blank_tok(line, toks[b])) ++b;
      // The cause ends at ", " (the statement's own text goes on: ",
      // retrying", ", skipping"), at the closing quote, or at the line end.
      size_t e = b;
      while (e < n && !(in_quote && is_delim(line, toks[e], '"')) &&
             !(is_delim(line, toks[e], ',') && e + 1 < n && is_blank_tok(line, toks[e + 1])))
        ++e;
      while (e > b && is_blank_tok(line, toks[e - 1])) --e;
      bool cause = false;
      for (size_t k = b; k < e && !cause; ++k)
        cause = toks[k].kind == TokenKind::kWord && toks[k].mark != kMarkVar && has_letter(text_of(line, toks[k]));
      if (!cause) return false;
      mark(toks, b, e);
      return true;
    }
    words = 0;
    failure = false;
  }
  return false;
}

std::vector<std::string> slot_rule_kept_keys(const std::vector<std::string>& message_keys) {
  std::vector<std::string> keys = message_keys;
  keys.emplace_back("caller");
  return keys;
}

// A quoted HTTP request line: METHOD, a blank, ..., a word "HTTP/...".
bool is_request_field(std::string_view line, std::span<const Token> toks, const Field& f) {
  static constexpr std::string_view kMethods[] = {"GET",     "POST",    "PUT",   "DELETE", "PATCH",
                                                  "HEAD",    "OPTIONS", "TRACE", "CONNECT"};
  if (f.kind != Field::kQuoted || f.inner_end < f.inner_begin + 3) return false;
  const Token& m = toks[f.inner_begin];
  if (m.kind != TokenKind::kWord || !is_blank_tok(line, toks[f.inner_begin + 1])) return false;
  bool method = false;
  for (std::string_view k : kMethods) method |= text_of(line, m) == k;
  if (!method) return false;
  for (size_t i = f.inner_begin + 2; i < f.inner_end; ++i)
    if (toks[i].kind == TokenKind::kWord && text_of(line, toks[i]).starts_with("HTTP/")) return true;
  return false;
}

// Every field of the line is one variable (an access line keeps only its
// field structure).
void mark_all_fields(std::string_view line, std::span<Token> toks) {
  scan_fields(line, toks, [&](const Field& f) {
    mark(toks, f.inner_begin, f.inner_end);
    return true;
  });
}

// (slots-v3) Any access-log layout: a quoted request line followed by a
// status (a number), within the first eight of `fields` (the line's first
// `count` <= 9), in a line of seven or more (Envoy and Istio, Traefik, many
// proxies).
bool is_wide_access_line(std::string_view line, std::span<const Token> toks, const Field* fields, size_t count) {
  if (count < 7) return false;
  for (size_t k = 0; k + 1 < count && k < 8; ++k) {
    const Field& st = fields[k + 1];
    if (is_request_field(line, toks, fields[k]) && st.kind == Field::kBare && st.inner_end == st.inner_begin + 1 &&
        toks[st.inner_begin].kind == TokenKind::kVar)
      return true;
  }
  return false;
}

bool mark_access_line(std::string_view line, std::span<Token> toks, bool wide) {
  // One scan serves both rules. The first nine fields decide; the NCSA rule
  // needs the rest only for their shape, so the scan goes on to the line end
  // only when the 4th or 5th field is a bracket. Otherwise it stops at the
  // 5th field, or at the 9th for the wide rule.
  Field fields[9];
  size_t count = 0;
  const bool whole = scan_fields(line, toks, [&](const Field& f) {
    if (count < 9) fields[count] = f;
    ++count;
    if (count < 5 || fields[3].kind == Field::kBracket || fields[4].kind == Field::kBracket) return true;
    return wide && count < 9;
  });
  // The wide rule needs its nine fields (or the whole line, if shorter) well formed.
  if (wide && (whole || count >= 9) && is_wide_access_line(line, toks, fields, std::min<size_t>(count, 9))) {
    mark_all_fields(line, toks);
    return true;
  }
  if (!whole || count < 7) return false;
  // [vhost] host ident user [time] "request" status bytes ...
  size_t off;
  if (fields[3].kind == Field::kBracket)
    off = 0;
  else if (count >= 8 && fields[4].kind == Field::kBracket)
    off = 1;
  else
    return false;
  if (count < off + 7) return false;
  for (size_t k = 0; k < off + 2; ++k)
    if (fields[k].kind != Field::kBare) return false;
  if (fields[off + 2].kind == Field::kBracket) return false;  // user: bare or quoted
  const Field& time = fields[off + 3];
  if (time.inner_begin == time.inner_end || !has_span(toks, time)) return false;  // a pre-masked timestamp inside
  if (fields[off + 4].kind != Field::kQuoted) return false;
  if (!is_count_field(line, toks, fields[off + 5]) || !is_count_field(line, toks, fields[off + 6])) return false;
  mark_all_fields(line, toks);
  return true;
}

bool mark_backtick_spans(std::string_view line, std::span<Token> toks) {
  // The tokenizer keeps a backtick with its word: `x` is one word token, `a b`
  // two. A span opens at a word that starts with '`' after the line start or a
  // delimiter and closes at the first word that ends with '`' before the line
  // end or a delimiter.
  bool any = false;
  const size_t n = toks.size();
  for (size_t i = 0; i < n; ++i) {
    const Token& t = toks[i];
    if (t.kind != TokenKind::kWord || line[t.begin] != '`' || (i > 0 && is_solid(toks[i - 1]))) continue;
    auto closes = [&](size_t j) {
      const Token& c = toks[j];
      const bool end_ok = j + 1 == n || !is_solid(toks[j + 1]);
      return c.kind == TokenKind::kWord && line[c.end - 1] == '`' && end_ok && (j != i || c.end - c.begin > 2);
    };
    size_t j = i;
    while (j < n && !closes(j)) ++j;
    if (j == n) return any;  // no later span can close either
    mark(toks, i, j + 1);
    any = true;
    i = j;
  }
  return any;
}

bool mark_json_spans(std::string_view line, std::span<Token> toks, const std::vector<std::string>& kept_keys) {
  const size_t n = toks.size();
  size_t first = 0, last = n;  // the first and one past the last non-blank token
  while (first < n && is_blank_tok(line, toks[first])) ++first;
  while (last > first && is_blank_tok(line, toks[last - 1])) --last;
  auto delim_at = [&](size_t k) { return toks[k].kind == TokenKind::kDelim ? delim_char(line, toks[k]) : '\0'; };
  bool any = false;
  for (size_t i = first; i + 1 < last; ++i) {
    const char open = delim_at(i);
    if (open != '{' && open != '[') continue;
    const char prev = i > 0 ? delim_at(i - 1) : ' ';
    if (!(prev == ' ' || prev == '\t' || prev == '=' || prev == ':' || prev == '(')) continue;  // "args[0]", "x{"
    const char next = delim_at(i + 1);
    if (!(next == '"' || next == '\'' || (open == '[' && next == '{'))) continue;
    // Find the matching close: brackets outside strings, strings in the
    // quote that opened them, a quote after a word ending in '\' escaped.
    int depth = 0;
    char in_string = 0;
    size_t string_at = 0;
    bool colon = false, message_key = false;
    size_t k = i;
    for (; k < n; ++k) {
      const char d = delim_at(k);
      if (d == 0) continue;
      if (in_string) {
        const bool escaped = k > 0 && toks[k - 1].kind == TokenKind::kWord && line[toks[k - 1].end - 1] == '\\';
        if (d == in_string && !escaped) {
          in_string = 0;
          // A message key ("msg": ...) keeps its object in the template, as
          // the quoted rule keeps a message value.
          if (k == string_at + 2 && toks[k - 1].kind == TokenKind::kWord && k + 1 < n && delim_at(k + 1) == ':' &&
              is_kept_key(line.substr(toks[k - 1].begin, toks[k - 1].end - toks[k - 1].begin), kept_keys))
            message_key = true;
        }
      } else if (d == '"' || d == '\'') {
        in_string = d;
        string_at = k;
      } else if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        if (--depth == 0) break;
      } else if (d == ':' && depth == 1) {
        colon = true;
      }
    }
    if (k == n) return any;  // never closed: no later opening closes either
    const bool whole_line = i == first && k + 1 == last;
    if (!whole_line && !message_key && (open == '[' || colon)) {
      mark(toks, i, k + 1);
      any = true;
    }
    i = k;
  }
  return any;
}

bool is_unit_word(std::string_view w) {
  // a rate, "MB/s" or "KB/sec", is one word token
  for (std::string_view per : {std::string_view("/s"), std::string_view("/sec")})
    if (w.size() > per.size() && w.substr(w.size() - per.size()) == per) {
      w.remove_suffix(per.size());
      break;
    }
  static constexpr std::string_view kUnits[] = {
      // sizes (SI and IEC, as byte formatters print them) and bits
      "B", "kB", "KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "PiB", "kb", "mb", "gb", "Kb", "Mb", "Gb",
      "byte", "bytes",
      // durations
      "ns", "us", "\xc2\xb5s", "\xce\xbcs", "ms", "s", "sec", "secs", "second", "seconds", "min", "mins", "minute",
      "minutes", "hr", "hrs", "hour", "hours", "day", "days", "msec", "usec", "nsec", "millis", "milliseconds",
      "microseconds", "nanoseconds"};
  for (std::string_view u : kUnits)
    if (w == u) return true;
  return false;
}

bool mark_units(std::string_view line, std::span<Token> toks) {
  bool any = false;
  const size_t n = toks.size();
  for (size_t i = 2; i < n; ++i) {
    const Token& u = toks[i];
    if (u.kind != TokenKind::kWord || u.mark == kMarkVar) continue;
    if (!toks[i - 2].is_var() || !is_delim(line, toks[i - 1], ' ')) continue;
    if (!is_unit_word(line.substr(u.begin, u.end - u.begin))) continue;
    const size_t e = i + 1;
    // The unit ends the value: the line ends, or a delimiter that does not
    // glue it to more ("s=", "s.example", "B-tree").
    if (e < n) {
      if (is_solid(toks[e])) continue;
      const char d = delim_char(line, toks[e]);
      if (d == '=' || d == '-' || d == '_' || d == '/' || d == ':' || d == '@') continue;
      if (d == '.' && e + 1 < n && is_solid(toks[e + 1])) continue;
    }
    mark(toks, i, e);
    any = true;
    i = e - 1;
  }
  return any;
}

bool is_function_word(std::string_view w) {
  static constexpr std::string_view kWords[] = {"a",  "an", "the", "from", "to", "for", "by",   "in",
                                                "on", "at", "with", "of",  "and", "or", "as",  "into",
                                                "onto", "via", "is", "are", "was", "be", "not"};
  if (w.empty() || w.size() > 4) return false;
  for (std::string_view k : kWords)
    if (text::iequals(w, k)) return true;
  return false;
}

bool unmark_function_words(std::string_view line, std::span<Token> toks) {
  bool any = false;
  for (Token& t : toks)
    if (t.kind == TokenKind::kWord && t.mark == kMarkVar && is_function_word(text_of(line, t))) {
      t.mark = kMarkNone;
      any = true;
    }
  return any;
}

void apply_slot_rules(std::string_view line, std::span<Token> toks, const std::vector<std::string>& kept_keys,
                      int version) {
  if (version <= kSlotRulesOff || toks.empty()) return;
  if (version >= 4) unmark_function_words(line, toks);
  if (mark_access_line(line, toks, version >= 3)) return;
  const size_t n = toks.size();

  // quoted: '...', "..." and `...'.
  size_t first = 0, last = n;  // the first and one past the last non-blank token
  while (first < n && is_blank_tok(line, toks[first])) ++first;
  while (last > first && is_blank_tok(line, toks[last - 1])) --last;
  bool give_up_single = false, give_up_double = false;
  for (size_t i = first; i < last; ++i) {
    const Token& t = toks[i];
    char close;
    size_t inner;
    if (t.kind == TokenKind::kDelim && (delim_char(line, t) == '\'' || delim_char(line, t) == '"')) {
      close = delim_char(line, t);
      if (i > 0 && is_solid(toks[i - 1])) continue;  // "Couldn't", "5'"
      inner = i + 1;
    } else if (t.kind == TokenKind::kWord && line[t.begin] == '`' && t.end - t.begin > 1) {
      // GNU style `value': the backtick is glued to the word.
      close = '\'';
      if (i > 0 && is_solid(toks[i - 1])) continue;
      inner = i;
    } else {
      continue;
    }
    bool& give_up = close == '\'' ? give_up_single : give_up_double;
    if (give_up) continue;
    // The first matching quote followed by the end or a delimiter closes it.
    // If none does for this opening, none does for a later one either: stop
    // looking for this quote character (keeps the pass linear).
    size_t j = inner;
    for (; j < last; ++j)
      if (is_delim(line, toks[j], close) && (j + 1 == n || !is_solid(toks[j + 1]))) break;
    if (j >= last) {
      give_up = true;
      continue;
    }
    bool has_value = false;
    for (size_t k = inner; k < j; ++k) has_value |= is_solid(toks[k]);
    const bool whole_line = i == first && j + 1 == last;
    const bool json_key = close == '"' && j + 1 < n && is_delim(line, toks[j + 1], ':');
    // For `value' the backtick is part of the first word, so it goes into the slot.
    if (has_value && !whole_line && !json_key && !is_kept_key(key_of(line, toks, i), kept_keys))
      mark(toks, inner, j);
    i = j;  // continue after the closing quote
  }

  // kv: key=value.
  for (size_t i = 0; i + 2 < n; ++i) {
    const Token& k = toks[i];
    if (k.kind != TokenKind::kWord || !is_delim(line, toks[i + 1], '=') || !is_solid(toks[i + 2])) continue;
    std::string_view key = line.substr(k.begin, k.end - k.begin);
    auto c0 = static_cast<unsigned char>(key[0]);
    bool ok = (c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z') || c0 == '_';
    for (size_t p = 1; ok && p < key.size(); ++p) {
      auto c = static_cast<unsigned char>(key[p]);
      ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
    }
    if (!ok || is_kept_key(key, kept_keys)) continue;
    size_t j = i + 2;
    while (j < n && (is_solid(toks[j]) || is_delim(line, toks[j], ':') || is_delim(line, toks[j], '='))) ++j;
    while (j > i + 2 && !is_solid(toks[j - 1])) --j;  // "a=b:" keeps its trailing ':'
    mark(toks, i + 2, j);
    i = j - 1;
  }

  if (version >= 2) mark_error_tail(line, toks);
  if (version >= 3) {
    mark_json_spans(line, toks, kept_keys);
    mark_backtick_spans(line, toks);
    mark_units(line, toks);
  }
}

}  // namespace logsift
