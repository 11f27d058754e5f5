// GET /clusters, /clusters/{id}, /clusters/{id}/series
#include "service/api/routes.h"

#include <stdexcept>

#include "lsh/lsh.h"
#include "pipeline/store/catalog.h"

namespace logsift::api {

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

}  // namespace logsift::api
