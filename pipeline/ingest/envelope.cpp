#include "pipeline/ingest/envelope.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pipeline/core/text.h"
#include "pipeline/ingest/multiline.h"
#include "pipeline/ingest/structured.h"

namespace logsift {
namespace {

using json = nlohmann::json;

constexpr const char* kLabelKeys[] = {"service", "level", "host"};
constexpr const char* kMessageKeys[] = {"message", "msg", "log", "text"};

std::optional<EnvelopeError> add_label(const std::string& key, const json& v, const Config& c, Labels* labels) {
  std::string value;
  if (v.is_string()) value = v.get<std::string>();
  else if (v.is_number() || v.is_boolean()) value = v.dump();
  else if (v.is_null()) return std::nullopt;
  else return EnvelopeError{Reject::kWrongType, "label '" + key + "' must be a string"};
  if (!text::valid_utf8(key) || !text::valid_utf8(value))
    return EnvelopeError{Reject::kInvalidUtf8, "label '" + key + "' is not valid UTF-8"};
  if (key.size() > 256 || value.size() > 1024)
    return EnvelopeError{Reject::kBadRequest, "label '" + key.substr(0, 64) + "' is too long"};
  if (static_cast<int>(labels->size()) >= c.max_labels) {
    metrics().labels_dropped.inc();
    return std::nullopt;
  }
  labels->emplace_back(key, std::move(value));
  return std::nullopt;
}

std::optional<EnvelopeError> read_labels(const json& obj, const Config& c, Labels* labels) {
  if (!obj.contains("labels")) return std::nullopt;
  const json& l = obj["labels"];
  if (l.is_null()) return std::nullopt;
  if (!l.is_object()) return EnvelopeError{Reject::kWrongType, "'labels' must be an object of strings"};
  for (auto it = l.begin(); it != l.end(); ++it)
    if (auto e = add_label(it.key(), it.value(), c, labels)) return e;
  return std::nullopt;
}

}  // namespace

std::optional<EnvelopeError> check_text(std::string_view text, const Config& c) {
  if (text.find_first_not_of(" \t\r\n\v\f") == std::string_view::npos)
    return EnvelopeError{Reject::kEmptyLine, text.empty() ? "empty text" : "blank text"};
  if (text.size() > static_cast<size_t>(c.max_line_bytes))
    return EnvelopeError{Reject::kLineTooLong,
                         "text is " + std::to_string(text.size()) + " bytes, over max_line_bytes " +
                             std::to_string(c.max_line_bytes)};
  if (!text::valid_utf8(text)) return EnvelopeError{Reject::kInvalidUtf8, "text is not valid UTF-8"};
  // A NUL (raw, or \u0000 in JSON) is not log text: it would end up in
  // templates, examples and alert payloads that C strings and CSVs truncate.
  if (text.find('\0') != std::string_view::npos)
    return EnvelopeError{Reject::kBadRequest, "text contains a NUL character"};
  return std::nullopt;
}

namespace {

std::optional<EnvelopeError> object_envelope(const json& obj, const Config& c, Batch& batch, Record* out) {
  if (!obj.is_object()) return EnvelopeError{Reject::kWrongType, "each item must be a JSON object"};
  auto it = obj.find("text");
  if (it == obj.end()) return EnvelopeError{Reject::kMissingText, "missing 'text'"};
  if (!it->is_string()) return EnvelopeError{Reject::kWrongType, "'text' must be a string"};
  const auto& text = it->get_ref<const std::string&>();
  if (auto e = check_text(text, c)) return e;
  if (auto e = read_labels(obj, c, &out->labels)) return e;
  out->text = batch.keep(text);
  return std::nullopt;
}

// Records of one request that may be the lines of events (NDJSON lines,
// "texts"): joined as a line input joins them, in order.
void assemble(std::vector<Record>& records, const Config& c, Batch& batch) {
  EventAssembler events(c);
  for (auto& r : records) events.add(std::move(r), batch);
  events.flush(batch);
}

}  // namespace

std::optional<EnvelopeError> record_from_object(const json& obj, const Config& c, Batch& batch, Record* out) {
  if (auto e = object_envelope(obj, c, batch, out)) return e;
  normalize_event_text(*out, c, batch);
  return std::nullopt;
}

std::optional<EnvelopeError> record_from_line(std::string_view line, const Config& c, Batch& batch, Record* out) {
  if (auto e = record_from_envelope(line, c, batch, out)) return e;
  normalize_event_text(*out, c, batch);
  return std::nullopt;
}

std::optional<EnvelopeError> parse_json(std::string_view text, std::string_view what, json* out) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char ch : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (ch == '\\') escaped = true;
      else if (ch == '"') in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '{' || ch == '[') {
      if (++depth > kMaxJsonDepth)
        return EnvelopeError{Reject::kJsonTooDeep, std::string(what) + " is JSON nested deeper than " +
                                                       std::to_string(kMaxJsonDepth) + " levels"};
    } else if (ch == '}' || ch == ']') {
      --depth;
    }
  }
  *out = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!out->is_discarded()) return std::nullopt;
  if (!text::valid_utf8(text)) return EnvelopeError{Reject::kInvalidUtf8, std::string(what) + " is not valid UTF-8"};
  return EnvelopeError{Reject::kMalformedJson, std::string(what) + " is not valid JSON"};
}

