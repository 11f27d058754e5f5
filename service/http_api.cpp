#include "service/http_api.h"

#include <charconv>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "lsh/lsh.h"
#include "pipeline/catalog.h"
#include "pipeline/envelope.h"
#include "pipeline/metrics.h"
#include "service/alert_router.h"
#include "service/alert_store.h"

namespace logsift {
namespace {

using json = nlohmann::json;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

HttpResponse make_response(unsigned version, bool keep_alive, http::status status, std::string body,
                           const char* content_type = "application/json") {
  HttpResponse res{status, version};
  res.set(http::field::server, "logsift");
  res.set(http::field::content_type, content_type);
  res.keep_alive(keep_alive);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

HttpResponse json_response(const HttpRequest& req, http::status status, const json& body) {
  return make_response(req.version(), req.keep_alive(), status, dump(body) + "\n");
}

http::status status_for(Reject r) {
  switch (r) {
    case Reject::kBodyTooLarge:
    case Reject::kLineTooLong:
    case Reject::kTooManyLines: return http::status::payload_too_large;
    case Reject::kUnsupportedMediaType: return http::status::unsupported_media_type;
    case Reject::kHeaderTooLarge: return http::status::request_header_fields_too_large;
    case Reject::kNotFound: return http::status::not_found;
    case Reject::kMethodNotAllowed: return http::status::method_not_allowed;
    case Reject::kTooManyConnections:
    case Reject::kOverloaded: return http::status::service_unavailable;
    default: return http::status::bad_request;
  }
}

HttpResponse reject(const HttpRequest& req, const EnvelopeError& e) {
  return error_response(req.version(), req.keep_alive(), status_for(e.reason), e.reason, e.message);
}

// "application/json; charset=utf-8" -> "application/json"
std::string media_type(const HttpRequest& req) {
  std::string v(req[http::field::content_type]);
  if (auto semi = v.find(';'); semi != std::string::npos) v.resize(semi);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v;
}

// Splits "/clusters?limit=5&offset=2" into path and a small query map.
struct Target {
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
  const std::string* get(const std::string& k) const {
    for (const auto& [key, v] : query)
      if (key == k) return &v;
    return nullptr;
  }
};

Target parse_target(std::string_view t) {
  Target out;
  auto q = t.find('?');
  out.path = std::string(t.substr(0, q));
  if (q == std::string_view::npos) return out;
  std::string_view rest = t.substr(q + 1);
  while (!rest.empty()) {
    auto amp = rest.find('&');
    std::string_view kv = rest.substr(0, amp);
    auto eq = kv.find('=');
    out.query.emplace_back(std::string(kv.substr(0, eq)),
                           eq == std::string_view::npos ? std::string() : std::string(kv.substr(eq + 1)));
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  return out;
}

bool parse_int_param(const std::string& s, int64_t lo, int64_t hi, int64_t* out) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// Builds the batch for POST /inferences, or returns the rejection.
struct ParsedInference {
  std::unique_ptr<Batch> batch;
  enum class Shape { kSingle, kList, kNdjson } shape = Shape::kSingle;
};

std::optional<EnvelopeError> parse_inference(const ServerContext& ctx, const HttpRequest& req, ParsedInference* out) {
  const Config& c = ctx.config;
  std::string mt = media_type(req);
  auto batch = std::make_unique<Batch>();
  int64_t t = now_ms();
  if (mt == "application/x-ndjson" || mt == "application/jsonl" || mt == "application/ndjson") {
    out->shape = ParsedInference::Shape::kNdjson;
    std::string_view body = req.body();
    while (!body.empty()) {
      auto nl = body.find('\n');
      std::string_view line = body.substr(0, nl);
      body.remove_prefix(nl == std::string_view::npos ? body.size() : nl + 1);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;  // blank lines separate nothing
      if (static_cast<int>(batch->records.size()) >= c.max_lines_per_request)
        return EnvelopeError{Reject::kTooManyLines,
                             "more than max_lines_per_request (" + std::to_string(c.max_lines_per_request) + ") lines"};
      Record& r = batch->records.emplace_back();
      r.received_ms = t;
      json obj = json::parse(line, nullptr, false);
      std::optional<EnvelopeError> e;
      if (obj.is_discarded()) e = EnvelopeError{Reject::kMalformedJson, "line is not valid JSON"};
      else e = record_from_object(obj, c, &r);
      if (e) reject_record(r, *e);  // per-line error at its position; the rest still runs
    }
    if (batch->records.empty()) return EnvelopeError{Reject::kMissingText, "empty NDJSON body"};
    out->batch = std::move(batch);
    return std::nullopt;
  }
  // x-www-form-urlencoded is what `curl -d` sends by default: the body is
  // still parsed as JSON (and rejected with 400 if it is not).
  if (!mt.empty() && mt != "application/json" && mt != "text/json" && mt != "application/x-www-form-urlencoded")
    return EnvelopeError{Reject::kUnsupportedMediaType,
                         "unsupported Content-Type '" + mt + "': use application/json or application/x-ndjson"};
  json body = json::parse(req.body(), nullptr, false);
  if (body.is_discarded()) return EnvelopeError{Reject::kMalformedJson, "body is not valid JSON"};
  if (!body.is_object()) return EnvelopeError{Reject::kWrongType, "body must be a JSON object"};
  if (body.contains("texts") && body.contains("text"))
    return EnvelopeError{Reject::kBadRequest, "give either 'text' or 'texts', not both"};
  if (body.contains("texts")) {
    out->shape = ParsedInference::Shape::kList;
    const json& texts = body["texts"];
    if (!texts.is_array()) return EnvelopeError{Reject::kWrongType, "'texts' must be an array of strings"};
    if (texts.empty()) return EnvelopeError{Reject::kMissingText, "'texts' is empty"};
    if (texts.size() > static_cast<size_t>(c.max_lines_per_request))
      return EnvelopeError{Reject::kTooManyLines,
                           "more than max_lines_per_request (" + std::to_string(c.max_lines_per_request) + ") texts"};
    json shared_labels = body.contains("labels") ? body["labels"] : json();
    for (size_t i = 0; i < texts.size(); ++i) {
      json item = texts[i].is_string() ? json{{"text", texts[i]}} : texts[i];
      if (item.is_object() && !item.contains("labels") && !shared_labels.is_null()) item["labels"] = shared_labels;
      Record& r = batch->records.emplace_back();
      r.received_ms = t;
      if (auto e = record_from_object(item, c, &r)) {
        // A JSON batch is one document: reject it whole, naming the item.
        return EnvelopeError{e->reason, "texts[" + std::to_string(i) + "]: " + e->message};
      }
    }
  } else {
    Record& r = batch->records.emplace_back();
    r.received_ms = t;
    if (auto e = record_from_object(body, c, &r)) return e;
  }
  out->batch = std::move(batch);
  return std::nullopt;
}

void handle_inferences(ServerContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond) {
  ParsedInference parsed;
  if (auto e = parse_inference(ctx, req, &parsed)) {
    respond(reject(req, *e));  // counts it
    return;
  }
  unsigned version = req.version();
  bool keep_alive = req.keep_alive();
  auto shape = parsed.shape;
  parsed.batch->on_done = [respond, version, keep_alive, shape](std::unique_ptr<Batch> b) {
    if (b->aborted) {
      respond(error_response(version, false, http::status::service_unavailable, Reject::kOverloaded,
                             "shutting down"));
      return;
    }
    if (shape == ParsedInference::Shape::kNdjson) {
      std::string out;
      for (const auto& r : b->records) out += dump(record_result_json(r)) + "\n";
      respond(make_response(version, keep_alive, http::status::ok, std::move(out), "application/x-ndjson"));
    } else if (shape == ParsedInference::Shape::kList) {
      json results = json::array();
      for (const auto& r : b->records) results.push_back(record_result_json(r));
      respond(make_response(version, keep_alive, http::status::ok, dump({{"results", results}}) + "\n"));
    } else {
      const Record& r = b->records.front();
      auto status = r.ok() ? http::status::ok : http::status::internal_server_error;
      respond(make_response(version, keep_alive, status, dump(record_result_json(r)) + "\n"));
    }
  };
  submit_with_backoff(ex, ctx.pipeline, std::move(parsed.batch), std::chrono::milliseconds(5000),
                      [respond, version, keep_alive](std::unique_ptr<Batch>) {
                        auto res = error_response(version, keep_alive, http::status::service_unavailable,
                                                  Reject::kOverloaded, "pipeline is full, retry later");
                        res.set(http::field::retry_after, "1");
                        respond(std::move(res));
                      });
}

HttpResponse handle_clusters(ServerContext& ctx, const HttpRequest& req, const Target& t) {
  if (!ctx.catalog) return json_response(req, http::status::not_found, {{"error", "no catalog"}});
  int64_t limit = 50, offset = 0;
  if (auto* v = t.get("limit"); v && !parse_int_param(*v, 1, 1000, &limit))
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "'limit' must be an integer in [1, 1000]");
  if (auto* v = t.get("offset"); v && !parse_int_param(*v, 0, int64_t{1} << 40, &offset))
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "'offset' must be a non-negative integer");
  return json_response(req, http::status::ok, ctx.catalog->list(limit, offset));
}

HttpResponse handle_cluster(ServerContext& ctx, const HttpRequest& req, std::string_view id_text) {
  uint64_t id;
  if (!lsh::parse_id(id_text, &id))
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "cluster id must be 16 hex digits");
  if (!ctx.catalog) return json_response(req, http::status::not_found, {{"error", "no catalog"}});
  auto c = ctx.catalog->get(id);
  if (!c)
    return error_response(req.version(), req.keep_alive(), http::status::not_found, Reject::kNotFound,
                          "no cluster " + std::string(id_text));
  return json_response(req, http::status::ok, *c);
}

HttpResponse bad_field(const HttpRequest& req, const std::string& field, const std::string& message) {
  metrics().reject(Reject::kBadRequest);
  return make_response(req.version(), req.keep_alive(), http::status::bad_request,
                       dump({{"error", message}, {"field", field}}) + "\n");
}

HttpResponse handle_series(ServerContext& ctx, const HttpRequest& req, std::string_view id_text, const Target& t) {
  uint64_t id;
  if (!lsh::parse_id(id_text, &id))
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "cluster id must be 16 hex digits");
  const std::string* w = t.get("window");
  auto window = w ? parse_duration_ms(*w) : std::optional<int64_t>(ctx.config.series_windows_ms().front());
  if (!window)
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "'window' must be a duration such as 1m, 5m or 1h");
  try {
    auto s = ctx.pipeline->series(id, *window);
    if (!s)
      return error_response(req.version(), req.keep_alive(), http::status::not_found, Reject::kNotFound,
                            "no recent counts for cluster " + std::string(id_text));
    return json_response(req, http::status::ok, *s);
  } catch (const std::invalid_argument&) {
    return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kBadRequest,
                          "window not kept; configured series_windows: " + ctx.config.series_windows);
  }
}

