// Log shippers' HTTP protocols against a real server: the exact
// requests real clients sent (tests/data/ingest, captured from winston-loki,
// the OpenTelemetry JS exporters, rsyslog and syslog-ng) replayed over HTTP,
// a live rsyslogd with omelasticsearch, malformed bodies, the dashboard's
// files and the cluster list's search and sort.
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <algorithm>
#include <string>
#include <vector>

#include "harness.h"

namespace logsift_it {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Capture {
  std::string method, target, body;
  KeyValues headers;  // content-type / content-encoding as sent
  std::string content_type;
};

Capture load(const std::string& stem, const std::string& body_stem = "") {
  const std::string dir = std::string(LOGSIFT_SOURCE_DIR) + "/tests/data/ingest/";
  Capture c;
  std::istringstream head(read_file(dir + stem + ".head"));
  std::string line;
  std::getline(head, line);
  std::istringstream first(line);
  first >> c.method >> c.target;
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon), value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (name == "content-type") c.content_type = value;
    if (name == "content-encoding") c.headers.emplace_back("Content-Encoding", value);
  }
  c.body = read_file(dir + (body_stem.empty() ? stem : body_stem) + ".body");
  return c;
}

HttpResponse replay(int port, const Capture& c) {
  return http_request(port, c.method, c.target, c.body, c.content_type, c.headers);
}

std::map<std::string, long long> templates(int http) {
  std::map<std::string, long long> out;
  if (auto all = fetch_all_clusters(http))
    for (const auto& c : *all) out[c.value("template", "")] += c.value("count", 0LL);
  return out;
}

long long total(const std::map<std::string, long long>& t) {
  long long n = 0;
  for (const auto& [k, v] : t) n += v;
  return n;
}

TEST(Ingest, RealClientRequestsAreAcceptedAndClustered) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  struct Case {
    std::string stem;
    int status;
  };
  const std::vector<Case> cases = {
      {"loki/winston-loki-6.1.7-json", 204},
      {"loki/winston-loki-6.1.7-protobuf", 204},
      {"otlp/exporter-logs-otlp-http-0.223.1", 200},
      {"otlp/exporter-logs-otlp-proto-0.223.1", 200},
      {"bulk/syslog-ng-3.38.1-elasticsearch-http-001", 200},
      {"bulk/rsyslog-8.2302-omelasticsearch-001", 200},
  };
  for (const auto& c : cases) {
    const auto before = total(templates(port));
    auto r = replay(port, load(c.stem));
    EXPECT_EQ(r.status, c.status) << c.stem << ": " << r.describe();
    EXPECT_GT(total(templates(port)), before) << c.stem << " must add lines to the catalog before replying";
  }
  // The bulk replies are Elasticsearch's shape with the product header.
  auto bulk = replay(port, load("bulk/syslog-ng-3.38.1-elasticsearch-http-001"));
  EXPECT_EQ(bulk.header("x-elastic-product"), "Elasticsearch");
  json b = bulk.json_body();
  ASSERT_TRUE(b.is_object()) << bulk.describe();
  EXPECT_EQ(b["errors"], false);
  ASSERT_TRUE(b["items"].is_array() && !b["items"].empty());
  EXPECT_EQ(b["items"][0]["index"]["status"], 201);
  // OTLP JSON answers an ExportLogsServiceResponse in JSON.
  auto otlp = replay(port, load("otlp/exporter-logs-otlp-http-0.223.1"));
  EXPECT_TRUE(otlp.json_body().is_object()) << otlp.describe();
  // The probe rsyslog sends before resuming.
  auto health = http_get(port, "/_cat/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_NE(health.body.find("green"), std::string::npos) << health.body;
  EXPECT_TRUE(server_healthy(port));
}