namespace {

// A line without its '\r', within max_line_bytes.
std::optional<EnvelopeError> tree_envelope(std::string_view line, const Config& c, Batch& batch, Record* out) {
  if (!line.empty() && line.front() == '{') {
    // A line that is not JSON (or nested past the bound) is a text line.
    json obj;
    if (!parse_json(line, "line", &obj) && obj.is_object()) {
      // The envelope's own keys first, then the configured message_keys
      // (structlog's "event", GELF's "short_message", ...): listed only
      // when the first are absent, so the common line allocates nothing.
      auto it = obj.end();
      std::string key;
      auto present = [&](const std::string& k) {
        it = obj.find(k);
        if (it == obj.end() || it->is_null()) return false;  // null = absent
        key = k;
        return true;
      };
      if (std::none_of(std::begin(kMessageKeys), std::end(kMessageKeys), present)) {
        const auto configured = c.message_key_list();
        if (std::none_of(configured.begin(), configured.end(), present))
          return EnvelopeError{Reject::kMissingText,
                               "JSON line has no 'message', 'msg', 'log' or 'text' (nor a key of message_keys)"};
      }
      if (!it->is_string()) return EnvelopeError{Reject::kWrongType, "'" + key + "' must be a string"};
      const auto& text = it->get_ref<const std::string&>();
      if (auto e = check_text(text, c)) return e;
      if (auto e = read_labels(obj, c, &out->labels)) return e;
      for (const char* lk : kLabelKeys)
        if (auto lt = obj.find(lk); lt != obj.end())
          if (auto e = add_label(lk, *lt, c, &out->labels)) return e;
      out->text = batch.keep(text);
      return std::nullopt;
    }
    // Not a JSON object after all: a plain line that starts with '{'.
  }
  if (auto e = check_text(line, c)) return e;
  out->text = line;
  return std::nullopt;
}

// The top-level values a JSON line's record is made of, read with the
// library's SAX parser: the grammar and acceptance of json::parse, but the
// line's other fields (timestamps, callers, trace ids) are checked and
// dropped instead of built into a tree of maps, a third of the cost of a
// seen JSON line. A line this does not cover (a "labels" key, a wanted key
// holding an object or an array) is read as a tree, as before.
class EnvelopeScan {
 public:
  using string_t = json::string_t;
  // The slots of the values kept: kMessageKeys, then kLabelKeys, then the
  // configured message keys not among them (ScanKeys).
  static constexpr size_t kLabelSlot = std::size(kMessageKeys);

  void reset(const std::vector<std::string>* keys) {
    keys_ = keys;
    values_.assign(keys->size(), json(json::value_t::discarded));
    depth_ = 0;
    current_ = -1;
    object_ = false;
    tree_ = false;
  }
  bool object() const { return object_; }
  bool needs_tree() const { return tree_; }
  // The value of slot i; discarded when the key is absent.
  const json& value(size_t i) const { return values_[i]; }

