#include "service/api/otlp.h"

#include <charconv>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "otlp_logs.pb.h"            // generated from service/api/proto/otlp_logs.proto
#include "pipeline/core/text.h"
#include "pipeline/ingest/envelope.h"
#include "pipeline/ingest/labels.h"

namespace logsift {
namespace {

using json = nlohmann::json;
constexpr int kMaxDepth = 64;
// Record attributes rank after the resource's and the record's own severity.
constexpr int kRecordAttrRank = 100;

IngestError err(Reject r, std::string m) { return IngestError{r, std::move(m)}; }

// --- Rendering ------------------------------------------------------------------

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void append_base64(std::string_view in, std::string* out) {
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    uint32_t v =
        (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8) | static_cast<uint8_t>(in[i + 2]);
    out->push_back(kB64[v >> 18]);
    out->push_back(kB64[(v >> 12) & 63]);
    out->push_back(kB64[(v >> 6) & 63]);
    out->push_back(kB64[v & 63]);
  }
  size_t rest = in.size() - i;
  if (rest) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    if (rest == 2) v |= static_cast<uint8_t>(in[i + 1]) << 8;
    out->push_back(kB64[v >> 18]);
    out->push_back(kB64[(v >> 12) & 63]);
    out->push_back(rest == 2 ? kB64[(v >> 6) & 63] : '=');
    out->push_back('=');
  }
}

bool decode_base64(std::string_view in, std::string* out) {
  out->clear();
  uint32_t acc = 0;
  int bits = 0;
  size_t pad = 0;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+' || c == '-')
      v = 62;
    else if (c == '/' || c == '_')
      v = 63;
    else if (c == '=') {
      ++pad;
      continue;
    } else {
      return false;
    }
    if (pad) return false;  // data after padding
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return pad <= 2;
}

