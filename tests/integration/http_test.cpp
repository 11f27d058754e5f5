// HTTP API against a real `logsift serve` process.
#include <algorithm>
#include <atomic>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

namespace logsift_it {
namespace {

constexpr int kMaxBodyBytes = 65536;
constexpr int kMaxLineBytes = 2048;
constexpr int kMaxLinesPerRequest = 50;

// The examples of cluster `id` (GET /clusters/ID): returns them, after
// checking that every one has these service and level labels.
json examples_labelled(int port, const json& id, const std::string& service, const std::string& level) {
  json cl = http_get(port, "/clusters/" + id.get<std::string>()).json_body();
  EXPECT_TRUE(cl.contains("examples") && cl["examples"].is_array() && !cl["examples"].empty()) << cl;
  if (!cl.contains("examples") || !cl["examples"].is_array()) return json::array();
  for (const auto& ex : cl["examples"]) {
    EXPECT_EQ(ex["labels"].value("service", ""), service) << ex;
    EXPECT_EQ(ex["labels"].value("level", ""), level) << ex;
  }
  return cl["examples"];
}

// One server for the whole suite, with small limits so that the limit cases
// are cheap. Tests that need exact counts use texts no other test sends.
class HttpApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ServerOptions opts;
    opts.args = {"--max-body-bytes",      std::to_string(kMaxBodyBytes),
                 "--max-line-bytes",      std::to_string(kMaxLineBytes),
                 "--max-lines-per-request", std::to_string(kMaxLinesPerRequest),
                 "--memory-trim-interval-ms", "200"};
    server_ = new ServerProcess(opts);
    auto r = server_->start_ready();
    start_ok_ = static_cast<bool>(r);
    start_error_ = r.message();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(start_ok_) << start_error_;
    ASSERT_TRUE(server_->running()) << "server died earlier\n" << server_->log_text();
    port_ = server_->http_port();
  }
  void TearDown() override {
    if (HasFailure() && server_) {
      std::string log = server_->log_text();
      if (log.size() > 3000) log = log.substr(log.size() - 3000);
      std::cerr << "--- server log tail ---\n" << log << "\n";
    }
  }

  // Sends a request that must be rejected with `status` (0: any 4xx) and a
  // JSON error body; the server must stay healthy, and if `counted` the
  // logsift_rejected_total family must increase.
  void expect_rejected(const std::string& method, const std::string& target,
                       const std::string& body, const std::string& content_type,
                       std::vector<int> statuses, bool counted) {
    std::optional<double> before;
    if (counted) {
      before = fetch_metric(port_, "logsift_rejected_total");
      ASSERT_TRUE(before.has_value()) << "GET /metrics failed";
    }
    HttpResponse r = http_request(port_, method, target, body, content_type);
    bool status_ok = std::find(statuses.begin(), statuses.end(), r.status) != statuses.end();
    std::ostringstream want;
    for (int s : statuses) want << s << " ";
    EXPECT_TRUE(status_ok) << "expected one of { " << want.str() << "}, got " << r.describe();
    EXPECT_TRUE(is_json_error(r)) << method << " " << target;
    EXPECT_TRUE(server_healthy(port_));
    if (counted) {
      bool found = false;
      auto after = fetch_metric(port_, "logsift_rejected_total", &found);
      ASSERT_TRUE(after.has_value());
      EXPECT_TRUE(found) << "no logsift_rejected_total samples in /metrics";
      EXPECT_GT(*after, *before) << "logsift_rejected_total did not increase after " << method
                                 << " " << target << " with body "
                                 << body.substr(0, 200);
    }
  }
  void expect_bad_json_body(const std::string& body, std::vector<int> statuses = {400}) {
    SCOPED_TRACE("body: " + body.substr(0, 200));
    expect_rejected("POST", "/inferences", body, "application/json", std::move(statuses), true);
  }

  static json infer_ok(int port, const std::string& text, const json& labels = nullptr) {
    HttpResponse r = post_infer(port, text, labels);
    EXPECT_EQ(r.status, 200) << r.describe();
    json j = r.json_body();
    EXPECT_TRUE(is_inference_result(j)) << "text: " << text;
    return j;
  }

  static ServerProcess* server_;
  static bool start_ok_;
  static std::string start_error_;
  int port_ = 0;
};

ServerProcess* HttpApi::server_ = nullptr;
bool HttpApi::start_ok_ = false;
std::string HttpApi::start_error_;

TEST_F(HttpApi, HealthzAndReadyz) {
  auto h = http_get(port_, "/healthz");
  EXPECT_EQ(h.status, 200) << h.describe();
  EXPECT_EQ(h.json_body().value("status", ""), "ok") << h.describe();
  auto r = http_get(port_, "/readyz");
  EXPECT_EQ(r.status, 200) << r.describe();
  EXPECT_EQ(r.json_body().value("status", ""), "ready") << r.describe();
}

TEST_F(HttpApi, SingleInferenceShapeAndNewFlag) {
  const std::string text = "Replica set quorum-http-single elected a new primary after 17 votes";
  HttpResponse r = post_infer(port_, text);
  ASSERT_EQ(r.status, 200) << r.describe();
  EXPECT_NE(r.header("content-type").find("application/json"), std::string::npos)
      << r.describe();
  json first = r.json_body();
  ASSERT_TRUE(is_inference_result(first));
  EXPECT_TRUE(first["new"].get<bool>()) << "first sighting of a cluster must be new: " << first;
  EXPECT_FALSE(first["template"].get<std::string>().empty());

  json second = infer_ok(port_, text);
  ASSERT_TRUE(is_inference_result(second));
  EXPECT_FALSE(second["new"].get<bool>()) << "second sighting must not be new: " << second;
  EXPECT_EQ(second["cluster_id"], first["cluster_id"]);
  EXPECT_EQ(second["template_id"], first["template_id"]);
  EXPECT_EQ(second["template"], first["template"]);
}

