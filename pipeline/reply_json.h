// The reply for one clustered line, as every ingest path writes it (HTTP
// /inferences, TCP with replies, logsift cluster).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "pipeline/core/record.h"

namespace logsift {

// The JSON reply for one record: {"cluster_id","new","template","template_id","params"}
// or {"error": ...}, as compact JSON appended to *out (no DOM: replies are
// written straight into the caller's reused buffer). For the lines of a
// multi-line event (r.lines > 1) `event_line` (1-based) says which line this
// reply answers: "event_line" and "event_lines" are added.
void append_result_json(const Record& r, bool with_new, std::string* out, uint32_t event_line = 1);
// Every input line's reply, each followed by '\n' (r.lines of them).
void append_line_results(const Record& r, bool with_new, std::string* out);
// The same, as a DOM (tests, the pairs report).
nlohmann::json record_result_json(const Record& r, bool with_new = true);

}  // namespace logsift