HttpResponse handle_subscriptions(ServerContext& ctx, const HttpRequest& req, std::string_view rest) {
  if (!ctx.alert_router) return json_response(req, http::status::not_found, {{"error", "alerts disabled"}});
  if (rest.empty()) {
    if (req.method() == http::verb::get) {
      json subs = json::array();
      for (const auto& s : ctx.alert_store->subscriptions()) subs.push_back(s.to_json());
      return json_response(req, http::status::ok, {{"subscriptions", subs}});
    }
    if (req.method() != http::verb::post)
      return error_response(req.version(), req.keep_alive(), http::status::method_not_allowed,
                            Reject::kMethodNotAllowed, "use GET or POST on /subscriptions");
    json body = json::parse(req.body(), nullptr, false);
    if (body.is_discarded())
      return error_response(req.version(), req.keep_alive(), http::status::bad_request, Reject::kMalformedJson,
                            "body is not valid JSON");
    try {
      return json_response(req, http::status::created, ctx.alert_router->create(body));
    } catch (const FieldError& e) {
      return bad_field(req, e.field, e.what());
    }
  }
  std::string id(rest);
  if (req.method() == http::verb::get) {
    auto s = ctx.alert_store->subscription(id);
    if (!s)
      return error_response(req.version(), req.keep_alive(), http::status::not_found, Reject::kNotFound,
                            "no subscription " + id);
    return json_response(req, http::status::ok, s->to_json());
  }
  if (req.method() == http::verb::delete_) {
    if (!ctx.alert_router->remove(id))
      return error_response(req.version(), req.keep_alive(), http::status::not_found, Reject::kNotFound,
                            "no subscription " + id);
    HttpResponse res{http::status::no_content, req.version()};
    res.keep_alive(req.keep_alive());
    res.prepare_payload();
    return res;
  }
  return error_response(req.version(), req.keep_alive(), http::status::method_not_allowed,
                        Reject::kMethodNotAllowed, "use GET or DELETE on /subscriptions/{id}");
}

