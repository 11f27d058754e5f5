#include <gtest/gtest.h>

#include "tests/data/ingest/fixtures.h"

#include <string>
#include <vector>

#include "otlp_logs.pb.h"
#include "service/api/otlp.h"

namespace logsift {
namespace {

std::string fixture(const std::string& name) { return fixtures::ingest_fixture("otlp", name); }

using fixtures::content_type_of;

Labels L(std::initializer_list<std::pair<std::string, std::string>> l) { return Labels(l); }

std::vector<IngestEntry> ok(std::string_view ct, std::string_view body, const IngestOptions& o = {}) {
  std::vector<IngestEntry> out;
  auto e = parse_otlp_logs(ct, "", body, o, &out);
  EXPECT_FALSE(e) << (e ? e->message : "");
  return out;
}

IngestError bad(std::string_view ct, std::string_view body, const IngestOptions& o = {}, std::string_view enc = "") {
  std::vector<IngestEntry> out;
  auto e = parse_otlp_logs(ct, enc, body, o, &out);
  EXPECT_TRUE(e) << "accepted: " << body.substr(0, 120);
  return e.value_or(IngestError{Reject::kCount, "<accepted>"});
}

// --- Real exporter bytes (@opentelemetry/exporter-logs-otlp-{proto,http} 0.223.1) ---

void expect_sdk_records(const std::vector<IngestEntry>& es) {
  ASSERT_EQ(es.size(), 5u);
  EXPECT_EQ(es[0].message, "user 42 logged in");
  EXPECT_EQ(es[0].labels, L({{"service", "checkout"}, {"level", "info"}, {"host", "web-1"}}));
  EXPECT_GT(es[0].ts_ms, 1795407700000);
  EXPECT_LT(es[0].ts_ms, 1795407900000);
  EXPECT_EQ(es[1].message, "payment failed: card declined");
  EXPECT_EQ(es[1].labels, L({{"service", "checkout"}, {"level", "error"}, {"host", "web-1"}}));  // number 17
  EXPECT_EQ(es[2].message,
            R"({"event":"disk_full","path":"/var","pct":91,"tags":["a",1],"nested":{"b":false}})");  // kvlist body
  EXPECT_EQ(es[2].labels, L({{"service", "checkout"}, {"level", "warning"}, {"host", "web-1"}}));
  EXPECT_EQ(es[3].message,
            "\xC3\xBCn\xC3\xAF"
            "c\xC3\xB8"
            "d\xC3\xA9 \"quoted\" \\ line");
  EXPECT_EQ(es[3].labels, L({{"service", "checkout"}, {"host", "web-1"}}));  // no severity
  EXPECT_EQ(es[4].message, "cache miss for key");                            // trace/span ids dropped
  EXPECT_EQ(es[4].labels, L({{"service", "checkout"}, {"level", "debug"}, {"host", "web-1"}}));
}

TEST(OtlpFixtures, ExporterProto) {
  std::string head = fixture("exporter-logs-otlp-proto-0.223.1.head");
  EXPECT_EQ(content_type_of(head), "application/x-protobuf");
  auto es = ok(content_type_of(head), fixture("exporter-logs-otlp-proto-0.223.1.body"));
  expect_sdk_records(es);
}

TEST(OtlpFixtures, ExporterJson) {
  std::string head = fixture("exporter-logs-otlp-http-0.223.1.head");
  EXPECT_EQ(content_type_of(head), "application/json");
  auto es = ok(content_type_of(head), fixture("exporter-logs-otlp-http-0.223.1.body"));
  expect_sdk_records(es);
  EXPECT_EQ(es[0].ts_ms, 1795407794088);
}

TEST(OtlpFixtures, KeepKeys) {
  IngestOptions o;
  o.keep_keys = {"deployment.environment", "http.method", "user.id", "ok", "ratio"};
  auto es = ok("application/x-protobuf", fixture("exporter-logs-otlp-proto-0.223.1.body"), o);
  ASSERT_EQ(es.size(), 5u);
  EXPECT_EQ(es[0].labels, L({{"service", "checkout"},
                             {"level", "info"},
                             {"host", "web-1"},
                             {"deployment.environment", "prod"},
                             {"user.id", "42"},
                             {"http.method", "POST"},
                             {"ok", "true"},
                             {"ratio", "0.5"}}));
  o.max_labels = 2;
  es = ok("application/json", fixture("exporter-logs-otlp-http-0.223.1.body"), o);
  EXPECT_EQ(es[0].labels, L({{"service", "checkout"}, {"level", "info"}}));
}

TEST(OtlpFixtures, TruncatedRealBodiesAreErrors) {
  std::string js = fixture("exporter-logs-otlp-http-0.223.1.body");
  for (size_t n = 0; n < js.size(); n += 17) bad("application/json", js.substr(0, n));
  // Protobuf prefixes: most are errors; none may crash. Some prefixes end on a
  // field boundary and parse (protobuf has no terminator).
  std::string pb = fixture("exporter-logs-otlp-proto-0.223.1.body");
  for (size_t n = 0; n < pb.size(); ++n) {
    std::vector<IngestEntry> out;
    parse_otlp_logs_protobuf(std::string_view(pb).substr(0, n), {}, &out);
  }
  std::vector<IngestEntry> out;
  EXPECT_TRUE(parse_otlp_logs_protobuf(std::string_view(pb).substr(0, pb.size() - 3), {}, &out));
}

// --- Synthetic protobuf ----------------------------------------------------------------

otlppb::ExportLogsServiceRequest one_record(otlppb::LogRecord** rec) {
  otlppb::ExportLogsServiceRequest req;
  auto* rl = req.add_resource_logs();
  auto* kv = rl->mutable_resource()->add_attributes();
  kv->set_key("service.name");
  kv->mutable_value()->set_string_value("svc");
  *rec = rl->add_scope_logs()->add_log_records();
  return req;
}

TEST(OtlpProtobuf, BodiesAndSeverities) {
  otlppb::LogRecord* rec;
  auto req = one_record(&rec);
  rec->mutable_body()->set_int_value(-7);
  rec->set_severity_number(21);
  rec->set_observed_time_unix_nano(1700000000123456789ull);
  auto* kv = rec->add_attributes();
  kv->set_key("host.name");  // a record attribute fills a missing label
  kv->mutable_value()->set_string_value("h");
  kv = rec->add_attributes();
  kv->set_key("service.name");  // ...but does not override the resource's
  kv->mutable_value()->set_string_value("other");
  auto es = ok("application/x-protobuf", req.SerializeAsString());
  ASSERT_EQ(es.size(), 1u);
  EXPECT_EQ(es[0].message, "-7");
  EXPECT_EQ(es[0].ts_ms, 1700000000123);
  EXPECT_EQ(es[0].labels, L({{"service", "svc"}, {"level", "fatal"}, {"host", "h"}}));

  rec->mutable_body()->set_double_value(0.1);
  EXPECT_EQ(ok("application/x-protobuf", req.SerializeAsString())[0].message, "0.1");
  rec->mutable_body()->set_bool_value(true);
  EXPECT_EQ(ok("application/x-protobuf", req.SerializeAsString())[0].message, "true");
  rec->mutable_body()->set_bytes_value(std::string("\x00\xff\x10", 3));
  EXPECT_EQ(ok("application/x-protobuf", req.SerializeAsString())[0].message, "\"AP8Q\"");
  auto* arr = rec->mutable_body()->mutable_array_value();
  arr->add_values()->set_string_value("tab\there \"q\"");
  arr->add_values();  // unset -> null
  arr->add_values()->set_double_value(std::numeric_limits<double>::infinity());
  EXPECT_EQ(ok("application/x-protobuf", req.SerializeAsString())[0].message, R"(["tab\there \"q\"",null,"Infinity"])");
  rec->clear_body();
  EXPECT_EQ(ok("application/x-protobuf", req.SerializeAsString())[0].message, "");  // check_text rejects later

