#include <gtest/gtest.h>

#include "tests/data/ingest/fixtures.h"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/api/bulk.h"

namespace logsift {
namespace {

using json = nlohmann::json;

std::string fixture(const std::string& name) { return fixtures::ingest_fixture("bulk", name); }

Labels L(std::initializer_list<std::pair<std::string, std::string>> l) { return Labels(l); }

BulkRequest ok(std::string_view body, std::string_view index = "", const BulkOptions& o = {}) {
  BulkRequest r;
  auto e = parse_bulk(body, index, o, &r);
  EXPECT_FALSE(e) << (e ? e->message : "");
  return r;
}

IngestError bad(std::string_view body, const BulkOptions& o = {}) {
  BulkRequest r;
  auto e = parse_bulk(body, "", o, &r);
  EXPECT_TRUE(e) << "accepted: " << body.substr(0, 100);
  return e.value_or(IngestError{Reject::kCount, "<accepted>"});
}

// --- Real client bytes ------------------------------------------------------------------

TEST(BulkFixtures, RsyslogOmelasticsearch) {
  // rsyslog 8.2302 omelasticsearch, bulkmode, a JSON template (README.md).
  std::string head = fixture("rsyslog-8.2302-omelasticsearch-001.head");
  EXPECT_EQ(head.substr(0, 16), "POST /_bulk HTTP");
  EXPECT_EQ(bulk_target_index("/_bulk"), "");
  BulkRequest r = ok(fixture("rsyslog-8.2302-omelasticsearch-001.body"));
  ASSERT_EQ(r.items.size(), 1u);
  EXPECT_EQ(r.items[0].action, "index");
  EXPECT_EQ(r.items[0].index, "logs-rsyslog");
  EXPECT_EQ(r.items[0].status, 201);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].message, "user 42 logged in from 10.0.0.7");
  EXPECT_EQ(r.entries[0].labels, L({{"service", "myapp"}, {"level", "warning"}, {"host", "vm"}}));  // myapp[12570]
  EXPECT_EQ(r.entries[0].ts_ms, 1795407840444);

  r = ok(fixture("rsyslog-8.2302-omelasticsearch-003.body"));
  ASSERT_EQ(r.entries.size(), 1u);
  // rsyslog's msg of an RFC 3164 message starts with a space: trimmed.
  EXPECT_EQ(r.entries[0].message,
            "Accepted publickey for root from 10.0.0.9 port 5122 ssh2: \"quoted\" \\ back \xC3\xBCn\xC3\xAF");
  EXPECT_EQ(r.entries[0].labels, L({{"service", "sshd"}, {"level", "info"}, {"host", "vm"}}));  // "sshd[12575]:"

  // The health check it sends after a failure.
  std::string hc = fixture("rsyslog-8.2302-omelasticsearch-healthcheck.head");
  EXPECT_EQ(hc.substr(0, 21), "GET /_cat/health HTTP");
  auto p = es_probe_response("GET", "/_cat/health", 1795407840444);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->status, 200);
  EXPECT_EQ(p->body, "1795407840 04:24:00 logsift green 1 1 0 0 0 0 0 0 - 100.0%\n");
}

TEST(BulkFixtures, SyslogNgElasticsearchHttp) {
  // syslog-ng 3.38.1 elasticsearch-http(): upper-case rfc5424-scope keys.
  std::string head = fixture("syslog-ng-3.38.1-elasticsearch-http-001.head");
  EXPECT_NE(head.find("Content-Type: application/x-ndjson"), std::string::npos);
  BulkRequest r = ok(fixture("syslog-ng-3.38.1-elasticsearch-http-001.body"));
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.items[0].index, "logs-sng");
  EXPECT_EQ(r.entries[0].message, "user 42 logged in from 10.0.0.7");
  EXPECT_EQ(r.entries[0].labels, L({{"service", "myapp"}, {"level", "warning"}, {"host", "vm"}}));
  EXPECT_EQ(r.entries[0].ts_ms, 1795407945000);
  r = ok(fixture("syslog-ng-3.38.1-elasticsearch-http-002.body"));
  EXPECT_EQ(r.entries[0].message, "payment failed: card declined");
  EXPECT_EQ(r.entries[0].labels, L({{"service", "myapp"}, {"level", "err"}, {"host", "vm"}}));
  r = ok(fixture("syslog-ng-3.38.1-elasticsearch-http-003.body"));
  EXPECT_EQ(r.entries[0].labels, L({{"service", "sshd"}, {"level", "info"}, {"host", "vm"}}));
}

