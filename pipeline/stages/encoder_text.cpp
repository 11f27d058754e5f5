#include "pipeline/stages/encoder_text.h"

#include <array>
#include <string_view>

#include "pipeline/core/wildcards.h"

namespace logsift {
namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool pkg_head(char c) { return is_lower(c) || c == '_'; }
bool pkg_body(char c) { return is_lower(c) || (c >= '0' && c <= '9') || c == '_'; }
bool prefix_stop(char c) { return is_alnum(c) || c == '_' || c == '.' || c == '$'; }

bool iequals_ascii(std::string_view a, std::string_view lower_b) {
  if (a.size() != lower_b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (is_upper(c)) c = static_cast<char>(c - 'A' + 'a');
    if (c != lower_b[i]) return false;
  }
  return true;
}

std::string strip_caused_by(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0, n = s.size();
  while (i < n) {
    if ((s[i] == 'c' || s[i] == 'C') && (i == 0 || !is_alnum(s[i - 1])) && i + 9 <= n &&
        iequals_ascii(s.substr(i, 9), "caused by")) {
      size_t j = i + 9;
      while (j < n && is_ws(s[j])) ++j;
      if (j < n && s[j] == ':') {
        ++j;
        while (j < n && is_ws(s[j])) ++j;
        i = j;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

std::string strip_packages(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0, n = s.size();
  while (i < n) {
    if (pkg_head(s[i]) && (i == 0 || !prefix_stop(s[i - 1]))) {
      size_t j = i;
      size_t end = std::string_view::npos;
      while (j < n && pkg_head(s[j])) {
        size_t k = j + 1;
        while (k < n && pkg_body(s[k])) ++k;
        if (k < n && s[k] == '.') {
          j = k + 1;
          if (j < n && is_upper(s[j])) end = j;
        } else {
          break;
        }
      }
      if (end != std::string_view::npos) {
        i = end;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

std::string squeeze_ws(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool pending = false;
  for (char c : s) {
    if (is_ws(c)) {
      pending = !out.empty();
    } else {
      if (pending) out += ' ';
      pending = false;
      out += c;
    }
  }
  return out;
}

bool is_glue(char c) { return c == '-' || c == '_' || c == '.'; }

// A word glued to "<*>" by one of -_. is part of the variable ("checkout-<*>").
std::string absorb_glued(std::string s) {
  static constexpr std::string_view kWild = "<*>";
  bool changed = true;
  while (changed) {
    changed = false;
    size_t i = s.find(kWild);
    while (i != std::string::npos) {
      if (i >= 2 && is_glue(s[i - 1]) && is_alnum(s[i - 2])) {
        size_t j = i - 2;
        while (j > 0 && is_alnum(s[j - 1])) --j;
        s.erase(j, i - j);
        i = j;
        changed = true;
        continue;
      }
      size_t k = i + 3;
      if (k + 1 < s.size() && is_glue(s[k]) && is_alnum(s[k + 1])) {
        size_t e = k + 1;
        while (e < s.size() && is_alnum(s[e])) ++e;
        s.erase(k, e - k);
        changed = true;
        continue;
      }
      i = s.find(kWild, i + 3);
    }
  }
  return s;
}

// Trailing cause phrases (lower case): transport-level reasons (resolver,
// timeouts, EOF, signals). Not errno texts: loghub's BGL separates events by
// them. Must equal models/training/encoder/text.py:CAUSES (the shared cases
// file has one case per phrase).
constexpr std::array kCauses = {
    "temporary failure in name resolution",
    "name or service not known",
    "no address associated with hostname",
    "name does not resolve",
    "connect timed out",
    "read timed out",
    "i/o timeout",
    "context deadline exceeded",
    "context canceled",
    "unexpected eof",
    "eof",
    "socket closed",
    "killed",
    "signal <*>",
    "exit code <*>",
    "exit status <*>"
};

bool has_alnum(std::string_view s) {
  for (char c : s)
    if (is_alnum(c)) return true;
  return false;
}

bool in_causes(std::string_view lower) {
  for (std::string_view p : kCauses)
    if (p == lower) return true;
  return false;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (is_upper(c)) c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// Smallest cut such that s[cut, end) is SEP + " " + cause (SEP one of ":", ";",
// "," or " -") with a letter or digit before cut; npos if none.
size_t best_cut(std::string_view s, std::string_view low, size_t end) {
  size_t best = std::string_view::npos;
  std::string_view core = low.substr(0, end);
  for (std::string_view p : kCauses) {
    if (core.size() < p.size() || core.substr(core.size() - p.size()) != p) continue;
    size_t start = end - p.size();
    if (start < 2 || s[start - 1] != ' ') continue;
    size_t cut;
    if (s[start - 2] == ':' || s[start - 2] == ';' || s[start - 2] == ',') cut = start - 2;
    else if (s[start - 2] == '-' && start >= 3 && s[start - 3] == ' ') cut = start - 3;
    else continue;
    if (has_alnum(s.substr(0, cut)) && (best == std::string_view::npos || cut < best)) best = cut;
  }
  return best;
}

std::string strip_cause_once(const std::string& s) {
  const std::string low = to_lower(s);
  size_t ends[2] = {s.size(), std::string::npos};
  if (!s.empty() && s.back() == ')') {
    size_t o = s.rfind('(');
    if (o != std::string::npos && o >= 1 && s[o - 1] == ' ' &&
        std::string_view(s).substr(o + 1, s.size() - o - 2).find(')') == std::string_view::npos) {
      if (in_causes(std::string_view(low).substr(o + 1, s.size() - o - 2)) && has_alnum(std::string_view(s).substr(0, o - 1)))
        return s.substr(0, o - 1);
      ends[1] = o - 1;
    }
  }
  for (size_t end : ends) {
    if (end == std::string::npos) continue;
    size_t cut = best_cut(s, low, end);
    if (cut != std::string_view::npos) {
      size_t e = cut;
      while (e > 0 && s[e - 1] == ' ') --e;
      return s.substr(0, e);
    }
  }
  return s;
}

std::string strip_causes(std::string s) {
  for (;;) {
    std::string t = strip_cause_once(s);
    if (t == s) return s;
    s = std::move(t);
  }
}

}  // namespace

std::string canonical_template(std::string_view tmpl) {
  // Stripping a cause only cuts a suffix (and its trailing spaces) off a
  // collapsed string, so the result needs no second collapse.
  return strip_causes(collapse_wildcards(squeeze_ws(absorb_glued(strip_packages(strip_caused_by(tmpl))))));
}

}  // namespace logsift
