// The default text layouts of logging libraries and servers (JVM, Python,
// Go, nginx, Apache httpd, Kafka, spdlog, gunicorn, Rust, Ruby, Monolog, zap):
// the message is the rest of the line, level and logger become labels.
#include "pipeline/ingest/structured_forms.h"

#include <span>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/text.h"
#include "pipeline/ingest/labels.h"
#include "pipeline/ingest/syslog_message.h"

namespace logsift::structured_detail {

using text::iequals;
using text::is_blank;
using text::is_digit;
using text::trim_blanks;

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



bool is_level_word(std::string_view w) {
  static constexpr std::string_view kLevels[] = {"trace", "debug",    "info",  "information", "notice", "warn",
                                                 "warning", "error",  "err",   "crit",        "critical", "fatal",
                                                 "alert",   "emerg",  "panic", "severe"};
  for (std::string_view l : kLevels)
    if (iequals(w, l)) return true;
  return false;
}

}  // namespace logsift::structured_detail

namespace logsift {

using structured_detail::kPythonLevels;
using structured_detail::skip_java_time;
using text::is_digit;

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

}  // namespace logsift
