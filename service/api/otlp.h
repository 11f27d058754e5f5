// OTLP/HTTP logs, POST /v1/logs: what OpenTelemetry SDK exporters and the
// OpenTelemetry Collector's otlphttp exporter send.
//
// Bodies:
//   application/x-protobuf  ExportLogsServiceRequest (service/api/proto/
//                           otlp_logs.proto: the fields read, wire-compatible)
//   application/json        the OTLP JSON encoding: lowerCamelCase names
//                           (snake_case accepted too), 64-bit integers as
//                           strings or numbers, severityNumber as an integer
//                           (or its enum name), traceId/spanId hex, bytes base64.
// Any other Content-Type is rejected (415), and so is a Content-Encoding other
// than identity (gzip: configure the exporter with compression "none").
//
// Each LogRecord is one entry:
//   message  body: a string as is; other values rendered as compact JSON
//            (kvlist -> object, array -> array, bytes -> base64 string), so
//            extract_structured can then find a "message" key inside them;
//            no body -> "" (the pipeline's check_text rejects it per record)
//   labels   resource attribute service.name -> "service", host.name ->
//            "host"; severity_text lower-cased (else severity_number mapped:
//            1-4 trace, 5-8 debug, 9-12 info, 13-16 warn, 17-20 error, 21-24
//            fatal) -> "level"; a record attribute service.name/host.name/
//            level/log.level only fills a label still missing. Other resource
//            and record attributes are dropped unless named in
//            opts.keep_keys (resource first, then record). At most max_labels.
//   ts_ms    time_unix_nano, else observed_time_unix_nano; 0 if neither.
// Dropped: trace_id, span_id, flags, scope, dropped counts, schema URLs.
//
// Errors reject the whole request (400; 413 for too many records; 415 as
// above): empty body, malformed protobuf or JSON, wrong JSON types, invalid
// UTF-8 in a body or attribute string, values nested deeper than 64, more
// than max_entries records. The message names the record's path. Never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/api/ingest_entry.h"

namespace logsift {

std::optional<IngestError> parse_otlp_logs(std::string_view content_type, std::string_view content_encoding,
                                           std::string_view body, const IngestOptions& opts,
                                           std::vector<IngestEntry>* out);

std::optional<IngestError> parse_otlp_logs_protobuf(std::string_view body, const IngestOptions& opts,
                                                    std::vector<IngestEntry>* out);
std::optional<IngestError> parse_otlp_logs_json(std::string_view body, const IngestOptions& opts,
                                                std::vector<IngestEntry>* out);

// "trace".."fatal" for SeverityNumber 1..24, "" otherwise.
std::string_view otlp_severity_level(int64_t severity_number);

// The success reply (HTTP 200) in the request's encoding: an
// ExportLogsServiceResponse, with partial_success set when some records were
// rejected (rejected > 0 or a message).
struct OtlpReply {
  std::string content_type;  // "application/x-protobuf" or "application/json"
  std::string body;
};
OtlpReply otlp_response(bool json, int64_t rejected_log_records = 0, std::string_view error_message = {});

}  // namespace logsift
