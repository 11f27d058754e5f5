// The TCP line reader: lines across reads, the length bound, end of stream.
#include "pipeline/core/line_framer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace logsift {
namespace {

struct Seen {
  std::vector<std::string> lines;
  std::vector<bool> in_chunk;
  int too_long = 0;
};

size_t feed(LineFramer& f, std::string_view chunk, Seen& seen) {
  return f.feed(
      chunk,
      [&](std::string_view line, bool in_chunk) {
        seen.lines.emplace_back(line);
        seen.in_chunk.push_back(in_chunk);
      },
      [&] { ++seen.too_long; });
}

TEST(LineFramer, LinesInOneReadPointIntoTheChunk) {
  LineFramer f(100);
  Seen seen;
  const std::string chunk = "a b\nc d\r\n\n";
  EXPECT_EQ(feed(f, chunk, seen), 3u);
  EXPECT_EQ(seen.lines, (std::vector<std::string>{"a b", "c d\r", ""}));
  EXPECT_EQ(seen.in_chunk, (std::vector<bool>{true, true, true}));
  EXPECT_FALSE(f.finish());
}

TEST(LineFramer, LineCutAcrossReadsIsJoinedOnce) {
  LineFramer f(100);
  Seen seen;
  EXPECT_EQ(feed(f, "first li", seen), 0u);
  EXPECT_EQ(feed(f, "ne con", seen), 0u);
  EXPECT_EQ(feed(f, "tinues\nsecond\nthi", seen), 2u);
  EXPECT_EQ(seen.lines, (std::vector<std::string>{"first line continues", "second"}));
  EXPECT_EQ(seen.in_chunk, (std::vector<bool>{false, true}));
  auto last = f.finish();
  ASSERT_TRUE(last);
  EXPECT_EQ(*last, "thi");
  EXPECT_FALSE(f.finish());  // taken
}

TEST(LineFramer, OverLongLineIsReportedOnceAndSkippedAcrossReads) {
  LineFramer f(8);
  Seen seen;
  EXPECT_EQ(feed(f, "12345678\r\n", seen), 1u);  // 8 bytes + '\r' fits
  EXPECT_EQ(feed(f, "123456789X", seen), 0u);    // over the bound, line not finished
  EXPECT_EQ(seen.too_long, 1);
  EXPECT_EQ(feed(f, "still the same long line", seen), 0u);
  EXPECT_EQ(feed(f, " end\nok\n", seen), 1u);
  EXPECT_EQ(seen.too_long, 1);
  EXPECT_EQ(seen.lines, (std::vector<std::string>{"12345678\r", "ok"}));
  // A partial line that grows past the bound over several reads.
  EXPECT_EQ(feed(f, "abcde", seen), 0u);
  EXPECT_EQ(feed(f, "fghij", seen), 0u);
  EXPECT_EQ(seen.too_long, 2);
  EXPECT_FALSE(f.finish());  // the cut-off rest of a long line is not a line
  EXPECT_EQ(feed(f, "\nnext\n", seen), 1u);
  EXPECT_EQ(seen.lines.back(), "next");
}

}  // namespace
}  // namespace logsift
