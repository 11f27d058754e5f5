// Helpers shared by the HTTP route handlers (service/api/*.cpp): JSON replies,
// the request target's path and query, strict query-parameter parsing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/ingest/envelope.h"
#include "service/api/http_api.h"

namespace logsift::api {

using json = nlohmann::json;

// Compact JSON; invalid UTF-8 is replaced, never thrown on.
std::string dump(const json& j);
HttpResponse json_response(const HttpRequest& req, http::status status, const json& body);
http::status status_for(Reject r);
// The error reply for a rejected envelope, counted under its reason.
HttpResponse reject(const HttpRequest& req, const EnvelopeError& e);
// A 400 naming the bad field: {"error": message, "field": field}.
HttpResponse bad_field(const HttpRequest& req, const std::string& field, const std::string& message);
// "application/json; charset=utf-8" -> "application/json"
std::string media_type(const HttpRequest& req);

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
Target parse_target(std::string_view t);
// The whole text as an integer in [lo, hi], or false.
bool parse_int_param(const std::string& s, int64_t lo, int64_t hi, int64_t* out);

}  // namespace logsift::api