TEST_F(HttpApi, SimilarLinesShareClusterDifferentEventsDoNot) {
  json a = infer_ok(port_, "Connection from 10.0.0.1 port 22 closed");
  json b = infer_ok(port_, "Connection from 192.168.1.7 port 2222 closed");
  ASSERT_TRUE(is_inference_result(a));
  ASSERT_TRUE(is_inference_result(b));
  EXPECT_EQ(a["template"], b["template"]);
  EXPECT_EQ(a["template_id"], b["template_id"]);
  EXPECT_EQ(a["cluster_id"], b["cluster_id"]);
  const std::string tmpl = a["template"].get<std::string>();
  EXPECT_NE(tmpl.find("<*>"), std::string::npos) << "variables must become <*>: " << tmpl;
  EXPECT_EQ(tmpl.find("10.0.0.1"), std::string::npos) << tmpl;
  EXPECT_NE(tmpl.find("Connection"), std::string::npos) << tmpl;
  // The second line's cluster was already seen.
  EXPECT_FALSE(b["new"].get<bool>()) << b;
  // params: what each <*> stood for, in order (the second line hit the caches).
  EXPECT_EQ(a["params"], json::array({"10.0.0.1", "22"})) << a;
  EXPECT_EQ(b["params"], json::array({"192.168.1.7", "2222"})) << b;

  json u = infer_ok(port_, "User alice logged in");
  json d = infer_ok(port_, "Disk /dev/sda1 is full");
  ASSERT_TRUE(is_inference_result(u));
  ASSERT_TRUE(is_inference_result(d));
  EXPECT_NE(u["cluster_id"], d["cluster_id"]);
  EXPECT_NE(u["template_id"], d["template_id"]);
  EXPECT_NE(u["cluster_id"], a["cluster_id"]);
}

TEST_F(HttpApi, BatchResultsInInputOrder) {
  const std::vector<std::string> texts = {
      "User alice logged in",
      "Disk /dev/sda1 is full",
      "Connection from 10.0.0.1 port 22 closed",
      "Starting nightly backup job for database orders",
      "User alice logged in",
  };
  HttpResponse r = post_json(port_, json{{"texts", texts}});
  ASSERT_EQ(r.status, 200) << r.describe();
  json j = r.json_body();
  ASSERT_TRUE(j.is_object() && j.contains("results") && j["results"].is_array()) << r.describe();
  ASSERT_EQ(j["results"].size(), texts.size()) << r.describe();
  for (std::size_t i = 0; i < texts.size(); ++i) {
    SCOPED_TRACE("index " + std::to_string(i) + ": " + texts[i]);
    const json& got = j["results"][i];
    ASSERT_TRUE(is_inference_result(got));
    json single = infer_ok(port_, texts[i]);
    EXPECT_EQ(got["cluster_id"], single["cluster_id"]);
    EXPECT_EQ(got["template_id"], single["template_id"]);
    EXPECT_EQ(got["template"], single["template"]);
  }
  // Same text twice in one batch: same ids.
  EXPECT_EQ(j["results"][0]["cluster_id"], j["results"][4]["cluster_id"]);
  EXPECT_NE(j["results"][0]["cluster_id"], j["results"][1]["cluster_id"]);
}

TEST_F(HttpApi, NdjsonResultsInOrderWithPerLineErrors) {
  const std::vector<std::string> good = {
      "User alice logged in",
      "Disk /dev/sda1 is full",
      "Connection from 10.0.0.1 port 22 closed",
  };
  std::string body;
  body += json{{"text", good[0]}}.dump() + "\n";                              // 0 ok
  body += "this is not json\n";                                               // 1 error
  body += json{{"text", good[1]}, {"labels", {{"service", "disk"}}}}.dump() + "\n";  // 2 ok
  body += "{\"text\": 5}\n";                                                  // 3 error
  body += "{\"nope\": \"x\"}\n";                                              // 4 error
  body += json{{"text", good[2]}}.dump() + "\n";                              // 5 ok
  HttpResponse r = http_request(port_, "POST", "/inferences", body, "application/x-ndjson");
  ASSERT_EQ(r.status, 200) << r.describe();
  EXPECT_NE(r.header("content-type").find("application/x-ndjson"), std::string::npos)
      << r.describe();
  std::vector<json> lines;
  std::istringstream in(r.body);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    lines.push_back(json::parse(line, nullptr, false));
  }
  ASSERT_EQ(lines.size(), 6u) << r.describe();
  const int good_pos[] = {0, 2, 5};
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE("line " + std::to_string(good_pos[k]));
    const json& got = lines[good_pos[k]];
    ASSERT_TRUE(is_inference_result(got));
    json single = infer_ok(port_, good[k]);
    EXPECT_EQ(got["cluster_id"], single["cluster_id"]);
    EXPECT_EQ(got["template_id"], single["template_id"]);
  }
  for (int pos : {1, 3, 4}) {
    EXPECT_TRUE(is_error_object(lines[pos])) << "line " << pos;
  }
}

TEST_F(HttpApi, JsonContentTypeWithCharsetAccepted) {
  HttpResponse r = http_request(port_, "POST", "/inferences",
                                json{{"text", "User alice logged in"}}.dump(),
                                "application/json; charset=utf-8");
  EXPECT_EQ(r.status, 200) << r.describe();
  EXPECT_TRUE(is_inference_result(r.json_body())) << r.describe();
}

TEST_F(HttpApi, ClusterDetailsIncludeExamplesWithLabels) {
  const std::string text = "Payment gateway httpdetail-zulu timed out after 3000 ms";
  const json labels = {{"service", "billing"}, {"level", "error"}, {"host", "web-7"}};
  json res = infer_ok(port_, text, labels);
  ASSERT_TRUE(is_inference_result(res));
  const std::string id = res["cluster_id"];

  HttpResponse r = http_get(port_, "/clusters/" + id);
  ASSERT_EQ(r.status, 200) << r.describe();
  json c = r.json_body();
  ASSERT_TRUE(c.is_object()) << r.describe();
  EXPECT_EQ(c.value("cluster_id", ""), id);
  EXPECT_EQ(c["template"], res["template"]);
  EXPECT_EQ(c["template_id"], res["template_id"]);
  ASSERT_TRUE(c.contains("count") && c["count"].is_number_integer()) << c;
  EXPECT_GE(c["count"].get<long long>(), 1);
  EXPECT_TRUE(c.contains("first_seen") && !c["first_seen"].is_null()) << c;
  EXPECT_TRUE(c.contains("last_seen") && !c["last_seen"].is_null()) << c;
  ASSERT_TRUE(c.contains("examples") && c["examples"].is_array()) << c;
  ASSERT_FALSE(c["examples"].empty()) << c;
  EXPECT_LE(c["examples"].size(), 20u) << "examples must be bounded: " << c;
  bool found = false;
  for (const auto& ex : c["examples"]) {
    if (!ex.is_object() || ex.value("text", "") != text) continue;
    found = true;
    ASSERT_TRUE(ex.contains("labels") && ex["labels"].is_object()) << ex;
    for (const auto& [k, v] : labels.items()) {
      EXPECT_EQ(ex["labels"].value(k, ""), v.get<std::string>()) << "label " << k << " in " << ex;
    }
  }
  EXPECT_TRUE(found) << "the example text we sent is not among the examples: " << c;

  // The count follows further lines of the cluster.
  long long before = c["count"].get<long long>();
  infer_ok(port_, text, labels);
  infer_ok(port_, text);
  json c2 = http_get(port_, "/clusters/" + id).json_body();
  ASSERT_TRUE(c2.is_object() && c2.contains("count")) << c2;
  EXPECT_EQ(c2["count"].get<long long>(), before + 2) << c2;
}