TEST(Ingest, MalformedBodiesAreClearErrorsAndNothingIsStored) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  struct Bad {
    std::string target, body, content_type;
    int status;
    KeyValues headers;
  };
  const std::vector<Bad> bad = {
      {"/loki/api/v1/push", "{not json", "application/json", 400, {}},
      {"/loki/api/v1/push", R"({"streams":[{"stream":{"app":"x"},"values":[["notanumber","line"]]}]})",
       "application/json", 400, {}},
      {"/loki/api/v1/push", "\x01\x02garbage", "application/x-protobuf", 400, {}},
      {"/loki/api/v1/push", "{}", "text/plain", 415, {}},
      {"/v1/logs", "{\"resourceLogs\": 5}", "application/json", 400, {}},
      {"/v1/logs", "\xff\xff\xff", "application/x-protobuf", 400, {}},
      {"/v1/logs", "{}", "application/json", 415, {{"Content-Encoding", "br"}}},
      {"/_bulk", "", "application/x-ndjson", 400, {}},
      {"/_bulk", "{\"index\":{}}\n", "application/x-ndjson", 400, {}},
      {"/_bulk", "not json\n{}\n", "application/x-ndjson", 400, {}},
  };
  for (const auto& b : bad) {
    auto r = http_request(port, "POST", b.target, b.body, b.content_type, b.headers);
    EXPECT_TRUE(is_json_error(r, b.status)) << b.target << " " << b.body << ": " << r.describe();
  }
  EXPECT_EQ(total(templates(port)), 0) << "nothing from a rejected request may be stored";
  // A bulk document without a message fails alone, ES-style.
  auto partial = http_request(port, "POST", "/_bulk",
                              "{\"index\":{}}\n{\"message\":\"disk full on /dev/sda1\"}\n{\"index\":{}}\n{\"other\":1}\n",
                              "application/x-ndjson");
  ASSERT_EQ(partial.status, 200) << partial.describe();
  json p = partial.json_body();
  EXPECT_EQ(p["errors"], true) << p;
  EXPECT_EQ(p["items"][0]["index"]["status"], 201) << p;
  EXPECT_EQ(p["items"][1]["index"]["status"], 400) << p;
  EXPECT_EQ(total(templates(port)), 1);
  EXPECT_TRUE(server_healthy(port));
}

TEST(Ingest, StructuredLinesAreClusteredOnTheirMessage) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  // Same statement, different per-line fields, three line formats.
  const std::vector<std::string> lines = {
      R"({"ts":"2026-11-23T10:00:00.123Z","level":"info","msg":"request served","trace_id":"4bf92f3577b34da6","status":200})",
      R"({"ts":"2026-11-23T10:00:01.456Z","level":"info","msg":"request served","trace_id":"00f067aa0ba902b7","status":404})",
      R"(ts=2026-11-23T10:00:02Z level=info msg="request served" trace_id=a3ce929d0e0e4736 status=200)",
      R"(ts=2026-11-23T10:00:03Z level=info msg="request served" trace_id=e457b5a2e4d86bd1 duration=12ms)",
  };
  for (const auto& l : lines) ASSERT_EQ(post_infer(port, l).status, 200);
  auto t = templates(port);
  ASSERT_EQ(t.size(), 1u) << json(t).dump();
  EXPECT_EQ(t.begin()->first, "request served");
  auto all = fetch_all_clusters(port);
  json c = http_get(port, "/clusters/" + (*all)[0]["cluster_id"].get<std::string>()).json_body();
  EXPECT_EQ(c["examples"][0]["labels"].value("level", ""), "info") << c;

  // The message fields are configurable.
  ServerOptions o;
  o.args = {"--message-keys", "event, msg"};
  ServerProcess custom(o);
  ASSERT_TRUE(custom.start_ready());
  for (const char* l : {R"({"event":"cache flushed","ts":"2026-11-23T10:00:00Z","n":1})",
                        R"({"event":"cache flushed","ts":"2026-11-23T10:00:09Z","shard":"b"})"})
    ASSERT_EQ(post_infer(custom.http_port(), l).status, 200);
  auto ct = templates(custom.http_port());
  ASSERT_EQ(ct.size(), 1u) << json(ct).dump();
  EXPECT_EQ(ct.begin()->first, "cache flushed");

  // structured_keep_caller: the same text logged from two places is two statements.
  ServerOptions oc;
  oc.args = {"--structured-keep-caller", "true"};
  ServerProcess callers(oc);
  ASSERT_TRUE(callers.start_ready());
  for (const char* l : {R"(level=warn caller=store.go:88 msg="retrying")", R"(level=warn caller=sync.go:12 msg="retrying")",
                        R"(level=warn caller=store.go:88 msg="retrying")"})
    ASSERT_EQ(post_infer(callers.http_port(), l).status, 200);
  auto cc = templates(callers.http_port());
  EXPECT_EQ(cc.size(), 2u) << json(cc).dump();
}