  for (int n : {1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24}) EXPECT_FALSE(otlp_severity_level(n).empty()) << n;
  EXPECT_EQ(otlp_severity_level(0), "");
  EXPECT_EQ(otlp_severity_level(25), "");
  EXPECT_EQ(otlp_severity_level(13), "warn");
}

TEST(OtlpProtobuf, Malformed) {
  const char* ct = "application/x-protobuf";
  EXPECT_EQ(bad(ct, "").reason, Reject::kEmptyLine);
  EXPECT_EQ(bad(ct, "\x0a\xff\xff\xff\x0f").reason, Reject::kBadRequest);
  EXPECT_EQ(bad(ct, "\x0a\x05\x0a").reason, Reject::kBadRequest);
  EXPECT_EQ(bad(ct, std::string("\x0f\x00", 2)).reason, Reject::kBadRequest);  // field 1, wire type 7
  // Invalid UTF-8 in a string body, a used attribute, a severity text.
  otlppb::LogRecord* rec;
  auto req = one_record(&rec);
  rec->mutable_body()->set_string_value("bad \xff");
  IngestError e = bad(ct, req.SerializeAsString());
  EXPECT_EQ(e.reason, Reject::kInvalidUtf8);
  EXPECT_NE(e.message.find("resourceLogs[0].scopeLogs[0].logRecords[0].body"), std::string::npos) << e.message;
  rec->mutable_body()->mutable_kvlist_value()->add_values()->set_key("k\xc3");
  EXPECT_EQ(bad(ct, req.SerializeAsString()).reason, Reject::kInvalidUtf8);
  rec->mutable_body()->set_string_value("ok");
  rec->set_severity_text("\xc0\xaf");
  EXPECT_EQ(bad(ct, req.SerializeAsString()).reason, Reject::kInvalidUtf8);
  rec->clear_severity_text();
  auto* kv = rec->add_attributes();
  kv->set_key("host.name");
  kv->mutable_value()->set_string_value("\xed\xa0\x80");
  EXPECT_EQ(bad(ct, req.SerializeAsString()).reason, Reject::kInvalidUtf8);
  rec->clear_attributes();
  // Deep nesting: protobuf's own recursion limit, then ours.
  otlppb::AnyValue* v = rec->mutable_body();
  for (int i = 0; i < 70; ++i) v = v->mutable_array_value()->add_values();
  v->set_int_value(1);
  e = bad(ct, req.SerializeAsString());
  EXPECT_EQ(e.reason, Reject::kBadRequest);
  // Too many records.
  IngestOptions o;
  o.max_entries = 2;
  otlppb::ExportLogsServiceRequest three;
  for (int i = 0; i < 3; ++i) three.add_resource_logs()->add_scope_logs()->add_log_records();
  EXPECT_EQ(bad(ct, three.SerializeAsString(), o).reason, Reject::kTooManyLines);
}

TEST(OtlpProtobuf, GarbageNeverCrashes) {
  uint32_t seed = 5;
  for (int i = 0; i < 5000; ++i) {
    std::string raw;
    int len = static_cast<int>(seed % 40);
    for (int k = 0; k < len; ++k) {
      seed = seed * 1664525u + 1013904223u;
      raw.push_back(static_cast<char>(seed >> 24));
    }
    seed = seed * 1664525u + 1013904223u;
    std::vector<IngestEntry> out;
    parse_otlp_logs_protobuf(raw, {}, &out);
  }
}

// --- JSON --------------------------------------------------------------------------

TEST(OtlpJson, Variants) {
  // snake_case names, int64 as numbers or strings, severity enum names,
  // bytes base64, observed time only, empty AnyValue.
  auto es = ok("application/json", R"({"resource_logs":[{"resource":{"attributes":[
      {"key":"service.name","value":{"stringValue":"api"}},{"key":"host.name","value":{}}]},
    "scope_logs":[{"log_records":[
      {"observed_time_unix_nano":1700000000000000000,"severity_number":"SEVERITY_NUMBER_WARN3",
       "body":{"intValue":"-12"}},
      {"timeUnixNano":"1700000001000000000","severityNumber":"SEVERITY_NUMBER_ERROR","body":{"bytesValue":"aGk="}},
      {"severityNumber":1,"body":{"doubleValue":"NaN"}},
      {"body":{"kvlistValue":{"values":[{"key":"message","value":{"stringValue":"inner"}},{"key":"n"}]}}},
      {"body":{"arrayValue":{}}},
      {}
    ]}]}]})");
  ASSERT_EQ(es.size(), 6u);
  EXPECT_EQ(es[0].message, "-12");
  EXPECT_EQ(es[0].ts_ms, 1700000000000);
  EXPECT_EQ(es[0].labels, L({{"service", "api"}, {"level", "warn"}}));
  EXPECT_EQ(es[1].message, "\"aGk=\"");
  EXPECT_EQ(es[1].ts_ms, 1700000001000);
  EXPECT_EQ(es[1].labels, L({{"service", "api"}, {"level", "error"}}));
  EXPECT_EQ(es[2].message, "\"NaN\"");
  EXPECT_EQ(es[2].labels, L({{"service", "api"}, {"level", "trace"}}));
  EXPECT_EQ(es[3].message, R"({"message":"inner","n":null})");
  EXPECT_EQ(es[4].message, "[]");
  EXPECT_EQ(es[5].message, "");
  EXPECT_TRUE(ok("application/json", "{}").empty());
  EXPECT_TRUE(ok("application/json", R"({"resourceLogs":[]})").empty());
}

