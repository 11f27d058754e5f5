#include "pipeline/core/time.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <vector>

#include <re2/re2.h>

#include "pipeline/core/text.h"

namespace logsift {
namespace {

using text::is_digits;
using text::parse_int;
using text::trim;

int month_index(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (name == kMonths[i]) return static_cast<int>(i) + 1;
  }
  return 0;
}

bool parse_clock(std::string_view s, int& h, int& m, int& sec) {
  return s.size() == 8 && s[2] == ':' && s[5] == ':' && parse_int(s.substr(0, 2), h) &&
         parse_int(s.substr(3, 2), m) && parse_int(s.substr(6, 2), sec) && h < 24 && m < 60 &&
         sec <= 60;
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view s) {
  std::vector<std::string_view> tok;
  while (!(s = trim(s)).empty()) {
    const size_t end = std::min(s.find(' '), s.size());
    tok.push_back(s.substr(0, end));
    s.remove_prefix(end);
  }
  int day = 0, month = 0, year = 0, h = 0, m = 0, sec = 0;
  if (tok.size() == 6 && tok[0].size() == 4 && tok[0].back() == ',') {
    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
    if (tok[5] != "GMT" || tok[1].size() != 2 || tok[3].size() != 4 || !parse_int(tok[1], day) ||
        (month = month_index(tok[2])) == 0 || !parse_int(tok[3], year) ||
        !parse_clock(tok[4], h, m, sec)) {
      return std::nullopt;
    }
  } else if (tok.size() == 4 && tok[0].size() > 1 && tok[0].back() == ',') {
    // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT"
    const std::string_view d = tok[1];
    if (tok[3] != "GMT" || d.size() != 9 || d[2] != '-' || d[6] != '-' ||
        !parse_int(d.substr(0, 2), day) || (month = month_index(d.substr(3, 3))) == 0 ||
        !parse_int(d.substr(7, 2), year) || !parse_clock(tok[2], h, m, sec)) {
      return std::nullopt;
    }
    year += year < 70 ? 2000 : 1900;
  } else if (tok.size() == 5) {
    // asctime: "Sun Nov  6 08:49:37 1994"
    if ((month = month_index(tok[1])) == 0 || tok[2].size() > 2 || !parse_int(tok[2], day) ||
        !parse_clock(tok[3], h, m, sec) || tok[4].size() != 4 || !parse_int(tok[4], year)) {
      return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  const std::chrono::year_month_day ymd{std::chrono::year(year),
                                        std::chrono::month(static_cast<unsigned>(month)),
                                        std::chrono::day(static_cast<unsigned>(day))};
  if (!ymd.ok()) return std::nullopt;
  const std::chrono::sys_seconds t =
      std::chrono::sys_days(ymd) + std::chrono::hours(h) + std::chrono::minutes(m) + std::chrono::seconds(sec);
  // system_clock counts nanoseconds in 64 bits (years 1678..2262): a date
  // outside that is well-formed but clamped to the clock's range, not
  // converted with a signed overflow (found by fuzz_webhook).
  using TimePoint = std::chrono::system_clock::time_point;
  const int64_t limit = std::chrono::duration_cast<std::chrono::seconds>(TimePoint::duration::max()).count();
  const int64_t secs = t.time_since_epoch().count();
  if (secs >= limit) return TimePoint::max();
  if (secs <= -limit) return TimePoint::min();
  return std::chrono::time_point_cast<TimePoint::duration>(t);
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string format_time_ms(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

std::optional<int64_t> parse_duration_ms(std::string_view text) {
  static const RE2 re("([0-9]+)(ms|s|m|h|d)?");
  std::string num, unit;
  if (!RE2::FullMatch(re2::StringPiece(text.data(), text.size()), re, &num, &unit)) return std::nullopt;
  if (num.size() > 12) return std::nullopt;
  const int64_t n = std::stoll(num);
  const int64_t scale = unit.empty() || unit == "ms" ? 1
                        : unit == "s"                ? 1000
                        : unit == "m"                ? 60000
                        : unit == "h"                ? 3600000
                                                     : 86400000;
  // At most 1000 years (no overflow: 1e12 * 86400000 would not fit in 64 bits).
  constexpr int64_t kMaxMs = int64_t{1000} * 365 * 86400000;
  if (n > kMaxMs / scale) return std::nullopt;
  return n * scale;
}


int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

namespace {

using text::is_digit;

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

}  // namespace logsift