  bool null() { return scalar(json(nullptr)); }
  bool boolean(bool v) { return scalar(json(v)); }
  bool number_integer(json::number_integer_t v) { return scalar(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(json(v)); }
  bool number_float(json::number_float_t v, const string_t&) { return scalar(json(v)); }
  bool string(string_t& v) { return scalar(json(std::move(v))); }
  bool binary(json::binary_t&) { return container(); }
  bool start_object(std::size_t) {
    if (depth_ == 0) object_ = true;
    return container();
  }
  bool start_array(std::size_t) { return container(); }
  bool end_object() { return --depth_, true; }
  bool end_array() { return --depth_, true; }
  bool key(string_t& k) {
    if (depth_ != 1) return true;
    current_ = -1;
    if (k == "labels") tree_ = true;
    for (size_t i = 0; i < keys_->size(); ++i)
      if ((*keys_)[i] == k) {
        current_ = static_cast<int>(i);
        break;
      }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  bool scalar(json&& v) {
    if (depth_ == 1 && current_ >= 0) values_[static_cast<size_t>(current_)] = std::move(v);
    return true;
  }
  // Past kMaxJsonDepth the parse stops and the line is text, as parse_json
  // refuses it: the same bound, counted here instead of in a pass before.
  bool container() {
    if (depth_ == 1 && current_ >= 0) tree_ = true;
    return ++depth_ <= kMaxJsonDepth;
  }

  const std::vector<std::string>* keys_ = nullptr;
  std::vector<json> values_;
  int depth_ = 0;
  int current_ = -1;
  bool object_ = false;
  bool tree_ = false;
};

// The slots' keys for a configuration, and the slot of each configured
// message key in its order: built once per thread and message_keys.
struct ScanKeys {
  std::string message_keys;
  std::vector<std::string> keys;
  std::vector<size_t> configured;
};
const ScanKeys& scan_keys(const Config& c) {
  thread_local ScanKeys k;
  thread_local bool built = false;
  if (built && k.message_keys == c.message_keys) return k;
  k = ScanKeys{c.message_keys, {}, {}};
  for (const char* m : kMessageKeys) k.keys.emplace_back(m);
  for (const char* l : kLabelKeys) k.keys.emplace_back(l);
  for (const auto& m : c.message_key_list()) {
    auto at = std::find(k.keys.begin(), k.keys.end(), m);
    k.configured.push_back(static_cast<size_t>(at - k.keys.begin()));
    if (at == k.keys.end()) k.keys.push_back(m);
  }
  built = true;
  return k;
}

enum class LineForm { kText, kTree, kDone };

// A JSON object line read through EnvelopeScan. kText: not a JSON object (a
// plain line that starts with '{'); kTree: read it as a tree.
LineForm scanned_envelope(std::string_view line, const Config& c, Batch& batch, Record* out,
                          std::optional<EnvelopeError>* error) {
  const ScanKeys& k = scan_keys(c);
  thread_local EnvelopeScan scan;
  scan.reset(&k.keys);
  if (!json::sax_parse(line, &scan) || !scan.object()) return LineForm::kText;
  if (scan.needs_tree()) return LineForm::kTree;
  auto present = [&](size_t slot) {
    const json& v = scan.value(slot);
    return !v.is_discarded() && !v.is_null();  // null = absent
  };
  size_t slot = k.keys.size();
  for (size_t i = 0; i < std::size(kMessageKeys) && slot == k.keys.size(); ++i)
    if (present(i)) slot = i;
  for (size_t i = 0; i < k.configured.size() && slot == k.keys.size(); ++i)
    if (present(k.configured[i])) slot = k.configured[i];
  if (slot == k.keys.size()) {
    *error = EnvelopeError{Reject::kMissingText,
                           "JSON line has no 'message', 'msg', 'log' or 'text' (nor a key of message_keys)"};
    return LineForm::kDone;
  }
  const json& v = scan.value(slot);
  if (!v.is_string()) {
    *error = EnvelopeError{Reject::kWrongType, "'" + k.keys[slot] + "' must be a string"};
    return LineForm::kDone;
  }
  const auto& text = v.get_ref<const std::string&>();
  if ((*error = check_text(text, c))) return LineForm::kDone;
  for (size_t i = 0; i < std::size(kLabelKeys); ++i)
    if (const json& l = scan.value(EnvelopeScan::kLabelSlot + i); !l.is_discarded())
      if ((*error = add_label(kLabelKeys[i], l, c, &out->labels))) return LineForm::kDone;
  out->text = batch.keep(text);
  return LineForm::kDone;
}

}  // namespace

std::optional<EnvelopeError> record_from_envelope(std::string_view line, const Config& c, Batch& batch, Record* out) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() > static_cast<size_t>(c.max_line_bytes)) return check_text(line, c);
  if (!line.empty() && line.front() == '{') {
    std::optional<EnvelopeError> error;
    const LineForm form = scanned_envelope(line, c, batch, out, &error);
    if (form == LineForm::kDone) return error;
    if (form == LineForm::kTree) return tree_envelope(line, c, batch, out);
  }
  if (auto e = check_text(line, c)) return e;
  out->text = line;
  return std::nullopt;
}

std::optional<EnvelopeError> record_from_envelope_tree(std::string_view line, const Config& c, Batch& batch,
                                                       Record* out) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() > static_cast<size_t>(c.max_line_bytes)) return check_text(line, c);
  return tree_envelope(line, c, batch, out);
}