// A line as journalctl, /var/log/syslog or a syslog forwarder writes it is
// clustered on its message: two hosts, two date formats, one id; the tag and
// the host are the example's labels.
TEST_F(HttpApi, SyslogFormattedTextLinesAreClusteredOnTheirMessage) {
  json a = infer_ok(port_, "Nov 26 01:00:00 web-1 sshd[812]: Accepted publickey for syslogtest from 10.0.0.5 port 50122 ssh2");
  json b = infer_ok(port_,
                    "2026-11-26T01:00:07.5+00:00 db-9 sshd[90]: Accepted publickey for syslogtest from 10.0.0.6 port 50123 ssh2");
  json c = infer_ok(port_, "<38>1 2026-11-26T01:00:09Z lb-2 sshd 77 - - Accepted publickey for syslogtest from 10.0.0.7 port 50124 ssh2");
  EXPECT_EQ(a["cluster_id"], b["cluster_id"]) << a << "\n" << b;
  EXPECT_EQ(a["cluster_id"], c["cluster_id"]) << a << "\n" << c;
  const std::string tmpl = a.value("template", "");
  EXPECT_EQ(tmpl.rfind("Accepted publickey for", 0), 0u) << "no header left in the template: " << tmpl;
  json cl = http_get(port_, "/clusters/" + a["cluster_id"].get<std::string>()).json_body();
  ASSERT_TRUE(cl.contains("examples") && cl["examples"].is_array()) << cl;
  std::set<std::string> hosts;
  for (const auto& ex : cl["examples"]) {
    ASSERT_TRUE(ex.contains("labels")) << ex;
    EXPECT_EQ(ex["labels"].value("service", ""), "sshd") << ex;
    hosts.insert(ex["labels"].value("host", ""));
  }
  EXPECT_EQ(hosts, (std::set<std::string>{"web-1", "db-9", "lb-2"})) << cl;
}

// One Spring Boot statement logged from three threads is one id; the level
// and the logger are the example's labels.
TEST_F(HttpApi, JavaLayoutLinesAreClusteredOnTheirMessageWhateverTheThread) {
  const std::string head = "2026-11-26T01:00:0";
  json a = infer_ok(port_, head + "0.123Z  INFO 4242 --- [           main] c.e.orders.JavaLayoutTest                : "
                                  "Order placed for customer 17");
  json b = infer_ok(port_, head + "1.456Z  INFO 4242 --- [nio-8080-exec-3] c.e.orders.JavaLayoutTest                : "
                                  "Order placed for customer 18");
  json c = infer_ok(port_, "2026-11-26 01:00:02,789 INFO  [scheduling-1] c.e.orders.JavaLayoutTest - Order placed for customer 19");
  EXPECT_EQ(a["cluster_id"], b["cluster_id"]) << a << "\n" << b;
  EXPECT_EQ(a["cluster_id"], c["cluster_id"]) << a << "\n" << c;
  EXPECT_EQ(a.value("template", "").rfind("Order placed for customer", 0), 0u) << a;
  examples_labelled(port_, a["cluster_id"], "c.e.orders.JavaLayoutTest", "info");
}

// layouts-v2: one Python statement written through the two layouts of
// Python's logging docs and a "DATE LEVEL name[pid]:" layout gets one id, as
// one nginx error-log statement from two workers and connections does; the
// level and the logger become the examples' labels.
TEST_F(HttpApi, TextLayoutLinesAreClusteredOnTheirMessage) {
  json a = infer_ok(port_, "WARNING:billing.TextLayoutTest:invoice 4411 overdue by 3 days");
  json b = infer_ok(port_, "2026-11-26 01:00:01,123 - billing.TextLayoutTest - WARNING - invoice 4412 overdue by 9 days");
  json c = infer_ok(port_, "2026-11-26 01:00:02,456 WARNING billing.TextLayoutTest[812]: invoice 4413 overdue by 1 days");
  EXPECT_EQ(a["cluster_id"], b["cluster_id"]) << a << "\n" << b;
  EXPECT_EQ(a["cluster_id"], c["cluster_id"]) << a << "\n" << c;
  EXPECT_EQ(a.value("template", "").rfind("invoice", 0), 0u) << a;
  examples_labelled(port_, a["cluster_id"], "billing.TextLayoutTest", "warning");
  json n1 = infer_ok(port_, "2026/11/26 01:00:03 [crit] 1201#1201: *77 SSL_do_handshake() failed while SSL handshaking, "
                            "client: 10.0.0.1, server: 0.0.0.0:443");
  json n2 = infer_ok(port_, "2026/11/26 01:00:04 [crit] 1377#1377: *90312 SSL_do_handshake() failed while SSL handshaking, "
                            "client: 10.0.0.2, server: 0.0.0.0:443");
  EXPECT_EQ(n1["cluster_id"], n2["cluster_id"]) << n1 << "\n" << n2;
  EXPECT_EQ(n1.value("template", "").rfind("SSL_do_handshake()", 0), 0u) << n1;
  EXPECT_NE(n1["cluster_id"], a["cluster_id"]);
}

