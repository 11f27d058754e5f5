#include "pipeline/reply_json.h"

#include <cstdint>
#include <cstring>

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "pipeline/core/params.h"
#include "pipeline/core/text.h"

namespace logsift {

namespace {

const char kHex[] = "0123456789abcdef";

// A JSON string as nlohmann::json dumps it (no ensure_ascii; invalid UTF-8
// replaced by U+FFFD).
void append_json_string(std::string_view s, std::string* out) {
  out->push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t run = 0;  // start of the current run of bytes copied verbatim
  for (size_t i = 0; i < n;) {
    // Eight bytes at a time while none needs a look: no control byte, quote,
    // backslash or non-ASCII byte (SWAR tests: exact for "is there any").
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
      const uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
      const uint64_t special = ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) |
                               ((backslash - kOnes) & ~backslash) | w;
      if (special & kHigh) break;
      i += 8;
    }
    if (i >= n) break;
    unsigned char c = p[i];
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      size_t len = text::utf8_sequence_length(p + i, n - i);
      if (len) {
        i += len;
        continue;
      }
    }
    out->append(s.data() + run, i - run);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (c < 0x20) {
          char u[7] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF], 0};
          out->append(u, 6);
        } else {
          out->append("\xEF\xBF\xBD");  // an invalid UTF-8 byte
        }
    }
    run = ++i;
  }
  out->append(s.data() + run, n - run);
  out->push_back('"');
}

}  // namespace

namespace {

// The reply without its closing brace.
void append_result_body(const Record& r, bool with_new, std::string* out) {
  if (!r.ok()) {
    out->append("{\"error\":");
    append_json_string(r.error, out);
    return;
  }
  out->append("{\"cluster_id\":\"");
  lsh::append_id(r.cluster_id, out);
  out->push_back('"');
  if (with_new) out->append(r.new_unknown ? ",\"new\":null" : r.is_new ? ",\"new\":true" : ",\"new\":false");
  out->append(",\"template\":");
  append_json_string(r.template_text, out);
  out->append(",\"template_id\":\"");
  lsh::append_id(r.template_id, out);
  out->append("\",\"params\":");
  thread_local std::vector<std::string_view> params;  // one allocation per thread, not per line
  if (template_params(r.template_text, r.text, &params)) {
    out->push_back('[');
    for (size_t i = 0; i < params.size(); ++i) {
      if (i) out->push_back(',');
      append_json_string(params[i], out);
    }
    out->push_back(']');
  } else {
    out->append("null");
  }
}

void append_event_line(const Record& r, uint32_t event_line, std::string* out) {
  if (r.lines > 1) {
    out->append(",\"event_line\":");
    out->append(std::to_string(event_line));
    out->append(",\"event_lines\":");
    out->append(std::to_string(r.lines));
  }
  out->push_back('}');
}

}  // namespace

void append_result_json(const Record& r, bool with_new, std::string* out, uint32_t event_line) {
  append_result_body(r, with_new, out);
  append_event_line(r, event_line, out);
}

void append_line_results(const Record& r, bool with_new, std::string* out) {
  // The body (params included) is made once for all the event's lines.
  const size_t start = out->size();
  append_result_body(r, with_new, out);
  const size_t body_end = out->size();
  append_event_line(r, 1, out);
  out->push_back('\n');
  for (uint32_t k = 2; k <= r.lines; ++k) {
    out->append(*out, start, body_end - start);
    append_event_line(r, k, out);
    out->push_back('\n');
  }
}

nlohmann::json record_result_json(const Record& r, bool with_new) {
  if (!r.ok()) return {{"error", r.error}};
  nlohmann::json j = {{"cluster_id", lsh::format_id(r.cluster_id)},
                      {"template_id", lsh::format_id(r.template_id)},
                      {"template", std::string(r.template_text)}};
  if (with_new) j["new"] = r.new_unknown ? nlohmann::json(nullptr) : nlohmann::json(r.is_new);
  if (auto params = template_params(r.template_text, r.text)) {
    j["params"] = nlohmann::json::array();
    for (auto v : *params) j["params"].push_back(std::string(v));
  } else {
    j["params"] = nullptr;
  }
  return j;
}

}  // namespace logsift
