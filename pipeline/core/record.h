// What flows through the pipeline: a Batch of Records, owned by exactly one
// thread at a time (passed as std::unique_ptr between mailboxes).
//
// Zero copy: a Record's text is a view. The bytes live in the Batch, either in
// a buffer it adopted whole (the TCP read chunk, the HTTP body: lines are
// views into it) or in its arena (JSON strings after unescaping). Both keep
// their addresses while the batch lives, however it moves between threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/core/status.h"
#include "pipeline/core/token.h"

namespace logsift {

// Labels from the envelope (service, level, host, ...), in arrival order.
using Labels = std::vector<std::pair<std::string, std::string>>;

// A template as the pipeline publishes it: immutable once built and shared by
// the caches and every record of it (a seen line costs a reference count, not
// a copy of its template).
struct TemplateInfo {
  std::string text;
  uint64_t template_id = 0;
  uint64_t cluster_id = 0;
};
using TemplateRef = std::shared_ptr<const TemplateInfo>;

// 128-bit key (two independent 64-bit hashes) of a pre-masked line or a model
// input: collisions are negligible at any cache size we keep.
struct Key128 {
  uint64_t a = 0, b = 0;
  bool operator==(const Key128&) const = default;
};
struct Key128Hash {
  size_t operator()(const Key128& k) const { return static_cast<size_t>(k.a ^ (k.b * 0x9E3779B97F4A7C15ull)); }
};

// Why a record has no result, as a value the callers read (never a string
// they compare).
enum class RecordFailure : uint8_t {
  kNone,
  kRejected,          // refused at ingest: bad input (counted there under its reason)
  kStoreUnavailable,  // the store refused it for now (Batch::refusal): the client retries
  kInternal,          // a stage failed on it
};

// An event's stack trace between the analysis and the end of the model
// stages (pipeline/stages/trace.h): the analysis clusters the head statement
// alone, then the pipeline gives the event its own template and id.
struct EventTrace {
  std::string_view text;     // the whole event: the record's text again once finished
  uint64_t fingerprint = 0;  // its exception types and frames
  bool head_counts = false;  // the head statement's id is part of the event's
  std::string summary;       // the template's part after the head statement
};

struct Record {
  std::string_view text;  // the message (see the zero-copy note above)
  Labels labels;
  std::string error;      // why it has no result: skipped by every stage, replied as {"error"}
  RecordFailure failure = RecordFailure::kNone;  // set with error
  int64_t received_ms = 0;
  // The input lines this record stands for: an event assembled from several
  // lines (pipeline/ingest/multiline.h) answers each of them with its result.
  uint32_t lines = 1;
  uint32_t tag = 0;  // the caller's number for the input it came from (EventAssembler::track)

  // Results, set once the line is clustered.
  TemplateRef tmpl;                // keeps template_text alive
  std::string_view template_text;  // == tmpl->text
  uint64_t template_id = 0;
  uint64_t cluster_id = 0;
  bool is_new = false;             // first line of its cluster in the catalog
  bool new_unknown = false;        // the store could not say (its write waits in a buffer): "new": null

  // Work state between the stages (pipeline/stages/analyzer.h).
  uint32_t tok_begin = 0, tok_end = 0;  // this record's tokens in Batch::tokens
  Key128 line_key;                      // the pre-masked line, for the line cache
  uint8_t pending = 0;                  // kNeedDenoise / kNeedEmbed (stages/templater.h) still to do
  std::string new_template;             // kNeedEmbed: the template the encoder must embed
  int32_t format = -1;                  // a format bank match: its format (tok_end then ends the prefix)
  std::shared_ptr<const EventTrace> trace;  // a stack trace's event, while its head is analysed

  bool ok() const { return error.empty(); }
  void fail(RecordFailure why, std::string message) {
    failure = why;
    error = std::move(message);
  }
  void set_template(TemplateRef t) {
    template_text = t->text;
    template_id = t->template_id;
    cluster_id = t->cluster_id;
    tmpl = std::move(t);
  }
};

struct Batch;
// Called exactly once when every record of the batch has its result (or the
// pipeline is shutting down: see Batch::aborted), on whichever pipeline thread
// finished it: it must not block.
using BatchCallback = std::function<void(std::unique_ptr<Batch>)>;

struct Batch {
  std::vector<Record> records;
  BatchCallback on_done;
  bool aborted = false;  // the pipeline stopped before finishing it
  int64_t admitted_ns = 0;  // mono_ns() at admission (logsift_stage_duration_seconds{stage="batch"})

  // Tokens of every record (Record::tok_begin/tok_end), one allocation per batch.
  std::vector<Token> tokens;
  uint8_t pending = 0;  // union of the records' pending bits
  bool traces = false;  // some record carries an EventTrace (Pipeline finishes them)
  // Set by the state stage when the store refused the lines (a shared store
  // unreachable and its write buffer full, a disk full or read-only, writes
  // closed during a migration): the request is answered by its status (503
  // for kUnavailable), each refused line of a stream gets its reason as error.
  Status refusal;

  // Takes ownership of a buffer that records will view (no copy).
  std::string_view adopt(std::string buffer) {
    auto& b = adopted_.emplace_back(std::make_unique<std::string>(std::move(buffer)));
    return *b;
  }
  // Copies `s` into the batch's arena; the view stays valid while the batch lives.
  std::string_view keep(std::string_view s);

  // Input lines the store refused (RecordFailure::kStoreUnavailable; an
  // event's record counts each of its lines).
  size_t refused() const {
    size_t n = 0;
    for (const auto& r : records)
      if (r.failure == RecordFailure::kStoreUnavailable) n += r.lines;
    return n;
  }
  // Number of records without an error (what the stages will process).
  size_t live() const {
    size_t n = 0;
    for (const auto& r : records) n += r.ok();
    return n;
  }

 private:
  std::vector<std::unique_ptr<std::string>> adopted_;
  std::vector<std::unique_ptr<char[]>> arena_;
  size_t arena_left_ = 0;
  char* arena_next_ = nullptr;
};

inline std::string_view Batch::keep(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() > arena_left_) {
    size_t block = std::max<size_t>(s.size(), 16 * 1024);
    arena_.push_back(std::make_unique<char[]>(block));
    arena_next_ = arena_.back().get();
    arena_left_ = block;
  }
  char* p = arena_next_;
  std::copy(s.begin(), s.end(), p);
  arena_next_ += s.size();
  arena_left_ -= s.size();
  return {p, s.size()};
}

}  // namespace logsift
