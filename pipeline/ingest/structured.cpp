#include "pipeline/ingest/structured.h"

#include <cstring>

#include <string>
#include <string_view>

#include "pipeline/core/text.h"
#include "pipeline/ingest/labels.h"
#include "pipeline/ingest/structured_forms.h"
#include "pipeline/ingest/syslog_message.h"

namespace logsift::structured_detail {

using text::is_digit;
using text::trim_blanks;

// Puts "caller=<caller> " in front of the message (in scratch).
std::string_view with_caller(std::string_view caller, std::string_view message, std::string* scratch) {
  std::string r;
  r.reserve(caller.size() + message.size() + 8);
  r += "caller=";
  r += caller;
  r += ' ';
  r += message;
  *scratch = std::move(r);
  return *scratch;
}

// Takes a syslog header off `line` (see structured.h); false if it has none.
bool try_syslog_text(std::string_view line, int max_labels, SyslogMessage* msg) {
  std::string error;
  SyslogParseOptions po;
  po.now_ms = 1;  // the date is not used: skip the clock
  po.max_sd_params = 0;
  po.max_labels = max_labels;
  if (!parse_syslog(line, msg, &error, po)) return false;
  if (trim_blanks(msg->message).empty()) return false;
  if (msg->severity >= 0) return true;  // "<PRI>": a syslog frame
  if (msg->timestamp_ms == 0 || msg->app_name.empty()) return false;
  const size_t end = static_cast<size_t>(msg->app_name.data() - line.data()) + msg->app_name.size();
  if (end >= line.size() || (line[end] != ':' && line[end] != '[')) return false;
  return msg->hostname.empty() || !is_level_word(msg->hostname);
}

}  // namespace logsift::structured_detail

namespace logsift {

using namespace structured_detail;

bool may_start_with_syslog_header(std::string_view t) {
  if (t.size() < 8) return false;
  if (t[0] == '<') return is_digit(t[1]);
  if (t[0] >= 'A' && t[0] <= 'S') return t[3] == ' ' && month_index(t.substr(0, 3)) != 0;  // months: A..S
  return t.size() >= 11 && is_digit(t[0]) && is_digit(t[3]) && t[4] == '-' && t[7] == '-' && t[10] == 'T';
}

bool may_be_structured(std::string_view line, const StructuredOptions& opts) {
  // Every other form has '=', '{' or a klog "file.go:NN]" marker. Three
  // vectorised scans: find_first_of tests each byte against the set in turn,
  // a call per byte (8 % of a server's CPU on a stream of plain lines).
  const char* d = line.data();
  const size_t n = line.size();
  if (std::memchr(d, '=', n) || std::memchr(d, '{', n) || std::memchr(d, ']', n)) return true;
  const std::string_view t = trim_blanks(line);
  return (opts.syslog_headers && may_start_with_syslog_header(t)) || (opts.app_layouts > 0 && may_start_with_app_layout(t, opts.app_layouts));
}

bool extract_structured(std::string_view line, const StructuredOptions& opts, StructuredLine* out,
                        std::string* scratch) {
  out->message = {};
  out->labels.clear();
  out->structured = false;
  out->kind.clear();
  scratch->clear();
  std::string_view t = trim_blanks(line);
  bool ok = false;
  bool syslog = false;
  Labels syslog_labels;
  if (opts.syslog_headers && may_start_with_syslog_header(t)) {
    SyslogMessage sm;
    if (try_syslog_text(t, opts.max_labels, &sm)) {
      syslog = true;
      t = trim_blanks(sm.message);
      syslog_labels = std::move(sm.labels);  // service, level, host, as the syslog listener maps them
    }
  }
  if (!t.empty()) {
    if (opts.app_layouts > 0 && is_digit(t[0])) ok = try_java_layout(t, opts, out, scratch);
    if (!ok && opts.app_layouts >= 2 && (is_digit(t[0]) || t[0] == '[' || (t[0] >= 'A' && t[0] <= 'Z')))
      ok = try_text_layout(t, opts, out, scratch);
    if (!ok && t.front() == '{') ok = try_json(t, opts, out, scratch);
    if (!ok && (t[0] == 'I' || t[0] == 'W' || t[0] == 'E' || t[0] == 'F')) ok = try_klog(t, opts, out, scratch);
    if (!ok && t.front() != '{') ok = try_logfmt(t, opts, out, scratch);
    if (!ok && opts.split_trailing_json) ok = try_trailing_json(t, opts, out, scratch);
  }
  if (syslog) {
    if (!ok) {
      out->message = t;
      out->labels.clear();
      out->kind = "syslog";
    } else {
      out->kind = "syslog+" + out->kind;
    }
    // The line's own fields win; the header fills what they leave out.
    merge_labels(&out->labels, syslog_labels, opts.max_labels);
    out->structured = true;
    return true;
  }
  if (!ok) {
    out->message = line;
    out->labels.clear();
    out->kind = "text";
    return false;
  }
  out->structured = true;
  return true;
}

}  // namespace logsift
