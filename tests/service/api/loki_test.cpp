#include <gtest/gtest.h>

#include "tests/data/ingest/fixtures.h"

#include <string>
#include <vector>

#include <snappy.h>

#include "loki_push.pb.h"
#include "service/api/loki.h"

namespace logsift {
namespace {

std::string fixture(const std::string& name) { return fixtures::ingest_fixture("loki", name); }

using fixtures::content_type_of;

Labels L(std::initializer_list<std::pair<std::string, std::string>> l) { return Labels(l); }

std::string snappy_of(const std::string& raw) {
  std::string out;
  snappy::Compress(raw.data(), raw.size(), &out);
  return out;
}

std::string push_body(const lokipb::PushRequest& req) { return snappy_of(req.SerializeAsString()); }

std::vector<IngestEntry> ok(std::string_view ct, std::string_view body, const IngestOptions& o = {}) {
  std::vector<IngestEntry> out;
  auto e = parse_loki_push(ct, "", body, o, &out);
  EXPECT_FALSE(e) << (e ? e->message : "");
  return out;
}

IngestError bad(std::string_view ct, std::string_view body, const IngestOptions& o = {}, std::string_view enc = "") {
  std::vector<IngestEntry> out;
  auto e = parse_loki_push(ct, enc, body, o, &out);
  EXPECT_TRUE(e) << "accepted: " << body.substr(0, 80);
  return e.value_or(IngestError{Reject::kCount, "<accepted>"});
}

// --- Real client bytes (winston-loki 6.1.7) --------------------------------------

void expect_winston_loki(const std::vector<IngestEntry>& es) {
  ASSERT_EQ(es.size(), 3u);
  EXPECT_EQ(es[0].message, R"(user 42 logged in {"trace_id":"abc123","attempt":2,"level":"info"})");
  EXPECT_EQ(es[0].labels, L({{"service", "checkout"}, {"level", "info"}, {"host", "web-1"}, {"env", "prod"}}));
  EXPECT_GT(es[0].ts_ms, 1795407700000);
  EXPECT_LT(es[0].ts_ms, 1795407800000);
  EXPECT_EQ(es[1].message, R"(payment failed: card declined {"level":"error"})");
  EXPECT_EQ(es[1].labels, L({{"service", "checkout"}, {"level", "error"}, {"host", "web-1"}, {"env", "prod"}}));
  EXPECT_EQ(es[2].message,
            "disk \"/var\" at 91% (quote \\ backslash) \xC3\xBCn\xC3\xAF"
            "c\xC3\xB8"
            "d\xC3\xA9 {\"level\":\"warn\"}");
  EXPECT_EQ(es[2].labels,
            L({{"service", "checkout"}, {"level", "warn"}, {"host", "web-1"}, {"env", "prod"}, {"component", "disk"}}));
}

TEST(LokiFixtures, WinstonLokiProtobuf) {
  std::string head = fixture("winston-loki-6.1.7-protobuf.head");
  EXPECT_EQ(content_type_of(head), "application/x-protobuf");
  auto es = ok(content_type_of(head), fixture("winston-loki-6.1.7-protobuf.body"));
  expect_winston_loki(es);
  EXPECT_EQ(es[0].ts_ms, 1795407755481);  // seconds 1795407755, nanos 481000000
}

TEST(LokiFixtures, WinstonLokiJson) {
  std::string head = fixture("winston-loki-6.1.7-json.head");
  EXPECT_EQ(content_type_of(head), "application/json");
  auto es = ok(content_type_of(head), fixture("winston-loki-6.1.7-json.body"));
  expect_winston_loki(es);
  EXPECT_EQ(es[0].ts_ms, 1795407758435);
}

TEST(LokiFixtures, TruncatedRealBodiesAreErrors) {
  std::string pb = fixture("winston-loki-6.1.7-protobuf.body");
  std::string js = fixture("winston-loki-6.1.7-json.body");
  for (size_t n = 0; n < pb.size(); n += 7) bad("application/x-protobuf", pb.substr(0, n));
  for (size_t n = 0; n < js.size(); n += 13) bad("application/json", js.substr(0, n));
}

// --- JSON ------------------------------------------------------------------------

TEST(LokiJson, LabelMapping) {
  auto es = ok("application/json; charset=utf-8", R"({"streams":[{"stream":{"job":"varlogs","container":"c1",
      "app":"shop","instance":"10.0.0.1:9100","severity":"WARNING","namespace":"prod","pod":"p-1"},
      "values":[["1700000000123456789","GET /api 200"],[1700000001000000000,"GET /api 500",{"trace_id":"t1"}]]}]})");
  ASSERT_EQ(es.size(), 2u);
  // app beats job and container; severity -> level (lower-cased); instance -> host; others kept.
  EXPECT_EQ(
      es[0].labels,
      L({{"service", "shop"}, {"level", "warning"}, {"host", "10.0.0.1:9100"}, {"namespace", "prod"}, {"pod", "p-1"}}));
  EXPECT_EQ(es[0].ts_ms, 1700000000123);
  EXPECT_EQ(es[1].ts_ms, 1700000001000);  // a JSON integer timestamp is accepted
  EXPECT_EQ(es[1].labels, es[0].labels);  // metadata trace_id dropped
  // service_name is the best service key.
  es = ok("application/json", R"({"streams":[{"stream":{"job":"j","service_name":"svc"},"values":[["1","x"]]}]})");
  EXPECT_EQ(es[0].labels, L({{"service", "svc"}}));
}

