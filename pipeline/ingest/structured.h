// Structured-line message extraction: what identifies a log statement is its
// message, so a line that a logging library wrote as a structure is reduced
// to that message before clustering, for every input (HTTP, TCP, syslog, Loki,
// OTLP, bulk).
//
// First, with opts.syslog_headers, a text line that starts with a syslog
// header loses it: "<PRI>..." (a syslog frame, RFC 5424 or 3164), or a date
// ("Mmm dd hh:mm:ss" or RFC 3339) then [HOST ]TAG[PID]: or [HOST ]TAG: (the
// TAG's '[pid]' or ':' is required, and a HOST that is a level word such as
// INFO means this is no syslog header), as /var/log/syslog, journalctl's
// short output and syslog forwarders write lines. The TAG / APP-NAME becomes
// the label "service", HOSTNAME "host", the PRI's severity "level"; the rest
// is the message, and the forms below are tried on it ("syslog+logfmt": a
// containerd line in the journal). Kind "syslog" if none of them fits.
//
// Recognised, in this order (the first that fits wins):
//   java       (opts.app_layouts >= 1) the default text layouts of the JVM's
//              logging libraries; the message is the rest, level and logger
//              become labels (level, service), date, pid and thread go:
//                Spring Boot  DATE TIME LEVEL PID --- [APP] [THREAD] LOGGER : msg
//                             ([APP] optional; any run of blanks between fields)
//                log4j        DATE TIME LEVEL [THREAD] LOGGER - msg
//                logback      TIME [THREAD] LEVEL LOGGER - msg
//              DATE TIME: "yyyy-mm-dd[T ]hh:mm:ss" with an optional ".frac"
//              or ",frac" and zone; logback's TIME alone needs its fraction.
//              LEVEL: TRACE DEBUG INFO WARN WARNING ERROR FATAL SEVERE.
//              The thread (it varies for one statement) never reaches the
//              template; with opts.keep_caller the logger goes in front.
//   app        (opts.app_layouts >= 2, layouts-v2) other default text
//              layouts; the message is the rest, the level and a logger
//              become labels (level, service), date, pid, thread and
//              connection numbers go:
//                Python       LEVEL:name:msg          (logging.basicConfig)
//                             DATE TIME - name - LEVEL - msg
//                generic      DATE TIME LEVEL msg, DATE TIME [level] msg
//                             (Go, HashiCorp, many Node and Rust loggers),
//                             then optionally name[pid]: (the logger)
//                nginx        DATE TIME [level] pid#tid: [*conn ]msg
//                Kafka        [DATE TIME] LEVEL msg (logger)
//                Apache httpd [Www Mmm dd hh:mm:ss[.frac] yyyy] [module:level]
//                             [pid N:tid N] [client ip:port] msg (2.4), or
//                             [date] [level] [client ip] msg (2.2)
//              DATE TIME as above or Go's "yyyy/mm/dd hh:mm:ss[.frac]". A bare
//              LEVEL is an upper-case level word, a bracketed one any case.
//              layouts-v3 (opts.app_layouts >= 3) adds:
//                spdlog       [DATE TIME] [name] [level] msg   (its default pattern)
//                gunicorn     [DATE TIME +zone] [pid] [LEVEL] msg (the pid goes)
//                Rust         [DATE LEVEL target] msg          (env_logger)
//                             DATE LEVEL target: msg           (tracing; target a::b)
//                Ruby Logger  L, [DATE #pid]  LEVEL -- progname: msg
//                PHP Monolog  [DATE] channel.LEVEL: msg
//                Go's log     yyyy/mm/dd hh:mm:ss[.frac] [file.go:NN: ]msg
//                             (no level; the caller goes, as klog's)
//                zap console  DATE\tLEVEL\t[name\t][file.go:NN\t]msg[\t{fields}]
//                             (zap.NewDevelopment; the caller and fields go)
//   json       a JSON object line. The message is the first of
//              opts.message_keys (default msg, message, log, text, event,
//              short_message, @message, @mt, @m, body, textPayload, MESSAGE:
//              journald's) that holds a non-empty string (exact keys). A "labels" member holding an object is read
//              as explicit labels (logsift's own TCP envelope form).
//   klog       I1123 10:11:12.123456    1234 file.go:123] message
//              and structured klog: ... file.go:123] "msg" key="val" k2=3
//   logfmt     key=value key2="quoted \" value": every token a pair, at least
//              2 pairs, one of them a message key.
//   text+json  (opts.split_trailing_json) free text followed by one JSON
//              object, as winston's and winston-loki's formats write
//              ("user 42 logged in {"trace_id":"ab12","level":"info"}"): the
//              text is the message, the object's fields are handled as above.
// Anything else is unstructured: out->message is the whole line.
//
// Labels: level/severity/lvl/log.level/PRIORITY -> "level" (lower-cased;
// pino/bunyan numeric levels 10..60 -> trace..fatal; klog's I/W/E/F -> info/
// warning/error/fatal; journald's PRIORITY "0".."7" -> emerg..debug),
// service/app/service.name/logger/component/SYSLOG_IDENTIFIER/_SYSTEMD_UNIT
// -> "service" (the first of these present, in that order), host/hostname/
// host.name/_HOSTNAME -> "host".
// Every other field (timestamps, trace/span ids, pids, caller, ...) is dropped
// unless listed in opts.keep_keys; at most opts.max_labels labels. With
// opts.keep_caller the caller (caller/source/logger/file[:line], klog's
// file:line) is put in front of the message ("caller=x.go:12 msg") so the same
// text logged from two places stays two statements.
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
