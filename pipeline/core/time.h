// Time helpers in one place: the wall clock in ms, ISO 8601 rendering, the
// duration syntax of config and the API ("5m"), HTTP dates (Retry-After),
// RFC 3339 dates (structured lines, syslog).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace logsift {

// Milliseconds since the Unix epoch (system clock).
int64_t now_ms();
// ISO 8601 UTC with milliseconds: "2026-11-23T02:10:00.123Z".
std::string format_time_ms(int64_t ms);
// "30s", "5m", "1h", "250ms" or a plain number of ms -> ms; nullopt if malformed.
std::optional<int64_t> parse_duration_ms(std::string_view text);
// The three HTTP-date forms of RFC 9110 section 5.6.7, always GMT.
std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view s);

// RFC 3339 / ISO 8601 date-time -> ms since the Unix epoch: "2026-11-23T04:24:00Z",
// "...T04:24:00.444319+00:00", a ' ' instead of 'T', no zone = UTC. Fraction
// digits beyond ms are truncated. nullopt if malformed or out of range.
std::optional<int64_t> parse_rfc3339_ms(std::string_view s);
// Days from 1970-01-01 to the civil date (proleptic Gregorian).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);

}  // namespace logsift
