#include "pipeline/ingest/trace_forms.h"

namespace logsift::trace {
namespace {

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || is_upper(c) || is_digit(c) || c == '_' || c == '$';
}
bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (is_blank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Digits at s[i...]: how many.
size_t digits_at(std::string_view s, size_t i) {
  size_t n = 0;
  while (i + n < s.size() && is_digit(s[i + n])) ++n;
  return n;
}

// "at " frames: after the blanks and "at ".
Form at_frame(std::string_view rest) {
  // JVM and .NET: a name glued to its argument list, "pkg.C.m(F.java:12)" or
  // "N.C.M(String s) in F.cs:line 3".
  size_t i = 0;
  while (i < rest.size() && (is_ident(rest[i]) || rest[i] == '.' || rest[i] == '/' || rest[i] == '<' ||
                             rest[i] == '>' || rest[i] == '-' || rest[i] == '`' || rest[i] == '[' || rest[i] == ']'))
    ++i;
  if (i > 0 && i < rest.size() && rest[i] == '(' && rest.find(')', i) != std::string_view::npos) {
    const std::string_view r = trim_right(rest);
    if (r.back() == ')' || r.find(") in ") != std::string_view::npos) return Form::kAtFrame;
  }
  // Node: "fn (location)", "location", "async fn (location)", "new C (location)".
  const std::string_view r = trim_right(rest);
  if (r.empty()) return Form::kIndented;
  if (r.back() == ')' && r.find(" (") != std::string_view::npos) return Form::kNodeFrame;
  // A bare location: path:line:column, or "<anonymous>".
  const size_t colon = r.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < r.size() && digits_at(r, colon + 1) == r.size() - colon - 1) {
    const size_t colon2 = r.rfind(':', colon - 1);
    if (colon2 != std::string_view::npos && digits_at(r, colon2 + 1) == colon - colon2 - 1) return Form::kNodeFrame;
  }
  if (r == "<anonymous>" || ends(r, "{")) return Form::kNodeFrame;  // "... server.js:83:26 {": an error object follows
  return Form::kIndented;
}

// "/app/x.rb:12:in `f'", "x.rb:12:in 'C#f'": the path, ":<line>:in ", a quoted label.
// Returns where the label's closing quote is, or npos.
size_t ruby_frame_end(std::string_view s) {
  const size_t in = s.find(":in ");
  if (in == std::string_view::npos || in == 0) return std::string_view::npos;
  const size_t colon = s.rfind(':', in - 1);
  if (colon == std::string_view::npos || digits_at(s, colon + 1) != in - colon - 1 || in - colon - 1 == 0)
    return std::string_view::npos;
  const size_t q = in + 4;
  if (q >= s.size() || (s[q] != '`' && s[q] != '\'')) return std::string_view::npos;
  const size_t close = s.find('\'', q + 1);
  return close;
}

// "Did you mean?", Go's "created by", ... exact prefixes at column 0.
Form column_zero(std::string_view s) {
  // Most lines begin with a date, a number, a syslog PRI or a JSON object:
  // no runtime's form does. The others by their first letter.
  switch (s[0]) {
    case 'T':
      if (starts(s, "Traceback (most recent call last):")) return Form::kPyTraceback;
      if (starts(s, "The above exception was the direct cause of the following exception")) return Form::kPyChain;
      break;
    case 'D':
      if (starts(s, "During handling of the above exception, another exception occurred")) return Form::kPyChain;
      if (starts(s, "Did you mean?")) return Form::kDidYouMean;
      break;
    case 'C':
      if (starts(s, "Caused by: ")) return Form::kCausedBy;
      break;
    case 'E':
      if (starts(s, "Exception in thread \"")) return Form::kJvmThreadHead;
      if (starts(s, "Emitted '") && ends(trim_right(s), " at:")) return Form::kNodeCause;  // an 'error' event's emitter
      break;
    case 'p':
      if (starts(s, "panic: ")) return Form::kGoPanic;
      break;
    case 'f':
      if (starts(s, "fatal error: ")) return Form::kGoPanic;
      break;
    case 'r':
      if (starts(s, "runtime: ")) return Form::kGoPanic;
      if (starts(s, "runtime stack:")) return Form::kGoElided;
      break;
    case 'u':
      if (starts(s, "unexpected fault address ")) return Form::kGoPanic;
      break;
    case '[':
      if (starts(s, "[signal ")) return Form::kGoPanic;
      break;
    case 'g':
      if (starts(s, "goroutine ")) {
        const size_t d = digits_at(s, 10);
        if (d > 0 && s.substr(10 + d, 2) == " [" && ends(trim_right(s), "]:")) return Form::kGoGoroutine;
      }
      break;
    case 'c':
      if (starts(s, "created by ")) return Form::kGoFunc;
      break;
    case 'e':
      if (starts(s, "exit status ") && digits_at(s, 12) > 0) return Form::kGoElided;
      break;
    case '.':
      if (starts(s, "...additional frames elided...")) return Form::kGoElided;
      if (starts(s, "... ")) return Form::kMore;
      break;
    case 'N':
      if (starts(s, "Node.js v") && digits_at(s, 9) > 0) return Form::kNodeVersion;
      break;
    case '-':
      if (starts(s, "--- End of inner exception stack trace ---") ||
          starts(s, "--- End of stack trace from previous location"))
        return Form::kDotnetInner;
      break;
    default:
      if (is_digit(s[0]) || s[0] == '{' || s[0] == '<') return Form::kOther;
      break;
  }
  const std::string_view r = trim_right(s);
  if (r == "}" || r == "}]" || r == "}," || r == "]") return Form::kCloseBrace;
  // "/app/server.js:34" and "node:events:502": an uncaught Node error's first line.
  if (const size_t colon = r.rfind(':'); colon != std::string_view::npos && colon > 0 &&
                                         digits_at(r, colon + 1) == r.size() - colon - 1 && colon + 1 < r.size()) {
    const std::string_view path = r.substr(0, colon);
    if (starts(path, "node:") || ends(path, ".js") || ends(path, ".mjs") || ends(path, ".cjs") || ends(path, ".ts"))
      if (path.find(' ') == std::string_view::npos) return Form::kNodeFileHead;
  }
  // Ruby: "path:12:in `f'" alone (a backtrace line) or with ": msg (Type)" (an uncaught error).
  if (const size_t close = ruby_frame_end(s); close != std::string_view::npos && s.find(' ') > s.find(":in ")) {
    const std::string_view after = trim_right(s.substr(close + 1));
    if (after.empty()) return Form::kRubyFrame;
    if (starts(after, ": ")) return Form::kRubyUncaught;
  }
  // Go: "pkg.(*T).M(args)", "main.main()", "panic({...})".
  if (r.back() == ')') {
    const size_t open = r.find('(');
    if (open != std::string_view::npos && open > 0) {
      const std::string_view name = r.substr(0, open);
      const bool go_name = name.find(' ') == std::string_view::npos && name.find('.') != std::string_view::npos;
      if (go_name || name == "panic") {
        // main.(*Cache).Get( ... ): the name may hold "(*T)", then the arguments.
        return Form::kGoFunc;
      }
    }
  }
  if (exception_type_length(s) > 0) return Form::kException;
  return Form::kOther;
}

}  // namespace