// layouts-v3: one spdlog statement at two times, one gunicorn statement
// from two workers and one zap console statement with two sets of fields
// each get one id, clustered on the message, with the logger and the level
// as the examples' labels; a Go log line without a level loses its date and
// Lshortfile caller.
TEST_F(HttpApi, LayoutsV3LinesAreClusteredOnTheirMessage) {
  // Two lines of one statement: one id, a template that starts with `msg`,
  // the examples labelled with `service` and `level`. Returns the id.
  auto one_id = [&](const std::string& l1, const std::string& l2, const std::string& msg, const std::string& service,
                    const std::string& level) {
    json a = infer_ok(port_, l1);
    json b = infer_ok(port_, l2);
    EXPECT_EQ(a["cluster_id"], b["cluster_id"]) << a << "\n" << b;
    EXPECT_EQ(a.value("template", "").rfind(msg, 0), 0u) << a;
    if (!service.empty() || !level.empty()) examples_labelled(port_, a["cluster_id"], service, level);
    return a["cluster_id"];
  };
  json spdlog = one_id("[2026-11-26 01:00:00.123] [ledger-v3test] [warning] ledger 4411 out of balance by 3 cents",
                       "[2026-11-26 01:00:01.456] [ledger-v3test] [warning] ledger 97 out of balance by 120 cents",
                       "ledger", "ledger-v3test", "warning");
  one_id("[2026-11-26 01:00:00 +0000] [1201] [CRITICAL] WORKER TIMEOUT for v3test (pid:1201)",
         "[2026-11-26 01:00:05 -0500] [98777] [CRITICAL] WORKER TIMEOUT for v3test (pid:98777)", "WORKER TIMEOUT", "",
         "critical");
  one_id("I, [2026-11-26T01:00:00.123456 #4242]  INFO -- v3test: Completed 200 OK in 12ms",
         "I, [2026-11-26T01:00:03.000001 #977]  INFO -- v3test: Completed 200 OK in 480ms", "Completed", "v3test",
         "info");
  json go = one_id("2026/11/26 01:00:00 main.go:88: v3test snapshot 12 written",
                   "2026/11/26 01:00:09 main.go:88: v3test snapshot 13 written", "v3test snapshot", "", "");
  EXPECT_NE(go, spdlog);
  // zap's console encoder: the caller and the fields (which differ) go; the logger name is a label.
  one_id("2026-11-26T01:00:00.123Z\tWARN\tv3test.http\tserver/handler.go:118\tslow v3test request"
         "\t{\"path\": \"/orders/17\", \"ms\": 1200}",
         "2026-11-26T01:00:07.456Z\tWARN\tv3test.http\tserver/handler.go:118\tslow v3test request"
         "\t{\"path\": \"/users\", \"ms\": 3100, \"retry\": true}",
         "slow v3test request", "v3test.http", "warn");
}

// journald's JSON export, one object per line as `journalctl -o json` writes
// it, posted as the line's text: one statement from two hosts gets one id, clustered on MESSAGE,
// with the identifier, the severity and the host as the examples' labels.
TEST_F(HttpApi, JournaldJsonLinesAreClusteredOnTheirMessage) {
  std::vector<json> out;
  for (int k = 0; k < 2; ++k)
    out.push_back(infer_ok(port_, json{{"__CURSOR", "s=5;i=" + std::to_string(k)},
                                       {"__REALTIME_TIMESTAMP", std::to_string(1700000000000000 + k)},
                                       {"_HOSTNAME", "web-" + std::to_string(k)},
                                       {"PRIORITY", "4"},
                                       {"SYSLOG_IDENTIFIER", "journald-test"},
                                       {"_PID", std::to_string(800 + k)},
                                       {"MESSAGE", "quota of tenant " + std::to_string(40 + k) + " nearly used up"}}
                                      .dump()));
  EXPECT_EQ(out[0]["cluster_id"], out[1]["cluster_id"]) << out[0] << "\n" << out[1];
  EXPECT_EQ(out[0].value("template", "").rfind("quota of tenant", 0), 0u) << out[0];
  for (const auto& ex : examples_labelled(port_, out[0]["cluster_id"], "journald-test", "warning"))
    EXPECT_EQ(ex["labels"].value("host", "").rfind("web-", 0), 0u) << ex;
}

TEST_F(HttpApi, ClusterQueryErrors) {
  // Unknown id: 404; malformed id: 400.
  auto unknown = http_get(port_, "/clusters/0123456789abcdef");
  EXPECT_TRUE(is_json_error(unknown, 404));
  for (const char* bad : {"xyz", "0123", "0123456789abcdef0", "0123456789abcdeg"}) {
    SCOPED_TRACE(bad);
    EXPECT_TRUE(is_json_error(http_get(port_, std::string("/clusters/") + bad), 400));
  }
  // Bad paging parameters: 400.
  for (const char* q : {"/clusters?limit=abc", "/clusters?limit=-1", "/clusters?offset=abc",
                        "/clusters?offset=-3", "/clusters?limit=10&offset=x"}) {
    SCOPED_TRACE(q);
    EXPECT_TRUE(is_json_error(http_get(port_, q), 400));
  }
  EXPECT_TRUE(server_healthy(port_));
}

TEST_F(HttpApi, ClusterListShapeAndOrder) {
  infer_ok(port_, "User alice logged in");
  HttpResponse r = http_get(port_, "/clusters");
  ASSERT_EQ(r.status, 200) << r.describe();
  json j = r.json_body();
  ASSERT_TRUE(j.is_object() && j.contains("clusters") && j["clusters"].is_array()) << r.describe();
  ASSERT_TRUE(j.contains("total") && j["total"].is_number_integer()) << r.describe();
  ASSERT_FALSE(j["clusters"].empty());
  EXPECT_GE(j["total"].get<long long>(), static_cast<long long>(j["clusters"].size()));
  long long prev = -1;
  for (const auto& c : j["clusters"]) {
    ASSERT_TRUE(c.is_object()) << c;
    ASSERT_TRUE(c.contains("cluster_id") && c["cluster_id"].is_string()) << c;
    EXPECT_TRUE(is_hex16(c["cluster_id"])) << c;
    EXPECT_TRUE(c.contains("template_id") && c["template_id"].is_string() &&
                is_hex16(c["template_id"]))
        << c;
    EXPECT_TRUE(c.contains("template") && c["template"].is_string()) << c;
    EXPECT_TRUE(c.contains("first_seen") && c.contains("last_seen")) << c;
    ASSERT_TRUE(c.contains("count") && c["count"].is_number_integer()) << c;
    long long n = c["count"].get<long long>();
    EXPECT_GE(n, 1);
    if (prev >= 0) {
      EXPECT_LE(n, prev) << "clusters must be sorted by count descending: " << j;
    }
    prev = n;
  }
}

// --- bad input: every case must be a 4xx JSON error, counted, server alive ---

