// Syslog message parsing (RFC 5424 and the RFC 3164 forms real senders
// produce). Pure: no sockets, no logging. Used by the syslog listener
// (service/net/syslog.h) and by structured-line extraction for text lines
// that carry a syslog header (pipeline/ingest/structured.h).
//
// Parsing (parse_syslog):
//   RFC 5424  <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD [MSG]
//             NILVALUE "-" anywhere in the header; SD elements with \" \\ \]
//             escapes in PARAM-VALUEs; a UTF-8 BOM before MSG is removed.
//   RFC 3164  [<PRI>][TIMESTAMP ][HOST ]TAG[[PID]][:] MSG, where TIMESTAMP is
//             "Mmm dd hh:mm:ss" (optionally ".frac" and/or a year, Cisco
//             style) or an RFC 3339 one (rsyslog ForwardFormat, syslog-ng ISO
//             dates); the host may be missing (a first word ending in ':' or
//             holding '[' is the TAG), the ':' after the TAG may be missing
//             (rsyslog), the PRI may be missing.
// Mapped: severity -> label "level" as the syslog keyword (emerg alert crit
// err warning notice info debug), HOSTNAME -> "host", APP-NAME/TAG ->
// "service". PROCID/PID, MSGID, facility, timestamp and SD are returned as
// fields, not labels (per-line values). A frame's trailing LF/CR/NUL and the
// message's surrounding blanks are trimmed.
// Timestamps: ms since the epoch; 0 when absent or unparsable. A 3164 date has
// no year and no zone: the year is the one that puts it closest before
// now_ms (up to a week ahead is still this year), the zone is taken as UTC.
//
// Errors: parse_syslog returns false with a one-line reason for an empty
// frame, a malformed PRI ("<" without 1-3 digits and ">", or over 191) and a
// malformed RFC 5424 header or SD. The message is not checked for UTF-8 (RFC
// 3164 senders may use other charsets): the caller's check_text does that.
// An empty MSG is not an error here (the caller rejects the empty text).
// Never throws; linear in the frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/record.h"

namespace logsift {

// ---------------------------------------------------------------------------
// Parsing.

struct SyslogSdParam {
  std::string_view sd_id;
  std::string_view name;
  std::string value;  // unescaped
};

struct SyslogMessage {
  enum class Format { kRfc5424, kRfc3164 };
  Format format = Format::kRfc3164;
  std::string_view message;   // view into the frame
  int facility = -1;          // 0..23; -1 without PRI
  int severity = -1;          // 0..7; -1 without PRI
  std::string_view hostname;  // empty: NILVALUE or absent
  std::string_view app_name;  // RFC 5424 APP-NAME or RFC 3164 TAG (without [pid] and ':')
  std::string_view procid;    // RFC 5424 PROCID or RFC 3164 [pid]
  std::string_view msgid;     // RFC 5424 only
  int64_t timestamp_ms = 0;   // 0: absent or unparsable
  std::vector<SyslogSdParam> structured_data;
  Labels labels;  // service, level, host: those present, at most max_labels
};

struct SyslogParseOptions {
  int max_labels = 16;
  int64_t now_ms = 0;         // reference for the year of 3164 dates; 0 = the system clock
  size_t max_sd_params = 64;  // SD params kept in structured_data (more are parsed, not kept)
};

// Parses one frame into *out (reset first). false: *error says why.
bool parse_syslog(std::string_view frame, SyslogMessage* out, std::string* error, const SyslogParseOptions& opts = {});

// "emerg" .. "debug" for 0..7, "" otherwise.
std::string_view syslog_severity_name(int severity);

// 1..12 for "Jan".."Dec" (exactly 3 bytes, this case), 0 otherwise.
int month_index(std::string_view m);

}  // namespace logsift
