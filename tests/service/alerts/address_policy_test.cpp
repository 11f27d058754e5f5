#include "service/alerts/address_policy.h"

#include <gtest/gtest.h>

namespace logsift::webhook {
namespace {

namespace ip = boost::asio::ip;

bool allowed(const AddressPolicy& p, const char* addr, uint16_t port = 443) {
  return p.allowed(ip::make_address(addr), port);
}

TEST(AddressPolicy, RefusesSpecialPurposeAddresses) {
  const AddressPolicy p;
  for (const char* a : {"127.0.0.1", "127.255.0.9", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1",
                        "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "198.18.0.1",
                        "::1", "::", "fe80::1", "fd00::1", "fc00::5", "ff02::1",
                        // IPv6 forms that carry a refused IPv4 address.
                        "::ffff:169.254.169.254", "::ffff:127.0.0.1", "::127.0.0.1", "64:ff9b::a9fe:a9fe",
                        "2002:7f00:1::1", "2001:0:4136:e378::1"})
    EXPECT_FALSE(allowed(p, a)) << a;
}

TEST(AddressPolicy, AllowsPublicAddresses) {
  const AddressPolicy p;
  for (const char* a : {"8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8",
                        "64:ff9b::808:808", "2002:808:808::1"})
    EXPECT_TRUE(allowed(p, a)) << a;
}

TEST(AddressPolicy, AllowListOpensRangesButNeverTheOwnPorts) {
  AddressPolicy p(parse_cidr_list("127.0.0.0/8, ::1/128,10.20.0.0/16"));
  p.set_own_ports({8080, 9090});
  EXPECT_TRUE(allowed(p, "127.0.0.1", 5000));
  EXPECT_TRUE(allowed(p, "::ffff:127.0.0.1", 5000));  // judged as the IPv4 address it carries
  EXPECT_TRUE(allowed(p, "::1", 5000));
  EXPECT_TRUE(allowed(p, "10.20.3.4"));
  EXPECT_FALSE(allowed(p, "10.21.0.1"));
  EXPECT_FALSE(allowed(p, "169.254.169.254"));
  EXPECT_FALSE(allowed(p, "127.0.0.1", 8080));
  EXPECT_FALSE(allowed(p, "127.0.0.2", 9090));
  EXPECT_FALSE(allowed(p, "::1", 8080));
  EXPECT_FALSE(allowed(p, "0.0.0.0", 8080));
  // The own port elsewhere is someone else's service.
  EXPECT_TRUE(allowed(p, "8.8.8.8", 8080));
}

TEST(AddressPolicy, HostLiteralsInEveryFormTheResolverAccepts) {
  for (const char* h : {"0x7f000001", "2130706433", "127.1", "0177.0.0.1", "127.0.0.1"}) {
    auto a = host_literal(h);
    ASSERT_TRUE(a) << h;
    EXPECT_EQ(a->to_string(), "127.0.0.1") << h;
  }
  EXPECT_EQ(host_literal("::ffff:169.254.169.254")->to_string(), "::ffff:169.254.169.254");
  EXPECT_FALSE(host_literal("example.com"));
  EXPECT_FALSE(host_literal("hooks.internal"));
}

TEST(AddressPolicy, CheckHostAtCreation) {
  AddressPolicy p;
  p.set_own_ports({8080});
  EXPECT_NE(p.check_host("169.254.169.254", 80), "");
  EXPECT_NE(p.check_host("0x7f000001", 80), "");
  EXPECT_NE(p.check_host("localhost", 80), "");
  EXPECT_NE(p.check_host("LocalHost", 80), "");
  EXPECT_NE(p.check_host("api.localhost", 80), "");
  EXPECT_NE(p.check_host("10.0.0.1", 80), "");
  EXPECT_NE(p.check_host("::ffff:169.254.169.254", 80), "");
  EXPECT_EQ(p.check_host("hooks.example.com", 443), "");  // judged at connect time
  EXPECT_EQ(p.check_host("8.8.8.8", 443), "");
  const std::string why = p.check_host("10.0.0.1", 80);
  EXPECT_NE(why.find("webhook_allow_cidrs"), std::string::npos) << why;

  AddressPolicy loop(parse_cidr_list("127.0.0.0/8"));
  loop.set_own_ports({8080});
  EXPECT_EQ(loop.check_host("localhost", 5000), "");
  EXPECT_NE(loop.check_host("localhost", 8080), "");
}

TEST(AddressPolicy, CidrParsing) {
  auto c = parse_cidr("10.1.2.3/8");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->network.to_string(), "10.0.0.0");
  EXPECT_TRUE(c->contains(ip::make_address("10.200.0.1")));
  EXPECT_FALSE(c->contains(ip::make_address("11.0.0.1")));
  EXPECT_TRUE(parse_cidr("::1"));
  EXPECT_EQ(parse_cidr("fd00::/8")->prefix, 8);
  EXPECT_FALSE(parse_cidr("10.0.0.0/33"));
  EXPECT_FALSE(parse_cidr("10.0.0.0/"));
  EXPECT_FALSE(parse_cidr("example.com/8"));
  EXPECT_THROW(parse_cidr_list("10.0.0.0/8,nope"), std::invalid_argument);
  EXPECT_TRUE(parse_cidr_list(" , ").empty());
}

}  // namespace
}  // namespace logsift::webhook
