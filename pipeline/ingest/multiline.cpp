#include "pipeline/ingest/multiline.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <mutex>
#include <optional>

#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "pipeline/core/metrics.h"
#include "pipeline/core/severity.h"
#include "pipeline/core/text.h"
#include "pipeline/ingest/envelope.h"

namespace logsift {

using trace::Form;

namespace {

// Held lines waiting for the line that decides them: a few at most (a blank,
// a code line before its caret, an exception line before its first frame).
constexpr size_t kMaxHeld = 8;

bool is_blank_text(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

// Words that make a line without a level announce a trace (case-insensitive,
// no allocation: this runs for lines without a level of their own, so a
// table of the words' first two letters skips most positions at once).
bool names_error(std::string_view s) {
  static constexpr std::string_view kWords[] = {"error",  "exception", "fail",      "fatal",     "panic",
                                                "traceback", "stack trace", "crash", "abort",   "unhandled",
                                                "uncaught", "critical", "corrupt",   "recovered", "severe"};
  static const auto kStarts = [] {
    std::array<std::array<bool, 128>, 128> t{};
    for (auto w : kWords) t[static_cast<size_t>(w[0])][static_cast<size_t>(w[1])] = true;
    return t;
  }();
  s = s.substr(0, 512);  // a line that announces an error says so early
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    const auto a = static_cast<unsigned char>(text::lower(s[i])), b = static_cast<unsigned char>(text::lower(s[i + 1]));
    if (a >= 128 || b >= 128 || !kStarts[a][b]) continue;
    for (auto w : kWords) {
      if (a != w[0] || b != w[1] || s.size() - i < w.size()) continue;
      size_t k = 2;
      while (k < w.size() && text::lower(s[i + k]) == w[k]) ++k;
      if (k == w.size()) return true;
    }
  }
  return false;
}

// Ruby names the method an error was raised in: "in `rescue in f'" means
// while another was handled, whose cause block follows.
bool rescued(std::string_view line) {
  return line.find(":in `rescue in ") != std::string_view::npos || line.find(":in 'rescue in ") != std::string_view::npos;
}

// A runtime's own first line: it begins a trace by itself.
bool trace_head(Form f) {
  switch (f) {
    case Form::kPyTraceback:
    case Form::kGoPanic:
    case Form::kGoGoroutine:
    case Form::kJvmThreadHead:
    case Form::kNodeFileHead:
    case Form::kRubyUncaught:
    case Form::kException:
      return true;
    default:
      return false;
  }
}

// Forms that say "frame" however the line was wrapped: a continuation even
// when a logger's header precedes it (Ruby's Logger writes each backtrace
// line as a log line of its own).
// A printed object or array goes on below (Node's util.inspect of an error:
// "... {", "  [errors]: [").
bool opens_object(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
  return !line.empty() && (line.back() == '{' || line.back() == '[');
}

bool frame_form(Form f) {
  switch (f) {
    case Form::kAtFrame:
    case Form::kNodeFrame:
    case Form::kPyFile:
    case Form::kGoFile:
    case Form::kRubyFrame:
      return true;
    default:
      return false;
  }
}

}  // namespace

// ------------------------------------------------------------------ rules

struct MultilineRules::Impl {
  struct Rule {
    std::string key, value;  // label selector ("" key: any line)
    std::unique_ptr<RE2> start, cont;
  };
  std::vector<Rule> rules;
};

MultilineRules::MultilineRules(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
MultilineRules::~MultilineRules() = default;

std::shared_ptr<const MultilineRules> MultilineRules::compile(const Config& c) {
  if (c.multiline_rules.empty()) return nullptr;
  auto impl = std::make_unique<Impl>();
  for (size_t i = 0; i < c.multiline_rules.size(); ++i) {
    const auto& spec = c.multiline_rules[i];
    const std::string where = "multiline_rules[" + std::to_string(i) + "]";
    Impl::Rule r;
    if (!spec.label.empty()) {
      const size_t eq = spec.label.find('=');
      if (eq == std::string::npos || eq == 0) throw ConfigError(where + ".label", "must be KEY=VALUE, e.g. service=billing");
      r.key = spec.label.substr(0, eq);
      r.value = spec.label.substr(eq + 1);
    }
    auto compile_one = [&](const std::string& pattern, const char* field) -> std::unique_ptr<RE2> {
      if (pattern.empty()) return nullptr;
      auto re = std::make_unique<RE2>(pattern, RE2::Quiet);
      if (!re->ok()) throw ConfigError(where + "." + field, "not a valid RE2 pattern: " + re->error());
      return re;
    };
    r.start = compile_one(spec.start, "start");
    r.cont = compile_one(spec.cont, "continue");
    if (!r.start == !r.cont) throw ConfigError(where, "give exactly one of \"start\" and \"continue\"");
    impl->rules.push_back(std::move(r));
  }
  return std::shared_ptr<const MultilineRules>(new MultilineRules(std::move(impl)));
}

std::shared_ptr<const MultilineRules> MultilineRules::of(const Config& c) {
  if (c.multiline_rules.empty()) return nullptr;
  std::string key;
  for (const auto& r : c.multiline_rules) key += r.label + '\0' + r.start + '\0' + r.cont + '\x1f';
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const MultilineRules>> cache;
  std::lock_guard lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() >= 16) cache.clear();  // configurations a process sees: a handful
  auto rules = compile(c);
  cache.emplace(key, rules);
  return rules;
}

MultilineRules::Verdict MultilineRules::judge(std::string_view line, const Labels& head, const Labels& own) const {
  for (const auto& r : impl_->rules) {
    if (!r.key.empty()) {
      bool match = false;
      for (const auto& [k, v] : head)
        if (k == r.key && v == r.value) match = true;
      if (!match) continue;
      for (const auto& [k, v] : own)
        if (k == r.key && v != r.value) return Verdict::kStart;  // another source's line
    }
    const re2::StringPiece sp(line.data(), line.size());
    if (r.start) return RE2::PartialMatch(sp, *r.start) ? Verdict::kStart : Verdict::kContinue;
    if (RE2::PartialMatch(sp, *r.cont)) return Verdict::kContinue;
  }
  return Verdict::kNone;
}

// ------------------------------------------------------------------ the open event

namespace {

// An open event's scalar state: reset as one when the event's storage is
// reused (reset() below).
struct OpenState {
  uint32_t count = 1;                    // input lines joined (the head included)
  bool detached = false;                 // its views point into `owned`
  size_t bytes = 0;
  bool truncated = false;
  // What the head says.
  bool accepts = true;      // not below WARN: frames may follow
  Severity level = Severity::kUnknown;
  bool forced = false;      // a runtime's own first line: it announces a trace whatever its level
  // Whether its text names an error decides only for a head without a level
  // of its own, and only when the next line asks (most never do): looked
  // for then, in the line as sent (`raw`, valid until detach()).
  bool maybe_named = false;
  std::string_view raw;
  mutable int8_t named_state = -1;  // -1: not looked for yet
  bool named() const {
    if (named_state < 0) named_state = maybe_named && names_error(raw) ? 1 : 0;
    return named_state == 1;
  }
  // WARN or above, or names an error: an exception line may follow.
  bool announces() const { return forced || level >= Severity::kWarn || named(); }
  // ERROR or above, or names an error: a Python traceback may follow.
  bool error_level() const { return forced || level >= Severity::kError || named(); }
  bool names = false;       // its text names an error ("terminated with exception")
  bool colon = false;       // its text ends in ':', as a line that introduces what follows
  // Where the trace is.
  bool trace = false;
  bool python = false, py_closed = false, py_chain = false;
  bool go = false, ruby = false, node_uncaught = false, node_exception = false;
  bool ruby_from = false;   // the last line joined is a Ruby "\tfrom" frame
  bool ruby_rescue = false; // the last Ruby error line was raised in a rescue clause: its cause follows
  bool ruby_numbered = false; // the last Ruby frame was numbered ("\t1: from"): the error line follows
  bool go_dump = false;     // a goroutine's dump began
  int braces = 0;           // inside a printed error object (Node)
  Form last = Form::kOther;
};

}  // namespace

struct EventAssembler::Open : OpenState {
  Record head;                           // its message (structured extraction applied) and labels
  std::vector<std::string_view> lines;   // the continuation lines, as they join the text
  std::vector<uint32_t> tags;            // the input of each line joined (the head's is head.tag)
  std::vector<Record> held;              // lines the next one decides (a few: kMaxHeld)
  std::vector<Form> held_forms;

