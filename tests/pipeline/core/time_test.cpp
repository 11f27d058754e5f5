#include "pipeline/core/time.h"

#include <gtest/gtest.h>

namespace logsift {
namespace {

TEST(Durations, UnitsAndBounds) {
  EXPECT_EQ(parse_duration_ms("250ms"), 250);
  EXPECT_EQ(parse_duration_ms("5m"), 300000);
  EXPECT_EQ(parse_duration_ms("2d"), 2 * 86400000LL);
  EXPECT_EQ(parse_duration_ms("365000d"), 365000LL * 86400000LL);  // 1000 years: the bound
  // These wrapped around 64 bits before (1e12 days in ms does not fit).
  EXPECT_FALSE(parse_duration_ms("999999999999d"));
  EXPECT_FALSE(parse_duration_ms("999999999999h"));
  EXPECT_FALSE(parse_duration_ms("365001d"));
  EXPECT_FALSE(parse_duration_ms("9999999999999"));  // 13 digits
  EXPECT_FALSE(parse_duration_ms("-5m"));
  EXPECT_FALSE(parse_duration_ms(""));
}

TEST(HttpDate, ThreeForms) {
  auto a = parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT");
  ASSERT_TRUE(a);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), a);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), a);
  EXPECT_FALSE(parse_http_date("Sun, 06 Nov 1994 25:49:37 GMT"));
  EXPECT_FALSE(parse_http_date("yesterday"));
}

// Years system_clock cannot hold in nanoseconds are clamped, not overflowed
// (UBSan: signed integer overflow, found by fuzz_webhook with "6015").
TEST(HttpDate, YearsOutsideTheClockRangeAreClamped) {
  using TimePoint = std::chrono::system_clock::time_point;
  EXPECT_EQ(parse_http_date("Wed, 21 Oct 6015 07:28:00 GMT"), TimePoint::max());
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 9999"), TimePoint::max());
  EXPECT_EQ(parse_http_date("Mon, 01 Jan 0001 00:00:00 GMT"), TimePoint::min());
  auto late = parse_http_date("Thu, 10 Apr 2262 00:00:00 GMT");  // a day inside
  ASSERT_TRUE(late);
  EXPECT_LT(*late, TimePoint::max());
}

TEST(Time, Iso8601) { EXPECT_EQ(format_time_ms(784111777123), "1994-11-06T08:49:37.123Z"); }

}  // namespace
}  // namespace logsift
