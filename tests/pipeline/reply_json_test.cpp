// The hand-written reply against nlohmann's own dump of the same record: the
// bytes clients parse, for every kind of character a template or a
// parameter can hold (quotes, backslashes, control bytes, UTF-8, invalid
// bytes), at every offset of the eight-byte scan.
#include "pipeline/reply_json.h"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace logsift {
namespace {

nlohmann::json reparsed_dump(const nlohmann::json& j) {
  return nlohmann::json::parse(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

TEST(ReplyJson, SameAsTheLibrarysDumpForEveryKindOfByte) {
  // Whole characters (ingest admits valid UTF-8 only), and a lone invalid byte.
  const std::vector<std::string> alphabet = {"a", "b", "X", "Z", " ", "0", "9", ".", ":", "/", "-", "_", "<*>",
                                             "\"", "\\", "\b", "\f", "\n", "\r", "\t", "\x01", "\x1f", "\x7f",
                                             "é", "東", "😀", "\xff"};
  std::mt19937_64 rng(20261129);
  for (int it = 0; it < 20000; ++it) {
    std::string tmpl, text;
    for (size_t k = 0, n = rng() % 40; k < n; ++k) tmpl += alphabet[rng() % alphabet.size()];
    for (size_t k = 0, n = rng() % 40; k < n; ++k) text += alphabet[rng() % alphabet.size()];
    Record r;
    r.text = text;
    r.template_text = tmpl;
    r.cluster_id = rng();
    r.template_id = rng();
    std::string out;
    append_result_json(r, true, &out);
    ASSERT_EQ(nlohmann::json::parse(out), reparsed_dump(record_result_json(r))) << "template: " << tmpl;
    Record e;
    e.fail(RecordFailure::kRejected, tmpl);
    out.clear();
    append_result_json(e, true, &out);
    ASSERT_EQ(nlohmann::json::parse(out), reparsed_dump(record_result_json(e))) << "error: " << tmpl;
  }
}

}  // namespace
}  // namespace logsift