TEST(BulkFixtures, AllFixturesConcatenated) {
  std::string body;
  for (const char* f : {"rsyslog-8.2302-omelasticsearch-001.body", "rsyslog-8.2302-omelasticsearch-002.body",
                        "rsyslog-8.2302-omelasticsearch-003.body", "syslog-ng-3.38.1-elasticsearch-http-001.body",
                        "syslog-ng-3.38.1-elasticsearch-http-002.body", "syslog-ng-3.38.1-elasticsearch-http-003.body"})
    body += fixture(f);
  BulkRequest r = ok(body);
  EXPECT_EQ(r.items.size(), 6u);
  EXPECT_EQ(r.entries.size(), 6u);
  json resp = json::parse(bulk_response_body(r, 3));
  EXPECT_EQ(resp["took"], 3);
  EXPECT_EQ(resp["errors"], false);
  ASSERT_EQ(resp["items"].size(), 6u);
  EXPECT_EQ(resp["items"][0]["index"]["status"], 201);
  EXPECT_EQ(resp["items"][0]["index"]["result"], "created");
  EXPECT_EQ(resp["items"][0]["index"]["_index"], "logs-rsyslog");
  EXPECT_EQ(resp["items"][5]["index"]["_index"], "logs-sng");
  EXPECT_EQ(resp["items"][5]["index"]["_seq_no"], 5);
  EXPECT_EQ(resp["items"][0]["index"]["_id"].get<std::string>().size(), 20u);
}

// --- Documents, actions, items ---------------------------------------------------------

TEST(Bulk, ActionsAndItems) {
  std::string body =
      "{\"index\":{\"_index\":\"a\",\"_id\":\"x1\"}}\r\n{\"message\":\"one\",\"log\":{\"level\":\"WARN\"}}\r\n"
      "\n"
      "{\"create\":{\"_id\":7}}\n{\"msg\":\"two\",\"host\":{\"name\":\"h1\"},\"service\":{\"name\":\"api\"}}\n"
      "{\"delete\":{\"_index\":\"a\",\"_id\":\"gone\"}}\n"
      "{\"update\":{\"_id\":\"u\"}}\n{\"doc\":{\"@message\":\"three\"}}\n"
      "{\"update\":{\"_id\":\"s\"}}\n{\"script\":{\"source\":\"ctx._source.n++\"}}\n"
      "{\"index\":{}}\n{\"no_message\":true}\n"
      "{\"index\":{}}\nnot json\n"
      "{\"index\":{}}\n[1,2]\n"
      "{\"index\":{}}\n{\"message\":\"   \"}\n"
      "{\"index\":{}}\n{\"message\":5}\n";
  BulkRequest r = ok(body, "path-index");
  ASSERT_EQ(r.items.size(), 10u);
  ASSERT_EQ(r.entries.size(), 3u);
  EXPECT_EQ(r.items[0].index, "a");
  EXPECT_EQ(r.items[0].id, "x1");
  EXPECT_EQ(r.entries[0].message, "one");
  EXPECT_EQ(r.entries[0].labels, L({{"level", "warn"}}));  // nested log.level
  EXPECT_EQ(r.items[1].index, "path-index");
  EXPECT_EQ(r.items[1].id, "7");
  EXPECT_EQ(r.entries[1].labels, L({{"service", "api"}, {"host", "h1"}}));  // ECS nested objects
  EXPECT_EQ(r.items[2].status, 404);
  EXPECT_EQ(r.items[2].result, "not_found");
  EXPECT_EQ(r.items[2].entry, -1);
  EXPECT_FALSE(r.items[2].failed());
  EXPECT_EQ(r.items[3].status, 200);
  EXPECT_EQ(r.items[3].result, "updated");
  EXPECT_EQ(r.entries[r.items[3].entry].message, "three");
  EXPECT_EQ(r.items[4].error_type, "action_request_validation_exception");
  for (size_t i = 5; i < 10; ++i) {
    EXPECT_TRUE(r.items[i].failed()) << i;
    EXPECT_EQ(r.items[i].status, 400);
    EXPECT_EQ(r.items[i].entry, -1);
  }
  EXPECT_EQ(r.items[5].error_type, "document_parsing_exception");
  EXPECT_NE(r.items[5].error_reason.find("message, msg, log, @message"), std::string::npos);
  // Generated ids: distinct, stable for a seed.
  EXPECT_NE(r.items[5].id, r.items[6].id);
  EXPECT_EQ(ok(body, "path-index").items[5].id, r.items[5].id);

  json resp = json::parse(bulk_response_body(r, 12));
  EXPECT_EQ(resp["errors"], true);
  EXPECT_EQ(resp["items"][2]["delete"]["status"], 404);
  EXPECT_EQ(resp["items"][3]["update"]["result"], "updated");
  EXPECT_EQ(resp["items"][5]["index"]["status"], 400);
  EXPECT_EQ(resp["items"][5]["index"]["error"]["type"], "document_parsing_exception");
  EXPECT_FALSE(resp["items"][5]["index"].contains("result"));
  EXPECT_EQ(resp["items"][1]["create"]["_id"], "7");

  // The pipeline rejects an entry later: its item fails.
  bulk_fail_item(&r.items[0], "text is 70000 bytes, over max_line_bytes 65536");
  resp = json::parse(bulk_response_body(r, 1));
  EXPECT_EQ(resp["items"][0]["index"]["status"], 400);
  EXPECT_EQ(resp["items"][0]["index"]["error"]["reason"], "text is 70000 bytes, over max_line_bytes 65536");
}

