#include "service/api/bulk.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "pipeline/core/text.h"
#include "pipeline/core/time.h"
#include "pipeline/ingest/envelope.h"
#include "pipeline/ingest/labels.h"

namespace logsift {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr int kMaxFlattenDepth = 4;
constexpr std::string_view kTimestampKeys[] = {"@timestamp", "timestamp", "ISODATE"};

IngestError err(Reject r, std::string m) { return IngestError{r, std::move(m)}; }

// A top-level member by ASCII-case-insensitive key (an exact match first).
const json* member_ci(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(std::string(key));
  if (it != obj.end()) return &*it;
  for (auto i = obj.begin(); i != obj.end(); ++i)
    if (text::iequals(i.key(), key)) return &*i;
  return nullptr;
}

// "a.b.c": the flat key first, then the nested path.
const json* lookup(const json& doc, std::string_view path) {
  if (const json* v = member_ci(doc, path)) return v;
  const json* cur = &doc;
  while (true) {
    size_t dot = path.find('.');
    if (dot == std::string_view::npos) return member_ci(*cur, path);
    cur = member_ci(*cur, path.substr(0, dot));
    if (!cur || !cur->is_object()) return nullptr;
    path.remove_prefix(dot + 1);
  }
}

std::optional<std::string> scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  return std::nullopt;
}

// "sshd[123]:" -> "sshd"
std::string strip_syslogtag(std::string_view tag) {
  tag = text::trim_blanks(tag);
  if (!tag.empty() && tag.back() == ':') tag.remove_suffix(1);
  if (!tag.empty() && tag.back() == ']') {
    size_t b = tag.rfind('[');
    if (b != std::string_view::npos && b > 0) tag = tag.substr(0, b);
  }
  return std::string(tag);
}

bool is_message_key(std::string_view path, const BulkOptions& opts) {
  for (const auto& k : opts.message_keys)
    if (text::iequals(k, path)) return true;
  return false;
}

void flatten_labels(const json& obj, const std::string& prefix, int depth, const BulkOptions& opts, LabelBuilder* lb) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    const json& v = it.value();
    if (v.is_object()) {
      if (depth + 1 < kMaxFlattenDepth) flatten_labels(v, path, depth + 1, opts, lb);
      continue;
    }
    if (is_message_key(path, opts)) continue;
    auto text = scalar_text(v);
    if (!text) continue;
    if (lb->classify(path) == CanonicalLabel::kService) {
      std::string_view last = path;
      if (size_t d = last.rfind('.'); d != std::string_view::npos) last.remove_prefix(d + 1);
      if (text::iequals(last, "syslogtag")) *text = strip_syslogtag(*text);
    }
    lb->add(path, *text);
  }
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// 20 base64url characters, like Elasticsearch's auto-generated ids.
std::string make_id(uint64_t seed, uint64_t n) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  uint64_t a = splitmix64(seed ^ splitmix64(n)), b = splitmix64(a + n);
  std::string id;
  for (int i = 0; i < 10; ++i) id.push_back(kAlphabet[(a >> (6 * i)) & 63]);
  for (int i = 0; i < 10; ++i) id.push_back(kAlphabet[(b >> (6 * i)) & 63]);
  return id;
}

std::optional<int64_t> doc_timestamp(const json& doc) {
  for (std::string_view k : kTimestampKeys) {
    const json* v = member_ci(doc, k);
    if (!v) continue;
    if (v->is_string()) {
      if (auto t = parse_rfc3339_ms(v->get_ref<const std::string&>())) return t;
    } else if (v->is_number_integer() && v->get<int64_t>() >= 0) {
      return v->get<int64_t>();
    }
  }
  return std::nullopt;
}

std::string message_keys_text(const BulkOptions& opts) {
  std::string s;
  for (const auto& k : opts.message_keys) s += (s.empty() ? "" : ", ") + k;
  return s;
}