void apply_structured(Record& r, const Config& c, Batch& batch) {
  if (!c.structured_messages || r.text.empty()) return;
  // Options built once per thread and configuration (keys and limit compared
  // per line: a short string compare, no allocation).
  thread_local std::string cached_keys;
  thread_local StructuredOptions opts = [] {
    StructuredOptions o;
    o.max_labels = -1;  // matches no configuration: the first line builds them
    return o;
  }();
  if (opts.max_labels != c.max_labels || cached_keys != c.message_keys || opts.keep_caller != c.structured_keep_caller ||
      opts.syslog_headers != c.syslog_headers || opts.app_layouts != std::max(0, parse_app_layouts(c.app_layouts))) {
    opts = structured_options(c);
    cached_keys = c.message_keys;
  }
  if (!may_be_structured(r.text, opts)) return;
  thread_local StructuredLine s;  // reused: no allocation per line once warm
  thread_local std::string scratch;
  if (!extract_structured(r.text, opts, &s, &scratch)) return;
  if (s.message.find_first_not_of(" \t") == std::string_view::npos) return;
  const char* begin = r.text.data();
  const bool inside = s.message.data() >= begin && s.message.data() + s.message.size() <= begin + r.text.size();
  r.text = inside ? s.message : batch.keep(s.message);
  merge_labels(&r.labels, s.labels, c.max_labels);
}

StructuredOptions structured_options(const Config& c) {
  StructuredOptions o;
  o.message_keys = c.message_key_list();
  o.max_labels = c.max_labels;
  o.keep_caller = c.structured_keep_caller;
  o.syslog_headers = c.syslog_headers;
  o.app_layouts = std::max(0, parse_app_layouts(c.app_layouts));
  return o;
}

void reject_record(Record& r, const EnvelopeError& e) {
  r.fail(RecordFailure::kRejected, e.message);
  metrics().reject(e.reason);
}

std::optional<EnvelopeError> batch_from_ndjson(std::string_view body, const Config& c, int64_t received_ms,
                                               Batch& batch) {
  std::vector<Record> lines;
  while (!body.empty()) {
    auto nl = body.find('\n');
    std::string_view line = body.substr(0, nl);
    body.remove_prefix(nl == std::string_view::npos ? body.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;  // blank lines separate nothing
    if (static_cast<int>(lines.size()) >= c.max_lines_per_request)
      return EnvelopeError{Reject::kTooManyLines,
                           "more than max_lines_per_request (" + std::to_string(c.max_lines_per_request) + ") lines"};
    Record& r = lines.emplace_back();
    r.received_ms = received_ms;
    json obj;
    std::optional<EnvelopeError> e = parse_json(line, "line", &obj);
    if (!e) e = object_envelope(obj, c, batch, &r);
    if (e) reject_record(r, *e);  // per-line error at its position; the rest still runs
  }
  if (lines.empty()) return EnvelopeError{Reject::kMissingText, "empty NDJSON body"};
  assemble(lines, c, batch);
  return std::nullopt;
}

std::optional<EnvelopeError> batch_from_json(std::string_view text, const Config& c, int64_t received_ms, Batch& batch,
                                             bool* is_list) {
  json body;
  if (auto e = parse_json(text, "body", &body)) return e;
  if (!body.is_object()) return EnvelopeError{Reject::kWrongType, "body must be a JSON object"};
  if (body.contains("texts") && body.contains("text"))
    return EnvelopeError{Reject::kBadRequest, "give either 'text' or 'texts', not both"};
  if (body.contains("texts")) {
    *is_list = true;
    const json& texts = body["texts"];
    if (!texts.is_array()) return EnvelopeError{Reject::kWrongType, "'texts' must be an array of strings"};
    if (texts.empty()) return EnvelopeError{Reject::kMissingText, "'texts' is empty"};
    if (texts.size() > static_cast<size_t>(c.max_lines_per_request))
      return EnvelopeError{Reject::kTooManyLines,
                           "more than max_lines_per_request (" + std::to_string(c.max_lines_per_request) + ") texts"};
    json shared_labels = body.contains("labels") ? body["labels"] : json();
    std::vector<Record> lines;
    for (size_t i = 0; i < texts.size(); ++i) {
      json item = texts[i].is_string() ? json{{"text", texts[i]}} : texts[i];
      if (item.is_object() && !item.contains("labels") && !shared_labels.is_null()) item["labels"] = shared_labels;
      Record& r = lines.emplace_back();
      r.received_ms = received_ms;
      if (auto e = object_envelope(item, c, batch, &r)) {
        // A JSON batch is one document: reject it whole, naming the item.
        return EnvelopeError{e->reason, "texts[" + std::to_string(i) + "]: " + e->message};
      }
    }
    assemble(lines, c, batch);
  } else {
    Record& r = batch.records.emplace_back();
    r.received_ms = received_ms;
    if (auto e = record_from_object(body, c, batch, &r)) return e;
  }
  return std::nullopt;
}

}  // namespace logsift