TEST(Bulk, MessageKeysAndLabels) {
  BulkOptions o;
  o.message_keys = {"event.original", "message"};
  BulkRequest r =
      ok("{\"index\":{}}\n{\"message\":\"m\",\"event\":{\"original\":\"orig\"},\"hostname\":\"h2\",\"host\":\"h1\","
         "\"severity\":\"ERR\",\"level\":\"info\",\"program\":\"p\",\"syslogtag\":\"t[1]:\",\"env\":\"prod\"}\n",
         "", o);
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_EQ(r.entries[0].message, "orig");
  EXPECT_EQ(r.entries[0].labels, L({{"service", "p"}, {"level", "info"}, {"host", "h1"}}));
  o.ingest.keep_keys = {"env"};
  o.ingest.max_labels = 2;
  r = ok("{\"index\":{}}\n{\"message\":\"m\",\"env\":\"prod\",\"host\":\"h\"}\n", "", o);
  EXPECT_EQ(r.entries[0].labels, L({{"host", "h"}, {"env", "prod"}}));
  o.ingest.max_labels = 1;
  r = ok("{\"index\":{}}\n{\"message\":\"m\",\"env\":\"prod\",\"host\":\"h\",\"level\":\"x\"}\n", "", o);
  EXPECT_EQ(r.entries[0].labels, L({{"level", "x"}}));
  // syslogtag alone: pid and colon removed.
  r = ok("{\"index\":{}}\n{\"message\":\"m\",\"syslogtag\":\"cron[77]:\"}\n");
  EXPECT_EQ(r.entries[0].labels, L({{"service", "cron"}}));
  // Timestamps: epoch ms, RFC 3339, junk.
  r =
      ok("{\"index\":{}}\n{\"message\":\"m\",\"@timestamp\":1700000000123}\n"
         "{\"index\":{}}\n{\"message\":\"m\",\"timestamp\":\"2023-11-14T22:13:20.123Z\"}\n"
         "{\"index\":{}}\n{\"message\":\"m\",\"@timestamp\":\"yesterday\"}\n");
  EXPECT_EQ(r.entries[0].ts_ms, 1700000000123);
  EXPECT_EQ(r.entries[1].ts_ms, 1700000000123);
  EXPECT_EQ(r.entries[2].ts_ms, 0);
}

