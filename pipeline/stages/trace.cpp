#include "pipeline/stages/trace.h"

#include <algorithm>
#include <vector>

#include "lsh/lsh.h"
#include "pipeline/core/text.h"
#include "pipeline/ingest/trace_forms.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {

using trace::Form;

namespace {

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The last component of a path, without its extension: the module, whatever
// directory a deployment put it in.
std::string_view module_of(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  const size_t dot = path.rfind('.');
  if (dot != std::string_view::npos && dot > 0) path = path.substr(0, dot);
  return path;
}

// Digits that a compiler or a runtime numbered (lambda$run$0, Foo$1,
// <Main>b__0_0, GeneratedMethodAccessor412, d__5): gone.
std::string strip_numbering(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool skipping = false;  // inside a run of digits that a '$' or '_' began
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (is_digit(c) && (skipping || (i > 0 && (s[i - 1] == '$' || s[i - 1] == '_')))) {
      skipping = true;
      continue;
    }
    skipping = false;
    out.push_back(c);
  }
  // A lambda's class: "$$Lambda$123/0x0000000800c02a00" -> "$$Lambda".
  if (const size_t l = out.find("$$Lambda"); l != std::string::npos) {
    size_t e = l + 8;
    while (e < out.size() && out[e] != '.') ++e;
    out.erase(l + 8, e - l - 8);
  }
  return out;
}

// Frames of the runtime and its standard library: they differ between
// versions, thread pools and machines, not between faults.
bool runtime_frame(std::string_view fn) {
  for (std::string_view p : {"java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "kotlinx.coroutines.",
                             "scala.", "groovy.", "System.", "Microsoft.", "runtime.", "runtime/", "sync.", "reflect.",
                             "testing.", "internal/", "syscall.", "net/http.", "panic("})
    if (starts(fn, p)) return true;
  return fn == "panic";
}

bool runtime_path(std::string_view path) {
  for (std::string_view p : {"/lib/python", "site-packages/", "dist-packages/", "<frozen", "/usr/lib/ruby/",
                             "/gems/", "<internal:", "node:", "internal/"})
    if (path.find(p) != std::string_view::npos) return true;
  return false;
}

// A Go panic's or fatal error's message with its values out: numbers, hex,
// quoted strings and bracketed indexes ("index out of range [8] with length 2").
std::string without_values(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\'' || c == '`') {
      const size_t close = s.find(c, i + 1);
      if (close != std::string_view::npos) {
        out += "*";
        i = close;
        continue;
      }
    }
    if (is_digit(c) || (c == '0' && i + 1 < s.size() && s[i + 1] == 'x')) {
      while (i + 1 < s.size() && (is_hex(s[i + 1]) || s[i + 1] == 'x' || s[i + 1] == '.')) ++i;
      out += "*";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

// "msg (KeyError)", "msg (Jobs::Importer::ImportError)": Ruby's way of naming
// the type at the end of a message.
std::string_view trailing_type(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.back() != ')') return {};
  const size_t open = s.rfind('(');
  if (open == std::string_view::npos || open + 2 >= s.size()) return {};
  const std::string_view t = s.substr(open + 1, s.size() - open - 2);
  if (t.empty() || !(t[0] >= 'A' && t[0] <= 'Z')) return {};
  for (char c : t)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == ':' || c == '_')) return {};
  return t;
}

// The exception lines as the template shows them: values masked.
std::string masked(std::string_view line, const Premasker& premask) {
  line = trim(line);
  std::vector<MaskSpan> spans;
  premask.find(line, &spans);
  std::string out;
  size_t pos = 0;
  auto wildcard = [&out] {
    if (!ends(out, "<*>")) out += "<*>";
  };
  for (const auto& sp : spans) {
    out.append(line.substr(pos, sp.begin - pos));
    wildcard();
    pos = sp.end;
  }
  out.append(line.substr(pos));
  // Quoted values, and words holding digits, are values too.
  std::string res;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if ((c == '\'' || c == '"' || c == '`') && (i == 0 || out[i - 1] == ' ' || out[i - 1] == '(' || out[i - 1] == ':')) {
      const size_t close = out.find(c == '`' ? '\'' : c, i + 1);
      if (close != std::string::npos && close - i < 200) {
        if (!ends(res, "<*>")) res += "<*>";
        i = close;
        continue;
      }
    }
    if (!std::isspace(static_cast<unsigned char>(c)) && (i == 0 || std::isspace(static_cast<unsigned char>(out[i - 1])))) {
      size_t e = i;
      bool digit = false;
      while (e < out.size() && !std::isspace(static_cast<unsigned char>(out[e]))) digit |= is_digit(out[e++]);
      if (digit && out.compare(i, 3, "<*>") != 0) {
        if (!ends(res, "<*>")) res += "<*>";
        i = e - 1;
        continue;
      }
    }
    res.push_back(c);
  }
  return res;
}