TEST(LokiJson, MetadataFillsOnlyMissingCanonicalLabels) {
  auto es = ok("application/json", R"({"streams":[{"stream":{"job":"j","level":"info"},"values":[
      ["1","a",{"level":"error","host":"h1","trace_id":"t"}],["2","b",{}],["3","c",null]]}]})");
  ASSERT_EQ(es.size(), 3u);
  EXPECT_EQ(es[0].labels, L({{"service", "j"}, {"level", "info"}, {"host", "h1"}}));
  EXPECT_EQ(es[1].labels, L({{"service", "j"}, {"level", "info"}}));
  EXPECT_EQ(es[2].labels, es[1].labels);
}

TEST(LokiJson, LabelLimit) {
  std::string stream;
  for (int i = 0; i < 20; ++i) stream += "\"k" + std::to_string(i) + "\":\"v\",";
  stream += R"("host":"h","job":"j")";
  IngestOptions o;
  o.max_labels = 4;
  auto es = ok("application/json", R"({"streams":[{"stream":{)" + stream + R"(},"values":[["1","x"]]}]})", o);
  ASSERT_EQ(es.size(), 1u);
  EXPECT_EQ(es[0].labels, L({{"service", "j"}, {"host", "h"}, {"k0", "v"}, {"k1", "v"}}));
  o.max_labels = 0;
  es = ok("application/json", R"({"streams":[{"stream":{"job":"j"},"values":[["1","x"]]}]})", o);
  EXPECT_TRUE(es[0].labels.empty());
}

TEST(LokiJson, EmptyButValid) {
  EXPECT_TRUE(ok("application/json", R"({"streams":[]})").empty());
  EXPECT_TRUE(ok("application/json", R"({"streams":[{"stream":{"a":"b"},"values":[]}]})").empty());
  EXPECT_TRUE(ok("application/json", R"({"streams":[{"stream":{"a":"b"}}]})").empty());
  // An empty line is an entry: the pipeline's check_text rejects it per record.
  auto es = ok("application/json", R"({"streams":[{"values":[["1",""]]}]})");
  ASSERT_EQ(es.size(), 1u);
  EXPECT_EQ(es[0].message, "");
  EXPECT_TRUE(es[0].labels.empty());
}

TEST(LokiJson, Malformed) {
  const char* ct = "application/json";
  EXPECT_EQ(bad(ct, "").reason, Reject::kEmptyLine);
  EXPECT_EQ(bad(ct, "  \n").reason, Reject::kEmptyLine);
  EXPECT_EQ(bad(ct, "{").reason, Reject::kMalformedJson);
  EXPECT_EQ(bad(ct, "[]").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, "{}").reason, Reject::kMissingText);
  EXPECT_EQ(bad(ct, R"({"streams":{}})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"streams":[1]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"streams":[{"stream":[],"values":[]}]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"streams":[{"stream":{"a":1},"values":[]}]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"streams":[{"values":{}}]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"streams":[{"values":["x"]}]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"streams":[{"values":[["1"]]}]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"streams":[{"values":[["1","a",{},4]]}]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"streams":[{"values":[["1",2]]}]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"streams":[{"values":[["1","a",[]]]}]})").reason, Reject::kWrongType);
  EXPECT_EQ(bad(ct, R"({"streams":[{"values":[["1","a",{"k":1}]]}]})").reason, Reject::kWrongType);
  // Timestamps: not digits, negative, float, too big for int64.
  for (const char* ts : {R"("abc")", R"("")", "-5", "1.5", R"("99999999999999999999")", R"("-1")", "null"}) {
    IngestError e = bad(ct, std::string(R"({"streams":[{"values":[[)") + ts + R"(,"a"]]}]})");
    EXPECT_EQ(e.reason, Reject::kWrongType) << ts;
    EXPECT_NE(e.message.find("streams[0].values[0][0]"), std::string::npos) << e.message;
  }
  // Invalid UTF-8 in a line.
  EXPECT_EQ(bad(ct, "{\"streams\":[{\"values\":[[\"1\",\"\xff\"]]}]}").reason, Reject::kInvalidUtf8);
  // Too many entries.
  IngestOptions o;
  o.max_entries = 2;
  EXPECT_EQ(bad(ct, R"({"streams":[{"values":[["1","a"],["1","b"]]},{"values":[["1","c"]]}]})", o).reason,
            Reject::kTooManyLines);
}

