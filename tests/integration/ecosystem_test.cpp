// The SRE tools logsift must work with, real ones from Debian:
// Prometheus's own parser (promtool) and a real Prometheus scraping
// /metrics, and a real Alertmanager receiving alerts on its API and routing
// them (firing, then resolved) to a webhook receiver behind it.
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"
#include "webhook_receiver.h"

namespace logsift_it {
namespace {

bool have(const char* path) { return ::access(path, X_OK) == 0; }

// A real Alertmanager on a free loopback port with the given config,
// waited on until ready; the caller stops it (stop_background).
void start_alertmanager(const TempDir& work, const std::string& config, int* port, BackgroundProcess* am) {
  std::ofstream(work.path() + "/alertmanager.yml") << config;
  *port = free_port();
  ASSERT_GT(*port, 0);
  *am = spawn_background({"/usr/bin/prometheus-alertmanager", "--config.file=" + work.path() + "/alertmanager.yml",
                          "--storage.path=" + work.path() + "/data",
                          "--web.listen-address=127.0.0.1:" + std::to_string(*port), "--cluster.listen-address="});
  ASSERT_GT(am->pid, 0) << am->error;
  const bool ready = wait_until([&] { return http_get(*port, "/-/ready").status == 200; }, Millis(20000), Millis(100));
  if (!ready) stop_background(*am);
  ASSERT_TRUE(ready) << "alertmanager did not become ready";
}

TEST(Prometheus, MetricsPassPromtoolAndAreScrapedByPrometheus) {
  if (!have("/usr/bin/promtool") || !have("/usr/bin/prometheus")) GTEST_SKIP() << "prometheus not installed";
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int http = server.http_port();
  for (int i = 0; i < 20; ++i) ASSERT_EQ(post_infer(http, "scrape test line " + std::to_string(i)).status, 200);
  // A cluster a person named and exported as a metric: its own series.
  const std::string pinned = post_infer(http, "Payment 42 declined by issuer").json_body().value("cluster_id", "");
  ASSERT_TRUE(is_hex16(pinned));
  HttpResponse named = http_request(http, "POST", "/clusters/" + pinned + "/name",
                                    json{{"name", "payments \"declined\""}, {"metric", true}}.dump(), "application/json");
  ASSERT_EQ(named.status, 201) << named.describe();
  for (int i = 0; i < 7; ++i) ASSERT_EQ(post_infer(http, "Payment " + std::to_string(100 + i) + " declined by issuer").status, 200);
  auto metrics = http_get(http, "/metrics");
  ASSERT_EQ(metrics.status, 200);
  // Prometheus's own exposition-format parser and linter.
  auto check = run_program({"/usr/bin/promtool", "check", "metrics"}, metrics.body, {}, Millis(20000));
  EXPECT_TRUE(check.exit.exited && check.exit.code == 0) << check.describe();

  Prometheus prom("  - job_name: logsift\n    static_configs:\n      - targets: ['127.0.0.1:" + std::to_string(http) +
                  "']\n");
  ASSERT_TRUE(prom.running()) << prom.error();
  json result;
  const bool scraped = prom.wait_for_series("logsift_lines_total{job=\"logsift\"}", &result);
  json up = prom.query("up{job=\"logsift\"}");
  // logsift_cluster_lines_total{cluster_id="<pinned>"}: the name as its label.
  json series;
  const bool pinned_scraped =
      prom.wait_for_series("logsift_cluster_lines_total{cluster_id=\"" + pinned + "\"}", &series, Millis(15000));
  ASSERT_TRUE(pinned_scraped) << "Prometheus never stored the pinned cluster's series: " << series.dump();
  EXPECT_EQ(series["data"]["result"][0]["metric"].value("cluster", ""), "payments \"declined\"") << series;
  EXPECT_EQ(std::stod(series["data"]["result"][0]["value"][1].get<std::string>()), 7.0) << series;
  ASSERT_TRUE(scraped) << "Prometheus never stored logsift_lines_total: " << result.dump();
  EXPECT_GE(std::stod(result["data"]["result"][0]["value"][1].get<std::string>()), 20.0) << result;
  ASSERT_TRUE(up.is_object() && !up["data"]["result"].empty()) << up;
  EXPECT_EQ(up["data"]["result"][0]["value"][1], "1") << up;
}

TEST(Alertmanager, NewClusterAlertArrivesInARealAlertmanager) {
  if (!have("/usr/bin/prometheus-alertmanager")) GTEST_SKIP() << "prometheus-alertmanager not installed";
  TempDir work("logsift-alertmanager-");
  int am_port = 0;
  BackgroundProcess am;
  ASSERT_NO_FATAL_FAILURE(start_alertmanager(work, "route: {receiver: 'null', group_wait: 1s}\nreceivers:\n  - name: 'null'\n",
                                             &am_port, &am));

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
  // The outbox marks the alert delivered once Alertmanager's answer is read,
  // which may come after the alert is already listed there.
  json delivered;
  wait_until(
      [&] {
        delivered = http_get(http, "/alerts?status=delivered").json_body();
        return delivered.contains("alerts") && delivered["alerts"].size() == 1;
      },
      Millis(10000), Millis(100));
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

// What a team's Alertmanager does with logsift's alerts: a threshold rule
// fires and resolves; Alertmanager routes both to the webhook receiver behind
// it (send_resolved), the resolved one with the endsAt logsift set. The same
// alerts sent by logsift straight to a webhook in the "alertmanager" format
// must have the shape Alertmanager itself emits: same keys at both levels,
// same value types, same labels.
TEST(Alertmanager, RoutesFiringAndResolvedToItsReceiverInTheShapeLogsiftEmulates) {
  if (!have("/usr/bin/prometheus-alertmanager")) GTEST_SKIP() << "prometheus-alertmanager not installed";
  WebhookReceiver behind_am, direct;
  ASSERT_TRUE(behind_am.start());
  ASSERT_TRUE(direct.start());
  TempDir work("logsift-alertmanager-");
  std::ostringstream cfg;
  cfg << "route:\n  receiver: hook\n  group_by: [alertname, cluster_id]\n  group_wait: 1s\n"
           "  group_interval: 1s\n  repeat_interval: 1h\n"
           "receivers:\n  - name: hook\n    webhook_configs:\n      - url: '" << behind_am.url() << "'\n"
           "        send_resolved: true\n";
  int am_port = 0;
  BackgroundProcess am;
  ASSERT_NO_FATAL_FAILURE(start_alertmanager(work, cfg.str(), &am_port, &am));

  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int http = server.http_port();
  const json rule = {{"kind", "threshold"}, {"threshold", 3}, {"window", "2s"}, {"cooldown", "1s"}};
  for (auto [url, format] : {std::pair{"http://127.0.0.1:" + std::to_string(am_port) + "/api/v2/alerts",
                                       std::string("alertmanager_api")},
                             std::pair{direct.url(), std::string("alertmanager")}}) {
    json sub = {{"url", url}, {"rules", json::array({rule})}, {"format", format}};
    auto created = http_request(http, "POST", "/subscriptions", sub.dump(), "application/json");
    ASSERT_EQ(created.status, 201) << created.describe();
  }
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(post_infer(http, "Replica lag on shard " + std::to_string(17 + i) + " exceeded budget",
                         {{"service", "ledger"}}).status, 200);

  // Firing, then (2 s window, no more lines) resolved, from each path.
  auto bodies = [](const WebhookReceiver& r) {
    std::vector<json> out;
    for (const auto& q : r.requests()) out.push_back(q.json_body());
    return out;
  };
  auto has = [](const std::vector<json>& ps, const char* status) {
    for (const auto& p : ps)
      if (p.is_object() && p.value("status", "") == status) return true;
    return false;
  };
  std::vector<json> via_am, direct_ps;
  const bool both = wait_until(
      [&] {
        via_am = bodies(behind_am);
        direct_ps = bodies(direct);
        return has(via_am, "firing") && has(via_am, "resolved") && has(direct_ps, "firing") &&
               has(direct_ps, "resolved");
      },
      Millis(30000), Millis(200));
  stop_background(am);
  ASSERT_TRUE(both) << "behind Alertmanager: " << json(via_am) << "\ndirect: " << json(direct_ps)
                    << "\noutbox: " << http_get(http, "/alerts").body;

  auto pick = [](const std::vector<json>& ps, const char* status) {
    for (const auto& p : ps)
      if (p.value("status", "") == status) return p;
    return json();
  };
  for (const char* status : {"firing", "resolved"}) {
    SCOPED_TRACE(status);
    const json am_p = pick(via_am, status), ours = pick(direct_ps, status);
    ASSERT_TRUE(am_p.contains("alerts") && am_p["alerts"].size() == 1u) << am_p;
    ASSERT_TRUE(ours.contains("alerts") && ours["alerts"].size() == 1u) << ours;
    auto keys_and_types = [](const json& o) {
      std::map<std::string, std::string> m;
      for (auto it = o.begin(); it != o.end(); ++it) m[it.key()] = it->type_name();
      return m;
    };
    EXPECT_EQ(keys_and_types(ours), keys_and_types(am_p)) << "ours: " << ours << "\nalertmanager: " << am_p;
    const json &a = am_p["alerts"][0], &o = ours["alerts"][0];
    EXPECT_EQ(keys_and_types(o), keys_and_types(a)) << "ours: " << o << "\nalertmanager: " << a;
    EXPECT_EQ(o["labels"], a["labels"]);
    // Alertmanager keeps what logsift posted: the same fingerprint (a hash of
    // the labels, computed as Alertmanager does) and the same times.
    EXPECT_EQ(o["fingerprint"], a["fingerprint"]);
    // (as instants: Go's RFC 3339 drops trailing zeros, ".82Z" for ".820Z")
    for (const char* t : {"startsAt", "endsAt"}) {
      const auto ours_t = parse_rfc3339_ms(o.value(t, "")), am_t = parse_rfc3339_ms(a.value(t, ""));
      ASSERT_TRUE(ours_t && am_t) << t << ": " << o << "\n" << a;
      EXPECT_EQ(*ours_t, *am_t) << t << ": " << o[t] << " vs " << a[t];
    }
    EXPECT_EQ(a["labels"].value("alertname", ""), "logsift_threshold") << a;
    EXPECT_EQ(a["labels"].value("service", ""), "ledger") << a;
    EXPECT_TRUE(is_hex16(a["labels"].value("cluster_id", ""))) << a;
    std::map<std::string, std::string> annotation_keys_am, annotation_keys_ours;
    for (auto it = a["annotations"].begin(); it != a["annotations"].end(); ++it) annotation_keys_am[it.key()] = "";
    for (auto it = o["annotations"].begin(); it != o["annotations"].end(); ++it) annotation_keys_ours[it.key()] = "";
    EXPECT_EQ(annotation_keys_ours, annotation_keys_am);
    EXPECT_EQ(o.value("status", ""), status);
    EXPECT_EQ(a.value("status", ""), status);
    EXPECT_EQ(ours.value("version", ""), am_p.value("version", "?"));
  }
  // The resolved notice carries the end logsift set: a real time after the start.
  const json resolved = pick(via_am, "resolved")["alerts"][0];
  const auto starts = parse_rfc3339_ms(resolved.value("startsAt", ""));
  const auto ends = parse_rfc3339_ms(resolved.value("endsAt", ""));
  ASSERT_TRUE(starts && ends) << resolved;
  EXPECT_GT(*ends, *starts) << resolved;
  EXPECT_LT(*ends - *starts, 60000) << resolved;
  const auto firing_end = parse_rfc3339_ms(pick(via_am, "firing")["alerts"][0].value("endsAt", ""));
  EXPECT_TRUE(!firing_end || *firing_end < 0 || *firing_end > *ends - 1000)
      << "a firing alert has no end yet (Go's zero time or Alertmanager's resolve timeout)";
  behind_am.stop();
  direct.stop();
}

}  // namespace
}  // namespace logsift_it
