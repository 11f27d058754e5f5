// Grafana Loki push API, POST /loki/api/v1/push: what promtail, Grafana
// Alloy, the Loki Docker driver, winston-loki and other Loki clients send.
//
// Bodies:
//   application/json        {"streams":[{"stream":{"job":"x",...},
//                            "values":[["<unix ns>","line"{, {metadata}}],...]}]}
//                           (a timestamp may also be a JSON integer)
//   application/x-protobuf  snappy block format (not the framing format) of
//                           PushRequest{streams{labels: `{job="x", host="y"}`,
//                           entries{timestamp, line, structuredMetadata}}}
//                           (service/api/proto/loki_push.proto)
// No Content-Type: '{' first means JSON, else protobuf (as Loki does).
// A Content-Encoding other than identity (gzip, deflate, ...) is rejected
// (415): Loki clients send JSON plain and protobuf snappy-compressed.
//
// Labels: stream labels service_name/service/app/job/container -> "service"
// (the first present in that order), level/severity/detected_level ->
// "level" (lower-cased), host/hostname/instance/node -> "host"; every other
// stream label is kept as is; at most max_labels (service, level, host first).
// Structured metadata (per line: trace ids and the like) only fills service,
// level or host when the stream has none; the rest of it is dropped.
// Timestamps: ns -> IngestEntry::ts_ms. Lines are taken whole: the caller
// runs extract_structured and check_text on them.
//
// Errors reject the whole push (400; 413 for too many entries or a snappy
// body that decompresses over max_decompressed_bytes; 415 for encodings and
// media types): empty body, malformed JSON or protobuf, bad snappy, wrong
// types, a bad label set, invalid UTF-8 in a line or a label, more than
// max_entries entries. The error names the stream and entry. Never throws.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "service/api/ingest_entry.h"

namespace logsift {

// Dispatches on Content-Type / Content-Encoding (header values as received).
std::optional<IngestError> parse_loki_push(std::string_view content_type, std::string_view content_encoding,
                                           std::string_view body, const IngestOptions& opts,
                                           std::vector<IngestEntry>* out);

std::optional<IngestError> parse_loki_json(std::string_view body, const IngestOptions& opts,
                                           std::vector<IngestEntry>* out);

// `body` is the snappy-compressed PushRequest.
std::optional<IngestError> parse_loki_protobuf(std::string_view body, const IngestOptions& opts,
                                               std::vector<IngestEntry>* out);

// A Prometheus label set, `{job="x", host="y"}`: names [a-zA-Z_][a-zA-Z0-9_]*
// or double-quoted (UTF-8 names), values "..." / '...' (Go escapes) or
// `raw`, a trailing comma allowed; a duplicate name is an error. Appends the
// pairs in order; false with *error on malformed text.
bool parse_label_set(std::string_view text, std::vector<std::pair<std::string, std::string>>* out, std::string* error);

}  // namespace logsift