  // As new, its vectors' capacity kept. The head is not reset: emit() moved
  // it out and start() assigns it whole (building and assigning a whole new
  // Open cost 4 % of a seen line).
  void reset() {
    static_cast<OpenState&>(*this) = OpenState();
    lines.clear();
    tags.clear();
    held.clear();
    held_forms.clear();
  }
};

EventAssembler::EventAssembler(const Config& c) : config_(c), rules_(MultilineRules::of(c)) {}
EventAssembler::~EventAssembler() = default;

bool EventAssembler::open() const { return open_ != nullptr; }
bool EventAssembler::expecting() const { return open_ && (open_->trace || !open_->held.empty() || open_->announces()); }
size_t EventAssembler::open_bytes() const {
  if (!open_) return 0;
  size_t n = open_->bytes;
  for (const auto& r : open_->held) n += r.text.size();
  return n;
}

EventAssembler::Join EventAssembler::decide(Form f, std::string_view text, const Labels& own) const {
  const Open& o = *open_;
  if (rules_) {
    switch (rules_->judge(text, o.head.labels, own)) {
      case MultilineRules::Verdict::kStart: return Join::kStart;
      case MultilineRules::Verdict::kContinue: return Join::kContinue;
      case MultilineRules::Verdict::kNone: break;
    }
  }
  // Whether the head announces a trace: a scan of its text when it has no
  // level, so only for the forms that ask.
  const auto in_trace = [&o] { return o.trace || o.announces(); };
  switch (f) {
    case Form::kBlank:
      return in_trace() ? Join::kHold : Join::kStart;
    case Form::kAtFrame:
    case Form::kNodeFrame:
    case Form::kPyFile:
    case Form::kRubyFrame:
    case Form::kMore:
    case Form::kCausedBy:
    case Form::kSuppressed:
    case Form::kPyRepeated:
    case Form::kNodeCause:
    case Form::kDotnetInner:
    case Form::kGoGoroutine:
      // Forms no ordinary line has: after any line that may carry a trace
      // (not one below WARN by its own level). Go's log package, for one,
      // writes no level at all.
      return o.accepts ? Join::kContinue : Join::kStart;
    case Form::kGoFile:
      return o.go || (o.accepts && o.last == Form::kGoFunc) ? Join::kContinue : Join::kStart;
    case Form::kGoFunc:
    case Form::kGoElided:
      return o.go ? Join::kContinue : Join::kStart;
    case Form::kGoPanic:
      // "\tpanic: x" re-panicked inside a dump; or the report's next line
      // before its dump ("runtime: sp=...", "fatal error: stack overflow",
      // "[signal SIGSEGV ...]"). A panic after a dump is another crash: or
      // another goroutine's panic in the same one (the runtime prints each;
      // both parts get the same id).
      return o.go && (trace::indent(text) > 0 || !o.go_dump) ? Join::kContinue : Join::kStart;
    case Form::kPyGroup:
      return o.accepts && in_trace() ? Join::kContinue : Join::kStart;
    case Form::kPyTraceback:
      if (o.py_chain) return Join::kContinue;
      return !o.trace && o.error_level() ? Join::kContinue : Join::kStart;
    case Form::kPyChain:
      return o.py_closed ? Join::kContinue : Join::kStart;
    case Form::kException:
    case Form::kOther:
      // Python's closing line after the frames and code (any name).
      if (o.python && o.trace && !o.py_closed && !o.py_chain &&
          (o.last == Form::kIndented || o.last == Form::kCaret || o.last == Form::kPyFile ||
           o.last == Form::kPyRepeated))
        return Join::kContinue;
      // An uncaught Node error: its code line, then (after the caret) the
      // error, whatever its first line says.
      if (o.node_uncaught && (o.count == 1 || (!o.node_exception && o.last == Form::kCaret))) return Join::kContinue;
      // A JVM, Node or .NET exception line right after its head: its first frame confirms it.
      if (f == Form::kException && o.count == 1 && !o.trace && o.accepts && o.announces()) return Join::kHold;
      return Join::kStart;
    case Form::kRubyUncaught:
      // A cause block: right after the "\tfrom" frames of an error raised
      // while it was handled ("in `rescue in f'"); the error line after
      // numbered frames ("\t1: from x.rb:3", printed outermost first); the
      // first line after a head that names an error and ends in ':'
      // ("#<Thread:...> terminated with exception (...):"). Otherwise
      // another error.
      if (o.ruby_from && (o.ruby_rescue || o.ruby_numbered)) return Join::kContinue;
      return o.count == 1 && o.names && o.colon && !o.trace && o.accepts ? Join::kContinue : Join::kStart;
    case Form::kCaret:
    case Form::kDidYouMean:
      return in_trace() ? Join::kContinue : Join::kStart;
    case Form::kIndented:
      if (o.braces > 0 || o.last == Form::kPyFile) return Join::kContinue;
      if (o.node_uncaught && o.count == 1) return Join::kContinue;
      return in_trace() ? Join::kHold : Join::kStart;  // a code line: its caret confirms it
    case Form::kCloseBrace:
      return o.braces > 0 ? Join::kContinue : Join::kStart;
    case Form::kNodeVersion:
      return o.node_uncaught ? Join::kContinue : Join::kStart;
    case Form::kJvmThreadHead:
    case Form::kNodeFileHead:
      return Join::kStart;
  }
  return Join::kStart;
}

void EventAssembler::add_line(std::string_view line, int64_t received_ms, Batch& b) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (open_ && is_blank_text(line) && decide(Form::kBlank, line) != Join::kStart) {
    // Inside a trace (or a user's event) a blank line may belong to it: it
    // needs no envelope.
    Record r;
    r.text = line;
    r.received_ms = received_ms;
    add(std::move(r), /*structured=*/true, b);
    return;
  }
  Record r;
  r.received_ms = received_ms;
  if (auto e = record_from_envelope(line, config_, b, &r)) {
    // A line the envelope refuses ends the open event and answers for itself.
    flush(b);
    reject_record(r, *e);
    place(r, b);
    return;
  }
  add(std::move(r), b);
}