HttpResponse handle_alerts(ServerContext& ctx, const HttpRequest& req, const Target& t) {
  if (!ctx.alert_store) return json_response(req, http::status::not_found, {{"error", "alerts disabled"}});
  std::string status;
  if (auto* v = t.get("status")) {
    status = *v;
    if (status != "pending" && status != "delivered" && status != "failed")
      return bad_field(req, "status", "'status' must be pending, delivered or failed");
  }
  int64_t limit = 100, offset = 0;
  if (auto* v = t.get("limit"); v && !parse_int_param(*v, 1, 1000, &limit))
    return bad_field(req, "limit", "'limit' must be an integer in [1, 1000]");
  if (auto* v = t.get("offset"); v && !parse_int_param(*v, 0, int64_t{1} << 40, &offset))
    return bad_field(req, "offset", "'offset' must be a non-negative integer");
  json alerts = json::array();
  for (const auto& r : ctx.alert_store->list(status, limit, offset)) alerts.push_back(r.to_json());
  return json_response(req, http::status::ok, {{"alerts", alerts}, {"total", ctx.alert_store->count(status)}});
}

HttpResponse handle_alert_retry(ServerContext& ctx, const HttpRequest& req, const std::string& id) {
  if (!ctx.alert_store) return json_response(req, http::status::not_found, {{"error", "alerts disabled"}});
  auto row = ctx.alert_store->get(id);
  if (!row)
    return error_response(req.version(), req.keep_alive(), http::status::not_found, Reject::kNotFound,
                          "no alert " + id);
  if (!ctx.alert_store->retry(id, now_ms()))
    return json_response(req, http::status::conflict,
                         {{"error", "alert " + id + " is " + row->status + ", only failed alerts can be retried"}});
  ctx.alert_router->wake_delivery();
  return json_response(req, http::status::accepted, {{"id", id}, {"status", "pending"}});
}

}  // namespace

