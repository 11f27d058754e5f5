// POST /inferences: one text, a list, or NDJSON.
#include "pipeline/reply_json.h"
#include "service/api/routes.h"

#include <optional>

#include <boost/asio/post.hpp>

#include "pipeline/core/metrics.h"
#include "pipeline/core/time.h"
#include "pipeline/ingest/envelope.h"

namespace logsift::api {

// Builds the batch for POST /inferences, or returns the rejection.
struct ParsedInference {
  std::unique_ptr<Batch> batch;
  enum class Shape { kSingle, kList, kNdjson } shape = Shape::kSingle;
};

namespace {

std::optional<EnvelopeError> parse_inference(const AppContext& ctx, const HttpRequest& req, ParsedInference* out) {
  const Config& c = ctx.config;
  std::string mt = media_type(req);
  auto batch = std::make_unique<Batch>();
  int64_t t = now_ms();
  if (mt == "application/x-ndjson" || mt == "application/jsonl" || mt == "application/ndjson") {
    out->shape = ParsedInference::Shape::kNdjson;
    if (auto e = batch_from_ndjson(req.body(), c, t, *batch)) return e;
    out->batch = std::move(batch);
    return std::nullopt;
  }
  // x-www-form-urlencoded is what `curl -d` sends by default: the body is
  // still parsed as JSON (and rejected with 400 if it is not).
  if (mt.empty())
    return EnvelopeError{Reject::kUnsupportedMediaType,
                         "missing Content-Type: send application/json or application/x-ndjson"};
  if (mt != "application/json" && mt != "text/json" && mt != "application/x-www-form-urlencoded")
    return EnvelopeError{Reject::kUnsupportedMediaType,
                         "unsupported Content-Type '" + mt + "': use application/json or application/x-ndjson"};
  bool is_list = false;
  if (auto e = batch_from_json(req.body(), c, t, *batch, &is_list)) return e;
  if (is_list) out->shape = ParsedInference::Shape::kList;
  out->batch = std::move(batch);
  return std::nullopt;
}

}  // namespace

void run_batch(AppContext& ctx, AnyExecutor ex, unsigned version, bool keep_alive, std::unique_ptr<Batch> batch,
               Responder respond, BatchReply reply) {
  if (batch->records.empty()) {
    respond(reply(version, keep_alive, *batch));
    return;
  }
  // The reply is built on the connection's io thread, not on the pipeline
  // thread that finished the batch: a large reply (120 lines of 64 KB) takes
  // a few hundred ms to write and would stall every other batch behind it.
  batch->on_done = [ex, respond, version, keep_alive, reply](std::unique_ptr<Batch> b) {
    boost::asio::post(ex, [b = std::move(b), respond, version, keep_alive, reply]() mutable {
      if (b->aborted) {
        respond(
            error_response(version, false, http::status::service_unavailable, Reject::kOverloaded, "shutting down"));
        return;
      }
      if (!b->refusal.ok()) {
        respond(status_response(version, keep_alive, b->refusal));
        return;
      }
      respond(reply(version, keep_alive, *b));
    });
  };
  submit_with_backoff(ex, ctx.pipeline, std::move(batch), std::chrono::milliseconds(5000),
                      [respond, version, keep_alive](std::unique_ptr<Batch>) {
                        auto res = error_response(version, keep_alive, http::status::service_unavailable,
                                                  Reject::kOverloaded, "pipeline is full, retry later");
                        res.set(http::field::retry_after, "1");
                        respond(std::move(res));
                      });
}

void handle_inferences(AppContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond) {
  ParsedInference parsed;
  if (auto e = parse_inference(ctx, req, &parsed)) {
    respond(reject(req, *e));  // counts it
    return;
  }
  const auto shape = parsed.shape;
  run_batch(ctx, ex, req.version(), req.keep_alive(), std::move(parsed.batch), std::move(respond),
            [shape](unsigned version, bool keep_alive, const Batch& b) {
              // Replies are written straight into one buffer: no JSON DOM per line.
              std::string out;
              out.reserve(b.records.size() * 160 + 16);
              if (shape == ParsedInference::Shape::kNdjson) {
                // One result per input line: the lines of an event share its result.
                for (const auto& r : b.records) append_line_results(r, true, &out);
                return make_response(version, keep_alive, http::status::ok, std::move(out), "application/x-ndjson");
              }
              if (shape == ParsedInference::Shape::kList) {
                out += "{\"results\":[";
                bool first = true;
                for (const auto& r : b.records)
                  for (uint32_t k = 1; k <= r.lines; ++k) {
                    if (!first) out += ',';
                    first = false;
                    append_result_json(r, true, &out, k);
                  }
                out += "]}\n";
                return make_response(version, keep_alive, http::status::ok, std::move(out));
              }
              const Record& r = b.records.front();
              append_result_json(r, true, &out);
              out += '\n';
              return make_response(version, keep_alive, r.ok() ? http::status::ok : http::status::internal_server_error,
                                   std::move(out));
            });
}

}  // namespace logsift::api
