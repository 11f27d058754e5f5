#include "pipeline/ingest/syslog_message.h"

#include <chrono>
#include <string>

#include "pipeline/core/text.h"
#include "pipeline/core/time.h"
#include "pipeline/ingest/labels.h"

namespace logsift {

namespace {
using text::is_digit;
}  // namespace

// ===========================================================================
// Parsing.

std::string_view syslog_severity_name(int severity) {
  static constexpr std::string_view kNames[] = {"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"};
  if (severity < 0 || severity > 7) return "";
  return kNames[severity];
}

int month_index(std::string_view m) {
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (int k = 0; k < 12; ++k)
    if (m == kMonths[k]) return k + 1;
  return 0;
}

namespace {

// The MSG as sent: its indentation kept (the indented frame lines of a
// stack trace need it to be told from other lines), trailing blanks
// dropped; blanks alone: empty. One leading space alone is a relay's
// separator, not indentation: rsyslog's %msg% of a message it received as
// RFC 3164 keeps the space after "tag:".
std::string_view message_text(std::string_view m) {
  const std::string_view t = text::trim_blanks(m);
  if (t.empty()) return t;
  m = m.substr(0, static_cast<size_t>(t.data() - m.data()) + t.size());
  if (m.size() >= 2 && m[0] == ' ' && !text::is_blank(m[1])) m.remove_prefix(1);
  return m;
}

constexpr size_t kMaxHeaderField = 255;

bool printusascii(char c) { return c >= 33 && c <= 126; }

// Parses "<PRI>" at the start. Returns the bytes consumed (0: no PRI), -1 on error.
int parse_pri(std::string_view s, int* pri, std::string* error) {
  if (s.empty() || s[0] != '<') return 0;
  size_t i = 1;
  int v = 0;
  while (i < s.size() && i <= 4 && is_digit(s[i])) v = v * 10 + (s[i++] - '0');
  size_t digits = i - 1;
  if (digits == 0 || digits > 3 || i >= s.size() || s[i] != '>') {
    *error = "invalid PRI: expected '<' 1-3 digits '>'";
    return -1;
  }
  if (v > 191) {
    *error = "invalid PRI " + std::to_string(v) + ": over 191";
    return -1;
  }
  *pri = v;
  return static_cast<int>(i + 1);
}

// Reads a header field (a run of PRINTUSASCII) at s[*i], then one SP (or the
// end). "-" is NILVALUE (empty view).
bool header_field(std::string_view s, size_t* i, std::string_view name, std::string_view* out, bool* at_end,
                  std::string* error) {
  size_t st = *i;
  size_t e = st;
  while (e < s.size() && s[e] != ' ') {
    if (!printusascii(s[e])) {
      *error = "RFC 5424: invalid byte in " + std::string(name);
      return false;
    }
    ++e;
  }
  if (e == st) {
    *error = "RFC 5424: missing " + std::string(name);
    return false;
  }
  if (e - st > kMaxHeaderField) {
    *error = "RFC 5424: " + std::string(name) + " longer than " + std::to_string(kMaxHeaderField) + " bytes";
    return false;
  }
  std::string_view v = s.substr(st, e - st);
  *out = v == "-" ? std::string_view{} : v;
  *at_end = e >= s.size();
  *i = *at_end ? e : e + 1;
  return true;
}

bool parse_sd(std::string_view s, size_t* i, SyslogMessage* out, const SyslogParseOptions& opts, std::string* error) {
  size_t p = *i;
  if (p >= s.size()) {
    *error = "RFC 5424: missing STRUCTURED-DATA";
    return false;
  }
  if (s[p] == '-') {
    if (p + 1 < s.size() && s[p + 1] != ' ') {
      *error = "RFC 5424: STRUCTURED-DATA must be '-' or '[...]'";
      return false;
    }
    *i = p + 1;
    return true;
  }
  if (s[p] != '[') {
    *error = "RFC 5424: STRUCTURED-DATA must be '-' or '[...]'";
    return false;
  }
  while (p < s.size() && s[p] == '[') {
    ++p;
    size_t st = p;
    while (p < s.size() && printusascii(s[p]) && s[p] != '=' && s[p] != ']' && s[p] != '"') ++p;
    if (p == st || p - st > 32) {
      *error = "RFC 5424: bad SD-ID (1-32 printable characters expected)";
      return false;
    }
    std::string_view sd_id = s.substr(st, p - st);
    for (;;) {
      if (p >= s.size()) {
        *error = "RFC 5424: unterminated SD-ELEMENT [" + std::string(sd_id);
        return false;
      }
      if (s[p] == ']') {
        ++p;
        break;
      }
      if (s[p] != ' ') {
        *error = "RFC 5424: expected ' ' or ']' in SD-ELEMENT [" + std::string(sd_id);
        return false;
      }
      while (p < s.size() && s[p] == ' ') ++p;
      size_t ns = p;
      while (p < s.size() && printusascii(s[p]) && s[p] != '=' && s[p] != ']' && s[p] != '"') ++p;
      if (p == ns || p - ns > 32 || p >= s.size() || s[p] != '=') {
        *error = "RFC 5424: bad SD-PARAM in [" + std::string(sd_id) + "] (expected NAME=\"value\")";
        return false;
      }
      std::string_view name = s.substr(ns, p - ns);
      ++p;
      if (p >= s.size() || s[p] != '"') {
        *error = "RFC 5424: SD-PARAM " + std::string(name) + " value must be quoted";
        return false;
      }
      ++p;
      std::string value;
      bool closed = false;
      while (p < s.size()) {
        char c = s[p];
        if (c == '\\' && p + 1 < s.size() && (s[p + 1] == '"' || s[p + 1] == '\\' || s[p + 1] == ']')) {
          value.push_back(s[p + 1]);
          p += 2;
          continue;
        }
        if (c == '"') {
          closed = true;
          ++p;
          break;
        }
        value.push_back(c);
        ++p;
      }
      if (!closed) {
        *error = "RFC 5424: unterminated SD-PARAM value of " + std::string(name);
        return false;
      }
      if (out->structured_data.size() < opts.max_sd_params)
        out->structured_data.push_back({sd_id, name, std::move(value)});
    }
  }
  *i = p;
  return true;
}

bool parse_5424(std::string_view s, size_t i, SyslogMessage* out, const SyslogParseOptions& opts, std::string* error) {
  out->format = SyslogMessage::Format::kRfc5424;
  std::string_view ts;
  bool end = false;
  if (!header_field(s, &i, "TIMESTAMP", &ts, &end, error)) return false;
  if (!ts.empty()) out->timestamp_ms = parse_rfc3339_ms(ts).value_or(0);
  std::string_view* fields[] = {&out->hostname, &out->app_name, &out->procid, &out->msgid};
  static constexpr std::string_view kNames[] = {"HOSTNAME", "APP-NAME", "PROCID", "MSGID"};
  for (int f = 0; f < 4; ++f) {
    if (end) {
      *error = "RFC 5424: missing " + std::string(kNames[f]);
      return false;
    }
    if (!header_field(s, &i, kNames[f], fields[f], &end, error)) return false;
  }
  if (end) {
    *error = "RFC 5424: missing STRUCTURED-DATA";
    return false;
  }
  if (!parse_sd(s, &i, out, opts, error)) return false;
  std::string_view msg;
  if (i < s.size()) {
    if (s[i] != ' ') {
      *error = "RFC 5424: expected ' ' before MSG";
      return false;
    }
    msg = s.substr(i + 1);
    if (msg.size() >= 3 && msg.substr(0, 3) == "\xEF\xBB\xBF") msg.remove_prefix(3);
  }
  out->message = message_text(msg);
  return true;
}

// --- RFC 3164.

bool two_digits(std::string_view s, size_t i, int* v) {
  if (i + 2 > s.size() || !is_digit(s[i]) || !is_digit(s[i + 1])) return false;
  *v = (s[i] - '0') * 10 + (s[i + 1] - '0');
  return true;
}

int64_t civil_ms(int64_t y, int mo, int d, int h, int mi, int sec, int ms) {
  return (days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 + mi * 60 + sec) *
             1000 +
         ms;
}

// "Mmm dd hh:mm:ss" (dd may be " d"), optional ".frac", optional " yyyy"
// before or after the time. Returns the bytes consumed (0: not a BSD date).
size_t parse_bsd_date(std::string_view s, int64_t now_ms, int64_t* ts) {
  if (s.size() < 15) return 0;
  int mo = month_index(s.substr(0, 3));
  if (!mo || s[3] != ' ') return 0;
  size_t i = 4;
  int d;
  if (s[i] == ' ' && is_digit(s[i + 1])) {
    d = s[i + 1] - '0';
    i += 2;
  } else if (two_digits(s, i, &d)) {
    i += 2;
  } else if (is_digit(s[i]) && s[i + 1] == ' ') {
    d = s[i] - '0';
    i += 1;
  } else {
    return 0;
  }
  if (i >= s.size() || s[i] != ' ') return 0;
  ++i;
  int year = 0;
  // Cisco: "Mmm dd yyyy hh:mm:ss"
  if (i + 5 <= s.size() && is_digit(s[i]) && is_digit(s[i + 1]) && is_digit(s[i + 2]) && is_digit(s[i + 3]) &&
      s[i + 4] == ' ') {
    year = std::stoi(std::string(s.substr(i, 4)));
    i += 5;
  }
  int h, mi, sec;
  if (!two_digits(s, i, &h) || i + 2 >= s.size() || s[i + 2] != ':' || !two_digits(s, i + 3, &mi) ||
      i + 5 >= s.size() || s[i + 5] != ':' || !two_digits(s, i + 6, &sec))
    return 0;
  i += 8;
  if (d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return 0;
  int ms = 0;
  if (i < s.size() && s[i] == '.') {
    size_t st = ++i, n = 0;
    while (i < s.size() && is_digit(s[i])) {
      if (n < 3) ms = ms * 10 + (s[i] - '0');
      ++n, ++i;
    }
    if (i == st) return 0;
    for (; n < 3; ++n) ms *= 10;
  }
  // "Mmm dd hh:mm:ss yyyy"
  if (!year && i + 5 <= s.size() && s[i] == ' ' && is_digit(s[i + 1]) && is_digit(s[i + 2]) && is_digit(s[i + 3]) &&
      is_digit(s[i + 4]) && (i + 5 == s.size() || s[i + 5] == ' ')) {
    year = std::stoi(std::string(s.substr(i + 1, 4)));
    i += 5;
  }
  if (sec == 60) sec = 59;
  if (year) {
    *ts = civil_ms(year, mo, d, h, mi, sec, ms);
  } else {
    // No year: the one that puts the date closest before now (a week ahead is
    // still this year: clocks drift).
    int64_t days = now_ms / 86400000;
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (m <= 2);
    int64_t t = civil_ms(y, mo, d, h, mi, sec, ms);
    if (t > now_ms + 7 * 86400000LL) t = civil_ms(y - 1, mo, d, h, mi, sec, ms);
    *ts = t;
  }
  return i;
}

bool hostname_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '.' || c == '-' || c == '_' ||
         c == ':' || c == '%';
}

bool tag_char(char c) { return printusascii(c) && c != ':' && c != '[' && c != ']'; }

// Parses TAG[[pid]][:] at s (a word starting at 0). Returns the bytes of the
// TAG part (up to and with the ':' if any), 0 if the word is not a tag.
// `require_marker`: only a word with ':' or "[pid]" counts as a tag.
size_t parse_tag(std::string_view s, bool require_marker, std::string_view* tag, std::string_view* pid) {
  size_t i = 0;
  while (i < s.size() && tag_char(s[i])) ++i;
  if (i == 0 || i > 64) return 0;
  *tag = s.substr(0, i);
  *pid = {};
  bool marker = false;
  if (i < s.size() && s[i] == '[') {
    size_t ps = i + 1, e = ps;
    while (e < s.size() && s[e] != ']' && s[e] != ' ' && e - ps <= 128) ++e;
    if (e >= s.size() || s[e] != ']') return 0;
    *pid = s.substr(ps, e - ps);
    i = e + 1;
    marker = true;
  }
  if (i < s.size() && s[i] == ':') {
    ++i;
    marker = true;
  }
  if (i < s.size() && s[i] != ' ') return 0;  // "tag" glued to more text
  if (require_marker && !marker) return 0;
  return i;
}

void parse_3164(std::string_view s, size_t i, SyslogMessage* out, int64_t now_ms) {
  out->format = SyslogMessage::Format::kRfc3164;
  std::string_view rest = s.substr(i);
  bool have_ts = false;
  // A BSD date, or an RFC 3339 one.
  if (size_t n = parse_bsd_date(rest, now_ms, &out->timestamp_ms)) {
    have_ts = true;
    rest.remove_prefix(n);
  } else if (rest.size() >= 19 && is_digit(rest[0]) && is_digit(rest[3]) && rest[4] == '-') {
    size_t sp = rest.find(' ');
    std::string_view tok = rest.substr(0, sp);
    if (auto t = parse_rfc3339_ms(tok)) {
      out->timestamp_ms = *t;
      have_ts = true;
      rest.remove_prefix(tok.size());
    }
  }
  if (have_ts) {
    if (!rest.empty() && rest[0] != ' ') {  // "Nov 23 04:24:00x": no date after all
      out->timestamp_ms = 0;
      rest = s.substr(i);
      have_ts = false;
    } else {
      while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    }
  }
  std::string_view tag, pid;
  size_t w = rest.find(' ');
  std::string_view word = rest.substr(0, w);
  if (size_t n = parse_tag(rest, /*require_marker=*/true, &tag, &pid)) {
    // "TAG[pid]:" or "TAG:" right away: no host.
    out->app_name = tag;
    out->procid = pid;
    rest.remove_prefix(n);
  } else if (have_ts && !word.empty() && w != std::string_view::npos && word.size() <= 255) {
    bool host_ok = true;
    for (char c : word) host_ok = host_ok && hostname_char(c);
    if (host_ok) {
      out->hostname = word;
      rest.remove_prefix(w + 1);
      while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
      // rsyslog: the word after the host is the TAG, with or without ':'.
      if (size_t n2 = parse_tag(rest, /*require_marker=*/false, &tag, &pid)) {
        out->app_name = tag;
        out->procid = pid;
        rest.remove_prefix(n2);
      }
    }
  } else if (have_ts && !word.empty() && w == std::string_view::npos) {
    // "Nov 23 04:24:00 word": a bare word is the message.
  }
  if (!out->app_name.empty() && !rest.empty() && rest[0] == ' ') {
    // After the TAG, one space; what follows is the message as sent.
    out->message = message_text(rest.substr(1));
  } else {
    out->message = text::trim_blanks(rest);
  }
}

}  // namespace

bool parse_syslog(std::string_view frame, SyslogMessage* out, std::string* error, const SyslogParseOptions& opts) {
  *out = SyslogMessage{};
  error->clear();
  while (!frame.empty() && (frame.back() == '\n' || frame.back() == '\r' || frame.back() == '\0'))
    frame.remove_suffix(1);
  if (text::trim_blanks(frame).empty()) {
    *error = "empty syslog frame";
    return false;
  }
  int pri = -1;
  int n = parse_pri(frame, &pri, error);
  if (n < 0) return false;
  if (pri >= 0) {
    out->facility = pri / 8;
    out->severity = pri % 8;
  }
  size_t i = static_cast<size_t>(n);
  // "1 " after the PRI: RFC 5424 (the timestamp or '-' follows).
  bool is_5424 = n > 0 && i + 2 < frame.size() && frame[i] == '1' && frame[i + 1] == ' ' &&
                 (frame[i + 2] == '-' || is_digit(frame[i + 2]));
  if (is_5424) {
    if (!parse_5424(frame, i + 2, out, opts, error)) return false;
  } else {
    int64_t now = opts.now_ms;
    if (now == 0)
      now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
    parse_3164(frame, i, out, now);
  }
  LabelBuilder lb(structured_label_keys(), opts.max_labels);
  if (!out->app_name.empty()) lb.set(CanonicalLabel::kService, out->app_name);
  if (out->severity >= 0) lb.set(CanonicalLabel::kLevel, syslog_severity_name(out->severity));
  if (!out->hostname.empty()) lb.set(CanonicalLabel::kHost, out->hostname);
  out->labels = lb.finish();
  return true;
}

}  // namespace logsift