size_t ruby_numbered_from(std::string_view s) {
  const size_t d = digits_at(s, 0);
  return d > 0 && starts(s.substr(d), ": from ") ? d + 7 : 0;
}

size_t indent(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && is_blank(line[i])) ++i;
  return i;
}

size_t exception_type_length(std::string_view s) {
  // Dotted identifiers: "a.b.C", ending at the end or at ": ".
  size_t i = 0, last_part = 0;
  bool dotted = false;
  while (i < s.size()) {
    if (!is_ident(s[i])) return 0;
    last_part = i;
    while (i < s.size() && is_ident(s[i])) ++i;
    if (i < s.size() && s[i] == '.' && i + 1 < s.size() && is_ident(s[i + 1])) {
      dotted = true;
      ++i;
      continue;
    }
    break;
  }
  const std::string_view type = s.substr(0, i);
  const std::string_view rest = s.substr(i);
  if (!(rest.empty() || starts(rest, ": ") || trim_right(rest).empty() || rest == ":")) return 0;
  const std::string_view last = type.substr(last_part);
  if (last.empty() || !is_upper(last[0])) return 0;
  // A word that reads as an exception's type: a qualified class name, or a
  // name ending the way error types end.
  for (std::string_view suffix : {"Error", "Exception", "Exit", "Interrupt", "Warning", "Throwable", "Failure",
                                  "Fault", "Group", "Iteration", "Panic", "Aborted"})
    if (ends(last, suffix)) return type.size();
  if (dotted && last.size() > 1) {
    // "com.example.Foo: msg" but not "Mr.Smith" or "v1.Status": a lower-case package first.
    return s[0] >= 'a' && s[0] <= 'z' && !rest.empty() ? type.size() : 0;
  }
  return 0;
}