void EventAssembler::add(Record&& r, Batch& b) {
  if (r.ok() && r.text.find('\n') != std::string_view::npos) {
    // A whole event already (a text with its lines inside, from a shipper's
    // multiline stage): it stands alone, joined with none of its neighbours.
    flush(b);
    normalize_event_text(r, config_, b);
    place(r, b);
    return;
  }
  add(std::move(r), /*structured=*/false, b);
}

void EventAssembler::add(Record&& r, bool structured, Batch& b) {
  if (!r.ok()) {
    flush(b);
    place(r, b);
    return;
  }
  if (!open_ || !config_.multiline_enabled()) return start(std::move(r), structured, b);
  Form f = trace::classify(r.text);
  Join j = decide(f, r.text, r.labels);
  std::string_view raw;  // the line as sent, its logging header included
  std::optional<Form> message_form;  // the form of its message, once known
  if (j == Join::kStart && f != Form::kBlank && !structured) {
    raw = r.text;
    // A logger's header may wrap a frame (Ruby's Logger writes each backtrace
    // line as a log line): then its message decides.
    apply_structured(r, config_, b);
    structured = true;
    const Form inner = trace::classify(r.text);
    message_form = inner;
    if (frame_form(inner) && decide(inner, r.text, r.labels) == Join::kContinue) {
      f = inner;
      j = Join::kContinue;
    }
  }
  switch (j) {
    case Join::kContinue: {
      // The held lines join first (appending may cut the event at its bound).
      if (!open_->held.empty()) {
        std::vector<Record> held;
        std::vector<Form> forms;
        held.swap(open_->held);
        forms.swap(open_->held_forms);
        for (size_t i = 0; i < held.size(); ++i) append(held[i].text, forms[i], held[i].tag, b);
      }
      append(r.text, f, r.tag, b);
      return;
    }
    case Join::kHold:
      open_->held.push_back(std::move(r));
      open_->held_forms.push_back(f);
      if (open_->held.size() > kMaxHeld) resolve_held_as_start(b);
      return;
    case Join::kStart:
      resolve_held_as_start(b);
      // The lines fed again may have opened an event this line continues.
      if (open_) return add(std::move(r), structured, b);
      start(std::move(r), structured, b, raw, message_form);
      return;
  }
}

