// What the HTTP ingest protocols (Loki push, OTLP logs, Elasticsearch bulk)
// produce: one IngestEntry per log line, or an IngestError that rejects the
// whole request (the reply is 400, or 415 for an unsupported media type or
// encoding: see ingest_http_status).
//
// An entry's message is the line as the client sent it, already unescaped;
// it is not yet checked against max_line_bytes, blank-ness or UTF-8 of the
// pipeline (check_text in pipeline/ingest/envelope.h does that per record), and
// not yet reduced by extract_structured (pipeline/ingest/structured.h): the
// caller runs both, then merge_labels() to add the line's own labels.
//
// Label mapping is done in one place, LabelBuilder (pipeline/ingest/structured.h);
// each protocol only names its source keys (the *_label_keys() below).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/core/metrics.h"  // Reject (the reason only; nothing is counted here)
#include "pipeline/core/record.h"
#include "pipeline/core/text.h"
#include "pipeline/ingest/structured.h"

namespace logsift {

struct IngestEntry {
  std::string message;
  Labels labels;
  int64_t ts_ms = 0;  // the client's timestamp, ms since the epoch; 0 = none given
};

struct IngestError {
  Reject reason = Reject::kBadRequest;
  std::string message;  // for the client ({"error": message}) and the log
};

// Parses a JSON request body (Loki push, OTLP/HTTP JSON) into *doc: nullopt,
// or the error that rejects it: an empty body, invalid UTF-8 (nlohmann
// rejects it too: the client is told which it was), or not JSON.
template <class Json>
std::optional<IngestError> parse_json_body(std::string_view body, Json* doc) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return IngestError{Reject::kEmptyLine, "empty body"};
  *doc = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!doc->is_discarded()) return std::nullopt;
  if (!text::valid_utf8(body)) return IngestError{Reject::kInvalidUtf8, "body is not valid UTF-8"};
  return IngestError{Reject::kMalformedJson, "body is not valid JSON"};
}

// The HTTP status for a rejected request.
inline int ingest_http_status(const IngestError& e) {
  switch (e.reason) {
    case Reject::kUnsupportedMediaType:
      return 415;
    case Reject::kBodyTooLarge:
      return 413;
    case Reject::kTooManyLines:
      return 413;
    default:
      return 400;
  }
}

// Options shared by the HTTP ingest parsers (wire them from Config).
struct IngestOptions {
  int max_labels = 16;                        // Config::max_labels
  size_t max_entries = 100000;                // Config::max_lines_per_request: more -> 413 too_many_lines
  size_t max_decompressed_bytes = 64u << 20;  // snappy bodies (Loki): the decompressed size allowed
  // OTLP attributes / bulk document fields kept as labels besides service,
  // level and host (exact key; dotted for nested bulk fields). Loki keeps
  // every stream label anyway.
  std::vector<std::string> keep_keys;
};

// The media type of a Content-Type value, lower-cased, parameters dropped:
// "Application/JSON; charset=utf-8" -> "application/json".
inline std::string media_type(std::string_view content_type) {
  size_t semi = content_type.find(';');
  if (semi != std::string_view::npos) content_type = content_type.substr(0, semi);
  return text::ascii_lower(text::trim_blanks(content_type));
}

// Content-Encoding values the parsers accept as "not encoded".
inline bool identity_encoding(std::string_view content_encoding) {
  std::string e = text::ascii_lower(text::trim_blanks(content_encoding));
  return e.empty() || e == "identity";
}

// The rejection of a compressed body where the protocol's route takes none;
// `advice` tells the client what to send instead.
inline std::optional<IngestError> check_identity_encoding(std::string_view content_encoding, std::string_view advice) {
  if (identity_encoding(content_encoding)) return std::nullopt;
  return IngestError{Reject::kUnsupportedMediaType, "Content-Encoding '" +
                                                        std::string(text::trim_blanks(content_encoding)).substr(0, 32) +
                                                        "' is not supported: " + std::string(advice)};
}

// --- Source keys per protocol (best first within each canonical label).

// Loki stream labels (and structured metadata).
inline const LabelKeyMap& loki_label_keys() {
  static const LabelKeyMap m{
      {"service_name", "service", "app", "job", "container"},
      {"level", "severity", "detected_level"},
      {"host", "hostname", "instance", "node"},
  };
  return m;
}

// OTLP resource attributes and log record attributes; the record's own
// severity_text / severity_number is set directly.
inline const LabelKeyMap& otlp_label_keys() {
  static const LabelKeyMap m{
      {"service.name"},
      {"level", "log.level"},
      {"host.name"},
  };
  return m;
}

// Elasticsearch bulk documents (dotted keys match flat or nested fields).
// PROGRAM/PRIORITY/HOST are what syslog-ng's elasticsearch-http() sends.
inline const LabelKeyMap& bulk_label_keys() {
  static const LabelKeyMap m{
      {"service.name", "service", "program", "syslogtag", "app"},
      {"log.level", "level", "severity", "priority"},
      {"host.name", "host", "hostname"},
  };
  return m;
}

}  // namespace logsift
