// The level of a log line, read from its labels: what alert rules filter on
// (min_level) and what tells the multi-line assembler whether a line may
// carry a stack trace.
#pragma once

#include <string_view>

#include "pipeline/core/record.h"

namespace logsift {

// Ordered: a rule's min_level keeps lines at or above it. kUnknown (no level
// label, or one we cannot read) sorts lowest, so it passes only a rule with
// no min_level.
enum class Severity { kUnknown, kTrace, kDebug, kInfo, kWarn, kError, kFatal };

// Case-insensitive, surrounding blanks ignored. Names: trace/trc/verbose/finest/
// finer/v/t, debug/dbg/fine/d, info/information/informational/notice/i,
// warn/warning/w, error/err/severe/e, fatal/critical/crit/panic/alert/emerg/
// emergency/f.
// Syslog numeric severities "0".."7": 0-2 fatal, 3 error, 4 warn, 5-6 info,
// 7 debug. Anything else: kUnknown.
Severity parse_severity(std::string_view text);
// "unknown", "trace", "debug", "info", "warn", "error", "fatal".
std::string_view severity_name(Severity s);
// The level of a line: its "level" label, else its "severity" label.
Severity line_severity(const Labels& labels);

}  // namespace logsift