TEST(Ingest, RsyslogOmelasticsearchDeliversToBulk) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  TempDir work("logsift-rsyslog-es-");
  const std::string port_file = work.path() + "/imtcp.port";
  {
    std::ofstream conf(work.path() + "/rsyslog.conf");
    conf << "global(workDirectory=\"" << work.path() << "\")\n"
         << "module(load=\"imtcp\")\nmodule(load=\"omelasticsearch\")\n"
         << "input(type=\"imtcp\" address=\"127.0.0.1\" port=\"0\" listenPortFileName=\"" << port_file << "\")\n"
         << "template(name=\"es-json\" type=\"list\" option.json=\"on\") {\n"
         << "  constant(value=\"{\\\"host\\\":\\\"\") property(name=\"hostname\")\n"
         << "  constant(value=\"\\\",\\\"severity\\\":\\\"\") property(name=\"syslogseverity-text\")\n"
         << "  constant(value=\"\\\",\\\"syslogtag\\\":\\\"\") property(name=\"syslogtag\")\n"
         << "  constant(value=\"\\\",\\\"message\\\":\\\"\") property(name=\"msg\")\n"
         << "  constant(value=\"\\\"}\")\n}\n"
         << "action(type=\"omelasticsearch\" server=\"127.0.0.1\" serverport=\"" << server.http_port()
         << "\" template=\"es-json\" searchIndex=\"logs\" bulkmode=\"on\")\n";
  }
  auto rs = spawn_background({"/usr/sbin/rsyslogd", "-n", "-f", work.path() + "/rsyslog.conf", "-i",
                              work.path() + "/rsyslogd.pid"});
  ASSERT_GT(rs.pid, 0) << rs.error;
  int in_port = 0;
  ASSERT_TRUE(wait_until(
      [&] {
        std::ifstream f(port_file);
        return static_cast<bool>(f >> in_port) && in_port > 0;
      },
      Millis(10000)));
  constexpr int kLines = 10;
  for (int i = 0; i < kLines; ++i) {
    auto r = run_program({"/usr/bin/logger", "-T", "-n", "127.0.0.1", "-P", std::to_string(in_port), "--rfc3164", "-t",
                          "billing", "invoice " + std::to_string(7000 + i) + " exported in " + std::to_string(30 + i) + " ms"},
                         "", {}, Millis(10000));
    ASSERT_TRUE(r.exit.exited && r.exit.code == 0) << r.describe();
  }
  std::map<std::string, long long> t;
  const bool in = wait_until(
      [&] {
        t = templates(server.http_port());
        return total(t) >= kLines;
      },
      Millis(20000));
  stop_background(rs);
  ASSERT_TRUE(in) << json(t).dump() << "\n" << server.log_text();
  EXPECT_EQ(t.size(), 1u) << json(t).dump();
  EXPECT_EQ(total(t), kLines);
}

TEST(Dashboard, FilesAreServedWithTheirTypes) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  auto page = http_request(port, "GET", "/", "", "", {{"Accept", "text/html,application/xhtml+xml"}});
  ASSERT_EQ(page.status, 200) << page.describe();
  EXPECT_EQ(page.header("content-type"), "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("/ui/app.js"), std::string::npos);
  for (const auto& [path, type] : std::vector<std::pair<std::string, std::string>>{
           {"/ui/app.js", "text/javascript; charset=utf-8"},
           {"/ui/app.css", "text/css; charset=utf-8"},
           {"/ui/chart.js", "text/javascript; charset=utf-8"}}) {
    auto r = http_get(port, path);
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.header("content-type"), type) << path;
    EXPECT_GT(r.body.size(), 1000u) << path;
  }
  // A client asking for JSON gets the Elasticsearch version probe.
  auto probe = http_request(port, "GET", "/", "", "", {{"Accept", "application/json"}});
  EXPECT_EQ(probe.status, 200);
  EXPECT_TRUE(probe.json_body().contains("version")) << probe.body;
}