HttpResponse error_response(unsigned version, bool keep_alive, http::status status, Reject reason,
                            const std::string& message) {
  metrics().reject(reason);
  return make_response(version, keep_alive, status, dump({{"error", message}}) + "\n");
}

void handle_http_request(ServerContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond) {
  metrics().http_requests.inc();
  Target t = parse_target(std::string_view(req.target().data(), req.target().size()));
  const auto method = req.method();
  auto only = [&](http::verb v) {
    if (method == v) return true;
    auto res = error_response(req.version(), req.keep_alive(), http::status::method_not_allowed,
                              Reject::kMethodNotAllowed, "method not allowed on " + t.path);
    res.set(http::field::allow, std::string(http::to_string(v)));
    respond(std::move(res));
    return false;
  };
  try {
    if (t.path == "/inferences") {
      if (only(http::verb::post)) handle_inferences(ctx, ex, std::move(req), std::move(respond));
    } else if (t.path == "/healthz") {
      if (only(http::verb::get)) respond(json_response(req, http::status::ok, {{"status", "ok"}}));
    } else if (t.path == "/readyz") {
      if (!only(http::verb::get)) return;
      if (ctx.ready && !ctx.draining) respond(json_response(req, http::status::ok, {{"status", "ready"}}));
      else respond(json_response(req, http::status::service_unavailable,
                                 {{"status", ctx.draining ? "draining" : "starting"}}));
    } else if (t.path == "/metrics") {
      if (only(http::verb::get))
        respond(make_response(req.version(), req.keep_alive(), http::status::ok, metrics().prometheus(),
                              "text/plain; version=0.0.4"));
    } else if (t.path == "/info") {
      if (only(http::verb::get)) respond(json_response(req, http::status::ok, ctx.pipeline->info()));
    } else if (t.path == "/clusters") {
      if (only(http::verb::get)) respond(handle_clusters(ctx, req, t));
    } else if (t.path.starts_with("/clusters/") && t.path.ends_with("/series")) {
      std::string_view id = std::string_view(t.path).substr(10);
      id.remove_suffix(7);
      if (only(http::verb::get)) respond(handle_series(ctx, req, id, t));
    } else if (t.path.starts_with("/clusters/")) {
      if (only(http::verb::get)) respond(handle_cluster(ctx, req, std::string_view(t.path).substr(10)));
    } else if (t.path == "/subscriptions" || t.path.starts_with("/subscriptions/")) {
      std::string_view rest = std::string_view(t.path).substr(std::min<size_t>(t.path.size(), 15));
      respond(handle_subscriptions(ctx, req, rest));
    } else if (t.path == "/alerts") {
      if (only(http::verb::get)) respond(handle_alerts(ctx, req, t));
    } else if (t.path.starts_with("/alerts/") && t.path.ends_with("/retry")) {
      std::string id = t.path.substr(8, t.path.size() - 8 - 6);
      if (only(http::verb::post)) respond(handle_alert_retry(ctx, req, id));
    } else {
      respond(error_response(req.version(), req.keep_alive(), http::status::not_found, Reject::kNotFound,
                             "no route " + t.path));
    }
  } catch (const std::exception& e) {
    spdlog::error("http {} {}: {}", std::string(http::to_string(method)), t.path, e.what());
    respond(make_response(req.version(), false, http::status::internal_server_error,
                          dump({{"error", "internal error"}}) + "\n"));
  }
}

}  // namespace logsift