// The program's own frames that count: those nearest the throw. Further
// out, the same fault is reached by other paths (a parallel stream's work
// runs on the caller's thread or on a pool worker, with other frames below;
// a runtime elides the frames an exception shares with its cause), as error
// trackers that group by the top of the stack know. The root cause's
// nearest few say where the fault is; each other exception of the chain
// adds the one frame where it was raised (where the fault was wrapped).
constexpr size_t kRootFrames = 2;
constexpr size_t kWrapperFrames = 1;

struct Collector {
  std::vector<std::string> types, frames, raw_frames;
  std::vector<std::string> block;  // the program's frames of the current exception, in printed order
  bool block_reversed = false;     // printed outermost first (Python): the nearest are last
  bool python = false;             // Python prints the root cause first; the others, last
  bool ruby_bottom = false;        // Ruby's numbered frames: the error line ends its block
  bool block_suppressed = false;   // the current exception is a suppressed one (JVM), never the root
  struct Block {
    std::vector<std::string> frames;  // nearest first
    bool suppressed = false;
  };
  std::vector<Block> blocks;
  std::vector<std::string> code;  // code lines a caret points at: where, when no frame says it
  std::vector<std::string_view> exception_lines;
  bool go_first_block_done = false;
  bool go_block = false;     // a goroutine's block has begun
  bool frames_seen = false;  // a frame (or a caret's code line): the lines make a trace

  void type(std::string_view t, std::string_view prefix = {}) {
    t = trim(t);
    if (!t.empty()) types.push_back(std::string(prefix) + std::string(t));
  }
  void frame(std::string fn, bool runtime) {
    if (fn.empty()) return;
    // A module's top-level scope ("Object.<anonymous>" in Node, "<module>"
    // in Python, "<main>" in Ruby) is where the program started, not where
    // it failed: it shows only when a fault happens while a module loads.
    for (std::string_view scope : {":Object.<anonymous>", ":<module>", ":<main>", ":block in <main>", ":<top (required)>"})
      if (ends(fn, scope)) return;
    (runtime ? raw_frames : block).push_back(std::move(fn));
  }
  // The next exception of the chain begins (or the trace ends).
  void end_block() {
    if (block_reversed) std::reverse(block.begin(), block.end());
    if (!block.empty()) blocks.push_back({std::move(block), block_suppressed});
    block.clear();
    block_reversed = block_suppressed = false;
  }
  // The frames that count (see kRootFrames).
  void choose_frames() {
    end_block();
    if (blocks.empty()) return;
    size_t root = python ? 0 : blocks.size() - 1;
    while (!python && root > 0 && blocks[root].suppressed) --root;
    for (size_t b = 0; b < blocks.size(); ++b) {
      const size_t n = b == root ? kRootFrames : kWrapperFrames;
      size_t taken = 0;
      for (const auto& f : blocks[b].frames) {
        if (taken == n) break;
        if (std::find(frames.end() - static_cast<long>(taken), frames.end(), f) != frames.end()) continue;
        frames.push_back(f);
        ++taken;
      }
    }
  }
};

// "pkg.C.m(F.java:12)" / "N.C.M(String s) in F.cs:line 3": the function.
void at_frame(std::string_view rest, Collector* c) {
  const size_t paren = rest.find('(');
  std::string_view fn = rest.substr(0, paren);
  if (const size_t slash = fn.find('/'); slash != std::string_view::npos) fn.remove_prefix(slash + 1);  // java.base/
  if (fn.find("GeneratedMethodAccessor") != std::string_view::npos || starts(fn, "jdk.internal.reflect.") ||
      starts(fn, "sun.reflect.") || fn == "java.lang.reflect.Method.invoke")
    return;  // reflection's machinery changes as the JVM warms up
  std::string f = strip_numbering(fn);
  const bool rt = runtime_frame(f);
  c->frame(std::move(f), rt);
}

