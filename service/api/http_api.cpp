#include "service/api/http_api.h"

#include <map>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "pipeline/core/metrics.h"
#include "pipeline/memory_usage.h"
#include "pipeline/store/catalog_store.h"
#include "pipeline/store/store_error.h"
#include "pipeline/store/write_gate.h"
#include "service/alerts/alert_router.h"
#include "service/alerts/alert_store.h"
#include "service/api/auth.h"
#include "service/api/bulk.h"
#include "service/api/routes.h"
#include "service/net/tls.h"

namespace logsift {

using namespace api;

HttpResponse status_response(unsigned version, bool keep_alive, const Status& status) {
  if (status.code() == StatusCode::kUnavailable) {
    auto res = error_response(version, keep_alive, http::status::service_unavailable, Reject::kStoreUnavailable,
                              status.reason());
    res.set(http::field::retry_after, "1");
    return res;
  }
  return make_response(version, false, http::status::internal_server_error, dump({{"error", "internal error"}}) + "\n");
}

HttpResponse exception_response(unsigned version, bool keep_alive, std::string_view where, std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const StoreError& x) {
    spdlog::error("http {}: {}", where, x.what());
    return status_response(version, keep_alive, x.status());
  } catch (const std::exception& x) {
    spdlog::error("http {}: {}", where, x.what());
  }
  return status_response(version, keep_alive, Status::internal("internal error"));
}

namespace {

// GET / is the dashboard, except for an Elasticsearch client's version
// probe: those ask for JSON (application/json or
// application/vnd.elasticsearch+json); browsers and curl do not.
bool wants_es_reply(const HttpRequest& req) {
  auto accept = req[http::field::accept];
  const std::string_view a(accept.data(), accept.size());
  return req.target() == "/" && a.find("json") != std::string_view::npos && a.find("text/html") == std::string_view::npos;
}

// The stores' sizes for /metrics: clusters in the catalog, alerts in the
// outbox by state (every state always present, so a series never vanishes).
std::string store_prometheus(AppContext& ctx) {
  std::string o;
  if (ctx.catalog)
    o += fmt::format(
        "# HELP logsift_catalog_clusters Clusters in the catalog.\n# TYPE logsift_catalog_clusters gauge\n"
        "logsift_catalog_clusters {}\n",
        ctx.catalog->size());
  if (ctx.alert_store) {
    std::map<std::string, int64_t> by = {{"pending", 0}, {"delivered", 0}, {"failed", 0}};
    try {
      for (const auto& [status, n] : ctx.alert_store->count_by_status()) by[status] = n;
    } catch (const std::exception&) {
      return o;  // a shared store that does not answer: no outbox figures rather than no /metrics
    }
    o += "# HELP logsift_outbox_alerts Alerts in the outbox by state (delivered and failed ones until pruned).\n"
         "# TYPE logsift_outbox_alerts gauge\n";
    for (const auto& [status, n] : by) o += fmt::format("logsift_outbox_alerts{{state=\"{}\"}} {}\n", status, n);
    // The backlog per subscription: how many wait, and the oldest's age.
    // Every subscription has its series (0 when nothing waits), so none
    // vanishes when a backlog drains.
    std::vector<AlertStore::Backlog> backlog;
    try {
      backlog = ctx.alert_store->pending_backlog();
      std::set<std::string> have;
      for (const auto& b : backlog) have.insert(b.subscription_id);
      for (const auto& s : ctx.alert_store->subscriptions())
        if (!have.count(s.id)) backlog.push_back({s.id, 0, 0});
    } catch (const std::exception&) {
      return o;
    }
    const int64_t now = now_ms();
    o += "# HELP logsift_alerts_pending Alerts waiting to be delivered, per subscription.\n"
         "# TYPE logsift_alerts_pending gauge\n";
    for (const auto& b : backlog)
      o += fmt::format("logsift_alerts_pending{{subscription=\"{}\"}} {}\n", b.subscription_id, b.pending);
    o += "# HELP logsift_alerts_oldest_pending_seconds Age of the oldest alert waiting, per subscription.\n"
         "# TYPE logsift_alerts_oldest_pending_seconds gauge\n";
    for (const auto& b : backlog)
      o += fmt::format("logsift_alerts_oldest_pending_seconds{{subscription=\"{}\"}} {:.3f}\n", b.subscription_id,
                       b.pending ? std::max<int64_t>(0, now - b.oldest_created_ms) / 1000.0 : 0.0);
  }
  return o;
}


// What lies between a path's prefix and suffix (a cluster id, an action number).
std::string_view between(const std::string& path, size_t prefix, size_t suffix) {
  return std::string_view(path).substr(prefix, path.size() - prefix - suffix);
}

// "/clusters/{id}/{action}" for the curation actions: (id, action).
std::optional<std::pair<std::string_view, std::string_view>> cluster_action_of(const std::string& path) {
  if (!path.starts_with("/clusters/")) return std::nullopt;
  const std::string_view rest = std::string_view(path).substr(10);
  const size_t slash = rest.find('/');
  if (slash == 0 || slash == std::string_view::npos) return std::nullopt;
  const std::string_view action = rest.substr(slash + 1);
  for (std::string_view a : {"merge", "name", "value", "mute", "split"})
    if (action == a) return std::pair{rest.substr(0, slash), action};
  return std::nullopt;
}

}  // namespace