TEST_F(HttpApi, MalformedJsonIs400) {
  expect_bad_json_body("{\"text\": \"abc\"");
  expect_bad_json_body("not json at all");
  expect_bad_json_body("{\"text\": \"abc\"} trailing");
  expect_bad_json_body("");
}

TEST_F(HttpApi, WrongTypesAre400) {
  expect_bad_json_body(R"({"text": 5})");
  expect_bad_json_body(R"({"text": null})");
  expect_bad_json_body(R"({"text": {"a": "b"}})");
  expect_bad_json_body(R"({"text": ["a"]})");
  expect_bad_json_body(R"({"texts": "not an array"})");
  expect_bad_json_body(R"({"texts": ["ok line", 5]})");
  expect_bad_json_body(R"(["User alice logged in"])");
  expect_bad_json_body(R"("User alice logged in")");
  // (Scalar label values such as numbers may be coerced to strings; objects
  // and arrays cannot be.)
  expect_bad_json_body(R"({"text": "User alice logged in", "labels": 7})");
  expect_bad_json_body(R"({"text": "User alice logged in", "labels": ["a", "b"]})");
  expect_bad_json_body(R"({"text": "User alice logged in", "labels": {"service": {"a": "b"}}})");
  expect_bad_json_body(R"({"text": "User alice logged in", "labels": {"service": ["a"]}})");
}

TEST_F(HttpApi, MissingTextOrEmptyObjectIs400) {
  expect_bad_json_body("{}");
  expect_bad_json_body(R"({"labels": {"service": "auth"}})");
  expect_bad_json_body(R"({"txt": "User alice logged in"})");
  expect_bad_json_body(R"({"text": "   "})");                     // blank
  expect_bad_json_body(R"({"text": "a b", "texts": ["c d"]})");    // ambiguous
}

TEST_F(HttpApi, InvalidUtf8Is400) {
  expect_bad_json_body(std::string("{\"text\": \"bad \xff\xfe bytes\"}"));
  expect_bad_json_body(std::string("{\"text\": \"overlong \xc0\xaf slash\"}"));
  expect_bad_json_body(std::string("{\"text\": \"truncated \xe2\x82\"}"));
  expect_bad_json_body(R"({"text": "lone surrogate \ud800 here"})");
  expect_bad_json_body(std::string("{\"texts\": [\"fine\", \"bad \xff\"]}"));
}

// The reason counted is the exact one: invalid UTF-8 inside JSON is
// invalid_utf8, not malformed_json; a body nested far past the bound is refused
// as json_too_deep without being parsed (60,000 deep here: the test
// server takes bodies of at most 64 KiB).
TEST_F(HttpApi, RejectionReasonsAreExactAndDeepJsonIsRefusedUnparsed) {
  auto reason = [&](const std::string& name) {
    return metric_sum(http_get(port_, "/metrics").body, "logsift_rejected_total{reason=\"" + name + "\"}");
  };
  const double utf8 = reason("invalid_utf8"), malformed = reason("malformed_json"), deep = reason("json_too_deep");
  HttpResponse bad = http_request(port_, "POST", "/inferences", std::string("{\"text\": \"bad \xff\xfe bytes\"}"),
                                  "application/json");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("not valid UTF-8"), std::string::npos) << bad.body;
  EXPECT_EQ(reason("invalid_utf8"), utf8 + 1);
  EXPECT_EQ(reason("malformed_json"), malformed);
  HttpResponse nested = http_request(port_, "POST", "/inferences", std::string(60000, '['), "application/json");  // under this server's max_body_bytes
  EXPECT_EQ(nested.status, 400);
  EXPECT_NE(nested.body.find("nested deeper than 64"), std::string::npos) << nested.body;
  EXPECT_EQ(reason("json_too_deep"), deep + 1);
  // 64 levels still parse (and are then the wrong shape: 400 for that reason).
  std::string ok_depth = "{\"text\": \"x\", \"labels\": {}, \"deep\": " + std::string(62, '[') + std::string(62, ']') + "}";
  HttpResponse shallow = http_request(port_, "POST", "/inferences", ok_depth, "application/json");
  EXPECT_EQ(shallow.body.find("nested deeper"), std::string::npos) << shallow.body;
  // Brackets inside strings are text, not depth.
  HttpResponse quoted = post_json(port_, {{"text", std::string(200, '[') + " worker started"}});
  EXPECT_EQ(quoted.status, 200) << quoted.describe();
}

TEST_F(HttpApi, BodyOverMaxBodyBytesIs413) {
  // A valid JSON document just over the limit (its text is under
  // max_line_bytes per element, so only the body size is wrong).
  json texts = json::array();
  std::string chunk = long_text(1000);
  std::size_t size = 0;
  while (size <= static_cast<std::size_t>(kMaxBodyBytes) + 1000) {
    texts.push_back(chunk);
    size += chunk.size() + 3;
  }
  std::string body = json{{"texts", texts}}.dump();
  ASSERT_GT(body.size(), static_cast<std::size_t>(kMaxBodyBytes));
  expect_bad_json_body(body, {413});
}

TEST_F(HttpApi, TextOverMaxLineBytesRejected) {
  std::string big = long_text(kMaxLineBytes + 500);
  expect_bad_json_body(json{{"text", big}}.dump(), {413, 400});
  expect_bad_json_body(json{{"texts", {"User alice logged in", big}}}.dump(), {413, 400});
}

TEST_F(HttpApi, MoreThanMaxLinesPerRequestIs413) {
  std::vector<std::string> texts(kMaxLinesPerRequest + 1, "User alice logged in");
  expect_bad_json_body(json{{"texts", texts}}.dump(), {413});
  // Exactly the limit is fine.
  texts.pop_back();
  HttpResponse ok = post_json(port_, json{{"texts", texts}});
  EXPECT_EQ(ok.status, 200) << ok.describe();
  EXPECT_EQ(ok.json_body().value("results", json::array()).size(), texts.size());
  // The same limit applies to NDJSON lines.
  std::string body;
  for (int i = 0; i <= kMaxLinesPerRequest; ++i) body += R"({"text": "User alice logged in"})" "\n";
  SCOPED_TRACE("ndjson");
  expect_rejected("POST", "/inferences", body, "application/x-ndjson", {413}, true);
}

TEST_F(HttpApi, UnsupportedContentTypeIs415) {
  expect_rejected("POST", "/inferences", "<text>User alice logged in</text>", "text/xml", {415},
                  true);
}

