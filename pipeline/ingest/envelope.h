// The envelope: pulls the message and its labels out of what a client sent
// (an HTTP JSON object, an NDJSON line, a TCP line that is plain text or a
// JSON object) and checks it against the limits. Rejections carry a reason
// for the metrics and a message for the client.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "config/config.h"
#include "pipeline/core/metrics.h"
#include "pipeline/core/record.h"
#include "pipeline/ingest/structured.h"

namespace logsift {

struct EnvelopeError {
  Reject reason;
  std::string message;
};

// JSON from a client, parsed with its two guards: a text nested deeper than
// kMaxJsonDepth is refused before the parser builds its tree (a body of
// 100,000 '[' would be built whole, then refused), and a text that does not
// parse is refused as invalid UTF-8 when it is not UTF-8, else as malformed.
// `what` names the text in the message ("body", "line").
constexpr int kMaxJsonDepth = 64;
std::optional<EnvelopeError> parse_json(std::string_view text, std::string_view what, nlohmann::json* out);


// Checks a message: not empty, at most max_line_bytes, valid UTF-8.
std::optional<EnvelopeError> check_text(std::string_view text, const Config& c);

// HTTP form: {"text": "...", "labels": {"service": "...", ...}}. The text is
// copied into the batch (it is unescaped JSON).
std::optional<EnvelopeError> record_from_object(const nlohmann::json& obj, const Config& c, Batch& batch,
                                                Record* out);

// TCP form: a JSON object line (message under message/msg/log/text; labels
// under "labels" or top-level service/level/host) or else a plain text line.
// A trailing '\r' is removed. A plain line is not copied: `line` must point
// into storage the batch owns (Batch::adopt / Batch::keep). Structured
// extraction applied (normalize_event_text).
std::optional<EnvelopeError> record_from_line(std::string_view line, const Config& c, Batch& batch, Record* out);
// The same without structured extraction: what the multi-line assembler
// (pipeline/ingest/multiline.h) reads a line's form from.
std::optional<EnvelopeError> record_from_envelope(std::string_view line, const Config& c, Batch& batch, Record* out);
// The same, a JSON line always parsed into a tree: the reference the SAX
// reading above is tested against, and what it falls back to for a line it
// does not cover.
std::optional<EnvelopeError> record_from_envelope_tree(std::string_view line, const Config& c, Batch& batch,
                                                       Record* out);

// POST /inferences bodies. NDJSON: one JSON object per line, blank lines
// skipped; a bad line is rejected in its place and the others still run;
// no line at all, or more than max_lines_per_request, rejects the body.
std::optional<EnvelopeError> batch_from_ndjson(std::string_view body, const Config& c, int64_t received_ms,
                                               Batch& batch);
// JSON: {"text": ..., "labels": {...}} or {"texts": [string | object, ...],
// "labels": {...}} (*is_list set). One document: a bad item rejects it whole.
std::optional<EnvelopeError> batch_from_json(std::string_view body, const Config& c, int64_t received_ms, Batch& batch,
                                             bool* is_list);

// Structured lines (structured_messages, on by default): when r.text is a
// JSON, logfmt or klog line, or free text followed by a JSON object, what
// gets clustered is its message field (pipeline/ingest/structured.h); its
// level/service/host fields become labels unless the record already has
// them, other per-line fields (timestamps, trace ids, ...) are dropped. The
// line keeps its place in the batch; a message that had to be unescaped is
// copied into the batch.
void apply_structured(Record& r, const Config& c, Batch& batch);

// The extraction options of a configuration (message_keys, max_labels,
// structured_keep_caller, syslog_headers, app_layouts).
StructuredOptions structured_options(const Config& c);

// Sets r.error and counts the rejection.
void reject_record(Record& r, const EnvelopeError& e);

}  // namespace logsift
