#include "pipeline/core/severity.h"

#include "pipeline/core/text.h"

namespace logsift {

Severity parse_severity(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '7') {
    // RFC 5424 severities: emerg, alert, crit, err, warning, notice, info, debug.
    static constexpr Severity kSyslog[8] = {Severity::kFatal, Severity::kFatal, Severity::kFatal, Severity::kError,
                                            Severity::kWarn,  Severity::kInfo,  Severity::kInfo,  Severity::kDebug};
    return kSyslog[text[0] - '0'];
  }
  // Lower-case into a stack buffer: this runs per line when a rule has a min_level.
  char buf[16];
  if (text.empty() || text.size() > sizeof buf) return Severity::kUnknown;
  for (size_t i = 0; i < text.size(); ++i) buf[i] = text::lower(text[i]);
  std::string_view s(buf, text.size());
  struct Name {
    std::string_view name;
    Severity severity;
  };
  static constexpr Name kNames[] = {
      {"info", Severity::kInfo},        {"warn", Severity::kWarn},      {"error", Severity::kError},
      {"debug", Severity::kDebug},      {"warning", Severity::kWarn},   {"err", Severity::kError},
      {"fatal", Severity::kFatal},      {"trace", Severity::kTrace},    {"notice", Severity::kInfo},
      {"critical", Severity::kFatal},   {"crit", Severity::kFatal},     {"panic", Severity::kFatal},
      {"alert", Severity::kFatal},      {"emerg", Severity::kFatal},    {"emergency", Severity::kFatal},
      {"severe", Severity::kError},     {"information", Severity::kInfo}, {"informational", Severity::kInfo},
      {"dbg", Severity::kDebug},        {"fine", Severity::kDebug},     {"finer", Severity::kTrace},
      {"finest", Severity::kTrace},     {"trc", Severity::kTrace},      {"verbose", Severity::kTrace},
      {"i", Severity::kInfo},           {"w", Severity::kWarn},         {"e", Severity::kError},
      {"d", Severity::kDebug},          {"f", Severity::kFatal},        {"t", Severity::kTrace},
      {"v", Severity::kTrace},
  };
  for (const auto& n : kNames)
    if (n.name == s) return n.severity;
  return Severity::kUnknown;
}

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::kTrace: return "trace";
    case Severity::kDebug: return "debug";
    case Severity::kInfo: return "info";
    case Severity::kWarn: return "warn";
    case Severity::kError: return "error";
    case Severity::kFatal: return "fatal";
    case Severity::kUnknown: break;
  }
  return "unknown";
}

Severity line_severity(const Labels& labels) {
  const std::string* severity = nullptr;
  for (const auto& [k, v] : labels) {
    if (k == "level") return parse_severity(v);
    if (k == "severity" && !severity) severity = &v;
  }
  return severity ? parse_severity(*severity) : Severity::kUnknown;
}

}  // namespace logsift