TEST_F(HttpApi, UnknownPathIs404WrongMethodIs405) {
  expect_rejected("GET", "/no/such/path", "", "", {404}, false);
  expect_rejected("POST", "/inference", R"({"text": "x"})", "application/json", {404}, false);
  expect_rejected("GET", "/inferences", "", "", {405}, false);
  expect_rejected("DELETE", "/inferences", "", "", {405}, false);
}

TEST_F(HttpApi, OversizedHeaderIsRejected) {
  // Default max_header_bytes is 16 KiB.
  KeyValues headers = {{"X-Padding", std::string(40 * 1024, 'a')}};
  HttpResponse r = http_request(port_, "GET", "/healthz", "", "", headers);
  EXPECT_TRUE(r.status == 431 || r.status == 400)
      << "an oversized header block must get 431 (or 400), got " << r.describe();
  EXPECT_TRUE(server_healthy(port_));
}

TEST_F(HttpApi, MetricsCountLines) {
  auto m = http_get(port_, "/metrics");
  ASSERT_EQ(m.status, 200) << m.describe();
  bool lines_found = false;
  double before = metric_sum(m.body, "logsift_lines_total", &lines_found);
  EXPECT_TRUE(lines_found) << "no logsift_lines_total in /metrics:\n" << m.body.substr(0, 3000);

  HttpResponse r = post_json(
      port_, json{{"texts", {"User alice logged in", "Disk /dev/sda1 is full", "User bob logged in"}}});
  ASSERT_EQ(r.status, 200) << r.describe();
  auto after = fetch_metric(port_, "logsift_lines_total");
  ASSERT_TRUE(after.has_value());
  EXPECT_GE(*after, before + 3) << "logsift_lines_total must count each accepted line";

  // A rejection shows up in the rejected family (and is present afterwards).
  auto rej_before = fetch_metric(port_, "logsift_rejected_total");
  ASSERT_TRUE(rej_before.has_value());
  ASSERT_EQ(post_json(port_, json::object()).status, 400);
  bool rej_found = false;
  auto rej_after = fetch_metric(port_, "logsift_rejected_total", &rej_found);
  ASSERT_TRUE(rej_after.has_value());
  EXPECT_TRUE(rej_found);
  EXPECT_GE(*rej_after, *rej_before + 1);
}

