#include "service/api/response.h"

#include "service/api/ingest_entry.h"  // media_type of a Content-Type value

#include <charconv>

#include "pipeline/core/metrics.h"

namespace logsift::api {

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

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
    case Reject::kUnauthorized: return http::status::unauthorized;
    default: return http::status::bad_request;
  }
}

HttpResponse reject(const HttpRequest& req, const EnvelopeError& e) {
  return error_response(req.version(), req.keep_alive(), status_for(e.reason), e.reason, e.message);
}

std::string media_type(const HttpRequest& req) {
  const auto v = req[http::field::content_type];
  return logsift::media_type(std::string_view(v.data(), v.size()));
}

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

HttpResponse bad_field(const HttpRequest& req, const std::string& field, const std::string& message) {
  metrics().reject(Reject::kBadRequest);
  return make_response(req.version(), req.keep_alive(), http::status::bad_request,
                       dump({{"error", message}, {"field", field}}) + "\n");
}

}  // namespace logsift::api