TEST(ClusterList, SearchAndSortByCountLastSeenAndRate) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  for (int i = 0; i < 5; ++i) ASSERT_EQ(post_infer(port, "Disk quota exceeded for user u" + std::to_string(i)).status, 200);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(post_infer(port, "Connection from 10.0.0." + std::to_string(i) + " closed").status, 200);
  ASSERT_EQ(post_infer(port, "Cache warmed in 42 ms").status, 200);

  json byCount = http_get(port, "/clusters?sort=count").json_body();
  ASSERT_EQ(byCount["clusters"].size(), 3u) << byCount;
  EXPECT_EQ(byCount["clusters"][0]["count"], 5);
  json recent = http_get(port, "/clusters?sort=last_seen").json_body();
  EXPECT_NE(recent["clusters"][0]["template"].get<std::string>().find("Cache warmed"), std::string::npos) << recent;
  json search = http_get(port, "/clusters?q=CONNECTION").json_body();
  ASSERT_EQ(search["clusters"].size(), 1u) << search;
  EXPECT_EQ(search["total"], 1);
  EXPECT_EQ(search["q"], "CONNECTION");
  json rate = http_get(port, "/clusters?sort=rate&window=5m&limit=2").json_body();
  ASSERT_EQ(rate["clusters"].size(), 2u) << rate;
  EXPECT_EQ(rate["sort"], "rate");
  EXPECT_EQ(rate["clusters"][0]["window_count"], 5) << rate;
  EXPECT_EQ(rate["clusters"][1]["window_count"], 2) << rate;
  EXPECT_EQ(rate["total"], 3);
  // Label filter, with every sort.
  ASSERT_EQ(post_infer(port, "Payment of 30 EUR refused", {{"service", "checkout"}}).status, 200);
  for (const char* sort : {"count", "last_seen", "rate"}) {
    json byLabel = http_get(port, std::string("/clusters?label=service:checkout&sort=") + sort).json_body();
    ASSERT_EQ(byLabel["clusters"].size(), 1u) << sort << ": " << byLabel;
    EXPECT_NE(byLabel["clusters"][0]["template"].get<std::string>().find("Payment"), std::string::npos) << byLabel;
  }
  EXPECT_TRUE(is_json_error(http_get(port, "/clusters?label=nocolon"), 400));
  EXPECT_TRUE(is_json_error(http_get(port, "/clusters?sort=bogus"), 400));
  EXPECT_TRUE(is_json_error(http_get(port, "/clusters?sort=rate&window=7m"), 400));
}

}  // namespace
}  // namespace logsift_it

namespace logsift_it {
namespace {

// GET /openapi.json describes every route: each route literal the dispatcher
// (service/api/http_api.cpp) matches is a path (or path prefix) in the spec,
// and every path in the spec reaches a handler (never "no route").
TEST(OpenApi, EveryRouteIsDescribedAndEveryDescribedRouteAnswers) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  auto r = http_get(port, "/openapi.json");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "application/json");
  json spec = r.json_body();
  ASSERT_TRUE(spec.is_object() && spec.contains("paths")) << r.body.substr(0, 200);
  EXPECT_EQ(spec["openapi"], "3.0.3");
  std::vector<std::string> paths;
  for (auto it = spec["paths"].begin(); it != spec["paths"].end(); ++it) paths.push_back(it.key());

  // Route literals in the dispatcher's source.
  const std::string src = read_file(std::string(LOGSIFT_SOURCE_DIR) + "/service/api/http_api.cpp");
  std::regex literal(R"re((?:t\.path ==|starts_with\(|ends_with\()\s*"(/[^"]*)")re");
  int found = 0;
  for (std::sregex_iterator m(src.begin(), src.end(), literal), end; m != end; ++m) {
    const std::string lit = (*m)[1].str();
    ++found;
    const bool described = std::any_of(paths.begin(), paths.end(), [&](const std::string& p) {
      return p == lit || p.rfind(lit, 0) == 0 || (p.size() >= lit.size() && p.compare(p.size() - lit.size(), lit.size(), lit) == 0);
    });
    EXPECT_TRUE(described) << "route " << lit << " is not in openapi.json";
  }
  EXPECT_GE(found, 10) << "the dispatcher's route literals were not found";

  // Every described path and method reaches a handler.
  for (auto it = spec["paths"].begin(); it != spec["paths"].end(); ++it) {
    std::string path = std::regex_replace(it.key(), std::regex(R"(\{id\})"), "0123456789abcdef");
    path = std::regex_replace(path, std::regex(R"(\{index\})"), "logs");
    for (auto m = it.value().begin(); m != it.value().end(); ++m) {
      std::string method = m.key();
      for (auto& ch : method) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      auto res = http_request(port, method, path, method == "POST" ? "{}" : "", "application/json",
                              {{"Accept", "text/html"}});
      const bool no_route = res.status == 404 && res.body.find("no route") != std::string::npos;
      EXPECT_FALSE(no_route) << method << " " << path << ": " << res.describe();
      EXPECT_NE(res.status, 405) << method << " " << path;
    }
  }
}

}  // namespace
}  // namespace logsift_it