// "fn (location)", "async fn (location)", "new C (location)", "location".
void node_frame(std::string_view rest, Collector* c) {
  rest = trim(rest);
  if (!rest.empty() && rest.back() == '{') rest = trim(rest.substr(0, rest.size() - 1));
  std::string_view fn, loc = rest;
  if (rest.back() == ')') {
    const size_t open = rest.rfind(" (");
    if (open != std::string_view::npos) {
      fn = rest.substr(0, open);
      loc = rest.substr(open + 2, rest.size() - open - 3);
    }
  }
  for (std::string_view p : {"async ", "new "})
    if (starts(fn, p)) fn.remove_prefix(p.size());
  if (const size_t as = fn.find(" [as "); as != std::string_view::npos) fn = fn.substr(0, as);
  if (starts(loc, "index ") || loc == "<anonymous>" || runtime_path(loc)) return c->frame(std::string(fn), true);
  // path:line:column -> the module.
  for (int i = 0; i < 2; ++i)
    if (const size_t colon = loc.rfind(':'); colon != std::string_view::npos && colon + 1 < loc.size() &&
                                             is_digit(loc[colon + 1]))
      loc = loc.substr(0, colon);
  c->frame(std::string(module_of(loc)) + ":" + strip_numbering(fn), false);
}

// '  File "/app/x.py", line 12, in f'
void py_frame(std::string_view s, Collector* c) {
  s = trim(s);
  const size_t q1 = s.find('"'), q2 = s.find('"', q1 + 1);
  if (q1 == std::string_view::npos || q2 == std::string_view::npos) return;
  const std::string_view path = s.substr(q1 + 1, q2 - q1 - 1);
  const size_t in = s.rfind(", in ");
  const std::string_view fn = in == std::string_view::npos ? std::string_view() : s.substr(in + 5);
  c->frame(std::string(module_of(path)) + ":" + std::string(fn), runtime_path(path));
}

// "[\tfrom ]path:12:in `label'" (maybe followed by ": msg (Type)").
void ruby_frame(std::string_view s, Collector* c) {
  s = trim(s);
  if (starts(s, "from ")) s.remove_prefix(5);
  if (const size_t n = trace::ruby_numbered_from(s)) {
    s.remove_prefix(n);
    c->block_reversed = c->ruby_bottom = true;  // outermost first: the error line comes last
  }
  const size_t in = s.find(":in ");
  if (in == std::string_view::npos) return;
  const size_t colon = s.rfind(':', in - 1);
  const std::string_view path = s.substr(0, colon == std::string_view::npos ? in : colon);
  const size_t q = in + 4;
  const size_t close = s.find('\'', q + 1);
  std::string_view label = close == std::string_view::npos ? std::string_view() : s.substr(q + 1, close - q - 1);
  // "block (2 levels) in x" -> "block in x": the depth is the recursion's.
  std::string l(label);
  if (const size_t lv = l.find(" levels)"); starts(l, "block (") && lv != std::string::npos) l = "block" + l.substr(lv + 8);
  c->frame(std::string(module_of(path)) + ":" + l, runtime_path(path));
}

// "main.(*Cache).Get(0xc0000, {0x4b, 0x5})": the function.
void go_frame(std::string_view s, Collector* c) {
  s = trim(s);
  if (starts(s, "created by ")) return;
  size_t end = s.size();
  if (s.back() == ')') {
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        end = i;
        break;
      }
    }
  }
  const std::string_view fn = s.substr(0, end);
  c->frame(std::string(fn), runtime_frame(fn));
}

// Repeats collapse (recursion depth, suppressed or sub-exception counts) and
// order does not matter: a set.
void as_set(std::vector<std::string>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos <= text.size();) {
    const size_t e = text.find('\n', pos);
    lines.push_back(text.substr(pos, e == std::string_view::npos ? std::string_view::npos : e - pos));
    if (e == std::string_view::npos) break;
    pos = e + 1;
  }
  return lines;
}

