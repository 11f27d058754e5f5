#include "pipeline/stages/encoder_text.h"

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace logsift {
namespace {

// The same cases are checked against the Python twin by
// models/training/encoder/test_encoder.py, so training and serving agree.
TEST(CanonicalTemplate, MatchesSharedCases) {
  std::ifstream in(std::string(LOGSIFT_SOURCE_DIR) + "/tests/data/canonical_cases.json");
  ASSERT_TRUE(in) << "missing tests/data/canonical_cases.json";
  auto j = nlohmann::json::parse(in);
  ASSERT_GE(j["cases"].size(), 15u);
  for (const auto& c : j["cases"]) {
    EXPECT_EQ(canonical_template(c["in"].get<std::string>()), c["out"].get<std::string>()) << c["in"];
  }
}

TEST(CanonicalTemplate, FoundingPairSharesItsHead) {
  auto a = canonical_template(
      "com.amazonaws.SdkClientException: Unable to execute HTTP request: <*>: Temporary failure in name resolution");
  auto b = canonical_template("SdkClientException: Unable to execute HTTP request: <*>");
  EXPECT_EQ(a.rfind(b, 0), 0u) << a;  // b is a prefix of a: the rest is the trailing cause
}

TEST(CanonicalTemplate, KeepsMeaningfulDottedNames) {
  EXPECT_EQ(canonical_template("NameSystem.addStoredBlock: x"), "NameSystem.addStoredBlock: x");
  EXPECT_EQ(canonical_template("host.example.com up"), "host.example.com up");
  EXPECT_EQ(canonical_template("v1.2.3 Released"), "v1.2.3 Released");
}

TEST(CanonicalTemplate, IsIdempotent) {
  for (std::string s : {"Caused by: Caused by: a.b.C: <*> <*>", "  x  ", "com.X.y.Z"}) {
    auto once = canonical_template(s);
    EXPECT_EQ(canonical_template(once), once) << s;
  }
}

}  // namespace
}  // namespace logsift