TEST(Bulk, WholeRequestErrors) {
  EXPECT_EQ(bad("").reason, Reject::kEmptyLine);
  EXPECT_EQ(bad("\n\n  \r\n").reason, Reject::kEmptyLine);
  EXPECT_EQ(bad("not json\n").reason, Reject::kMalformedJson);
  EXPECT_EQ(bad("{\"index\":{}\n{\"message\":\"x\"}\n").reason, Reject::kMalformedJson);
  EXPECT_EQ(bad("\xff\xfe\n").reason, Reject::kInvalidUtf8);
  EXPECT_EQ(bad("[]\n").reason, Reject::kWrongType);
  EXPECT_EQ(bad("{}\n").reason, Reject::kWrongType);
  EXPECT_EQ(bad("{\"index\":{},\"create\":{}}\n{}\n").reason, Reject::kWrongType);
  EXPECT_EQ(bad("{\"index\":\"x\"}\n{}\n").reason, Reject::kWrongType);
  IngestError e = bad("{\"upsert\":{}}\n{}\n");
  EXPECT_NE(e.message.find("expected one of [create, delete, index, update] but found [upsert]"), std::string::npos);
  e = bad("{\"index\":{}}\n{\"message\":\"a\"}\n{\"index\":{}}\n");
  EXPECT_NE(e.message.find("line 3 has no source"), std::string::npos) << e.message;
  BulkOptions o;
  o.ingest.max_entries = 2;
  EXPECT_EQ(bad("{\"delete\":{}}\n{\"delete\":{}}\n{\"delete\":{}}\n", o).reason, Reject::kTooManyLines);
  // Invalid UTF-8 in a document: only that item fails.
  BulkRequest r = ok("{\"index\":{}}\n{\"message\":\"\xc3\x28\"}\n{\"index\":{}}\n{\"message\":\"ok\"}\n");
  EXPECT_TRUE(r.items[0].failed());
  EXPECT_NE(r.items[0].error_reason.find("UTF-8"), std::string::npos);
  EXPECT_FALSE(r.items[1].failed());
}

TEST(Bulk, TargetIndex) {
  EXPECT_EQ(bulk_target_index("/_bulk"), "");
  EXPECT_EQ(bulk_target_index("/_bulk?refresh=false"), "");
  EXPECT_EQ(bulk_target_index("/_bulk/"), "");
  EXPECT_EQ(bulk_target_index("/logs-2026.11.23/_bulk"), "logs-2026.11.23");
  EXPECT_EQ(bulk_target_index("/logs/_bulk?pipeline=x"), "logs");
  EXPECT_FALSE(bulk_target_index("/"));
  EXPECT_FALSE(bulk_target_index("/a/b/_bulk"));
  EXPECT_FALSE(bulk_target_index("/_bulkx"));
  EXPECT_FALSE(bulk_target_index("//_bulk"));
}

TEST(Bulk, Probes) {
  auto root = es_probe_response("GET", "/", 0);
  ASSERT_TRUE(root);
  json v = json::parse(root->body);
  EXPECT_EQ(v["version"]["number"], "8.11.0");
  EXPECT_EQ(v["tagline"], "You Know, for Search");
  EXPECT_EQ(root->content_type, "application/json");
  auto head = es_probe_response("HEAD", "/", 0);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_TRUE(head->body.empty());
  for (const char* p :
       {"/_license", "/_xpack", "/_cluster/health", "/_cat/health?v", "/_xpack?accept_enterprise=true"}) {
    auto r = es_probe_response("GET", p, 0);
    ASSERT_TRUE(r) << p;
    EXPECT_FALSE(r->body.empty());
  }
  EXPECT_EQ(json::parse(es_probe_response("GET", "/_license", 0)->body)["license"]["status"], "active");
  EXPECT_FALSE(es_probe_response("POST", "/", 0));
  EXPECT_FALSE(es_probe_response("GET", "/_bulk", 0));
  EXPECT_FALSE(es_probe_response("GET", "/_search", 0));
  EXPECT_EQ(kEsProductValue, "Elasticsearch");
}

TEST(Bulk, GarbageNeverCrashes) {
  uint32_t seed = 3;
  for (int i = 0; i < 2000; ++i) {
    std::string s;
    int len = static_cast<int>(seed % 80);
    for (int k = 0; k < len; ++k) {
      seed = seed * 1664525u + 1013904223u;
      const char alphabet[] = "{}[]\":,\n index create delete doc message 1\xff";
      s.push_back(alphabet[(seed >> 24) % (sizeof(alphabet) - 1)]);
    }
    seed = seed * 1664525u + 1013904223u;
    BulkRequest r;
    if (!parse_bulk(s, "", {}, &r)) bulk_response_body(r, 0);
  }
}

}  // namespace
}  // namespace logsift
