// Authentication against a real server: admin and ingest tokens, rotation,
// public routes, 401 replies with a JSON reason, the loopback-only rule.
#include <string>

#include "harness.h"

namespace logsift_it {
namespace {

const std::string kAdminA = "admin-token-a-1f2e3d";
const std::string kAdminB = "admin-token-b-9c8b7a";  // a second one: rotation
const std::string kIngest = "ingest-token-5a6b7c";

KeyValues bearer(const std::string& t) { return {{"Authorization", "Bearer " + t}}; }

class Auth : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ServerOptions opts;
    opts.args = {"--admin-token", kAdminA + "," + kAdminB, "--ingest-token", kIngest};
    server_ = new ServerProcess(opts);
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
  HttpResponse call(const std::string& method, const std::string& target, const std::string& body = "",
                    const KeyValues& headers = {}) {
    return http_request(port(), method, target, body, "application/json", headers);
  }
  static ServerProcess* server_;
  static bool ok_;
  static std::string error_;
};
ServerProcess* Auth::server_ = nullptr;
bool Auth::ok_ = false;
std::string Auth::error_;

TEST_F(Auth, AdminRoutesNeedTheAdminToken) {
  const std::string sub = R"({"url": "http://127.0.0.1:9/hook", "rules": ["new_cluster"]})";
  for (const auto& [method, target, body] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"POST", "/subscriptions", sub},
           {"GET", "/subscriptions", ""},
           {"GET", "/alerts", ""},
           {"POST", "/alerts/alr_x/retry", ""},
           {"GET", "/clusters", ""},
           {"GET", "/clusters/0123456789abcdef", ""},
           {"GET", "/no/such/route", ""}}) {
    auto none = call(method, target, body);
    EXPECT_TRUE(is_json_error(none, 401)) << method << " " << target << ": " << none.describe();
    EXPECT_EQ(none.header("www-authenticate"), "Bearer realm=\"logsift\"");
    auto wrong = call(method, target, body, bearer("not-the-token"));
    EXPECT_TRUE(is_json_error(wrong, 401)) << method << " " << target << ": " << wrong.describe();
    auto ingest = call(method, target, body, bearer(kIngest));  // the ingest token is not an admin token
    EXPECT_TRUE(is_json_error(ingest, 401)) << method << " " << target << ": " << ingest.describe();
  }
  // Both admin tokens work (rotation); the secret is never echoed back.
  auto created = call("POST", "/subscriptions", R"({"url": "http://127.0.0.1:9/hook", "rules": ["new_cluster"],
                       "secret": "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ="})", bearer(kAdminA));
  ASSERT_EQ(created.status, 201) << created.describe();
  EXPECT_EQ(created.body.find("whsec_"), std::string::npos) << created.body;
  auto listed = call("GET", "/subscriptions", "", bearer(kAdminB));
  ASSERT_EQ(listed.status, 200) << listed.describe();
  EXPECT_EQ(listed.body.find("whsec_"), std::string::npos) << listed.body;
  EXPECT_EQ(call("GET", "/clusters", "", bearer(kAdminB)).status, 200);
}

TEST_F(Auth, IngestRoutesNeedTheIngestOrAdminToken) {
  const std::string line = R"({"text": "auth test line from host 10.1.2.3"})";
  EXPECT_TRUE(is_json_error(call("POST", "/inferences", line), 401));
  EXPECT_TRUE(is_json_error(call("POST", "/inferences", line, bearer("Bearer-wrong")), 401));
  EXPECT_EQ(call("POST", "/inferences", line, bearer(kIngest)).status, 200);
  EXPECT_EQ(call("POST", "/inferences", line, bearer(kAdminA)).status, 200);
}

TEST_F(Auth, PublicRoutesNeedNoToken) {
  for (const char* target : {"/healthz", "/readyz", "/metrics", "/info"})
    EXPECT_EQ(call("GET", target).status, 200) << target;
  EXPECT_TRUE(is_json_error(call("GET", "/subscriptions"), 401));
  auto m = call("GET", "/metrics");
  EXPECT_GT(metric_sum(m.body, "logsift_rejected_total"), 0) << "401s are counted";
}

TEST(AuthExposure, NonLoopbackWithoutAdminTokenRefusesToStart) {
  auto r = run_logsift({"serve", "--http-host", "0.0.0.0", "--http-port", "0", "--tcp-port", "0", "--syslog-port", "0", "--data-dir",
                        "/tmp/logsift-auth-never-created"},
                       "", {}, Millis(20000));
  EXPECT_EQ(r.exit.code, 2) << r.describe();
  EXPECT_NE(r.err.find("without admin_token"), std::string::npos) << r.describe();
  EXPECT_NE(r.err.find("LOGSIFT_ADMIN_TOKEN"), std::string::npos) << r.describe();
}

TEST(AuthExposure, ConfigNeverPrintsTokens) {
  auto r = run_logsift({"config", "--admin-token", "very-secret-value"});
  ASSERT_EQ(r.exit.code, 0) << r.describe();
  EXPECT_EQ(r.out.find("very-secret-value"), std::string::npos);
  EXPECT_NE(r.out.find("\"admin_token\": \"<set>\""), std::string::npos) << r.out;
}

}  // namespace
}  // namespace logsift_it
