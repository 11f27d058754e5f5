// Structured-line message extraction: what identifies a log statement is its
// message, so a line that a logging library wrote as a structure is reduced
// to that message before clustering, for every input (HTTP, TCP, syslog, Loki,
// OTLP, bulk). Every form, in the order tried, with the labels each gives:
// docs/sending-logs.md, "Every structured form, in the order tried".
//
// Errors: none. Malformed structure of any kind (truncated JSON, bad escapes,
// a lone key) just means "unstructured"; an empty or blank message means
// unstructured too (the caller then uses the whole line). Never throws; the
// work is linear in the line (JSON nesting deeper than 128 is unstructured).
//
// One form a file: json_line.cpp, logfmt.cpp, klog.cpp, app_layouts.cpp
// (structured_forms.h between them); this file's .cpp tries them in order.
// The label mapping they share is labels.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/versions.h"
#include "pipeline/core/record.h"
#include "pipeline/ingest/labels.h"

namespace logsift {

// Unescapes the inside of a Go / PromQL quoted string (\" \\ \' \n \t \r \a \b
// \f \v \xHH \ooo \uHHHH \UHHHHHHHH); false on a bad escape.
bool unquote_go_string(std::string_view inner, std::string* out);

// ---------------------------------------------------------------------------
// Structured-line extraction.

struct StructuredOptions {
  std::vector<std::string> message_keys{"msg",  "message", "log", "text", "event", "short_message", "@message",
                                        "@mt", "@m",      "body", "textPayload", "MESSAGE"};
  // Fields kept as labels beyond service/level/host (exact key match).
  std::vector<std::string> keep_keys;
  int max_labels = 16;
  // Prefix the caller ("caller=x.go:12 ") to the message.
  bool keep_caller = false;
  // Recognise "free text {json object}" lines (winston's formats).
  bool split_trailing_json = true;
  // Take a syslog header off a text line (see above).
  bool syslog_headers = true;
  // Recognise application text layouts (see above): kAppLayoutsOff, 1
  // (layouts-v1: the JVM's), 2 (layouts-v2: + Python, Go, Kafka, nginx,
  // Apache httpd) or 3 (layouts-v3: + spdlog, gunicorn, Rust, Ruby, Monolog,
  // Go's log without a level, zap's console).
  int app_layouts = kAppLayoutsLatest;
};

struct StructuredLine {
  // The message: a view into the input line or into *scratch (after
  // unescaping or with the caller prefix). Valid while both live unchanged.
  std::string_view message;
  Labels labels;
  bool structured = false;
  // "java", "json", "logfmt", "klog", "klog-structured", "text+json", "syslog", "syslog+" one of
  // the others; "text" if unstructured.
  std::string kind;
};

// Fills *out (cleared first) and returns out->structured. `scratch` is
// overwritten: it holds the message when it could not be a view of `line`.
// Unstructured: out->message == line, no labels. A trailing '\r' is not
// removed: strip it before calling.
bool extract_structured(std::string_view line, const StructuredOptions& opts, StructuredLine* out,
                        std::string* scratch);

// The cheap gate in front of extract_structured for plain text: false means
// extract_structured would find nothing (no '=', '{' or ']', and no syslog
// header or application layout start, as far as opts enable them).
bool may_be_structured(std::string_view line, const StructuredOptions& opts);

// A cheap test: could `line` start with a syslog header? ("<" then a digit, a
// month name then a blank, or an RFC 3339 date "yyyy-mm-ddT"). Callers use it
// to skip extract_structured on plain text.
bool may_start_with_syslog_header(std::string_view line);
// The same for the application layouts of `version`: does `line` start with
// one of their dates, or Python's "LEVEL:"?
bool may_start_with_app_layout(std::string_view line, int version = kAppLayoutsLatest);

}  // namespace logsift
