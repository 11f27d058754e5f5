// Internal to the structured-line reader (structured.cpp and the one file per
// form beside it): what the forms share. Each try_* recognises one form on a
// trimmed line; on success it fills out->message (a view of the line or of
// *scratch), out->labels and out->kind, and returns true; otherwise it leaves
// *out for the next form. Not for use outside pipeline/ingest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/ingest/labels.h"
#include "pipeline/ingest/structured.h"

namespace logsift::structured_detail {

// Keys whose value is the caller (opts.keep_caller), best first.
inline constexpr std::string_view kCallerKeys[] = {"caller", "source", "logger", "logger_name", "file"};

// Puts "caller=<caller> " in front of the message (in scratch).
std::string_view with_caller(std::string_view caller, std::string_view message, std::string* scratch);

// A level word of any logging library (trace ... panic), any case.
bool is_level_word(std::string_view w);

// --- the forms, one file each -------------------------------------------------
bool try_java_layout(std::string_view line, const StructuredOptions& opts, StructuredLine* out, std::string* scratch);
bool try_text_layout(std::string_view line, const StructuredOptions& opts, StructuredLine* out, std::string* scratch);
bool try_json(std::string_view line, const StructuredOptions& opts, StructuredLine* out, std::string* scratch);
bool try_trailing_json(std::string_view line, const StructuredOptions& opts, StructuredLine* out,
                       std::string* scratch);
bool try_logfmt(std::string_view line, const StructuredOptions& opts, StructuredLine* out, std::string* scratch);
bool try_klog(std::string_view line, const StructuredOptions& opts, StructuredLine* out, std::string* scratch);

// --- Go-style quoted strings and key=value pairs (logfmt.cpp; klog uses them) --

// At s[i] == '"': finds the closing quote (backslash escapes skipped). Sets
// *end to the index after it, *escaped if any backslash.
bool find_quoted_end(std::string_view s, size_t i, size_t* end, bool* escaped);
// UTF-8 of the code point `cp`, appended (json_line.cpp; Go strings too).
void append_utf8(uint32_t cp, std::string* out);
// The control character of a one-letter C escape that JSON and Go share
// (\b \f \n \r \t), or 0 for any other letter.
inline char control_escape(char e) {
  switch (e) {
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return 0;
  }
}
// The n hex digits at s[i] as a number; false if one is not a hex digit.
bool read_hex(std::string_view s, size_t i, size_t n, uint32_t* out);
// Unescapes the inside of a Go quoted string; false on a bad escape.
bool go_unquote(std::string_view raw, std::string* out);

struct KvPair {
  std::string_view key;
  std::string_view value;  // raw: inside the quotes when quoted
  bool quoted = false;
  bool escaped = false;
};

// Parses `k=v k2="q v"` pairs separated by blanks, from s[i] to the end.
// Every token must be a pair. Returns false otherwise.
bool parse_pairs(std::string_view s, size_t i, std::vector<KvPair>* pairs);
// Offers every pair but the message (index `skip`) to *lb; with `caller`,
// the first caller key's value goes there.
void pair_labels(const std::vector<KvPair>& pairs, int skip, const StructuredOptions& opts, LabelBuilder* lb,
                 std::string* caller);

}  // namespace logsift::structured_detail