TEST(OtlpJson, Malformed) {
  const char* ct = "application/json";
  EXPECT_EQ(bad(ct, "").reason, Reject::kEmptyLine);
  EXPECT_EQ(bad(ct, "{").reason, Reject::kMalformedJson);
  EXPECT_EQ(bad(ct, "{\"resourceLogs\":[{\"x\":\"\xff\"}]}").reason, Reject::kInvalidUtf8);
  EXPECT_EQ(bad(ct, "[]").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"resourceLogs":{}})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"resourceLogs":[1]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"resourceLogs":[{"resource":[]}]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"resourceLogs":[{"resource":{"attributes":{}}}]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"resourceLogs":[{"resource":{"attributes":[{"value":{}}]}}]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"resourceLogs":[{"scopeLogs":[{"logRecords":{}}]}]})").reason, Reject::kWrongType);
  const char* recs[] = {
      R"({"timeUnixNano":"abc"})",
      R"({"timeUnixNano":-1})",
      R"({"timeUnixNano":"1.5"})",
      R"({"timeUnixNano":"99999999999999999999"})",
      R"({"severityNumber":"LOUD"})",
      R"({"severityNumber":1000})",
      R"({"severityText":5})",
      R"({"body":"plain"})",
      R"({"body":{"stringValue":1}})",
      R"({"body":{"boolValue":"yes"}})",
      R"({"body":{"intValue":1.5}})",
      R"({"body":{"doubleValue":"x"}})",
      R"({"body":{"arrayValue":[]}})",
      R"({"body":{"kvlistValue":{"values":[1]}}})",
      R"({"body":{"bytesValue":"***"}})",
      R"({"attributes":[{"key":1}]})",
      R"(7)",
  };
  for (const char* r : recs) {
    IngestError e = bad(ct, std::string(R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[)") + r + "]}]}]}");
    EXPECT_EQ(e.reason, Reject::kWrongType) << r;
    EXPECT_NE(e.message.find("resourceLogs[0].scopeLogs[0].logRecords[0]"), std::string::npos) << e.message;
  }
  // Deeply nested values: an error, not a stack overflow.
  std::string deep = R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":)";
  for (int i = 0; i < 5000; ++i) deep += R"({"arrayValue":{"values":[)";
  deep += "{}";
  for (int i = 0; i < 5000; ++i) deep += "]}}";
  deep += "}]}]}]}";
  EXPECT_NE(bad(ct, deep).message.find("nested deeper"), std::string::npos);
  IngestOptions o;
  o.max_entries = 1;
  EXPECT_EQ(bad(ct, R"({"resourceLogs":[{"scopeLogs":[{"logRecords":[{},{}]}]}]})", o).reason, Reject::kTooManyLines);
}

