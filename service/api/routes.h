// The HTTP route handlers, one file per resource (service/api/*.cpp);
// http_api.cpp dispatches to them.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/api/http_api.h"
#include "service/api/response.h"

namespace logsift {
struct CurationState;
class ClusterStore;
struct ClusterRow;
}

namespace logsift::api {

// Runs a batch through the pipeline and answers with reply(version,
// keep_alive, the finished batch) once its lines are in the catalog; 503 with
// Retry-After when the pipeline stays full for 5 s, 503 when it shuts down.
// An empty batch is answered at once. Shared by every ingest route.
using BatchReply = std::function<HttpResponse(unsigned version, bool keep_alive, const Batch& done)>;
void run_batch(AppContext& ctx, AnyExecutor ex, unsigned version, bool keep_alive, std::unique_ptr<Batch> batch,
               Responder respond, BatchReply reply);

// POST /inferences: replies from the batch's completion callback.
void handle_inferences(AppContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond);
// Log shippers' protocols (ingest.cpp): Loki push, OTLP/HTTP logs,
// Elasticsearch bulk (index: the <index> of /<index>/_bulk, "" for /_bulk)
// and the Elasticsearch probes (nullopt: not a probe).
void handle_loki_push(AppContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond);
void handle_otlp_logs(AppContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond);
void handle_bulk(AppContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond, std::string_view index);
std::optional<HttpResponse> es_probe(const HttpRequest& req, std::string_view target);
// The dashboard's static files (web.cpp): "/", "/ui/app.js", "/ui/app.css",
// "/ui/chart.js", and "/openapi.json" (service/api/spec); nullopt for other paths.
std::optional<HttpResponse> web_asset(const HttpRequest& req, std::string_view path);
// GET /clusters, /clusters/{id}, /clusters/{id}/series
HttpResponse handle_clusters(AppContext& ctx, const HttpRequest& req, const Target& t);
HttpResponse handle_cluster(AppContext& ctx, const HttpRequest& req, std::string_view id_text);
HttpResponse handle_series(AppContext& ctx, const HttpRequest& req, std::string_view id_text, const Target& t);
// GET /clusters/mined-bank: a format bank mined (pipeline/stages/bank_miner.h)
// from the catalog's cluster templates and counts, as text/plain; mined on
// ctx.background (429 while another is), answered through `respond`.
void handle_mined_bank(AppContext& ctx, const HttpRequest& req, const Target& t, Responder respond);
// Curation (curation.cpp): GET /curation; POST /clusters/{id}/merge, /name,
// /mute; POST /curation/{seq}/undo. `action` is "merge", "name" or "mute".
HttpResponse handle_curation(AppContext& ctx, const HttpRequest& req);
HttpResponse handle_cluster_action(AppContext& ctx, const HttpRequest& req, std::string_view id_text,
                                   std::string_view action);
HttpResponse handle_undo(AppContext& ctx, const HttpRequest& req, std::string_view seq_text);
// GET /clusters/suggestions: merges the catalog has evidence for (mined on
// ctx.background, answered through `respond`); a suggestion's id is that of
// its clusters (pipeline/stages/suggest.h). POST /clusters/suggestions/{id}/accept
// {"into","members"} and /reject (curation.cpp).
void handle_suggestions(AppContext& ctx, const HttpRequest& req, const Target& t, Responder respond);
// The catalog's clusters, most counted first, at most max_clusters, each once,
// to `take`; returns the catalog's total (clusters.cpp).
int64_t each_cluster(ClusterStore& catalog, int64_t max_clusters, const std::string& q,
                     const std::pair<std::string, std::string>& label, const std::function<void(const ClusterRow&)>& take);
HttpResponse handle_suggestion_action(AppContext& ctx, const HttpRequest& req, std::string_view id,
                                      std::string_view action);
// The clusters exported as metrics, in the Prometheus text format ("" when none).
std::string curation_prometheus(AppContext& ctx);
// A cluster's curation in its API row: name, note, muted_until, merged_into, merged.
void curation_fields(const CurationState& cur, uint64_t id, json* row);
// /subscriptions and /subscriptions/{id} (`rest` is what follows the prefix)
HttpResponse handle_subscriptions(AppContext& ctx, const HttpRequest& req, std::string_view rest);
// GET /alerts, POST /alerts/{id}/retry
HttpResponse handle_alerts(AppContext& ctx, const HttpRequest& req, const Target& t);
HttpResponse handle_alert_retry(AppContext& ctx, const HttpRequest& req, const std::string& id);

}  // namespace logsift::api