void EventAssembler::resolve_held_as_start(Batch& b) {
  if (!open_) return;
  // Leading blank held lines end the event they followed; the first line
  // with text and what follows it are fed again, as the lines after it.
  std::vector<Record> again;
  // After a detach the held lines are the assembler's copies, which the
  // next detach frees: those fed again move into this batch's storage.
  const bool copies = open_->detached;
  size_t blanks = 0;
  // (as far as its bound: blank lines past it are refused as any blank line is).
  while (blanks < open_->held.size() && is_blank_text(open_->held[blanks].text) &&
         static_cast<int64_t>(open_->count) < config_.multiline_max_lines) {
    open_->tags.push_back(open_->held[blanks].tag);
    ++open_->count;  // a trailing blank line: answered with the event's id, no text
    ++blanks;
  }
  again.assign(std::make_move_iterator(open_->held.begin() + static_cast<long>(blanks)),
               std::make_move_iterator(open_->held.end()));
  open_->held.clear();
  open_->held_forms.clear();
  emit(b);
  for (auto& r : again) {
    if (copies) r.text = b.keep(r.text);
    if (!is_blank_text(r.text)) {
      add(std::move(r), b);
    } else if (open_ && decide(Form::kBlank, r.text) == Join::kHold) {
      open_->held.push_back(std::move(r));
      open_->held_forms.push_back(Form::kBlank);
    } else {
      // A blank line that nothing claimed: refused as any blank line is.
      flush(b);
      reject_record(r, {Reject::kEmptyLine, "blank text"});
      place(r, b);
    }
  }
}

