// GET /alerts (the outbox), POST /alerts/{id}/retry.
#include "service/api/routes.h"

#include "pipeline/core/time.h"
#include "service/alerts/alert_router.h"
#include "service/alerts/alert_store.h"

namespace logsift::api {

HttpResponse handle_alerts(AppContext& ctx, const HttpRequest& req, const Target& t) {
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

HttpResponse handle_alert_retry(AppContext& ctx, const HttpRequest& req, const std::string& id) {
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

}  // namespace logsift::api