TEST(Loki, MediaTypesAndEncodings) {
  std::string js = R"({"streams":[{"stream":{"job":"j"},"values":[["1","x"]]}]})";
  EXPECT_EQ(bad("application/json", js, {}, "gzip").reason, Reject::kUnsupportedMediaType);
  EXPECT_NE(bad("application/json", js, {}, "gzip").message.find("gzip"), std::string::npos);
  EXPECT_EQ(bad("application/json", js, {}, "deflate").reason, Reject::kUnsupportedMediaType);
  EXPECT_EQ(bad("text/plain", js).reason, Reject::kUnsupportedMediaType);
  std::vector<IngestEntry> out;
  EXPECT_FALSE(parse_loki_push("Application/JSON", "identity", js, {}, &out));
  EXPECT_EQ(out.size(), 1u);
  // No Content-Type: sniffed.
  EXPECT_EQ(ok("", js).size(), 1u);
  lokipb::PushRequest req;
  auto* s = req.add_streams();
  s->set_labels(R"({job="j"})");
  s->add_entries()->set_line("pb");
  EXPECT_EQ(ok("", push_body(req))[0].message, "pb");
}

// --- Protobuf --------------------------------------------------------------------

TEST(LokiProtobuf, EntriesLabelsMetadata) {
  lokipb::PushRequest req;
  auto* s = req.add_streams();
  s->set_labels(R"({job="varlogs", host="h1", "service.name"="ignored.dots", filename="/var/log/a \"b\".log"})");
  auto* e = s->add_entries();
  e->mutable_timestamp()->set_seconds(1700000000);
  e->mutable_timestamp()->set_nanos(987654321);
  e->set_line("line one");
  auto* md = e->add_structured_metadata();
  md->set_name("detected_level");
  md->set_value("ERROR");
  md = e->add_structured_metadata();
  md->set_name("trace_id");
  md->set_value("abc");
  s->add_entries()->set_line("line two");  // no timestamp
  auto es = ok("application/x-protobuf", push_body(req));
  ASSERT_EQ(es.size(), 2u);
  EXPECT_EQ(es[0].message, "line one");
  EXPECT_EQ(es[0].ts_ms, 1700000000987);
  EXPECT_EQ(es[0].labels, L({{"service", "varlogs"},
                             {"level", "error"},
                             {"host", "h1"},
                             {"service.name", "ignored.dots"},
                             {"filename", "/var/log/a \"b\".log"}}));
  EXPECT_EQ(es[1].ts_ms, 0);
  EXPECT_EQ(es[1].labels, L({{"service", "varlogs"},
                             {"host", "h1"},
                             {"service.name", "ignored.dots"},
                             {"filename", "/var/log/a \"b\".log"}}));
}