// An exception line of a chain ("Caused by: T: m", "T: m", "[cause]: T",
// "---> T: m"): a new block and its type.
void exception_line(std::string_view line, Form f, Collector* c) {
  c->end_block();
  c->block_suppressed = f == Form::kSuppressed;
  std::string_view s = trim(line);
  std::string_view prefix;
  for (std::string_view p : {"Caused by: ", "Suppressed: ", "[cause]: ", "---> "})
    if (starts(s, p)) {
      prefix = p;
      s.remove_prefix(p.size());
    }
  const size_t n = trace::exception_type_length(s);
  if (n == 0) return;
  c->type(s.substr(0, n), prefix == "Suppressed: " ? "suppressed:" : "");
  c->exception_lines.push_back(line);
}

// 'Exception in thread "main" T: m'
void jvm_thread_head(std::string_view line, Collector* c) {
  c->end_block();
  const std::string_view s = trim(line);
  const size_t q = s.find('"', 21);
  if (q != std::string_view::npos && q + 2 < s.size()) {
    const std::string_view rest = s.substr(q + 2);
    if (const size_t n = trace::exception_type_length(rest)) c->type(rest.substr(0, n));
  }
  c->exception_lines.push_back(line);
}

// "panic: m [recovered]", "fatal error: m"
void go_panic(std::string_view line, Collector* c) {
  std::string_view m = trim(line);
  for (std::string_view p : {"panic: ", "fatal error: "})
    if (starts(m, p)) m.remove_prefix(p.size());
  if (const size_t r = m.find(" [recovered]"); r != std::string_view::npos) m = m.substr(0, r);
  c->type(without_values(m), "panic:");
  c->exception_lines.push_back(line);
}

// "path:12:in `f': m (T)": Ruby's error line, the nearest frame.
void ruby_uncaught(std::string_view line, Collector* c) {
  if (c->ruby_bottom) {
    ruby_frame(line, c);  // the nearest frame, after the outer ones
    c->end_block();
    c->ruby_bottom = false;
  } else {
    c->end_block();
    ruby_frame(line, c);
  }
  c->type(trailing_type(line));
  c->exception_lines.push_back(line);
}

// One line of the trace, by its form. first: the trace's first line.
void read_line(std::string_view line, Form f, bool first, Collector* c) {
  switch (f) {
    case Form::kAtFrame:
      at_frame(trim(line).substr(3), c);
      c->frames_seen = true;
      break;
    case Form::kNodeFrame:
      node_frame(trim(line).substr(3), c);
      c->frames_seen = true;
      break;
    case Form::kPyFile:
      py_frame(line, c);
      c->block_reversed = c->python = true;
      c->frames_seen = true;
      break;
    case Form::kRubyFrame:
      ruby_frame(line, c);
      c->frames_seen = true;
      break;
    case Form::kRubyUncaught:
      ruby_uncaught(line, c);
      c->frames_seen = true;
      break;
    case Form::kGoGoroutine:
      // Only the first goroutine: the one that failed (which others a dump
      // lists, and where they wait, varies from run to run).
      if (c->go_block) c->go_first_block_done = true;
      c->end_block();
      c->go_block = true;
      c->frames_seen = true;
      break;
    case Form::kGoFunc:
      if (!c->go_first_block_done) go_frame(line, c);
      c->frames_seen = true;
      break;
    case Form::kGoPanic:
      go_panic(line, c);
      break;
    case Form::kCausedBy:
    case Form::kSuppressed:
    case Form::kException:
    case Form::kNodeCause:
    case Form::kDotnetInner:
      exception_line(line, f, c);
      break;
    case Form::kJvmThreadHead:
      jvm_thread_head(line, c);
      break;
    case Form::kPyTraceback:
      c->end_block();
      if (!first) c->types.push_back("traceback");  // a chained traceback: one more link
      break;
    default:
      break;
  }
}

