// The HTTP ingest protocols of existing log shippers: Loki push
// (POST /loki/api/v1/push, JSON or snappy protobuf), OTLP/HTTP logs
// (POST /v1/logs, JSON or protobuf), Elasticsearch bulk (POST /_bulk,
// POST /<index>/_bulk) and the probes Elasticsearch clients send first.
//
// Each parser (loki.h, otlp.h, bulk.h) turns the body into IngestEntries;
// here every entry's message is checked like any other line (check_text),
// reduced to its message when it is a JSON/logfmt/klog line
// (apply_structured), and the batch goes through the pipeline like a
// POST /inferences batch. The reply is what the client expects (204 for
// Loki, an ExportLogsServiceResponse for OTLP, a bulk response for ES) and
// is sent only once the lines are in the catalog. A whole-request error is a
// 4xx with a JSON reason; an entry that fails alone is counted and reported
// the protocol's way (OTLP partial_success, a failed bulk item, a Loki 400
// when nothing at all was usable).
#include <map>
#include <optional>

#include "pipeline/core/metrics.h"
#include "pipeline/core/time.h"
#include "pipeline/ingest/envelope.h"
#include "pipeline/ingest/multiline.h"
#include "service/api/bulk.h"
#include "service/api/ingest_entry.h"
#include "service/api/loki.h"
#include "service/api/otlp.h"
#include "service/api/routes.h"

