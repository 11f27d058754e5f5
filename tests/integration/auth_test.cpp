// Authentication against a real server: admin, ingest and read tokens,
// rotation, names, public routes, 401 (no or an unknown token) and 403 (a
// token without the scope) replies with a JSON reason, the loopback-only rule.
#include <string>

#include "harness.h"

namespace logsift_it {
namespace {

const std::string kAdminA = "admin-token-a-1f2e3d";
const std::string kAdminB = "admin-token-b-9c8b7a";  // a second one: rotation
const std::string kIngest = "ingest-token-5a6b7c";
const std::string kRead = "read-token-77aa88";  // named "oncall" below

KeyValues bearer(const std::string& t) { return {{"Authorization", "Bearer " + t}}; }

class Auth : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ServerOptions opts;
    opts.args = {"--admin-token", "alice:" + kAdminA + "," + kAdminB, "--ingest-token", kIngest, "--read-token",
                 "oncall:" + kRead};
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
    EXPECT_TRUE(is_json_error(ingest, 403)) << method << " " << target << ": " << ingest.describe();
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

// The read token lists clusters, details, series, suggestions and the
// curation log, and changes nothing: every write, the subscriptions (webhook
// URLs) and the outbox answer 403 naming the token (never the token itself).
TEST_F(Auth, AReadTokenReadsAndChangesNothing) {
  for (const char* target : {"/clusters", "/clusters/0123456789abcdef", "/clusters/suggestions", "/curation",
                             "/clusters/0123456789abcdef/series"}) {
    auto r = call("GET", target, "", bearer(kRead));
    EXPECT_TRUE(r.status == 200 || r.status == 404) << target << ": " << r.describe();
  }
  EXPECT_EQ(call("GET", "/clusters", "", bearer(kRead)).status, 200);
  for (const auto& [method, target, body] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"POST", "/clusters/0123456789abcdef/merge", R"({"into": "0123456789abcdee"})"},
           {"POST", "/clusters/0123456789abcdef/name", R"({"name": "x"})"},
           {"POST", "/curation/1/undo", ""},
           {"GET", "/subscriptions", ""},
           {"POST", "/subscriptions", R"({"url": "http://127.0.0.1:9/hook"})"},
           {"GET", "/alerts", ""},
           {"POST", "/inferences", R"({"text": "a line"})"}}) {
    auto r = call(method, target, body, bearer(kRead));
    EXPECT_TRUE(is_json_error(r, 403)) << method << " " << target << ": " << r.describe();
    EXPECT_NE(r.body.find("oncall"), std::string::npos) << r.body;
    EXPECT_EQ(r.body.find(kRead), std::string::npos) << "the token itself must never be echoed";
  }
  const std::string m = call("GET", "/metrics").body;
  const size_t at = m.find("logsift_rejected_total{reason=\"forbidden\"} ");
  ASSERT_NE(at, std::string::npos) << "403s are counted under their own reason";
  EXPECT_GT(std::stod(m.substr(m.find(' ', at) + 1)), 0);
}

// A curation action records the name of the admin token that took it.
TEST_F(Auth, ACurationActionRecordsTheTokensName) {
  const auto line = call("POST", "/inferences", R"({"text": "Worker 7 restarted after 3 failures"})", bearer(kIngest));
  ASSERT_EQ(line.status, 200) << line.describe();
  const std::string id = line.json_body().value("cluster_id", "");
  auto named = call("POST", "/clusters/" + id + "/name", R"({"name": "worker restarts"})", bearer(kAdminA));
  ASSERT_EQ(named.status, 201) << named.describe();
  EXPECT_EQ(named.json_body().value("by", ""), "alice");
  auto again = call("POST", "/clusters/" + id + "/name", R"({"name": "worker restarts 2"})", bearer(kAdminB));
  ASSERT_EQ(again.status, 201) << again.describe();
  EXPECT_EQ(again.json_body().value("by", ""), "admin-2") << "an unnamed token: its setting and position";
  const std::string log = call("GET", "/curation", "", bearer(kRead)).body;
  EXPECT_NE(log.find("\"by\":\"alice\""), std::string::npos) << log;
  EXPECT_EQ(log.find(kAdminA), std::string::npos);
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