// Reads every line of the event into the collector.
void collect(const std::vector<std::string_view>& lines, Collector* c) {
  std::string_view previous;  // the line before, when it had text
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    Form f = trace::classify(line);
    // ExceptionGroup boxes: what is inside "  | " is a traceback of its own.
    // The group's members (one box deeper) vary with the data (which tasks
    // failed, and how): their frames count, their types do not.
    bool member = false;
    if (f == Form::kPyGroup) {
      std::string_view inner = trim(line);
      if (starts(inner, "| ")) inner.remove_prefix(2);
      else if (inner == "|") inner = {};
      else continue;  // "+ Exception Group Traceback", "+-+---- 1 ----"
      while (starts(inner, "| ")) inner.remove_prefix(2);
      member = trace::indent(lines[i]) > 2;
      line = inner;
      f = trace::classify(line);
    }
    // A runtime's pointer at the failing code (Python 3.11, Ruby's
    // error_highlight, Node): the code line above it says where, as a frame.
    if (f == Form::kCaret && !previous.empty() && trace::classify(previous) == Form::kIndented) {
      std::string code;
      for (char ch : trim(previous))
        if (ch != ' ' || (!code.empty() && code.back() != ' ')) code.push_back(ch);
      c->code.push_back("code:" + code);
      c->frames_seen = true;
    }
    if (f != Form::kBlank) previous = line;
    if (member && (f == Form::kException || f == Form::kPyTraceback)) continue;
    read_line(line, f, i == 0, c);
  }
}

// What the template shows after the head: the exception lines, one per
// type, values masked (a few at most).
void summarize(const Collector& c, std::string_view head, const Premasker& premask, TraceIdentity* id) {
  std::vector<std::string> shown;
  if (id->head_in_trace) id->summary = masked(head, premask);
  for (auto l : c.exception_lines) {
    if (shown.size() >= 4) break;
    std::string m = masked(l, premask);
    if (std::find(shown.begin(), shown.end(), m) != shown.end() || (id->head_in_trace && m == id->summary)) continue;
    id->summary += "\n" + m;
    shown.push_back(std::move(m));
  }
}

}  // namespace

TraceIdentity trace_identity(std::string_view text, const Premasker& premask) {
  TraceIdentity id;
  if (text.find('\n') == std::string_view::npos) return id;
  const std::vector<std::string_view> lines = split_lines(text);
  const Form head = trace::classify(lines[0]);
  id.head_in_trace = head == Form::kPyTraceback || head == Form::kGoPanic || head == Form::kGoGoroutine ||
                     head == Form::kJvmThreadHead || head == Form::kNodeFileHead || head == Form::kRubyUncaught ||
                     head == Form::kException;
  Collector c;
  collect(lines, &c);
  // Ruby's Logger names the type at the end of the head ("... (KeyError)").
  if (!id.head_in_trace && c.frames_seen)
    if (auto t = trailing_type(lines[0]); !t.empty()) c.type(t);
  // A trace has frames; lines that only look like exception lines do not make one.
  if (!c.frames_seen) return id;
  id.trace = true;
  c.choose_frames();
  // No frame of the program's own code: the code a caret points at, or the
  // runtime's frames (a few) and the head statement, say where.
  if (c.frames.empty()) c.frames = std::move(c.code);
  id.head_counts = c.frames.empty() && !id.head_in_trace;
  if (c.frames.empty()) {
    if (c.raw_frames.size() > 3) c.raw_frames.resize(3);
    c.frames = std::move(c.raw_frames);
  }
  as_set(&c.types);
  as_set(&c.frames);
  std::string key = kEventsVersion;
  for (const auto& t : c.types) key += "\nT " + t;
  for (const auto& f : c.frames) key += "\nF " + f;
  id.fingerprint = lsh::stable_hash64(key);
  summarize(c, lines[0], premask, &id);
  return id;
}

uint64_t event_cluster_id(uint64_t head_cluster_id, uint64_t fingerprint) {
  char buf[16];
  for (int i = 0; i < 8; ++i) {
    buf[i] = static_cast<char>(head_cluster_id >> (8 * i));
    buf[8 + i] = static_cast<char>(fingerprint >> (8 * i));
  }
  return lsh::stable_hash64(std::string_view(buf, 16), 0x6576656e74ull);  // "event"
}

}  // namespace logsift