void EventAssembler::start(Record&& r, bool structured, Batch& b, std::string_view raw, std::optional<Form> form) {
  flush(b);
  if (raw.empty()) raw = r.text;  // the line as sent, before structured extraction
  if (!structured) normalize_event_text(r, config_, b);
  // One Open per source, reused: its vectors keep their capacity.
  if (spare_) {
    open_ = std::move(spare_);
    open_->reset();
  } else {
    open_ = std::make_unique<Open>();
  }
  Open& o = *open_;
  o.bytes = r.text.size();
  // The line's own level (structured extraction's "level") is taken at its
  // word. A relay's severity (syslog's) can be wrong for the line: rsyslog's
  // imfile sends every line of a file at one severity (notice by default),
  // so a head that names an error is believed over it.
  const Severity level = line_severity(r.labels);
  const bool own_level = !relay_levels_ && std::any_of(r.labels.begin(), r.labels.end(),
                                                       [](const auto& l) { return l.first == "level"; });
  // Whether the line names an error, its logging header included ("ERROR"):
  // looked for only where it decides.
  o.level = level;
  o.maybe_named = !own_level || level == Severity::kUnknown;
  o.raw = raw;
  o.accepts = level == Severity::kUnknown || level >= Severity::kWarn || o.named();  // named: only for a relay's low level
  o.colon = !r.text.empty() && r.text.back() == ':';
  o.names = o.colon && names_error(raw);
  const Form f = form ? *form : trace::classify(r.text);
  if (trace_head(f)) {
    o.trace = f != Form::kException;  // a bare exception line waits for its first frame
    o.forced = true;
    o.python = f == Form::kPyTraceback;
    o.go = f == Form::kGoPanic || f == Form::kGoGoroutine;
    o.go_dump = f == Form::kGoGoroutine;
    o.node_uncaught = f == Form::kNodeFileHead;
    o.ruby = f == Form::kRubyUncaught;
    o.ruby_rescue = o.ruby && rescued(r.text);
  }
  if (frame_form(f) || f == Form::kCausedBy || f == Form::kMore) {
    // A trace without its head (the head was lost, or refused): its frames
    // stay together rather than each alone.
    o.trace = true;
    o.python = f == Form::kPyFile;
    o.go = f == Form::kGoFile;
    o.ruby = f == Form::kRubyFrame;
  }
  // A head that prints an error object: "msg [AggregateError: x] {".
  if (opens_object(r.text) && o.accepts && o.announces()) o.braces = 1;
  o.last = f;
  o.head = std::move(r);
  if (!config_.multiline_enabled()) emit(b);
}

