// The SRE tools logsift must work with (issue 13), real ones from Debian:
// Prometheus's own parser (promtool) and a real Prometheus scraping
// /metrics, and a real Alertmanager receiving alerts on its API.
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "harness.h"

namespace logsift_it {
namespace {

bool have(const char* path) { return ::access(path, X_OK) == 0; }

TEST(Prometheus, MetricsPassPromtoolAndAreScrapedByPrometheus) {
  if (!have("/usr/bin/promtool") || !have("/usr/bin/prometheus")) GTEST_SKIP() << "prometheus not installed";
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int http = server.http_port();
  for (int i = 0; i < 20; ++i) ASSERT_EQ(post_infer(http, "scrape test line " + std::to_string(i)).status, 200);
  auto metrics = http_get(http, "/metrics");
  ASSERT_EQ(metrics.status, 200);
  // Prometheus's own exposition-format parser and linter.
  auto check = run_program({"/usr/bin/promtool", "check", "metrics"}, metrics.body, {}, Millis(20000));
  EXPECT_TRUE(check.exit.exited && check.exit.code == 0) << check.describe();

  TempDir work("logsift-prometheus-");
  {
    std::ofstream cfg(work.path() + "/prometheus.yml");
    cfg << "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        << "scrape_configs:\n  - job_name: logsift\n    static_configs:\n      - targets: ['127.0.0.1:" << http
        << "']\n";
  }
  const int prom_port = free_port();
  ASSERT_GT(prom_port, 0);
  auto prom = spawn_background({"/usr/bin/prometheus", "--config.file=" + work.path() + "/prometheus.yml",
                                "--storage.tsdb.path=" + work.path() + "/data",
                                "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)});
  ASSERT_GT(prom.pid, 0) << prom.error;
  json result;
  const bool scraped = wait_until(
      [&] {
        auto r = http_get(prom_port, "/api/v1/query?query=logsift_lines_total%7Bjob%3D%22logsift%22%7D");
        result = r.json_body();
        return r.status == 200 && result.is_object() && result.value("status", "") == "success" &&
               !result["data"]["result"].empty();
      },
      Millis(30000), Millis(250));
  json up = http_get(prom_port, "/api/v1/query?query=up%7Bjob%3D%22logsift%22%7D").json_body();
  stop_background(prom);
  ASSERT_TRUE(scraped) << "Prometheus never stored logsift_lines_total: " << result.dump();
  EXPECT_GE(std::stod(result["data"]["result"][0]["value"][1].get<std::string>()), 20.0) << result;
  ASSERT_TRUE(up.is_object() && !up["data"]["result"].empty()) << up;
  EXPECT_EQ(up["data"]["result"][0]["value"][1], "1") << up;
}

TEST(Alertmanager, NewClusterAlertArrivesInARealAlertmanager) {
  if (!have("/usr/bin/prometheus-alertmanager")) GTEST_SKIP() << "prometheus-alertmanager not installed";
  TempDir work("logsift-alertmanager-");
  {
    std::ofstream cfg(work.path() + "/alertmanager.yml");
    cfg << "route: {receiver: 'null', group_wait: 1s}\nreceivers:\n  - name: 'null'\n";
  }
  const int am_port = free_port();
  ASSERT_GT(am_port, 0);
  auto am = spawn_background({"/usr/bin/prometheus-alertmanager", "--config.file=" + work.path() + "/alertmanager.yml",
                              "--storage.path=" + work.path() + "/data",
                              "--web.listen-address=127.0.0.1:" + std::to_string(am_port),
                              "--cluster.listen-address="});
  ASSERT_GT(am.pid, 0) << am.error;
  ASSERT_TRUE(wait_until([&] { return http_get(am_port, "/-/ready").status == 200; }, Millis(20000), Millis(100)))
      << "alertmanager did not become ready";

  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int http = server.http_port();
  json sub = {{"url", "http://127.0.0.1:" + std::to_string(am_port) + "/api/v2/alerts"},
              {"rules", json::array({"new_cluster"})},
              {"format", "alertmanager_api"}};
  auto created = http_request(http, "POST", "/subscriptions", sub.dump(), "application/json");
  ASSERT_EQ(created.status, 201) << created.describe();
  ASSERT_EQ(post_infer(http, "Payment provider timed out after 30 s", {{"service", "checkout"}}).status, 200);

  json alerts;
  const bool arrived = wait_until(
      [&] {
        auto r = http_get(am_port, "/api/v2/alerts");
        alerts = r.json_body();
        return r.status == 200 && alerts.is_array() && !alerts.empty();
      },
      Millis(20000), Millis(200));
  json delivered = http_get(http, "/alerts?status=delivered").json_body();
  stop_background(am);
  ASSERT_TRUE(arrived) << "no alert in Alertmanager; outbox: " << http_get(http, "/alerts?status=pending").body;
  ASSERT_EQ(alerts.size(), 1u) << alerts;
  const json& a = alerts[0];
  EXPECT_EQ(a["labels"].value("alertname", ""), "logsift_new_cluster") << a;
  EXPECT_EQ(a["labels"].value("service", ""), "checkout") << a;
  EXPECT_TRUE(is_hex16(a["labels"].value("cluster_id", ""))) << a;
  EXPECT_NE(a["annotations"].value("summary", "").find("Payment provider timed out"), std::string::npos) << a;
  EXPECT_EQ(a["status"].value("state", ""), "active") << a;
  ASSERT_TRUE(delivered.contains("alerts") && delivered["alerts"].size() == 1) << delivered;
}

}  // namespace
}  // namespace logsift_it
