#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pipeline/core/text.h"
#include "pipeline/ingest/envelope.h"

namespace logsift {
namespace {

TEST(Utf8, ValidAndInvalid) {
  EXPECT_TRUE(text::valid_utf8("plain ascii"));
  EXPECT_TRUE(text::valid_utf8("müller 東京 😀"));
  EXPECT_FALSE(text::valid_utf8("\xff"));
  EXPECT_FALSE(text::valid_utf8("\xc3"));              // truncated
  EXPECT_FALSE(text::valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(text::valid_utf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(text::valid_utf8("\xf4\x90\x80\x80"));  // > U+10FFFF
}

TEST(Envelope, HttpObject) {
  Config c = Config::defaults();
  Batch b;  // owns what the records view
  Record r;
  auto j = nlohmann::json::parse(R"({"text": "disk full", "labels": {"service": "db", "level": "WARN"}})");
  EXPECT_FALSE(record_from_object(j, c, b, &r));
  EXPECT_EQ(r.text, "disk full");
  ASSERT_EQ(r.labels.size(), 2u);
  EXPECT_EQ(r.labels[0].first, "level");  // nlohmann objects are key-ordered

  Record bad;
  EXPECT_EQ(record_from_object(nlohmann::json::parse(R"({"txt": "x"})"), c, b, &bad)->reason, Reject::kMissingText);
  EXPECT_EQ(record_from_object(nlohmann::json::parse(R"({"text": 5})"), c, b, &bad)->reason, Reject::kWrongType);
  EXPECT_EQ(record_from_object(nlohmann::json::parse(R"({"text": "x", "labels": [1]})"), c, b, &bad)->reason,
            Reject::kWrongType);
  EXPECT_EQ(record_from_object(nlohmann::json::parse(R"({"text": ""})"), c, b, &bad)->reason, Reject::kEmptyLine);
}

TEST(Envelope, TcpLines) {
  Config c = Config::defaults();
  Batch b;  // owns what the records view
  Record r;
  EXPECT_FALSE(record_from_line("plain line\r", c, b, &r));
  EXPECT_EQ(r.text, "plain line");

  Record j;
  EXPECT_FALSE(record_from_line(R"({"msg": "hello", "level": "ERROR", "host": "h1", "labels": {"service": "api"}})",
                                c, b, &j));
  EXPECT_EQ(j.text, "hello");
  EXPECT_EQ(j.labels.size(), 3u);

  Record first;  // message > msg > log > text
  EXPECT_FALSE(record_from_line(R"({"log": "b", "message": "a"})", c, b, &first));
  EXPECT_EQ(first.text, "a");

  Record brace;  // looks like JSON but is not: a plain line
  EXPECT_FALSE(record_from_line("{oops not json", c, b, &brace));
  EXPECT_EQ(brace.text, "{oops not json");

  Record none;
  EXPECT_EQ(record_from_line(R"({"foo": 1})", c, b, &none)->reason, Reject::kMissingText);
  // A key of message_keys (structlog's "event") carries the text as well.
  Record ev;
  ASSERT_FALSE(record_from_line(R"({"event": "cache flushed", "level": "info"})", c, b, &ev));
  EXPECT_EQ(ev.text, "cache flushed");
  EXPECT_EQ(record_from_line(R"({"event": 5})", c, b, &none)->reason, Reject::kWrongType);
  EXPECT_EQ(record_from_line("bad \xff byte", c, b, &none)->reason, Reject::kInvalidUtf8);
  EXPECT_EQ(record_from_line("", c, b, &none)->reason, Reject::kEmptyLine);
  c.max_line_bytes = 16;
  EXPECT_EQ(record_from_line(std::string(17, 'x'), c, b, &none)->reason, Reject::kLineTooLong);
}

TEST(Envelope, LabelsOverTheLimitAreDroppedAndCounted) {
  Config c = Config::defaults();
  Batch b;  // owns what the records view
  c.max_labels = 1;
  uint64_t before = metrics().labels_dropped.get();
  Record r;
  EXPECT_FALSE(record_from_object(nlohmann::json::parse(R"({"text": "x", "labels": {"a": "1", "b": "2"}})"), c, b, &r));
  EXPECT_EQ(r.labels.size(), 1u);
  EXPECT_EQ(metrics().labels_dropped.get(), before + 1);
}

}  // namespace
}  // namespace logsift

namespace logsift {
namespace {

TEST(Envelope, BlankTextAndNullMessage) {
  Config c = Config::defaults();
  Batch b;  // owns what the records view
  Record r;
  EXPECT_EQ(record_from_line("   \t", c, b, &r)->reason, Reject::kEmptyLine);
  EXPECT_EQ(record_from_object(nlohmann::json::parse(R"({"text": "  "})"), c, b, &r)->reason, Reject::kEmptyLine);
  Record m;  // a null message key is absent: the next key is used
  EXPECT_FALSE(record_from_line(R"({"message": null, "msg": "disk full"})", c, b, &m));
  EXPECT_EQ(m.text, "disk full");
}

}  // namespace
}  // namespace logsift

namespace logsift {
namespace {

TEST(Envelope, JsonIsBoundedInDepthAndRefusedForItsExactReason) {
  nlohmann::json out;
  auto deep = parse_json(std::string(100000, '['), "body", &out);
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->reason, Reject::kJsonTooDeep);
  EXPECT_EQ(deep->message, "body is JSON nested deeper than 64 levels");
  EXPECT_FALSE(parse_json(std::string(64, '[') + std::string(64, ']'), "body", &out)) << "64 levels parse";
  EXPECT_TRUE(parse_json(std::string(65, '[') + std::string(65, ']'), "body", &out));
  EXPECT_FALSE(parse_json("{\"text\": \"" + std::string(500, '{') + "\"}", "body", &out)) << "braces in a string are text";
  EXPECT_FALSE(parse_json(R"({"text": "a \" [[[[ quote"})", "body", &out));
  EXPECT_EQ(parse_json(std::string("{\"text\": \"\xff\"}"), "line", &out)->reason, Reject::kInvalidUtf8);
  EXPECT_EQ(parse_json("{\"text\": ", "line", &out)->reason, Reject::kMalformedJson);
  EXPECT_EQ(parse_json("{\"text\": ", "line", &out)->message, "line is not valid JSON");
}

}  // namespace
}  // namespace logsift