TEST(Otlp, MediaTypesAndEncodings) {
  EXPECT_EQ(bad("application/json", "{}", {}, "gzip").reason, Reject::kUnsupportedMediaType);
  EXPECT_EQ(bad("text/plain", "{}").reason, Reject::kUnsupportedMediaType);
  EXPECT_EQ(bad("", "{}").reason, Reject::kUnsupportedMediaType);
  EXPECT_TRUE(ok("application/json; charset=utf-8", "{}").empty());
}

TEST(Otlp, Response) {
  OtlpReply r = otlp_response(true);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, "{}");
  r = otlp_response(true, 3, "3 records were empty");
  EXPECT_EQ(r.body, R"({"partialSuccess":{"errorMessage":"3 records were empty","rejectedLogRecords":"3"}})");
  r = otlp_response(false);
  EXPECT_EQ(r.content_type, "application/x-protobuf");
  EXPECT_EQ(r.body, "");
  r = otlp_response(false, 2, "x");
  otlppb::ExportLogsServiceResponse resp;
  ASSERT_TRUE(resp.ParseFromString(r.body));
  EXPECT_EQ(resp.partial_success().rejected_log_records(), 2);
  EXPECT_EQ(resp.partial_success().error_message(), "x");
}

}  // namespace
}  // namespace logsift