// Where the memory is: the process RSS, each cache's bytes and entries, the
// aggregator's clusters and SQLite's heap, so an SRE can tell cache warm-up
// (bounded by the *_cache_bytes settings) from growth that is not bounded.
TEST_F(HttpApi, MetricsShowWhereTheMemoryIs) {
  auto m = http_get(port_, "/metrics");
  ASSERT_EQ(m.status, 200) << m.describe();
  for (const char* name : {"process_resident_memory_bytes", "logsift_cache_bytes", "logsift_cache_entries",
                           "logsift_aggregator_clusters", "logsift_aggregator_bytes", "logsift_sqlite_heap_bytes"}) {
    bool found = false;
    metric_sum(m.body, name, &found);
    EXPECT_TRUE(found) << "no " << name << " in /metrics";
  }
  for (const char* cache : {"line", "template", "denoise_token", "denoise_exact"})
    EXPECT_NE(m.body.find(std::string("logsift_cache_bytes{cache=\"") + cache + "\"}"), std::string::npos) << cache;
  EXPECT_GT(metric_sum(m.body, "process_resident_memory_bytes"), 10e6);
  EXPECT_GT(metric_sum(m.body, "logsift_sqlite_heap_bytes"), 0);
  const double bytes_before = metric_sum(m.body, "logsift_cache_bytes");
  const double entries_before = metric_sum(m.body, "logsift_cache_entries");
  const double tracked_before = metric_sum(m.body, "logsift_aggregator_clusters");
  const double agg_bytes_before = metric_sum(m.body, "logsift_aggregator_bytes");

  const char* words[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"};
  for (int j = 0; j < 8; ++j) {  // 64 templates with different words: new clusters, new cache entries
    json texts = json::array();
    for (int i = 0; i < 8; ++i)
      texts.push_back(std::string("Replica ") + words[i] + " lost quorum while " + words[j] + " was syncing");
    ASSERT_EQ(post_json(port_, json{{"texts", texts}}).status, 200);
  }
  auto after = http_get(port_, "/metrics");
  ASSERT_EQ(after.status, 200);
  EXPECT_GT(metric_sum(after.body, "logsift_cache_bytes"), bytes_before);
  EXPECT_GT(metric_sum(after.body, "logsift_cache_entries"), entries_before);
  EXPECT_GT(metric_sum(after.body, "logsift_aggregator_clusters"), tracked_before);
  // Each new cluster holds at least its node and its example line (seen in one
  // bucket, it has no count rings yet: the compact form).
  const double new_tracked = metric_sum(after.body, "logsift_aggregator_clusters") - tracked_before;
  EXPECT_GE(metric_sum(after.body, "logsift_aggregator_bytes"), agg_bytes_before + new_tracked * (100 + 40))
      << new_tracked << " new clusters";
}

// What an operator watches besides latency: model forwards (time and rows
// per call), the catalog's size and the outbox's depth by state.
TEST_F(HttpApi, MetricsShowModelForwardsCatalogAndOutbox) {
  const double forwards_before = fetch_metric(port_, "logsift_model_forward_seconds_count").value_or(-1);
  ASSERT_GE(forwards_before, 0) << "no logsift_model_forward_seconds in /metrics";
  json texts = json::array();
  for (const char* w : {"kestrel", "osprey", "plover", "merlin"})
    texts.push_back(std::string("Ledger shard ") + w + " refused the compaction ticket");
  ASSERT_EQ(post_json(port_, json{{"texts", texts}}).status, 200);
  auto m = http_get(port_, "/metrics");
  ASSERT_EQ(m.status, 200);
  EXPECT_GT(metric_sum(m.body, "logsift_model_forward_seconds_count"), forwards_before)
      << "new words and new templates run the denoiser and the encoder";
  EXPECT_NE(m.body.find("logsift_model_forward_seconds_bucket{model=\"encoder\",le=\"+Inf\"}"), std::string::npos);
  EXPECT_GT(metric_sum(m.body, "logsift_model_batch_rows_sum"), 0);
  // The catalog's size is the clusters' total.
  auto list = http_get(port_, "/clusters?limit=1").json_body();
  EXPECT_EQ(metric_sum(m.body, "logsift_catalog_clusters"), list.value("total", -1.0));
  for (const char* state : {"pending", "delivered", "failed"})
    EXPECT_NE(m.body.find(std::string("logsift_outbox_alerts{state=\"") + state + "\"}"), std::string::npos) << state;
}

TEST_F(HttpApi, MetricsShowHeapTrimPasses) {
  // --memory-trim-interval-ms 200: the main thread hands free heap back to
  // the OS every 200 ms and /metrics counts the passes and what they freed.
  double passes = 0;
  wait_until(
      [&] {
        passes = fetch_metric(port_, "logsift_heap_trim_seconds_count").value_or(-1);
        return passes >= 2;
      },
      Millis(5000), Millis(50));
  EXPECT_GE(passes, 2) << "no heap trim passes in 5 s";
  auto m = http_get(port_, "/metrics");
  ASSERT_EQ(m.status, 200);
  EXPECT_NE(m.body.find("# TYPE logsift_heap_trim_released_bytes_total counter"), std::string::npos);
  // The process's own figure (/proc/self/statm): the models' weights alone
  // are several MB; a fresh server without libtorch stays well under 100 MB.
  const double rss = metric_sum(m.body, "process_resident_memory_bytes");
  EXPECT_GT(rss, 10e6);
  if (!sanitized_server()) EXPECT_LT(rss, 100e6);  // ASan's shadow memory is resident too
}

TEST_F(HttpApi, ConcurrentClientsAllAnsweredCorrectly) {
  // Expected ids, computed sequentially first.
  const std::vector<std::string> texts = {
      "User alice logged in",
      "Disk /dev/sda1 is full",
      "Connection from 10.0.0.1 port 22 closed",
      "Starting nightly backup job for database orders",
      "Connection from 192.168.1.7 port 2222 closed",
      "Request 5521 completed in 87 ms with status 200",
      "Cache eviction removed 342 entries from region sessions",
      "Worker thread 12 restarted after fatal signal 11",
  };
  std::vector<json> expected;
  for (const auto& t : texts) {
    json j = infer_ok(port_, t);
    ASSERT_TRUE(is_inference_result(j));
    expected.push_back(j);
  }
  auto counts_before = cluster_counts(port_);
  ASSERT_TRUE(counts_before.has_value());

  constexpr int kThreads = 8;
  constexpr int kRequests = 200;
  std::atomic<int> ok{0}, wrong{0}, failed{0};
  std::mutex first_error_mutex;
  std::string first_error;
  auto note = [&](const std::string& e) {
    std::lock_guard<std::mutex> lock(first_error_mutex);
    if (first_error.empty()) first_error = e;
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      HttpClient client(port_);  // keep-alive connection per thread
      for (int i = 0; i < kRequests; ++i) {
        std::size_t k = static_cast<std::size_t>(t * 7 + i * 3) % texts.size();
        HttpResponse r = client.request("POST", "/inferences", json{{"text", texts[k]}}.dump(),
                                        "application/json");
        if (r.status != 200) {
          ++failed;
          note(r.describe());
          continue;
        }
        json j = r.json_body();
        if (is_inference_result(j) && j["cluster_id"] == expected[k]["cluster_id"] &&
            j["template_id"] == expected[k]["template_id"] &&
            j["template"] == expected[k]["template"] && j["new"] == false) {
          ++ok;
        } else {
          ++wrong;
          note("text '" + texts[k] + "' got " + j.dump() + " expected " + expected[k].dump());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failed.load(), 0) << first_error;
  EXPECT_EQ(wrong.load(), 0) << first_error;
  EXPECT_EQ(ok.load(), kThreads * kRequests);

  auto counts_after = cluster_counts(port_);
  ASSERT_TRUE(counts_after.has_value());
  EXPECT_EQ(total_count(*counts_after) - total_count(*counts_before), kThreads * kRequests)
      << "every accepted line must be counted exactly once";
  EXPECT_TRUE(server_healthy(port_));
}

// --- paging over a fresh data dir with known counts ---

TEST(HttpClusters, PaginationSortedByCount) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  const std::vector<std::pair<std::string, int>> plan = {
      {"User alice logged in", 4},
      {"Disk /dev/sda1 is full", 3},
      {"Connection from 10.0.0.1 port 22 closed", 2},
      {"Starting nightly backup job for database orders", 1},
  };
  std::vector<std::string> texts;
  for (const auto& [t, n] : plan) texts.insert(texts.end(), n, t);
  // Interleave so that order of arrival differs from order of count.
  std::rotate(texts.begin(), texts.begin() + 5, texts.end());
  HttpResponse r = post_json(port, json{{"texts", texts}});
  ASSERT_EQ(r.status, 200) << r.describe();
  const json body = r.json_body();
  ASSERT_TRUE(body.contains("results") && body["results"].size() == texts.size()) << r.describe();
  std::map<std::string, std::string> id_of;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const json& res = body["results"][i];
    ASSERT_TRUE(is_inference_result(res));
    id_of[texts[i]] = res["cluster_id"];
  }
  std::vector<std::string> want_ids;
  std::set<std::string> distinct;
  for (const auto& [t, n] : plan) {
    want_ids.push_back(id_of[t]);
    distinct.insert(id_of[t]);
  }
  ASSERT_EQ(distinct.size(), plan.size()) << "the four events must be four clusters";

  auto page = [&](int limit, int offset) {
    HttpResponse p = http_get(port, "/clusters?limit=" + std::to_string(limit) +
                                         "&offset=" + std::to_string(offset));
    EXPECT_EQ(p.status, 200) << p.describe();
    json j = p.json_body();
    EXPECT_TRUE(j.is_object() && j.contains("clusters") && j["clusters"].is_array()) << p.describe();
    EXPECT_EQ(j.value("total", -1LL), static_cast<long long>(plan.size())) << p.describe();
    return j.value("clusters", json::array());
  };
  auto expect_page = [&](int limit, int offset, std::size_t first_rank, std::size_t n) {
    SCOPED_TRACE("limit=" + std::to_string(limit) + " offset=" + std::to_string(offset));
    json got = page(limit, offset);
    ASSERT_EQ(got.size(), n) << got;
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(got[i].value("cluster_id", ""), want_ids[first_rank + i]) << got;
      EXPECT_EQ(got[i].value("count", -1), plan[first_rank + i].second) << got;
    }
  };
  expect_page(2, 0, 0, 2);
  expect_page(2, 2, 2, 2);
  expect_page(3, 1, 1, 3);
  expect_page(10, 0, 0, 4);
  expect_page(2, 4, 0, 0);
  expect_page(5, 100, 0, 0);

  HttpResponse all = http_get(port, "/clusters");
  ASSERT_EQ(all.status, 200) << all.describe();
  EXPECT_EQ(all.json_body().value("clusters", json::array()).size(), plan.size()) << all.describe();

  ProcessExit e = server.stop();
  EXPECT_TRUE(e.clean()) << e.describe() << "\n" << server.log_text();
}

