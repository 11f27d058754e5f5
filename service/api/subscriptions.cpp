// /subscriptions: create, list, get, delete.
#include "service/api/routes.h"

#include "pipeline/ingest/envelope.h"
#include "service/alerts/alert_router.h"
#include "service/alerts/alert_store.h"

namespace logsift::api {

HttpResponse handle_subscriptions(AppContext& ctx, const HttpRequest& req, std::string_view rest) {
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
    json body;
    if (auto e = parse_json(req.body(), "body", &body)) return reject(req, *e);
    try {
      return json_response(req, http::status::created, ctx.alert_router->create(body));
    } catch (const FieldError& e) {
      return bad_field(req, e.field, e.what());
    } catch (const LimitError& e) {
      return error_response(req.version(), req.keep_alive(), http::status::conflict, Reject::kBadRequest, e.what());
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

}  // namespace logsift::api