void append_json_string(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\b':
        *out += "\\b";
        break;
      case '\f':
        *out += "\\f";
        break;
      default:
        if (c < 0x20) {
          *out += "\\u00";
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

void append_double(double d, std::string* out, bool quoted_specials) {
  if (std::isnan(d)) {
    *out += quoted_specials ? "\"NaN\"" : "NaN";
    return;
  }
  if (std::isinf(d)) {
    *out += d > 0 ? (quoted_specials ? "\"Infinity\"" : "Infinity") : (quoted_specials ? "\"-Infinity\"" : "-Infinity");
    return;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), d);
  out->append(buf, r.ptr);
}

// Renders a value as compact JSON. false: *error set.
bool render_json(const otlppb::AnyValue& v, int depth, std::string* out, std::string* error) {
  if (depth > kMaxDepth) {
    *error = "value nested deeper than " + std::to_string(kMaxDepth);
    return false;
  }
  switch (v.value_case()) {
    case otlppb::AnyValue::kStringValue:
      if (!text::valid_utf8(v.string_value())) {
        *error = "string is not valid UTF-8";
        return false;
      }
      append_json_string(v.string_value(), out);
      return true;
    case otlppb::AnyValue::kBoolValue:
      *out += v.bool_value() ? "true" : "false";
      return true;
    case otlppb::AnyValue::kIntValue:
      *out += std::to_string(v.int_value());
      return true;
    case otlppb::AnyValue::kDoubleValue:
      append_double(v.double_value(), out, true);
      return true;
    case otlppb::AnyValue::kBytesValue:
      out->push_back('"');
      append_base64(v.bytes_value(), out);
      out->push_back('"');
      return true;
    case otlppb::AnyValue::kArrayValue: {
      out->push_back('[');
      bool first = true;
      for (const auto& e : v.array_value().values()) {
        if (!first) out->push_back(',');
        first = false;
        if (!render_json(e, depth + 1, out, error)) return false;
      }
      out->push_back(']');
      return true;
    }
    case otlppb::AnyValue::kKvlistValue: {
      out->push_back('{');
      bool first = true;
      for (const auto& kv : v.kvlist_value().values()) {
        if (!text::valid_utf8(kv.key())) {
          *error = "key is not valid UTF-8";
          return false;
        }
        if (!first) out->push_back(',');
        first = false;
        append_json_string(kv.key(), out);
        out->push_back(':');
        if (!render_json(kv.value(), depth + 1, out, error)) return false;
      }
      out->push_back('}');
      return true;
    }
    case otlppb::AnyValue::VALUE_NOT_SET:
      *out += "null";
      return true;
  }
  *out += "null";
  return true;
}

// A value as text: strings as they are, scalars as written, the rest as JSON.
// nullopt (no error) for an unset value.
std::optional<std::string> value_text(const otlppb::AnyValue& v, std::string* error) {
  switch (v.value_case()) {
    case otlppb::AnyValue::VALUE_NOT_SET:
      return std::nullopt;
    case otlppb::AnyValue::kStringValue:
      if (!text::valid_utf8(v.string_value())) {
        *error = "string is not valid UTF-8";
        return std::nullopt;
      }
      return v.string_value();
    case otlppb::AnyValue::kBytesValue: {
      std::string s;
      append_base64(v.bytes_value(), &s);
      return s;
    }
    case otlppb::AnyValue::kDoubleValue: {
      std::string s;
      append_double(v.double_value(), &s, false);
      return s;
    }
    default: {
      std::string s;
      if (!render_json(v, 0, &s, error)) return std::nullopt;
      return s;
    }
  }
}

// --- The shared extraction --------------------------------------------------------

bool wanted(const LabelBuilder& lb, const std::string& key, const IngestOptions& opts) {
  if (lb.classify(key) != CanonicalLabel::kNone) return true;
  for (const auto& k : opts.keep_keys)
    if (k == key) return true;
  return false;
}

std::optional<IngestError> extract(const otlppb::ExportLogsServiceRequest& req, const IngestOptions& opts,
                                   std::vector<IngestEntry>* out) {
  size_t total = 0;
  for (const auto& rl : req.resource_logs())
    for (const auto& sl : rl.scope_logs()) total += static_cast<size_t>(sl.log_records_size());
  if (total > opts.max_entries)
    return err(Reject::kTooManyLines, "more than " + std::to_string(opts.max_entries) + " log records in one request");
  out->reserve(out->size() + total);
  LabelBuilder probe(otlp_label_keys(), opts.max_labels, false, &opts.keep_keys);
  std::string error;
  for (int ri = 0; ri < req.resource_logs_size(); ++ri) {
    const auto& rl = req.resource_logs(ri);
    std::string rpath = "resourceLogs[" + std::to_string(ri) + "]";
    // The resource attributes that can become labels, rendered once.
    std::vector<std::pair<std::string, std::string>> rattrs;
    for (const auto& kv : rl.resource().attributes()) {
      if (!wanted(probe, kv.key(), opts)) continue;
      auto t = value_text(kv.value(), &error);
      if (!error.empty()) return err(Reject::kInvalidUtf8, rpath + ".resource.attributes[" + kv.key() + "]: " + error);
      if (t) rattrs.emplace_back(kv.key(), std::move(*t));
    }
    for (int si = 0; si < rl.scope_logs_size(); ++si) {
      const auto& sl = rl.scope_logs(si);
      for (int li = 0; li < sl.log_records_size(); ++li) {
        const auto& rec = sl.log_records(li);
        auto path = [&] {
          return rpath + ".scopeLogs[" + std::to_string(si) + "].logRecords[" + std::to_string(li) + "]";
        };
        LabelBuilder lb(otlp_label_keys(), opts.max_labels, false, &opts.keep_keys);
        for (const auto& [k, v] : rattrs) lb.add(k, v);
        if (!rec.severity_text().empty()) {
          if (!text::valid_utf8(rec.severity_text()))
            return err(Reject::kInvalidUtf8, path() + ".severityText is not valid UTF-8");
          lb.set(CanonicalLabel::kLevel, rec.severity_text(), -1);
        } else if (auto lvl = otlp_severity_level(rec.severity_number()); !lvl.empty()) {
          lb.set(CanonicalLabel::kLevel, lvl, -1);
        }
        for (const auto& kv : rec.attributes()) {
          if (!wanted(probe, kv.key(), opts)) continue;
          auto t = value_text(kv.value(), &error);
          if (!error.empty()) return err(Reject::kInvalidUtf8, path() + ".attributes[" + kv.key() + "]: " + error);
          if (t) lb.add(kv.key(), *t, kRecordAttrRank);
        }
        IngestEntry e;
        if (rec.has_body()) {
          const auto& b = rec.body();
          if (b.value_case() == otlppb::AnyValue::kStringValue) {
            if (!text::valid_utf8(b.string_value())) return err(Reject::kInvalidUtf8, path() + ".body is not valid UTF-8");
            e.message = b.string_value();
          } else if (b.value_case() != otlppb::AnyValue::VALUE_NOT_SET) {
            if (!render_json(b, 0, &e.message, &error))
              return err(error.find("UTF-8") != std::string::npos ? Reject::kInvalidUtf8 : Reject::kBadRequest,
                         path() + ".body: " + error);
          }
        }
        uint64_t ns = rec.time_unix_nano() ? rec.time_unix_nano() : rec.observed_time_unix_nano();
        e.ts_ms = static_cast<int64_t>(ns / 1000000u);
        e.labels = lb.finish();
        out->push_back(std::move(e));
      }
    }
  }
  return std::nullopt;
}

// --- JSON -> the protobuf messages --------------------------------------------------

// obj[camel] or obj[snake]; nullptr when absent or null.
const json* field(const json& obj, const char* camel, const char* snake) {
  auto it = obj.find(camel);
  if (it == obj.end() && snake) it = obj.find(snake);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

struct JsonReader {
  std::string error;
  Reject reason = Reject::kWrongType;

  bool fail(const std::string& path, const std::string& what) {
    error = path + ": " + what;
    return false;
  }

  bool u64(const json& v, const std::string& path, uint64_t* out) {
    if (v.is_number_unsigned()) {
      *out = v.get<uint64_t>();
      return true;
    }
    if (v.is_number_integer()) {
      if (v.get<int64_t>() < 0) return fail(path, "must not be negative");
      *out = static_cast<uint64_t>(v.get<int64_t>());
      return true;
    }
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
      if (r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty()) return true;
    }
    return fail(path, "must be an unsigned 64-bit integer (a string or a number)");
  }

  bool i64(const json& v, const std::string& path, int64_t* out) {
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return fail(path, "out of the int64 range");
      *out = v.get<int64_t>();
      return true;
    }
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
      if (r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty()) return true;
    }
    return fail(path, "must be a 64-bit integer (a string or a number)");
  }

  bool str(const json& v, const std::string& path, std::string* out) {
    if (!v.is_string()) return fail(path, "must be a string");
    *out = v.get<std::string>();
    return true;
  }

  bool any(const json& v, const std::string& path, int depth, otlppb::AnyValue* out) {
    if (depth > kMaxDepth) return fail(path, "nested deeper than " + std::to_string(kMaxDepth));
    if (!v.is_object()) return fail(path, "must be an AnyValue object");
    if (const json* s = field(v, "stringValue", "string_value"))
      return str(*s, path + ".stringValue", out->mutable_string_value());
    if (const json* b = field(v, "boolValue", "bool_value")) {
      if (!b->is_boolean()) return fail(path + ".boolValue", "must be a boolean");
      out->set_bool_value(b->get<bool>());
      return true;
    }
    if (const json* n = field(v, "intValue", "int_value")) {
      int64_t x = 0;
      if (!i64(*n, path + ".intValue", &x)) return false;
      out->set_int_value(x);
      return true;
    }
    if (const json* d = field(v, "doubleValue", "double_value")) {
      if (d->is_number()) {
        out->set_double_value(d->get<double>());
        return true;
      }
      if (d->is_string()) {
        const auto& s = d->get_ref<const std::string&>();
        if (s == "NaN")
          out->set_double_value(std::numeric_limits<double>::quiet_NaN());
        else if (s == "Infinity")
          out->set_double_value(std::numeric_limits<double>::infinity());
        else if (s == "-Infinity")
          out->set_double_value(-std::numeric_limits<double>::infinity());
        else {
          double x = 0;
          auto r = std::from_chars(s.data(), s.data() + s.size(), x);
          if (r.ec != std::errc() || r.ptr != s.data() + s.size())
            return fail(path + ".doubleValue", "must be a number");
          out->set_double_value(x);
        }
        return true;
      }
      return fail(path + ".doubleValue", "must be a number");
    }
    if (const json* a = field(v, "arrayValue", "array_value")) {
      if (!a->is_object()) return fail(path + ".arrayValue", "must be an object {\"values\": [...]}");
      auto* arr = out->mutable_array_value();
      if (const json* vals = field(*a, "values", nullptr)) {
        if (!vals->is_array()) return fail(path + ".arrayValue.values", "must be an array");
        for (size_t i = 0; i < vals->size(); ++i)
          if (!any((*vals)[i], path + ".arrayValue.values[" + std::to_string(i) + "]", depth + 1, arr->add_values()))
            return false;
      }
      return true;
    }
    if (const json* k = field(v, "kvlistValue", "kvlist_value")) {
      if (!k->is_object()) return fail(path + ".kvlistValue", "must be an object {\"values\": [...]}");
      auto* list = out->mutable_kvlist_value();
      if (const json* vals = field(*k, "values", nullptr)) {
        if (!vals->is_array()) return fail(path + ".kvlistValue.values", "must be an array");
        for (size_t i = 0; i < vals->size(); ++i)
          if (!key_value((*vals)[i], path + ".kvlistValue.values[" + std::to_string(i) + "]", depth + 1,
                         list->add_values()))
            return false;
      }
      return true;
    }
    if (const json* b = field(v, "bytesValue", "bytes_value")) {
      std::string raw;
      if (!b->is_string() || !decode_base64(b->get_ref<const std::string&>(), &raw))
        return fail(path + ".bytesValue", "must be a base64 string");
      out->set_bytes_value(std::move(raw));
      return true;
    }
    return true;  // {}: no value
  }

  bool key_value(const json& v, const std::string& path, int depth, otlppb::KeyValue* out) {
    if (!v.is_object()) return fail(path, "must be an object {\"key\": ..., \"value\": {...}}");
    const json* k = field(v, "key", nullptr);
    if (!k) return fail(path, "missing 'key'");
    if (!str(*k, path + ".key", out->mutable_key())) return false;
    if (const json* val = field(v, "value", nullptr)) return any(*val, path + ".value", depth, out->mutable_value());
    return true;
  }

  bool attributes(const json& obj, const std::string& path, google::protobuf::RepeatedPtrField<otlppb::KeyValue>* out) {
    const json* a = field(obj, "attributes", nullptr);
    if (!a) return true;
    if (!a->is_array()) return fail(path + ".attributes", "must be an array");
    for (size_t i = 0; i < a->size(); ++i)
      if (!key_value((*a)[i], path + ".attributes[" + std::to_string(i) + "]", 0, out->Add())) return false;
    return true;
  }

  bool severity(const json& v, const std::string& path, int32_t* out) {
    if (v.is_number_integer()) {
      int64_t n = v.get<int64_t>();
      if (n < 0 || n > 255) return fail(path, "out of range");
      *out = static_cast<int32_t>(n);
      return true;
    }
    if (v.is_string()) {
      // The enum name: SEVERITY_NUMBER_WARN2 etc.
      static constexpr std::string_view kPrefix = "SEVERITY_NUMBER_";
      static constexpr std::string_view kNames[] = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};
      std::string_view s = v.get_ref<const std::string&>();
      if (s == "SEVERITY_NUMBER_UNSPECIFIED") {
        *out = 0;
        return true;
      }
      if (s.substr(0, kPrefix.size()) == kPrefix) {
        s.remove_prefix(kPrefix.size());
        for (int k = 0; k < 6; ++k) {
          if (s.substr(0, kNames[k].size()) != kNames[k]) continue;
          std::string_view rest = s.substr(kNames[k].size());
          int sub = rest.empty() ? 1 : (rest.size() == 1 && rest[0] >= '2' && rest[0] <= '4' ? rest[0] - '0' : 0);
          if (sub) {
            *out = k * 4 + sub;
            return true;
          }
        }
      }
    }
    return fail(path, "must be a SeverityNumber (an integer or its name)");
  }

  bool request(const json& doc, otlppb::ExportLogsServiceRequest* req) {
    if (!doc.is_object()) return fail("body", "must be a JSON object {\"resourceLogs\": [...]}");
    const json* rls = field(doc, "resourceLogs", "resource_logs");
    if (!rls) return true;
    if (!rls->is_array()) return fail("resourceLogs", "must be an array");
    for (size_t ri = 0; ri < rls->size(); ++ri) {
      const json& rl = (*rls)[ri];
      std::string rp = "resourceLogs[" + std::to_string(ri) + "]";
      if (!rl.is_object()) return fail(rp, "must be an object");
      auto* prl = req->add_resource_logs();
      if (const json* res = field(rl, "resource", nullptr)) {
        if (!res->is_object()) return fail(rp + ".resource", "must be an object");
        if (!attributes(*res, rp + ".resource", prl->mutable_resource()->mutable_attributes())) return false;
      }
      const json* sls = field(rl, "scopeLogs", "scope_logs");
      if (!sls) continue;
      if (!sls->is_array()) return fail(rp + ".scopeLogs", "must be an array");
      for (size_t si = 0; si < sls->size(); ++si) {
        const json& sl = (*sls)[si];
        std::string sp = rp + ".scopeLogs[" + std::to_string(si) + "]";
        if (!sl.is_object()) return fail(sp, "must be an object");
        auto* psl = prl->add_scope_logs();
        const json* lrs = field(sl, "logRecords", "log_records");
        if (!lrs) continue;
        if (!lrs->is_array()) return fail(sp + ".logRecords", "must be an array");
        for (size_t li = 0; li < lrs->size(); ++li) {
          const json& lr = (*lrs)[li];
          std::string lp = sp + ".logRecords[" + std::to_string(li) + "]";
          if (!lr.is_object()) return fail(lp, "must be an object");
          auto* rec = psl->add_log_records();
          uint64_t u = 0;
          if (const json* t = field(lr, "timeUnixNano", "time_unix_nano")) {
            if (!u64(*t, lp + ".timeUnixNano", &u)) return false;
            rec->set_time_unix_nano(u);
          }
          if (const json* t = field(lr, "observedTimeUnixNano", "observed_time_unix_nano")) {
            if (!u64(*t, lp + ".observedTimeUnixNano", &u)) return false;
            rec->set_observed_time_unix_nano(u);
          }
          if (const json* s = field(lr, "severityNumber", "severity_number")) {
            int32_t n = 0;
            if (!severity(*s, lp + ".severityNumber", &n)) return false;
            rec->set_severity_number(n);
          }
          if (const json* s = field(lr, "severityText", "severity_text"))
            if (!str(*s, lp + ".severityText", rec->mutable_severity_text())) return false;
          if (const json* b = field(lr, "body", nullptr))
            if (!any(*b, lp + ".body", 0, rec->mutable_body())) return false;
          if (!attributes(lr, lp, rec->mutable_attributes())) return false;
          // traceId, spanId, flags, eventName...: not used.
        }
      }
    }
    return true;
  }
};

}  // namespace

