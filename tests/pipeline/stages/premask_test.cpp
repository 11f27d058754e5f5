// Each default pre-mask pattern, on what it must mask and what it must leave.
#include <gtest/gtest.h>

#include "config/config.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {
namespace {

class PremaskTest : public ::testing::Test {
 protected:
  PremaskTest() : pm_(Config::defaults().premask) {}

  // The template of one line under the default patterns.
  std::string templ(const std::string& line) {
    std::vector<Token> tokens;
    tokenize(line, pm_.find(line), &tokens);
    return render_template(line, tokens);
  }
  // Names of the patterns that matched, in order.
  std::vector<std::string> names(const std::string& line) {
    std::vector<std::string> out;
    for (const auto& s : pm_.find(line)) out.push_back(pm_.pattern_name(s.pattern));
    return out;
  }

  Premasker pm_;
};

TEST_F(PremaskTest, Uuid) {
  EXPECT_EQ(templ("request a231d9e5-c804-4beb-a5cc-ca0d10868d22 failed"), "request <*> failed");
  EXPECT_EQ(names("id=A231D9E5-C804-4BEB-A5CC-CA0D10868D22"), std::vector<std::string>{"uuid"});
}

TEST_F(PremaskTest, Ipv4WithAndWithoutPort) {
  EXPECT_EQ(templ("from 10.251.73.220:50010 to 192.168.0.1"), "from <*> to <*>");
  EXPECT_EQ(names("src: /10.250.19.102:54106"), std::vector<std::string>{"ipv4"});
}

TEST_F(PremaskTest, Ipv6WithAndWithoutPort) {
  EXPECT_EQ(templ("peer 2001:db8:85a3:0:0:8a2e:370:7334 up"), "peer <*> up");
  EXPECT_EQ(templ("peer [2001:db8::1]:443 up"), "peer <*> up");
  EXPECT_EQ(templ("bind ::1 ok"), "bind <*> ok");
  EXPECT_EQ(names("fe80::1ff:fe23:4567:890a"), std::vector<std::string>{"ipv6"});
}

TEST_F(PremaskTest, Mac) {
  EXPECT_EQ(templ("link 00:1A:2b:3C:4d:5E down"), "link <*> down");
  EXPECT_EQ(names("00:1a:2b:3c:4d:5e"), std::vector<std::string>{"mac"});
}

TEST_F(PremaskTest, HexIdsAndZeroX) {
  EXPECT_EQ(templ("addr 0x7ffde4a1 fault"), "addr <*> fault");
  EXPECT_EQ(templ("commit 9f86d081884c7d65 pushed"), "commit <*> pushed");
  EXPECT_EQ(names("0xDEADBEEF"), std::vector<std::string>{"hex0x"});
  // Letters-only hex-looking words are words, not ids.
  EXPECT_EQ(templ("state deadbeefcafe reached"), "state deadbeefcafe reached");
}

TEST_F(PremaskTest, Numbers) {
  EXPECT_EQ(templ("size 67108864 took 1.5 s"), "size <*> took <*> s");
  EXPECT_EQ(templ("offset -42 and +7"), "offset <*> and <*>");
  // Negative block ids and positive ones give one template.
  EXPECT_EQ(templ("block blk_-6952295868487656571"), templ("block blk_38865049064139660"));
  // Digits inside identifiers are left to the denoiser.
  EXPECT_EQ(templ("user123 on sda1 via ipv6"), "user123 on sda1 via ipv6");
}

TEST_F(PremaskTest, Timestamps) {
  EXPECT_EQ(templ("at 2015-07-29 19:04:12,123 start"), "at <*> start");
  EXPECT_EQ(templ("at 2024-01-02T03:04:05.123456Z start"), "at <*> start");
  EXPECT_EQ(templ("at 2024-01-02T03:04:05+02:00 start"), "at <*> start");
  EXPECT_EQ(templ("[10/Oct/2000:13:55:36 -0700] GET"), "[<*>] GET");
  EXPECT_EQ(templ("Jun  9 06:06:20 combo sshd"), "<*> combo sshd");
  EXPECT_EQ(templ("day 2024/03/01 at 17:21:03.5"), "day <*> at <*>");
  EXPECT_EQ(names("2015-07-29 19:04:12,123"), std::vector<std::string>{"timestamp_iso"});
}

TEST_F(PremaskTest, Urls) {
  EXPECT_EQ(templ("GET https://api.example.com/v1/items?id=7&x=y done"), "GET <*> done");
  EXPECT_EQ(names("see http://h:8080/x"), std::vector<std::string>{"url"});
}

TEST_F(PremaskTest, Emails) {
  EXPECT_EQ(templ("mail to jane.doe+ops@example.co.uk bounced"), "mail to <*> bounced");
  EXPECT_EQ(names("bob@corp.example"), std::vector<std::string>{"email"});
}

TEST_F(PremaskTest, Paths) {
  EXPECT_EQ(templ("open /var/log/app/server.log failed"), "open <*> failed");
  EXPECT_EQ(templ("read C:\\Users\\me\\a.txt"), "read <*>");
  EXPECT_EQ(names("/usr/lib/x86_64-linux-gnu"), std::vector<std::string>{"path"});
  // A lone "/" or a one-segment word is not a path.
  EXPECT_EQ(templ("ratio a/b"), "ratio a/b");
}

TEST_F(PremaskTest, EarlierPatternWinsOverlaps) {
  // The number inside a UUID or an IP is not masked separately.
  auto spans = pm_.find("x 10.0.0.1:80 y");
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].begin, 2u);
  EXPECT_EQ(spans[0].end, 13u);
}

TEST_F(PremaskTest, AdversarialLineIsLinear) {
  // A long alnum run that every pattern rejects at the boundary must not be
  // rescanned from every offset (this would take minutes if quadratic).
  std::string line = "z" + std::string(60000, '1') + "z";
  EXPECT_TRUE(pm_.find(line).empty());
}

TEST(PremaskConfig, BadPatternNamesTheEntry) {
  std::vector<PremaskPattern> bad{{"ok", "[0-9]+"}, {"broken", "([a-z"}};
  try {
    Premasker pm(bad);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.key, "premask[1].regex");
  }
}

}  // namespace
}  // namespace logsift

namespace logsift {
namespace {

TEST_F(PremaskTest, MacAndIpv6WinOverTimeOfDay) {
  // "50:15:36" inside a MAC looks like a time; the MAC must win.
  EXPECT_EQ(templ("wlan 5c:50:15:36:bc:03 joined"), "wlan <*> joined");
  EXPECT_EQ(names("5c:50:15:36:bc:03"), std::vector<std::string>{"mac"});
}

TEST_F(PremaskTest, DashedTimestamp) {
  EXPECT_EQ(templ("RAS KERNEL 2005-06-03-15.42.50.675872 R02"), "RAS KERNEL <*> R02");
  EXPECT_EQ(names("2005-06-03-15.42.50.675872"), std::vector<std::string>{"timestamp_dashed"});
}

}  // namespace
}  // namespace logsift