TEST(LokiProtobuf, Malformed) {
  const char* ct = "application/x-protobuf";
  EXPECT_EQ(bad(ct, "").reason, Reject::kEmptyLine);
  // Not snappy at all, and snappy of garbage protobuf.
  EXPECT_EQ(bad(ct, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff").reason, Reject::kBadRequest);
  EXPECT_EQ(bad(ct, "{\"streams\":[]}").reason, Reject::kBadRequest);
  EXPECT_EQ(bad(ct, snappy_of("\x0a\xff\xff\xff\x0f")).reason, Reject::kBadRequest);  // length past the end
  EXPECT_EQ(bad(ct, snappy_of("\x08")).reason, Reject::kBadRequest);                  // truncated varint
  EXPECT_EQ(bad(ct, snappy_of("")).reason, Reject::kEmptyLine);
  // The snappy framing format is named in the error.
  std::string framed("\xff\x06\x00\x00sNaPpY", 10);
  EXPECT_NE(bad(ct, framed + "xxxx").message.find("framing"), std::string::npos);
  // A length prefix claiming more than the limit.
  IngestOptions small;
  small.max_decompressed_bytes = 100;
  EXPECT_EQ(bad(ct, snappy_of(std::string(1000, 'a')), small).reason, Reject::kBodyTooLarge);

  // Bad label sets.
  for (const char* labels : {"job=\"x\"", "{job=x}", "{job=\"x\"", "{job=\"x\" host=\"y\"}", "{1a=\"x\"}",
                             "{job=\"x\",job=\"y\"}", "{job=\"\\q\"}", "{job}", "{job=\"x\"} extra"}) {
    lokipb::PushRequest req;
    auto* s = req.add_streams();
    s->set_labels(labels);
    s->add_entries()->set_line("x");
    IngestError e = bad(ct, push_body(req));
    EXPECT_EQ(e.reason, Reject::kBadRequest) << labels;
    EXPECT_NE(e.message.find("streams[0].labels"), std::string::npos) << e.message;
  }
  // Invalid UTF-8 in a line and in the labels.
  lokipb::PushRequest req;
  auto* s = req.add_streams();
  s->set_labels("{job=\"x\"}");
  s->add_entries()->set_line("ok");
  s->add_entries()->set_line("bad \xc3\x28");
  IngestError e = bad(ct, push_body(req));
  EXPECT_EQ(e.reason, Reject::kInvalidUtf8);
  EXPECT_NE(e.message.find("streams[0].entries[1]"), std::string::npos);
  req.mutable_streams(0)->set_labels("{job=\"\xff\"}");
  req.mutable_streams(0)->mutable_entries()->RemoveLast();
  EXPECT_EQ(bad(ct, push_body(req)).reason, Reject::kInvalidUtf8);
  // Too many entries.
  IngestOptions o;
  o.max_entries = 1;
  lokipb::PushRequest two;
  two.add_streams()->add_entries()->set_line("a");
  two.add_streams()->add_entries()->set_line("b");
  EXPECT_EQ(bad(ct, push_body(two), o).reason, Reject::kTooManyLines);
}

TEST(LokiProtobuf, GarbageNeverCrashes) {
  uint32_t seed = 99;
  for (int i = 0; i < 3000; ++i) {
    std::string raw;
    int len = static_cast<int>(seed % 48);
    for (int k = 0; k < len; ++k) {
      seed = seed * 1664525u + 1013904223u;
      raw.push_back(static_cast<char>(seed >> 24));
    }
    seed = seed * 1664525u + 1013904223u;
    std::vector<IngestEntry> out;
    parse_loki_protobuf(snappy_of(raw), {}, &out);
    parse_loki_protobuf(raw, {}, &out);
  }
}

// --- Label-set text ------------------------------------------------------------------

TEST(LokiLabelSet, Parse) {
  std::vector<std::pair<std::string, std::string>> p;
  std::string err;
  ASSERT_TRUE(parse_label_set(R"( { job = "x" , esc="a\"b\\c\n\u00fc" , raw=`r\n`, single='s', } )", &p, &err)) << err;
  EXPECT_EQ(p, (std::vector<std::pair<std::string, std::string>>{
                   {"job", "x"}, {"esc", "a\"b\\c\n\xC3\xBC"}, {"raw", "r\\n"}, {"single", "s"}}));
  p.clear();
  EXPECT_TRUE(parse_label_set("{}", &p, &err));
  EXPECT_TRUE(p.empty());
  EXPECT_TRUE(parse_label_set(R"({level="info",app="checkout"})", &p, &err));  // winston-loki's form: no spaces
  EXPECT_EQ(p.size(), 2u);
  p.clear();
  EXPECT_FALSE(parse_label_set(R"({""="x"})", &p, &err));
  EXPECT_FALSE(parse_label_set(R"({a="x",,b="y"})", &p, &err));
  EXPECT_FALSE(parse_label_set("", &p, &err));
}

// --- ingest_entry.h helpers (shared by Loki, OTLP and bulk) ---------------------

TEST(IngestEntryHelpers, MergeLabelsMediaTypeStatus) {
  Labels base = L({{"service", "a"}, {"level", "info"}});
  EXPECT_EQ(merge_labels(&base, L({{"level", "error"}, {"host", "h"}, {"env", "prod"}}), 3), 1u);
  EXPECT_EQ(base, L({{"service", "a"}, {"level", "info"}, {"host", "h"}}));  // present keys kept, limit 3
  EXPECT_EQ(media_type(" Application/JSON ; charset=utf-8"), "application/json");
  EXPECT_EQ(media_type(""), "");
  EXPECT_TRUE(identity_encoding(""));
  EXPECT_TRUE(identity_encoding(" Identity"));
  EXPECT_FALSE(identity_encoding("gzip"));
  EXPECT_EQ(ingest_http_status({Reject::kUnsupportedMediaType, ""}), 415);
  EXPECT_EQ(ingest_http_status({Reject::kTooManyLines, ""}), 413);
  EXPECT_EQ(ingest_http_status({Reject::kBodyTooLarge, ""}), 413);
  EXPECT_EQ(ingest_http_status({Reject::kMalformedJson, ""}), 400);
}

}  // namespace
}  // namespace logsift
