// Small text helpers shared by the header-value parsers (HTTP dates,
// Retry-After, webhook URLs).
#pragma once

#include <algorithm>
#include <charconv>
#include <string_view>

namespace logsift::text {

inline bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Strips spaces and tabs at both ends.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Digits only (no sign, no spaces), and the value fits in an int.
inline bool parse_int(std::string_view s, int& out) {
  if (!is_digits(s)) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace logsift::text