void EventAssembler::place(const Record& r, Batch& b) {
  if (record_of_) (*record_of_)[r.tag] = static_cast<int>(b.records.size());
  b.records.push_back(r);
}

void EventAssembler::append(std::string_view text, Form f, uint32_t tag, Batch& b) {
  Open& o = *open_;
  if (static_cast<int64_t>(o.count) + 1 > config_.multiline_max_lines ||
      static_cast<int64_t>(o.bytes + 1 + text.size()) > config_.multiline_max_bytes) {
    // Cut at its bound: clustered as it is, counted; this line starts the next.
    o.truncated = true;
    Labels labels = o.head.labels;
    emit(b);
    Record r;
    r.text = text;
    r.tag = tag;
    r.labels = std::move(labels);  // the next part of the same source
    start(std::move(r), /*structured=*/true, b);
    return;
  }
  o.lines.push_back(text);
  o.tags.push_back(tag);
  o.bytes += 1 + text.size();
  ++o.count;
  if (f != Form::kBlank) o.trace = true;
  switch (f) {
    case Form::kPyTraceback:
    case Form::kPyFile:
    case Form::kPyGroup:
      o.python = true;
      o.py_chain = false;
      break;
    case Form::kPyChain:
      o.py_closed = false;
      o.py_chain = true;
      break;
    case Form::kException:
    case Form::kOther:
      if (o.python) o.py_closed = true;
      if (o.node_uncaught) o.node_exception = true;
      break;
    case Form::kGoGoroutine:
    case Form::kGoFunc:
    case Form::kGoFile:
      o.go = true;
      o.go_dump = true;
      break;
    case Form::kRubyFrame:
      o.ruby = true;
      break;
    case Form::kRubyUncaught:
      o.ruby_rescue = rescued(text);
      break;
    case Form::kCloseBrace:
      --o.braces;
      break;
    default:
      break;
  }
  if (opens_object(text) && (f == Form::kNodeFrame || f == Form::kNodeCause || f == Form::kException ||
                             (o.braces > 0 && f == Form::kIndented)))
    ++o.braces;
  if (f != Form::kBlank) o.last = f;
  const std::string_view unindented = text.substr(trace::indent(text));
  const bool numbered = f == Form::kRubyFrame && trace::ruby_numbered_from(unindented) > 0;
  o.ruby_from = f == Form::kRubyFrame && trace::indent(text) > 0 && (unindented.substr(0, 5) == "from " || numbered);
  if (f == Form::kRubyFrame) o.ruby_numbered = numbered;
}