// Fills the item (and maybe an entry) from one source line.
void read_document(std::string_view line, const BulkOptions& opts, BulkItem* item, BulkRequest* out) {
  json src;
  if (auto e = parse_json(line, "the source", &src)) {
    bulk_fail_item(item, "failed to parse: " + e->message);
    return;
  }
  if (!src.is_object()) {
    bulk_fail_item(item, "failed to parse: the source must be a JSON object");
    return;
  }
  const json* doc = &src;
  if (item->action == "update") {
    doc = member_ci(src, "doc");
    if (!doc || !doc->is_object()) {
      bulk_fail_item(item, "update without a \"doc\" object is not supported (scripts and upserts are not)",
                     "action_request_validation_exception");
      return;
    }
  }
  std::string message;
  bool found = false;
  for (const auto& k : opts.message_keys) {
    const json* v = lookup(*doc, k);
    if (!v || !v->is_string()) continue;
    const auto& s = v->get_ref<const std::string&>();
    std::string_view t = text::trim_blanks(s);  // rsyslog's msg of a 3164 message starts with a space
    if (t.empty()) continue;
    message = std::string(t);
    found = true;
    break;
  }
  if (!found) {
    bulk_fail_item(item, "no message: the document has no non-empty string field among " + message_keys_text(opts));
    return;
  }
  LabelBuilder lb(bulk_label_keys(), opts.ingest.max_labels, false, &opts.ingest.keep_keys);
  flatten_labels(*doc, "", 0, opts, &lb);
  IngestEntry e;
  e.message = std::move(message);
  e.labels = lb.finish();
  e.ts_ms = doc_timestamp(*doc).value_or(0);
  item->entry = static_cast<int>(out->entries.size());
  out->entries.push_back(std::move(e));
}

}  // namespace

void bulk_fail_item(BulkItem* item, std::string reason, std::string type, int status) {
  item->status = status;
  item->result.clear();
  item->error_type = std::move(type);
  item->error_reason = std::move(reason);
}

std::optional<IngestError> parse_bulk(std::string_view body, std::string_view path_index, const BulkOptions& opts,
                                      BulkRequest* out) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return err(Reject::kEmptyLine, "request body is required");
  size_t pos = 0, line_no = 0;
  auto next_line = [&](std::string_view* line) {
    while (pos < body.size()) {
      size_t nl = body.find('\n', pos);
      std::string_view l = body.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
      pos = nl == std::string_view::npos ? body.size() : nl + 1;
      ++line_no;
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      if (text::trim_blanks(l).empty()) continue;
      *line = l;
      return true;
    }
    return false;
  };
  std::string_view line;
  uint64_t seq = 0;
  while (next_line(&line)) {
    size_t action_line = line_no;
    std::string where = "action/metadata line [" + std::to_string(action_line) + "]";
    if (out->items.size() >= opts.ingest.max_entries)
      return err(Reject::kTooManyLines,
                 "more than " + std::to_string(opts.ingest.max_entries) + " actions in one bulk request");
    json action;
    if (auto e = parse_json(line, "Malformed " + where, &action)) {
      if (e->reason == Reject::kInvalidUtf8) return err(Reject::kInvalidUtf8, "Malformed " + where + ": not valid UTF-8");
      if (e->reason == Reject::kJsonTooDeep) return err(Reject::kJsonTooDeep, e->message);
      return err(Reject::kMalformedJson, "Malformed " + where + ": not valid JSON");
    }
    if (!action.is_object() || action.size() != 1)
      return err(Reject::kWrongType, "Malformed " + where + ", expected an object with exactly one action");
    auto it = action.begin();
    const std::string& op = it.key();
    if (op != "index" && op != "create" && op != "update" && op != "delete")
      return err(Reject::kBadRequest, "Malformed " + where +
                                          ", expected one of [create, delete, index, update] but found [" +
                                          op.substr(0, 32) + "]");
    const json& meta = it.value();
    if (!meta.is_object())
      return err(Reject::kWrongType, "Malformed " + where + ", the action's value must be an object");
    BulkItem item;
    item.action = op;
    if (auto m = meta.find("_index"); m != meta.end() && m->is_string()) item.index = m->get<std::string>();
    if (item.index.empty()) item.index = path_index.empty() ? opts.default_index : std::string(path_index);
    if (auto m = meta.find("_id"); m != meta.end()) {
      if (auto t = scalar_text(*m)) item.id = *t;
    }
    if (item.id.empty()) item.id = make_id(opts.id_seed, seq);
    ++seq;
    if (op == "delete") {
      item.status = 404;
      item.result = "not_found";
      out->items.push_back(std::move(item));
      continue;
    }
    std::string_view src;
    if (!next_line(&src))
      return err(Reject::kBadRequest,
                 "the " + op + " action on line " + std::to_string(action_line) + " has no source line after it");
    item.status = op == "update" ? 200 : 201;
    item.result = op == "update" ? "updated" : "created";
    read_document(src, opts, &item, out);
    out->items.push_back(std::move(item));
  }
  if (out->items.empty()) return err(Reject::kEmptyLine, "request body is required");
  return std::nullopt;
}