namespace logsift::api {
namespace {

IngestOptions ingest_options(const Config& c) {
  IngestOptions o;
  o.max_labels = c.max_labels;
  o.max_entries = static_cast<size_t>(c.max_lines_per_request);
  o.max_decompressed_bytes = static_cast<size_t>(c.max_body_bytes);
  return o;
}

std::string header(const HttpRequest& req, http::field f) {
  auto v = req[f];
  return std::string(v.data(), v.size());
}

HttpResponse ingest_error(const HttpRequest& req, const IngestError& e) {
  return error_response(req.version(), req.keep_alive(), static_cast<http::status>(ingest_http_status(e)), e.reason,
                        e.message);
}

// Turns entries into records. entry_record[i] is the record index of entry i,
// or -1 when the entry was rejected (its reason in *why when given). Each
// stream (the entries with one set of labels: a Loki stream, an OTLP
// resource, a bulk index's source) is a source whose lines may be a stack
// trace's: they become one event (pipeline/ingest/multiline.h), and each of
// its entries maps to the event's record. An event is never held past the
// request: its reply would wait for the shipper's next batch, which it sends
// only after this reply.
std::unique_ptr<Batch> batch_from_entries(const Config& c, std::vector<IngestEntry>& entries,
                                          std::vector<int>* entry_record, std::vector<std::string>* why) {
  auto batch = std::make_unique<Batch>();
  batch->records.reserve(entries.size());
  const int64_t t = now_ms();
  entry_record->assign(entries.size(), -1);
  if (why) why->assign(entries.size(), std::string());
  std::map<Labels, std::unique_ptr<EventAssembler>> streams;
  for (size_t i = 0; i < entries.size(); ++i) {
    IngestEntry& e = entries[i];
    if (auto err = check_text(e.message, c)) {
      metrics().reject(err->reason);
      if (why) (*why)[i] = err->message;
      continue;
    }
    auto& events = streams[e.labels];
    if (!events) {
      events = std::make_unique<EventAssembler>(c);
      events->track(entry_record);
    }
    Record r;
    r.received_ms = t;
    r.text = batch->keep(e.message);
    r.labels = std::move(e.labels);
    r.tag = static_cast<uint32_t>(i);
    events->add(std::move(r), *batch);
  }
  for (auto& [labels, events] : streams) events->flush(*batch);
  return batch;
}

}  // namespace

void handle_loki_push(AppContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond) {
  std::vector<IngestEntry> entries;
  if (auto e = parse_loki_push(header(req, http::field::content_type), header(req, http::field::content_encoding),
                               req.body(), ingest_options(ctx.config), &entries)) {
    respond(ingest_error(req, *e));
    return;
  }
  std::vector<int> entry_record;
  std::vector<std::string> why;
  auto batch = batch_from_entries(ctx.config, entries, &entry_record, &why);
  if (batch->records.empty()) {
    // Loki answers 400 when a push holds nothing it can store.
    std::string first;
    for (const auto& w : why)
      if (!w.empty()) {
        first = w;
        break;
      }
    respond(make_response(req.version(), req.keep_alive(), http::status::bad_request,
                          dump({{"error", entries.empty() ? "push request holds no entries" : "no usable entry: " + first}}) +
                              "\n"));
    return;
  }
  run_batch(ctx, ex, req.version(), req.keep_alive(), std::move(batch), std::move(respond), [](unsigned version, bool keep_alive, const Batch&) {
    HttpResponse res{http::status::no_content, version};
    res.keep_alive(keep_alive);
    res.prepare_payload();
    return res;
  });
}

void handle_otlp_logs(AppContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond) {
  const std::string ct = header(req, http::field::content_type);
  const bool json_reply = logsift::media_type(ct) == "application/json";
  std::vector<IngestEntry> entries;
  if (auto e = parse_otlp_logs(ct, header(req, http::field::content_encoding), req.body(), ingest_options(ctx.config),
                               &entries)) {
    respond(ingest_error(req, *e));
    return;
  }
  std::vector<int> entry_record;
  std::vector<std::string> why;
  auto batch = batch_from_entries(ctx.config, entries, &entry_record, &why);
  int64_t rejected = 0;
  std::string first_error;
  for (size_t i = 0; i < why.size(); ++i)
    if (entry_record[i] < 0) {
      ++rejected;
      if (first_error.empty()) first_error = "logRecords[" + std::to_string(i) + "]: " + why[i];
    }
  run_batch(ctx, ex, req.version(), req.keep_alive(), std::move(batch), std::move(respond),
            [json_reply, rejected, first_error](unsigned version, bool keep_alive, const Batch&) {
              OtlpReply r = otlp_response(json_reply, rejected, first_error);
              HttpResponse res{http::status::ok, version};
              res.keep_alive(keep_alive);
              res.set(http::field::content_type, r.content_type);
              res.body() = std::move(r.body);
              res.prepare_payload();
              return res;
            });
}

void handle_bulk(AppContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond, std::string_view index) {
  const int64_t started = now_ms();
  BulkOptions opts;
  opts.ingest = ingest_options(ctx.config);
  opts.id_seed = static_cast<uint64_t>(mono_ns());
  auto request = std::make_shared<BulkRequest>();
  if (auto e = parse_bulk(req.body(), index, opts, request.get())) {
    auto res = ingest_error(req, *e);
    res.set(std::string(kEsProductHeader), std::string(kEsProductValue));
    respond(std::move(res));
    return;
  }
  std::vector<int> entry_record;
  std::vector<std::string> why;
  auto batch = batch_from_entries(ctx.config, request->entries, &entry_record, &why);
  for (auto& item : request->items)
    if (item.entry >= 0 && entry_record[static_cast<size_t>(item.entry)] < 0)
      bulk_fail_item(&item, why[static_cast<size_t>(item.entry)]);
  run_batch(ctx, ex, req.version(), req.keep_alive(), std::move(batch), std::move(respond),
            [request, started](unsigned version, bool keep_alive, const Batch&) {
              HttpResponse res{http::status::ok, version};
              res.keep_alive(keep_alive);
              res.set(http::field::content_type, "application/json");
              res.set(std::string(kEsProductHeader), std::string(kEsProductValue));
              res.body() = bulk_response_body(*request, now_ms() - started);
              res.prepare_payload();
              return res;
            });
}

std::optional<HttpResponse> es_probe(const HttpRequest& req, std::string_view target) {
  auto p = es_probe_response(std::string_view(http::to_string(req.method()).data(), http::to_string(req.method()).size()),
                             target, now_ms());
  if (!p) return std::nullopt;
  HttpResponse res{static_cast<http::status>(p->status), req.version()};
  res.keep_alive(req.keep_alive());
  if (!p->content_type.empty()) res.set(http::field::content_type, p->content_type);
  res.set(std::string(kEsProductHeader), std::string(kEsProductValue));
  res.body() = std::move(p->body);
  res.prepare_payload();
  return res;
}

}  // namespace logsift::api
