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

#include <filesystem>
#include <fstream>
#include <random>

namespace logsift {
namespace {

// A JSON line is read with the SAX parser and only the values it needs;
// what that gives must be what the tree reading gives, or ids change.
struct Read {
  std::optional<EnvelopeError> error;
  std::string text;
  Labels labels;
};
Read read(std::string_view line, const Config& c, bool tree) {
  Batch b;
  Record r;
  Read out;
  out.error = tree ? record_from_envelope_tree(line, c, b, &r) : record_from_envelope(line, c, b, &r);
  out.text = std::string(r.text);
  out.labels = r.labels;
  return out;
}
size_t differences(const std::vector<std::string>& lines, const Config& c) {
  size_t bad = 0;
  for (const auto& l : lines) {
    Read fast = read(l, c, false), tree = read(l, c, true);
    bool same = fast.error.has_value() == tree.error.has_value() && fast.text == tree.text && fast.labels == tree.labels;
    if (same && fast.error)
      same = fast.error->reason == tree.error->reason && fast.error->message == tree.error->message;
    if (!same && ++bad <= 5)
      ADD_FAILURE() << "line: " << l << "\n  sax:  " << fast.text << " / " << (fast.error ? fast.error->message : "")
                    << "\n  tree: " << tree.text << " / " << (tree.error ? tree.error->message : "");
  }
  return bad;
}

TEST(Envelope, JsonLinesReadWithoutATreeGiveWhatTheTreeGives) {
  std::vector<std::string> lines = {
      R"({"msg": "a", "msg": "b"})", R"({"msg": null, "log": "x"})", R"({"message": null})",
      R"({"msg": 5})", R"({"msg": true})", R"({"msg": 1.5e3})", R"({"msg": {"a": 1}})", R"({"msg": ["a"]})",
      R"({"msg": "x", "level": 3, "host": 1.50, "service": true})", R"({"msg": "x", "level": null})",
      R"({"msg": "x", "level": {"a": 1}})", R"({"msg": "x", "level": [1]})",
      R"({"msg": "x", "level": 18446744073709551615, "host": -9223372036854775808, "service": 1e300})",
      R"({"msg": "x", "labels": {"b": "2", "a": 1}})", R"({"msg": "x", "labels": null})", R"({"msg": "x", "labels": 3})",
      R"({"msg": "x", "level": "warn", "level": "error"})", R"([{"msg": "x"}])", R"({"msg": "x"} trailing)",
      R"({"msg": "x"}   )", "{\"msg\": \"x\"}\r", "{\"msg\": \"x\"}\r\r", R"({"msg": "tab\there \u00e9 \"q\""})",
      R"({"msg": "nul \u0000 inside"})", R"({"msg": ""})", R"({"msg": "   "})", "{\"msg\": \"\xff\"}",
      R"({"a": {"msg": "nested"}, "text": "top"})", R"({"event": "structlog", "level": "info"})", R"({"foo": 1})",
      R"({"msg": "x", "ts": [1, {"y": [2, {"z": null}]}], "caller": "a.go:1"})", "{", "{}", R"({"msg":"x",})",
      "{\"text\": \"" + std::string(200, '{') + "\"}", std::string(70, '{') + std::string(70, '}'),
      R"({"log": "l", "text": "t", "msg": "m"})", R"({"text": "t", "log": "l"})"};
  // Real programs' JSON lines from the repository's sets, and mutations of them.
  std::vector<std::string> real;
  for (const char* root : {LOGSIFT_SOURCE_DIR "/models/validation", LOGSIFT_SOURCE_DIR "/models/tuning"})
    for (const auto& e : std::filesystem::recursive_directory_iterator(root))
      if (e.path().extension() == ".log") {
        std::ifstream in(e.path());
        for (std::string l; std::getline(in, l);)
          if (!l.empty() && l.front() == '{') real.push_back(l);
      }
  ASSERT_GT(real.size(), 100u);
  std::mt19937_64 rng(20261129);
  const std::string alphabet = "{}[]\":,\\ nulltruefalse0123456789.-eE\x01\xc3\xa9";
  for (int i = 0; i < 30000; ++i) {
    std::string l = real[rng() % real.size()];
    for (int k = 0, m = 1 + static_cast<int>(rng() % 3); k < m && !l.empty(); ++k) {
      size_t at = rng() % l.size();
      switch (rng() % 3) {
        case 0: l.erase(at, 1); break;
        case 1: l.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        default: l[at] = alphabet[rng() % alphabet.size()];
      }
    }
    lines.push_back(l);
  }
  lines.insert(lines.end(), real.begin(), real.end());
  Config c = Config::defaults();
  EXPECT_EQ(differences(lines, c), 0u) << lines.size() << " lines";
  c.message_keys = "body,level,labels,msg";  // configured keys that are also label or envelope keys
  c.max_labels = 1;
  EXPECT_EQ(differences(lines, c), 0u) << "with message_keys " << c.message_keys;
}

}  // namespace
}  // namespace logsift
