// Elasticsearch bulk API, POST /_bulk and POST /<index>/_bulk: what rsyslog's
// omelasticsearch, syslog-ng's elasticsearch-http(), Filebeat, Vector,
// Fluent Bit and Logstash send. Plus the replies those clients need: the bulk
// response and the probes they send first.
//
// Body: NDJSON pairs. An action line {"index"|"create"|"update"|"delete":
// {"_index":..., "_id":...}} then, except for delete, a source line: the
// document (index, create) or {"doc": {...}} (update). Blank lines and CR LF
// are tolerated.
//
// Each usable document is one entry:
//   message  the first of opts.message_keys (default message, msg, log,
//            @message; keys match ASCII-case-insensitively, so syslog-ng's
//            MESSAGE matches) holding a non-blank string; dotted keys also
//            match nested objects ("log.message" finds {"log":{"message":..}});
//            surrounding blanks trimmed (rsyslog's msg starts with a space)
//   labels   host.name/host/hostname -> "host", service.name/service/program/
//            syslogtag/app -> "service" (a syslogtag's "[pid]:" is removed),
//            log.level/level/severity/priority -> "level" (lower-cased): the
//            first present in that order, flat ("host.name") or nested
//            ({"host":{"name":...}}) alike. Other fields are dropped unless
//            named in opts.keep_keys. At most max_labels.
//   ts_ms    @timestamp / timestamp / ISODATE (RFC 3339 or epoch ms), else 0.
// An unusable document (not JSON, not an object, no message string, an
// update without "doc") fails only its own item: status 400 with an ES-style
// error in the response; "errors" is then true. A delete is answered 404
// "not_found" (logsift stores no documents), which ES does not count as an
// error.
//
// Errors that reject the whole request (400; 413 for more than max_entries
// actions): an empty body, an action line that is not a JSON object with one
// known action, a missing source line. Never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/api/ingest_entry.h"

namespace logsift {

struct BulkOptions {
  IngestOptions ingest;
  std::vector<std::string> message_keys{"message", "msg", "log", "@message"};
  std::string default_index = "logsift";  // for items with no _index and no /<index>/ in the path
  uint64_t id_seed = 0;  // generated _id values derive from it (pass something per request: time, a counter)
};

struct BulkItem {
  std::string action;  // "index", "create", "update" or "delete"
  std::string index;
  std::string id;
  int status = 201;
  std::string result;      // "created", "updated", "not_found"; empty when failed
  std::string error_type;  // set when the item failed
  std::string error_reason;
  int entry = -1;  // index into BulkRequest::entries, -1 if none
  bool failed() const { return !error_type.empty(); }
};

struct BulkRequest {
  std::vector<BulkItem> items;       // one per action, in order
  std::vector<IngestEntry> entries;  // one per usable document
};

// `path_index`: the <index> of /<index>/_bulk ("" for /_bulk).
std::optional<IngestError> parse_bulk(std::string_view body, std::string_view path_index, const BulkOptions& opts,
                                      BulkRequest* out);

// Marks an item failed after parsing (e.g. the pipeline rejected its entry:
// empty text, line too long): status 400 and the ES error type/reason.
void bulk_fail_item(BulkItem* item, std::string reason, std::string type = "document_parsing_exception",
                    int status = 400);

// The _bulk response body (HTTP 200 whatever the items' outcome):
// {"took":N,"errors":bool,"items":[{"index":{"_index","_id","_version",
// "result","_shards","_seq_no","_primary_term","status"}} or
// {"index":{"_index","_id","status","error":{"type","reason"}}}, ...]}.
std::string bulk_response_body(const BulkRequest& req, int64_t took_ms);

// Every Elasticsearch reply should carry this header: the official clients
// (and Beats) refuse a server without it.
inline constexpr std::string_view kEsProductHeader = "X-elastic-product";
inline constexpr std::string_view kEsProductValue = "Elasticsearch";

// /_bulk -> "", /logs/_bulk -> "logs" (query string ignored); nullopt if the
// target is not a bulk endpoint.
std::optional<std::string> bulk_target_index(std::string_view target);

// Replies to the requests clients send before bulk: GET|HEAD / (version
// 8.11.0 info), GET /_cat/health (rsyslog's omelasticsearch health check),
// GET /_cluster/health, GET /_license, GET /_xpack (Beats and the official
// clients). nullopt for anything else. HEAD gets an empty body. `now_ms` is
// only used by /_cat/health's timestamp columns.
struct EsProbeResponse {
  int status = 200;
  std::string content_type;
  std::string body;
};
std::optional<EsProbeResponse> es_probe_response(std::string_view method, std::string_view target, int64_t now_ms);

}  // namespace logsift
