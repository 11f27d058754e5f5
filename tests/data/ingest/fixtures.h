// Reading the captured client bytes in tests/data/ingest (README.md there),
// shared by the parser unit tests.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace logsift::fixtures {

// tests/data/ingest/<dir>/<name>, whole; a missing file fails the test.
inline std::string ingest_fixture(const std::string& dir, const std::string& name) {
  std::ifstream in(std::string(LOGSIFT_SOURCE_DIR) + "/tests/data/ingest/" + dir + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << dir << "/" << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The Content-Type value of a captured request head ("" if none).
inline std::string content_type_of(const std::string& head) {
  auto p = head.find("Content-Type: ");
  if (p == std::string::npos) return "";
  p += 14;
  return head.substr(p, head.find("\r\n", p) - p);
}

}  // namespace logsift::fixtures