std::string_view exception_message(std::string_view line) {
  line = line.substr(indent(line));
  for (std::string_view p : {"Caused by: ", "Suppressed: ", "[cause]: ", "---> "})
    if (starts(line, p)) line.remove_prefix(p.size());
  const size_t n = exception_type_length(line);
  if (n == 0 || n + 2 > line.size()) return {};
  return trim_right(line.substr(n + 2));
}

Form classify(std::string_view line) {
  const std::string_view r = trim_right(line);
  if (r.empty()) return Form::kBlank;
  const size_t ws = indent(r);
  if (ws == 0) return column_zero(r);
  const std::string_view s = r.substr(ws);
  if (starts(s, "at ")) return at_frame(s.substr(3));
  if (starts(s, "File \"") && s.find("\", line ") != std::string_view::npos) return Form::kPyFile;
  if (starts(s, "Caused by: ")) return Form::kCausedBy;
  if (starts(s, "Suppressed: ")) return Form::kSuppressed;
  if (starts(s, "... ") && (ends(s, " more") || ends(s, "omitted") || ends(s, "...")) ) return Form::kMore;
  if (starts(s, "[Previous line repeated ")) return Form::kPyRepeated;
  if (starts(s, "+ Exception Group Traceback") || starts(s, "| ") || s == "|" || starts(s, "+-")) return Form::kPyGroup;
  if (starts(s, "[cause]: ") || starts(s, "[errors]: ")) return Form::kNodeCause;
  if (starts(s, "---> ") || starts(s, "--- End of ")) return Form::kDotnetInner;
  if (starts(s, "from ") && ruby_frame_end(s.substr(5)) != std::string_view::npos) return Form::kRubyFrame;
  if (const size_t n = ruby_numbered_from(s)) return ruby_frame_end(s.substr(n)) != std::string_view::npos ? Form::kRubyFrame : Form::kIndented;
  if (ruby_frame_end(s) != std::string_view::npos && ends(s, "'")) return Form::kRubyFrame;  // Logger: "  /app/x.rb:3:in `f'"
  if (r[0] == '\t' && s[0] == '/' && s.find(".go:") != std::string_view::npos) return Form::kGoFile;
  if (r[0] == '\t' && (starts(s, "panic: ") || starts(s, "fatal error: "))) return Form::kGoPanic;
  if (starts(s, "Traceback (most recent call last):")) return Form::kPyTraceback;
  if (s.find_first_not_of("^~ ") == std::string_view::npos) return Form::kCaret;
  if (s == "}" || s == "}," || s == "}]" || s == "]" || s == "],") return Form::kCloseBrace;
  return Form::kIndented;
}

}  // namespace logsift::trace