std::string bulk_response_body(const BulkRequest& req, int64_t took_ms) {
  ojson items = ojson::array();
  bool errors = false;
  int64_t seq_no = 0;
  for (const auto& it : req.items) {
    ojson r = ojson::object();
    r["_index"] = it.index;
    r["_id"] = it.id;
    if (it.failed()) {
      errors = true;
      r["status"] = it.status;
      r["error"] = ojson{{"type", it.error_type}, {"reason", it.error_reason}};
    } else {
      r["_version"] = 1;
      r["result"] = it.result;
      r["_shards"] = ojson{{"total", 1}, {"successful", it.status < 300 ? 1 : 0}, {"failed", 0}};
      if (it.status < 300) {
        r["_seq_no"] = seq_no++;
        r["_primary_term"] = 1;
      }
      r["status"] = it.status;
    }
    items.push_back(ojson{{it.action, std::move(r)}});
  }
  ojson body = ojson::object();
  body["took"] = took_ms;
  body["errors"] = errors;
  body["items"] = std::move(items);
  return body.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

std::optional<std::string> bulk_target_index(std::string_view target) {
  size_t q = target.find('?');
  std::string_view path = target.substr(0, q);
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/_bulk") return std::string();
  static constexpr std::string_view kSuffix = "/_bulk";
  if (path.size() > kSuffix.size() + 1 && path.substr(path.size() - kSuffix.size()) == kSuffix && path[0] == '/') {
    std::string_view index = path.substr(1, path.size() - kSuffix.size() - 1);
    if (index.find('/') != std::string_view::npos || index.empty()) return std::nullopt;
    return std::string(index);
  }
  return std::nullopt;
}

std::optional<EsProbeResponse> es_probe_response(std::string_view method, std::string_view target, int64_t now_ms) {
  if (method != "GET" && method != "HEAD") return std::nullopt;
  std::string_view path = target.substr(0, target.find('?'));
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  EsProbeResponse r;
  r.content_type = "application/json";
  if (path == "/" || path.empty()) {
    ojson v = {{"name", "logsift"},
               {"cluster_name", "logsift"},
               {"cluster_uuid", "logsift-0000000000000"},
               {"version",
                {{"number", "8.11.0"},
                 {"build_flavor", "default"},
                 {"build_type", "logsift"},
                 {"build_hash", "logsift"},
                 {"build_date", "2023-11-04T10:04:57.184859352Z"},
                 {"build_snapshot", false},
                 {"lucene_version", "9.8.0"},
                 {"minimum_wire_compatibility_version", "7.17.0"},
                 {"minimum_index_compatibility_version", "7.0.0"}}},
               {"tagline", "You Know, for Search"}};
    r.body = v.dump();
  } else if (path == "/_cat/health") {
    // epoch timestamp cluster status node.total node.data shards pri relo init unassign pending_tasks
    // max_task_wait_time active_shards_percent
    int64_t secs = now_ms / 1000;
    int64_t day = ((secs % 86400) + 86400) % 86400;
    char hms[16];
    std::snprintf(hms, sizeof(hms), "%02d:%02d:%02d", static_cast<int>(day / 3600), static_cast<int>(day / 60 % 60),
                  static_cast<int>(day % 60));
    r.content_type = "text/plain; charset=UTF-8";
    r.body = std::to_string(secs) + " " + hms + " logsift green 1 1 0 0 0 0 0 0 - 100.0%\n";
  } else if (path == "/_cluster/health") {
    ojson v = {{"cluster_name", "logsift"},
               {"status", "green"},
               {"timed_out", false},
               {"number_of_nodes", 1},
               {"number_of_data_nodes", 1},
               {"active_primary_shards", 0},
               {"active_shards", 0},
               {"relocating_shards", 0},
               {"initializing_shards", 0},
               {"unassigned_shards", 0},
               {"delayed_unassigned_shards", 0},
               {"number_of_pending_tasks", 0},
               {"number_of_in_flight_fetch", 0},
               {"task_max_waiting_in_queue_millis", 0},
               {"active_shards_percent_as_number", 100.0}};
    r.body = v.dump();
  } else if (path == "/_license") {
    ojson v = {{"license",
                {{"status", "active"},
                 {"uid", "logsift"},
                 {"type", "basic"},
                 {"issue_date", "2023-11-04T00:00:00.000Z"},
                 {"issue_date_in_millis", 1699056000000},
                 {"max_nodes", 1000},
                 {"max_resource_units", nullptr},
                 {"issued_to", "logsift"},
                 {"issuer", "elasticsearch"},
                 {"start_date_in_millis", -1}}}};
    r.body = v.dump();
  } else if (path == "/_xpack") {
    ojson v = {{"build", {{"hash", "logsift"}, {"date", "2023-11-04T10:04:57.184859352Z"}}},
               {"license", {{"uid", "logsift"}, {"type", "basic"}, {"mode", "basic"}, {"status", "active"}}},
               {"features", ojson::object()}};
    r.body = v.dump();
  } else {
    return std::nullopt;
  }
  if (method == "HEAD") r.body.clear();
  return r;
}

}  // namespace logsift