void EventAssembler::emit(Batch& b) {
  if (!open_) return;
  Open& o = *open_;
  Record& r = o.head;
  if (!o.lines.empty() || o.detached) {
    std::string text;
    text.reserve(o.bytes);
    text.append(r.text);
    for (auto l : o.lines) {
      text.push_back('\n');
      text.append(l);
    }
    r.text = b.keep(text);
    if (!o.lines.empty()) metrics().multiline_events.inc();
  }
  r.lines = o.count;
  if (o.truncated) metrics().multiline_truncated.inc();
  if (record_of_) {
    const int at = static_cast<int>(b.records.size());
    (*record_of_)[r.tag] = at;
    for (uint32_t t : o.tags) (*record_of_)[t] = at;
  }
  b.records.push_back(std::move(r));
  spare_ = std::move(open_);
}

void EventAssembler::flush(Batch& b) {
  if (!open_) return;
  // Held lines at the end: blank ones trail the event, the others start
  // events of their own, which may hold the lines after them in turn (each
  // round starts one event with a held line: fewer are held each time).
  while (open_ && !open_->held.empty()) resolve_held_as_start(b);
  emit(b);
}

void EventAssembler::detach() {
  if (!open_) {
    owned_.clear();
    return;
  }
  Open& o = *open_;
  o.named();  // looked for now: the line as sent goes with its buffer
  o.raw = {};
  o.detached = true;
  // Copied from wherever they are now (the batch's storage, or the copies
  // of an earlier detach), then the earlier copies go.
  std::deque<std::string> owned;
  auto own = [&owned](std::string_view& v) {
    owned.emplace_back(v);
    v = owned.back();
  };
  own(o.head.text);
  for (auto& l : o.lines) own(l);
  for (auto& h : o.held) own(h.text);
  owned_.swap(owned);
}

void normalize_event_text(Record& r, const Config& c, Batch& b) {
  const size_t nl = r.text.find('\n');
  if (nl == std::string_view::npos) return apply_structured(r, c, b);
  const std::string_view whole = r.text;
  // The head: structured extraction on the first line only.
  std::string_view first = whole.substr(0, nl);
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  r.text = first;
  apply_structured(r, c, b);
  std::string text(r.text);
  std::string_view rest = whole.substr(nl + 1);
  // Trailing blank lines are not part of the event's text.
  while (!rest.empty()) {
    const size_t last = rest.find_last_of('\n');
    const std::string_view tail = last == std::string_view::npos ? rest : rest.substr(last + 1);
    if (!is_blank_text(tail)) break;
    rest = last == std::string_view::npos ? std::string_view() : rest.substr(0, last);
  }
  int64_t lines = 1;
  bool cut = false;
  while (!rest.empty() || (!cut && false)) {
    const size_t e = rest.find('\n');
    std::string_view line = rest.substr(0, e);
    rest = e == std::string_view::npos ? std::string_view() : rest.substr(e + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (lines + 1 > c.multiline_max_lines || static_cast<int64_t>(text.size() + 1 + line.size()) > c.multiline_max_bytes) {
      cut = true;
      break;
    }
    // As the assembler joins it: the line as sent, or a logger-wrapped frame's message.
    std::string_view join = line;
    if (!frame_form(trace::classify(line)) && !is_blank_text(line)) {
      Record inner;
      inner.text = line;
      apply_structured(inner, c, b);
      if (frame_form(trace::classify(inner.text))) join = inner.text;
    }
    text.push_back('\n');
    text.append(join);
    ++lines;
  }
  if (cut) metrics().multiline_truncated.inc();
  r.text = b.keep(text);
}

}  // namespace logsift
