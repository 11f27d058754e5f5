// An error's identity is its fault. An event whose lines carry a runtime's
// stack trace (pipeline/ingest/trace_forms.h) gets its cluster id from
//   - its head statement (the log line before the trace: its template's id,
//     computed as any line's) when the trace has no frame of the program's
//     own code, and unless the first line is the runtime's own ("Traceback
//     ...", "panic: ...", 'Exception in thread "x" ...'). With the program's
//     own frames, they say where the fault is, as an error tracker groups
//     issues by stack trace: the head's words would only split one fault by
//     the values a model leaves in them (a tenant, a template name);
//   - the exception types of its chain ("Caused by:", "Suppressed:",
//     Python's chained tracebacks, Node's "[cause]:", .NET's "--->"), and
//     for Go the panic's message with its numbers and quoted values left out;
//   - the functions and modules of its frames in the program's own code:
//     runtime and standard-library frames (java.*, jdk.*, node:internal,
//     Python's and Ruby's own library, Go's runtime and sync, ...) are left
//     out, as are line numbers, column numbers, argument values, generated
//     names (GeneratedMethodAccessor412, lambda$run$0's index, anonymous
//     classes' numbers, Go's func1 stays), deployment path prefixes
//     (/srv/app-1.4.2/ and /opt/releases/x/ give the same module), "... N
//     more" counts, and how often a frame or type repeats (recursion depth,
//     the number of sub-exceptions or suppressed ones): each counts once.
// The exception messages' values never count, so one fault keeps one id
// however its values vary, whether the event arrived whole or line by line.
// The template shows the head statement, then the exception lines with their
// values masked; the reply's params hold the values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace logsift {

class Premasker;

struct TraceIdentity {
  bool trace = false;          // a runtime's trace was found past the first line
  bool head_in_trace = false;  // the first line is the runtime's own: no head statement
  bool head_counts = false;    // the head statement's id is part of the event's (no in-app frame)
  uint64_t fingerprint = 0;    // the exception types and frames, as above
  // The exception lines, values masked, each preceded by '\n' (the
  // template's part after the head statement). With head_in_trace it also
  // holds the first line, masked, first (and begins without '\n').
  std::string summary;
};

// `text`: a record's text, its lines joined by '\n' (pipeline/ingest/multiline.h).
TraceIdentity trace_identity(std::string_view text, const Premasker& premask);

// The cluster id of an event: its head statement's cluster id (0 with
// head_in_trace) and its fingerprint, mixed (lsh::stable_hash64: the same
// on every machine).
uint64_t event_cluster_id(uint64_t head_cluster_id, uint64_t fingerprint);

// The version of these rules, part of the cluster-id contract.
inline constexpr const char* kEventsVersion = "events-v1";

}  // namespace logsift
