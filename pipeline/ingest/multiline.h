// Events, not lines: the multi-line assembler. A program's error is a head
// line and a stack trace (JVM, CPython, Node, Go, Ruby, .NET); file tailers,
// TCP and syslog senders send each of its lines alone. An EventAssembler
// holds the open event of one source (a TCP connection; a syslog host + app
// + process id; a Loki stream; the file of `logsift cluster`) and puts one
// record per event into the batch: the head's message (structured
// extraction applied to it), then each continuation line as it was sent,
// joined by '\n' (Record::lines says how many input lines it stands for).
// A whole event that arrives as one text (HTTP, OTLP, a shipper's multiline
// stage) is normalised the same way (normalize_event_text), so it gets the
// same id.
//
// Which lines continue an event (trace_forms.h gives each line's form):
//   - frames ("\tat ", "    at ", '  File "', Go's "\t/x.go:12", Ruby's
//     "x.rb:3:in `f'"), "Caused by:", "Suppressed:", "... N more", Python's
//     chain sentences and ExceptionGroup boxes, Node's "[cause]:" and its
//     printed error objects, Go's goroutine dumps, .NET's "--->" lines:
//     after a head whose level is not below WARN (an INFO or DEBUG line
//     carries no trace; a line without a level may);
//   - an exception line right after such a head ("java.io.IOException: x"),
//     a code line before a caret ("    ^^^^"), and blank lines inside a
//     trace: held until the next line says (a frame or caret confirms them);
//   - "Traceback (most recent call last):" after a head at ERROR or above
//     (or without a level, naming an error), or after Python's chain
//     sentence; a runtime's own first lines ("Traceback", "panic:",
//     'Exception in thread "x"', "/app/server.js:34") start events;
//   - user rules (multiline_rules, per label): a line matching `start`
//     begins an event and every other line continues it; a line matching
//     `continue` joins the open event.
// Any other line ends the open event and starts the next; so does a
// rejected line, the end of the source, or a quiet time (the caller's
// timer: multiline_timeout_ms, or multiline_short_timeout_ms for an event
// whose head announces nothing). A line that merely starts with blanks is
// not a continuation unless it has a form.
//
// Bounded: an event stops at multiline_max_lines lines or
// multiline_max_bytes bytes; it is cut there (counted in
// logsift_multiline_truncated_total) and still clustered, and what follows
// starts a new event. Not thread-safe: one per source, used by its owner.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "pipeline/core/record.h"
#include "pipeline/ingest/trace_forms.h"

namespace logsift {

class MultilineRules;

class EventAssembler {
 public:
  explicit EventAssembler(const Config& c);
  ~EventAssembler();
  EventAssembler(const EventAssembler&) = delete;
  EventAssembler& operator=(const EventAssembler&) = delete;

  // The next line, as received (TCP, a file): the envelope (JSON or plain
  // text, the limits) runs here. Appends the events it completes to
  // b.records, in input order; a rejected line becomes its own record
  // (with its error) after the event it ended. `line` must stay valid while
  // b lives (a view into a buffer b adopted, or b.keep()).
  void add_line(std::string_view line, int64_t received_ms, Batch& b);
  // The same for a record another envelope made (syslog, Loki, NDJSON): its
  // text is the message as sent, before structured extraction (applied here
  // to a head). A text with newlines inside is a whole event: it ends the
  // open one and stands alone.
  void add(Record&& r, Batch& b);
  // Ends the open event: the end of the source, or a quiet time.
  void flush(Batch& b);
  // The open event's text and labels copied out of b's storage, so that it
  // can wait for the next chunk (call before b is handed on).
  void detach();

  // Which record each input ends in: (*record_of)[r.tag] = the index in
  // b.records of the record that answers input r.tag (every line of an
  // event maps to the event's record). The vector must be large enough.
  void track(std::vector<int>* record_of) { record_of_ = record_of; }

  // The sources' "level" labels are a relay's (syslog's severity), not the
  // lines' own: a head that names an error may carry a trace whatever they say.
  void relay_levels(bool on) { relay_levels_ = on; }

  bool open() const;
  // The open event announced a trace (its head is at WARN or above, names an
  // error, or a trace began): the long quiet time applies.
  bool expecting() const;
  // Bytes the open event holds (logsift_multiline_open_bytes).
  size_t open_bytes() const;

 private:
  struct Open;
  enum class Join : uint8_t { kStart, kContinue, kHold };
  Join decide(trace::Form form, std::string_view text, const Labels& own = {}) const;
  // structured: apply_structured already ran on r.
  // Records are passed on by reference down to where they are kept: a
  // Record is a few hundred bytes, and each move of one cost a seen line.
  void add(Record&& r, bool structured, Batch& b);
  // raw: the line as sent, before structured extraction ("": r.text); form:
  // r.text's form when the caller knows it.
  void start(Record&& r, bool structured, Batch& b, std::string_view raw = {},
             std::optional<trace::Form> form = std::nullopt);
  void append(std::string_view text, trace::Form form, uint32_t tag, Batch& b);
  void place(const Record& r, Batch& b);  // pushes a record that stands for itself alone
  void emit(Batch& b);
  void resolve_held_as_start(Batch& b);

  const Config& config_;
  std::shared_ptr<const MultilineRules> rules_;
  std::unique_ptr<Open> open_;
  std::unique_ptr<Open> spare_;  // the last event's, reused by the next
  std::deque<std::string> owned_;  // the open event's text after detach()
  std::vector<int>* record_of_ = nullptr;
  bool relay_levels_ = false;
};

// The user's rules (multiline_rules), compiled once: which label they apply
// to and their RE2 patterns. Throws ConfigError naming the bad rule.
class MultilineRules {
 public:
  static std::shared_ptr<const MultilineRules> compile(const Config& c);  // null when there are none
  // compile(), once per set of rules in the process (cached).
  static std::shared_ptr<const MultilineRules> of(const Config& c);
  ~MultilineRules();
  // Of the rules that apply to the open event (its head's labels): does
  // `line` begin an event (a start rule applies and matches, or the line's
  // own labels name another value of the rule's label: another source), or
  // continue it (a start rule applies and does not match, or a continue
  // rule matches)? kNone: no rule applies.
  enum class Verdict { kStart, kContinue, kNone };
  Verdict judge(std::string_view line, const Labels& head, const Labels& own) const;

 private:
  struct Impl;
  explicit MultilineRules(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A text that arrived as one record (an HTTP text, an OTLP body, a Loki or
// bulk entry with newlines inside): the same record the assembler would have
// made of its lines, in place (r.text replaced, structured extraction applied
// to its first line only; trailing blank lines dropped; cut at
// multiline_max_lines / multiline_max_bytes). A text without '\n' gets the
// usual apply_structured.
void normalize_event_text(Record& r, const Config& c, Batch& b);

}  // namespace logsift
