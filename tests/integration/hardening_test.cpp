// Findings of the hardening review (issue 12), each against a real server:
// every one of these failed before its fix.
#include <string>

#include "harness.h"

namespace logsift_it {
namespace {

class Hardening : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServerProcess(ServerOptions{});
    auto r = server_->start_ready();
    ok_ = static_cast<bool>(r);
    error_ = r.message();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(ok_) << error_; }
  int port() const { return server_->http_port(); }
  static ServerProcess* server_;
  static bool ok_;
  static std::string error_;
};
ServerProcess* Hardening::server_ = nullptr;
bool Hardening::ok_ = false;
std::string Hardening::error_;

// "/clusters/series" is 16 bytes: the id extraction removed 7 from a 6-byte
// view (undefined behaviour). Now: no such cluster id, a JSON 4xx.
TEST_F(Hardening, ClustersSeriesWithoutAnIdIsAClearError) {
  for (const char* target : {"/clusters/series", "/clusters//series", "/clusters/x/series"}) {
    auto r = http_get(port(), target);
    EXPECT_TRUE(is_json_error(r)) << target << ": " << r.describe();
  }
  EXPECT_TRUE(server_healthy(port()));
}

// A request without Content-Type was parsed as JSON; now it is refused.
TEST_F(Hardening, MissingContentTypeIs415) {
  auto r = http_request(port(), "POST", "/inferences", R"({"text": "no content type"})", "");
  EXPECT_TRUE(is_json_error(r, 415)) << r.describe();
  EXPECT_NE(r.json_body()["error"].get<std::string>().find("Content-Type"), std::string::npos);
}

// "\u0000" in a text reached templates, examples and alerts; now a 400, and
// a raw NUL on TCP is an error line.
TEST_F(Hardening, NulInTextIsRejected) {
  auto r = http_request(port(), "POST", "/inferences", R"({"text": "before\u0000after"})", "application/json");
  EXPECT_TRUE(is_json_error(r, 400)) << r.describe();
  TcpLineClient c;
  ASSERT_TRUE(c.connect(server_->tcp_port()));
  ASSERT_TRUE(c.send_all(std::string("raw\0nul line\n", 13)));
  auto reply = c.read_line();
  ASSERT_TRUE(reply);
  EXPECT_TRUE(is_error_object(json::parse(*reply, nullptr, false))) << *reply;
  ASSERT_TRUE(c.send_all("a fine line after it\n"));
  auto next = c.read_line();
  ASSERT_TRUE(next);
  EXPECT_TRUE(is_inference_result(json::parse(*next, nullptr, false))) << *next;
}

// A subscription-level cooldown was ignored: the rule defaults won.
TEST_F(Hardening, SubscriptionCooldownAppliesToItsRules) {
  auto r = http_request(port(), "POST", "/subscriptions",
                        R"({"url": "http://127.0.0.1:9/h", "cooldown": "10m",
                            "rules": ["threshold", {"kind": "spike", "cooldown": "2m"}, "new_cluster"]})",
                        "application/json");
  ASSERT_EQ(r.status, 201) << r.describe();
  json rules = r.json_body()["rules"];
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0]["cooldown"], 600000) << rules.dump();  // the subscription's
  EXPECT_EQ(rules[1]["cooldown"], 120000) << rules.dump();  // the rule's own wins
  EXPECT_FALSE(rules[2].contains("cooldown")) << rules.dump();
}

// Durations that overflow 64 bits were accepted (and wrapped).
TEST_F(Hardening, HugeDurationsAreRejected) {
  auto r = http_request(port(), "POST", "/subscriptions",
                        R"({"url": "http://127.0.0.1:9/h", "rules": [{"kind": "threshold", "window": "999999999999d"}]})",
                        "application/json");
  EXPECT_TRUE(is_json_error(r, 400)) << r.describe();
  auto s = http_get(port(), "/clusters/0123456789abcdef/series?window=999999999999d");
  EXPECT_TRUE(is_json_error(s, 400)) << s.describe();
}

// Caps: rules per subscription (10,000 rules used to be accepted and then
// checked against every line) and subscriptions.
TEST(HardeningCaps, RulesAndSubscriptionsAreCapped) {
  ServerOptions opts;
  opts.args = {"--max-subscriptions", "2", "--max-rules-per-subscription", "4"};
  ServerProcess server(opts);
  ASSERT_TRUE(server.start_ready());
  json many = {{"url", "http://127.0.0.1:9/h"}, {"rules", json::array()}};
  for (int i = 0; i < 10000; ++i) many["rules"].push_back("new_cluster");
  auto r = http_request(server.http_port(), "POST", "/subscriptions", many.dump(), "application/json");
  ASSERT_TRUE(is_json_error(r, 400)) << r.describe().substr(0, 300);
  EXPECT_EQ(r.json_body()["field"], "rules");
  const std::string ok = R"({"url": "http://127.0.0.1:9/h", "rules": ["new_cluster", "threshold"]})";
  EXPECT_EQ(http_request(server.http_port(), "POST", "/subscriptions", ok, "application/json").status, 201);
  EXPECT_EQ(http_request(server.http_port(), "POST", "/subscriptions", ok, "application/json").status, 201);
  auto third = http_request(server.http_port(), "POST", "/subscriptions", ok, "application/json");
  EXPECT_TRUE(is_json_error(third, 409)) << third.describe();
  EXPECT_NE(third.body.find("max_subscriptions"), std::string::npos);
}

// Two servers on one data directory used to start and write the same files.
TEST(HardeningDataDir, SecondServerOnTheSameDirectoryRefusesToStart) {
  TempDir dir;
  ServerOptions opts;
  opts.data_dir = dir.path();
  ServerProcess first(opts);
  ASSERT_TRUE(first.start_ready());
  auto second = run_logsift({"serve", "--http-port", "0", "--tcp-port", "0", "--syslog-port", "0", "--data-dir", dir.path()}, "", {},
                            Millis(30000));
  EXPECT_NE(second.exit.code, 0) << second.describe();
  EXPECT_NE(second.err.find("is in use by another logsift process (pid " + std::to_string(first.pid()) + ")"),
            std::string::npos)
      << second.describe();
  EXPECT_TRUE(server_healthy(first.http_port()));
  ProcessExit e = first.stop();
  EXPECT_TRUE(e.clean()) << e.describe();
  // Released on exit: a new server starts on it.
  ServerProcess third(opts);
  EXPECT_TRUE(third.start_ready());
}

}  // namespace
}  // namespace logsift_it