std::string_view otlp_severity_level(int64_t n) {
  static constexpr std::string_view kLevels[] = {"trace", "debug", "info", "warn", "error", "fatal"};
  if (n < 1 || n > 24) return "";
  return kLevels[(n - 1) / 4];
}

std::optional<IngestError> parse_otlp_logs_protobuf(std::string_view body, const IngestOptions& opts,
                                                    std::vector<IngestEntry>* out) {
  if (body.empty()) return err(Reject::kEmptyLine, "empty body");
  otlppb::ExportLogsServiceRequest req;
  if (!req.ParseFromArray(body.data(), static_cast<int>(body.size())))
    return err(Reject::kBadRequest, "body is not a valid protobuf ExportLogsServiceRequest");
  return extract(req, opts, out);
}

std::optional<IngestError> parse_otlp_logs_json(std::string_view body, const IngestOptions& opts,
                                                std::vector<IngestEntry>* out) {
  json doc;
  if (auto e = parse_json_body(body, &doc)) return e;
  otlppb::ExportLogsServiceRequest req;
  JsonReader r;
  if (!r.request(doc, &req)) return err(r.reason, r.error);
  return extract(req, opts, out);
}

std::optional<IngestError> parse_otlp_logs(std::string_view content_type, std::string_view content_encoding,
                                           std::string_view body, const IngestOptions& opts,
                                           std::vector<IngestEntry>* out) {
  if (auto e = check_identity_encoding(content_encoding, "configure the OTLP exporter with compression \"none\""))
    return e;
  std::string mt = media_type(content_type);
  if (mt == "application/x-protobuf" || mt == "application/protobuf") return parse_otlp_logs_protobuf(body, opts, out);
  if (mt == "application/json") return parse_otlp_logs_json(body, opts, out);
  return err(Reject::kUnsupportedMediaType, "Content-Type '" + mt.substr(0, 64) +
                                                "' is not supported: use application/x-protobuf or application/json");
}

OtlpReply otlp_response(bool as_json, int64_t rejected, std::string_view message) {
  OtlpReply r;
  bool partial = rejected > 0 || !message.empty();
  if (as_json) {
    r.content_type = "application/json";
    json j = json::object();
    if (partial) {
      json ps = json::object();
      if (rejected > 0) ps["rejectedLogRecords"] = std::to_string(rejected);
      if (!message.empty()) ps["errorMessage"] = std::string(message);
      j["partialSuccess"] = std::move(ps);
    }
    r.body = j.dump(-1, ' ', false, json::error_handler_t::replace);
  } else {
    r.content_type = "application/x-protobuf";
    otlppb::ExportLogsServiceResponse resp;
    if (partial) {
      resp.mutable_partial_success()->set_rejected_log_records(rejected);
      resp.mutable_partial_success()->set_error_message(std::string(message));
    }
    r.body = resp.SerializeAsString();
  }
  return r;
}

}  // namespace logsift