void handle_http_request(AppContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond) {
  metrics().http_requests.inc();
  Target t = parse_target(std::string_view(req.target().data(), req.target().size()));
  const auto method = req.method();
  const auto authorization = req[http::field::authorization];
  const std::string_view verb(req.method_string().data(), req.method_string().size());
  if (auto auth = ctx.auth->check(route_access(t.path, verb), std::string_view(authorization.data(), authorization.size()));
      !auth.ok) {
    const bool forbidden = auth.status == 403;
    auto res = error_response(req.version(), req.keep_alive(),
                              forbidden ? http::status::forbidden : http::status::unauthorized,
                              forbidden ? Reject::kForbidden : Reject::kUnauthorized, auth.reason);
    if (!forbidden) res.set(http::field::www_authenticate, "Bearer realm=\"logsift\"");
    respond(std::move(res));
    return;
  }
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
    } else if (t.path == "/loki/api/v1/push") {
      if (only(http::verb::post)) handle_loki_push(ctx, ex, std::move(req), std::move(respond));
    } else if (t.path == "/v1/logs") {
      if (only(http::verb::post)) handle_otlp_logs(ctx, ex, std::move(req), std::move(respond));
    } else if (auto index = bulk_target_index(t.path)) {
      if (only(http::verb::post)) handle_bulk(ctx, ex, std::move(req), std::move(respond), *index);
    } else if (auto page = (method == http::verb::get && !wants_es_reply(req)) ? web_asset(req, t.path)
                                                                              : std::optional<HttpResponse>()) {
      respond(std::move(*page));
    } else if (auto probe = es_probe(req, t.path)) {
      respond(std::move(*probe));
    } else if (t.path == "/healthz") {
      if (only(http::verb::get)) respond(json_response(req, http::status::ok, {{"status", "ok"}}));
    } else if (t.path == "/readyz") {
      if (!only(http::verb::get)) return;
      std::string store_down = ctx.catalog ? ctx.catalog->health() : std::string();
      if (store_down.empty() && ctx.write_gate) store_down = ctx.write_gate->reason();
      if (store_down.empty() && ctx.alert_store) store_down = ctx.alert_store->fault();
      if (store_down.empty() && ctx.alert_router)
        if (std::string outbox = ctx.alert_router->outbox_fault(); !outbox.empty()) store_down = "outbox: " + outbox;
      if (ctx.server.ready && !ctx.server.draining && store_down.empty())
        respond(json_response(req, http::status::ok, {{"status", "ready"}}));
      else if (ctx.server.ready && !ctx.server.draining)  // cluster ids still work; counts and the catalog do not
        respond(json_response(req, http::status::service_unavailable,
                              {{"status", ctx.write_gate && ctx.write_gate->state() == WriteGate::State::kMigrating
                                              ? "migrating"
                                              : "degraded"},
                               {"store", store_down}}));
      else
        respond(json_response(req, http::status::service_unavailable,
                              {{"status", ctx.server.draining ? "draining" : "starting"}}));
    } else if (t.path == "/metrics") {
      if (only(http::verb::get))
        respond(make_response(req.version(), req.keep_alive(), http::status::ok,
                              metrics().prometheus() + memory_prometheus(ctx.pipeline->memory_usage()) + store_prometheus(ctx) +
                                  tls_prometheus() +
                                  curation_prometheus(ctx),
                              "text/plain; version=0.0.4"));
    } else if (t.path == "/info") {
      if (only(http::verb::get)) {
        json info = ctx.pipeline->info();
        info["contract"] = {{"digest", ctx.contract_digest}};
        if (ctx.catalog) {
          const ContractHistory h = ctx.catalog->contract_history();
          json contracts = json::array(), migrations = json::array();
          for (const auto& c : h.contracts) contracts.push_back({{"digest", c.digest}, {"since", c.since}});
          for (const auto& m : h.migrations) migrations.push_back(json::parse(m, nullptr, false));
          info["contract"]["history"] = std::move(contracts);
          info["migrations"] = std::move(migrations);
        }
        if (ctx.write_gate)
          if (const auto state = ctx.write_gate->state();
              state == WriteGate::State::kMigrating || state == WriteGate::State::kMigrationFailed)
            info["migration_in_progress"] = ctx.write_gate->reason();
        respond(json_response(req, http::status::ok, info));
      }
    } else if (t.path == "/clusters") {
      if (only(http::verb::get)) respond(handle_clusters(ctx, req, t));
    } else if (t.path == "/clusters/mined-bank") {
      if (only(http::verb::get)) handle_mined_bank(ctx, req, t, respond);
    } else if (t.path.size() > 17 && t.path.starts_with("/clusters/") && t.path.ends_with("/series")) {
      // "/clusters/" + id + "/series": the id is what lies between.
      std::string_view id = std::string_view(t.path).substr(10, t.path.size() - 10 - 7);
      if (only(http::verb::get)) respond(handle_series(ctx, req, id, t));
    } else if (t.path == "/clusters/suggestions") {
      if (only(http::verb::get)) handle_suggestions(ctx, req, t, respond);
    } else if (t.path.size() > 29 && t.path.starts_with("/clusters/suggestions/") && t.path.ends_with("/accept")) {
      if (only(http::verb::post)) respond(handle_suggestion_action(ctx, req, between(t.path, 22, 7), "accept"));
    } else if (t.path.size() > 29 && t.path.starts_with("/clusters/suggestions/") && t.path.ends_with("/reject")) {
      if (only(http::verb::post)) respond(handle_suggestion_action(ctx, req, between(t.path, 22, 7), "reject"));
    } else if (auto act = cluster_action_of(t.path)) {
      if (only(http::verb::post)) respond(handle_cluster_action(ctx, req, act->first, act->second));
    } else if (t.path.starts_with("/clusters/")) {
      if (only(http::verb::get)) respond(handle_cluster(ctx, req, std::string_view(t.path).substr(10)));
    } else if (t.path == "/curation") {
      if (only(http::verb::get)) respond(handle_curation(ctx, req));
    } else if (t.path.size() > 15 && t.path.starts_with("/curation/") && t.path.ends_with("/undo")) {
      if (only(http::verb::post)) respond(handle_undo(ctx, req, between(t.path, 10, 5)));
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
  } catch (const std::exception&) {
    respond(exception_response(req.version(), req.keep_alive(), std::string(http::to_string(method)) + " " + t.path,
                               std::current_exception()));
  }
}

}  // namespace logsift
