// Small text helpers shared by every parser (ingest forms, syslog, HTTP
// header values, URLs, format banks): one definition each, ASCII-only by
// design (log keys, levels and numbers are ASCII; locale-dependent <cctype>
// would make parsing differ between machines).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>

namespace logsift::text {

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Space, tab, CR, LF, VT, FF.
inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Lower-cases ASCII letters.
inline std::string ascii_lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = lower(c);
  return r;
}

// ASCII case-insensitive equality.
inline bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower(x) == lower(y); });
}

// The value of a hex digit, -1 for any other byte.
inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline bool is_digits(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_digit); }

// Strips spaces and tabs at both ends.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Trims every blank (is_blank) from both ends.
inline std::string_view trim_blanks(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_blank(s[b])) ++b;
  while (e > b && is_blank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// Digits only (no sign, no spaces), and the value fits in an int.
inline bool parse_int(std::string_view s, int& out) {
  if (!is_digits(s)) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// The length of the well-formed UTF-8 sequence at p[0..n) (n > 0): 1 for
// ASCII, 2-4 for a multi-byte sequence, 0 if it is malformed (a stray
// continuation byte, truncated, overlong, a surrogate, beyond U+10FFFF).
size_t utf8_sequence_length(const unsigned char* p, size_t n);

// Every byte of `s` belongs to a well-formed UTF-8 sequence.
bool valid_utf8(std::string_view s);

}  // namespace logsift::text