// --- GET /clusters/mined-bank: `logsift mine` over the catalog ---

TEST(HttpClusters, MinedBankFromTheCatalogJoinsAStatementsWordValues) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  // The lines of Cli.MineWritesABankThatJoinsAStatementsWordValues, sent to
  // the service instead of written to a sample file.
  std::vector<std::string> texts;
  for (const char* box : {"Newsletters", "Archive", "Drafts", "Receipts", "Travel"})
    texts.insert(texts.end(), 2, std::string("Mailbox ") + box + ": opened by the web client of this account");
  for (const char* s : {"healthy", "unhealthy"})
    texts.insert(texts.end(), 3, std::string("Service payments is ") + s + " after the last probe of the day");
  HttpResponse posted = post_json(port, json{{"texts", texts}});
  ASSERT_EQ(posted.status, 200) << posted.describe();
  std::set<std::string> mailbox_ids;
  for (size_t i = 0; i < 10; ++i) mailbox_ids.insert(posted.json_body()["results"][i].value("cluster_id", ""));
  // The test's premise: without a bank the model keeps the mailbox names.
  ASSERT_GT(mailbox_ids.size(), 2u) << posted.describe();
  const size_t clusters = mailbox_ids.size() + 2;

  HttpResponse r = http_get(port, "/clusters/mined-bank");
  ASSERT_EQ(r.status, 200) << r.describe();
  EXPECT_EQ(r.header("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(r.header("x-logsift-formats"), "1") << r.describe();
  const std::string n = std::to_string(clusters);
  EXPECT_EQ(r.body.rfind("# mined from the catalog: the " + n + " most counted clusters of " + n + "\n", 0), 0u)
      << r.body;
  EXPECT_NE(r.body.find("# from 16 sample lines, " + n + " templates: 1 formats."), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("Mailbox %s: opened by the web client of this account\n"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("payments is %s"), std::string::npos) << r.body;
  // Two values of one place are not enough at the default (3); at 2 they are.
  HttpResponse two = http_get(port, "/clusters/mined-bank?min_values=2&q=payments");
  ASSERT_EQ(two.status, 200) << two.describe();
  EXPECT_EQ(two.header("x-logsift-formats"), "1") << two.body;
  EXPECT_NE(two.body.find("Service payments is %s after the last probe of the day\n"), std::string::npos)
      << two.body;
  EXPECT_NE(two.body.find("clusters of 2, template containing 'payments'\n"), std::string::npos) << two.body;
  // A bound on the clusters read: the 2 most counted are the two service
  // lines (3 each), which alone make no format.
  HttpResponse top = http_get(port, "/clusters/mined-bank?max_clusters=2");
  ASSERT_EQ(top.status, 200) << top.describe();
  EXPECT_EQ(top.header("x-logsift-formats"), "0") << top.body;
  EXPECT_EQ(top.body.rfind("# mined from the catalog: the 2 most counted clusters of " + n + "\n", 0), 0u)
      << top.body;

  // Served as format_bank, the bank gives later lines of the statement one id.
  TempDir dir("logsift-mined-bank-");
  dir.write_file("mined.bank", r.body);
  std::string later;
  for (const char* box : {"Projects", "Family", "Invoices", "Archive"})
    later += std::string("Mailbox ") + box + ": opened by the web client of this account\n";
  for (const char* s : {"healthy", "unhealthy"})
    later += std::string("Service payments is ") + s + " after the last probe of the day\n";
  RunResult c = run_logsift({"cluster", "-", "--format-bank", dir.file("mined.bank")}, later);
  ASSERT_TRUE(c.exit.clean()) << c.describe();
  std::vector<std::string> ids;
  std::istringstream out(c.out);
  for (std::string line; std::getline(out, line);) ids.push_back(json::parse(line).value("cluster_id", ""));
  ASSERT_EQ(ids.size(), 6u) << c.out;
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.begin() + 4).size(), 1u) << c.out;
  EXPECT_NE(ids[4], ids[5]);  // healthy / unhealthy
  EXPECT_NE(ids[0], ids[4]);

  // Bad parameters: 400 with a JSON reason; only GET.
  for (const char* q : {"similarity=0", "similarity=1.5", "similarity=high", "similarity=", "min_values=1",
                        "min_values=x", "max_clusters=0", "max_clusters=2000000", "label=nocolon"}) {
    HttpResponse bad = http_get(port, std::string("/clusters/mined-bank?") + q);
    EXPECT_TRUE(is_json_error(bad, 400)) << q << ": " << bad.describe();
  }
  EXPECT_TRUE(is_json_error(http_get(port, "/clusters/mined-bank?q=" + std::string(1025, 'a')), 400));
  EXPECT_EQ(http_request(port, "POST", "/clusters/mined-bank", "{}").status, 405);
  EXPECT_TRUE(server_healthy(port));
  ProcessExit e = server.stop();
  EXPECT_TRUE(e.clean()) << e.describe() << "\n" << server.log_text();
}

// --- defaults: a server without limit flags ---

TEST(HttpDefaults, DefaultLineAndBodyLimits) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  // 64 KiB + a bit: over the default max_line_bytes, far under max_body_bytes.
  HttpResponse r = post_infer(port, long_text(64 * 1024 + 100));
  EXPECT_TRUE(r.status == 413 || r.status == 400) << r.describe();
  EXPECT_TRUE(is_json_error(r));
  // Default max_body_bytes is 8 MiB: a 9 MiB body gets 413.
  HttpResponse big = post_infer(port, long_text(9u << 20));
  EXPECT_TRUE(is_json_error(big, 413));
  // A normal line on the same server works.
  HttpResponse ok = post_infer(port, "User alice logged in");
  EXPECT_EQ(ok.status, 200) << ok.describe();
  EXPECT_TRUE(is_inference_result(ok.json_body()));
  ProcessExit e = server.stop();
  EXPECT_TRUE(e.clean()) << e.describe() << "\n" << server.log_text();
}

}  // namespace
}  // namespace logsift_it
