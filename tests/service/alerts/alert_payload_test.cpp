#include "service/alerts/alert_payload.h"

#include <stdexcept>

#include <gtest/gtest.h>

namespace logsift::webhook {
namespace {

using nlohmann::json;

// 2024-05-01T12:00:00.000Z
constexpr int64_t kT0 = 1714564800000;

Alert spike_alert() {
  Alert a;
  a.id = "msg_01hq3k5v7x9z1b3d5f7h9k1m3n";
  a.rule = "spike";
  a.rule_id = "rule_errors_spike";
  a.state = "firing";
  a.cluster_id = "0123456789abcdef";
  a.template_text = "Connection from <*> port <*> closed";
  a.count = 1234;
  a.window_ms = 300000;
  a.first_seen_ms = kT0 + 1;
  a.last_seen_ms = kT0 + 299999;
  a.created_ms = kT0 + 300000;
  a.baseline = 12.5;
  a.labels = {{"host", "web-1"}, {"level", "error"}, {"service", "api"}};  // sorted
  a.examples = {"Connection from 10.0.0.1 port 22 closed", "Connection from 10.0.0.2 port 23 closed"};
  return a;
}

TEST(AlertTime, FormatsAndParsesUtcMilliseconds) {
  EXPECT_EQ(format_utc_ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(format_utc_ms(kT0 + 123), "2024-05-01T12:00:00.123Z");
  EXPECT_EQ(format_utc_ms(951782400000), "2000-02-29T00:00:00.000Z");
  EXPECT_EQ(format_utc_ms(-1), "1969-12-31T23:59:59.999Z");
  for (const int64_t t : {int64_t{0}, kT0, kT0 + 999, int64_t{-1}, int64_t{4102444799999}}) {
    EXPECT_EQ(parse_utc_ms(format_utc_ms(t)), t) << t;
  }
  EXPECT_EQ(parse_utc_ms("2024-05-01T12:00:00Z"), kT0);
  EXPECT_EQ(parse_utc_ms("2024-05-01T12:00:00.5Z"), kT0 + 500);
  EXPECT_EQ(parse_utc_ms("2024-05-01T12:00:00.123456789Z"), kT0 + 123);
  EXPECT_FALSE(parse_utc_ms("2024-05-01T12:00:00.123+02:00"));
  EXPECT_FALSE(parse_utc_ms("2024-02-30T12:00:00.000Z"));
  EXPECT_FALSE(parse_utc_ms("2024-05-01 12:00:00.000Z"));
  EXPECT_FALSE(parse_utc_ms("2024-05-01T12:00:00.Z"));
  EXPECT_FALSE(parse_utc_ms(""));
}

TEST(AlertPayload, LogsiftJsonFields) {
  const json j = to_logsift_json(spike_alert());
  EXPECT_EQ(j["id"], "msg_01hq3k5v7x9z1b3d5f7h9k1m3n");
  EXPECT_EQ(j["rule"], "spike");
  EXPECT_EQ(j["rule_id"], "rule_errors_spike");
  EXPECT_EQ(j["state"], "firing");
  EXPECT_EQ(j["cluster_id"], "0123456789abcdef");
  EXPECT_EQ(j["template"], "Connection from <*> port <*> closed");
  EXPECT_EQ(j["count"], 1234);
  EXPECT_EQ(j["window_seconds"], 300);
  EXPECT_EQ(j["first_seen"], "2024-05-01T12:00:00.001Z");
  EXPECT_EQ(j["last_seen"], "2024-05-01T12:04:59.999Z");
  EXPECT_EQ(j["created_at"], "2024-05-01T12:05:00.000Z");
  EXPECT_EQ(j["baseline"], 12.5);
  EXPECT_EQ(j["labels"], (json{{"host", "web-1"}, {"level", "error"}, {"service", "api"}}));
  EXPECT_EQ(j["examples"].size(), 2u);
  EXPECT_EQ(j["source"], "logsift");

  Alert threshold = spike_alert();
  threshold.rule = "threshold";
  EXPECT_FALSE(to_logsift_json(threshold).contains("baseline"));
}

TEST(AlertPayload, LogsiftJsonRoundTrips) {
  const Alert a = spike_alert();
  // Through text, as the outbox stores it.
  EXPECT_EQ(alert_from_json(json::parse(to_logsift_json(a).dump())), a);

  Alert b = spike_alert();
  b.rule = "new_cluster";
  b.state = "resolved";
  b.baseline = 0;
  b.window_ms = 1500;  // not whole seconds
  b.count = UINT64_MAX;
  b.labels.clear();
  b.examples.clear();
  b.template_text = "unicode \xc3\xa4 \"quoted\" \n newline";
  EXPECT_EQ(alert_from_json(json::parse(to_logsift_json(b).dump())), b);
}

TEST(AlertPayload, AlertFromJsonRejectsBadInput) {
  json j = to_logsift_json(spike_alert());
  EXPECT_THROW(alert_from_json(json::array()), std::invalid_argument);
  json missing = j;
  missing.erase("cluster_id");
  EXPECT_THROW(alert_from_json(missing), std::invalid_argument);
  json bad_time = j;
  bad_time["created_at"] = "yesterday";
  EXPECT_THROW(alert_from_json(bad_time), std::invalid_argument);
  json bad_count = j;
  bad_count["count"] = -1;
  EXPECT_THROW(alert_from_json(bad_count), std::invalid_argument);
  json bad_label = j;
  bad_label["labels"]["host"] = 5;
  EXPECT_THROW(alert_from_json(bad_label), std::invalid_argument);
  try {
    alert_from_json(missing);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cluster_id"), std::string::npos) << e.what();
  }
}

TEST(AlertPayload, AlertmanagerFiring) {
  const json j = to_alertmanager_json({spike_alert()}, "ops", "http://logsift.example:8080/");
  EXPECT_EQ(j["version"], "4");
  EXPECT_EQ(j["status"], "firing");
  EXPECT_EQ(j["receiver"], "ops");
  EXPECT_EQ(j["truncatedAlerts"], 0);
  EXPECT_EQ(j["externalURL"], "http://logsift.example:8080/");
  EXPECT_EQ(j["groupLabels"], (json{{"alertname", "logsift_spike"}}));
  EXPECT_EQ(j["groupKey"], R"({}:{alertname="logsift_spike"})");
  ASSERT_EQ(j["alerts"].size(), 1u);

  const json& a = j["alerts"][0];
  EXPECT_EQ(a["status"], "firing");
  EXPECT_EQ(a["labels"]["alertname"], "logsift_spike");
  EXPECT_EQ(a["labels"]["cluster_id"], "0123456789abcdef");
  EXPECT_EQ(a["labels"]["rule_id"], "rule_errors_spike");
  EXPECT_EQ(a["labels"]["service"], "api");
  EXPECT_EQ(a["labels"]["level"], "error");
  EXPECT_EQ(a["annotations"]["summary"], "Connection from <*> port <*> closed");
  const std::string description = a["annotations"]["description"];
  EXPECT_NE(description.find("1234 lines"), std::string::npos) << description;
  EXPECT_NE(description.find("5m"), std::string::npos) << description;
  EXPECT_NE(description.find("baseline 12.5"), std::string::npos) << description;
  EXPECT_EQ(a["annotations"]["examples"],
            "Connection from 10.0.0.1 port 22 closed\nConnection from 10.0.0.2 port 23 closed");
  EXPECT_EQ(a["startsAt"], "2024-05-01T12:00:00.001Z");
  EXPECT_EQ(a["endsAt"], "0001-01-01T00:00:00Z");
  EXPECT_EQ(a["generatorURL"], "http://logsift.example:8080/clusters/0123456789abcdef");
  const std::string fp = a["fingerprint"];
  EXPECT_EQ(fp.size(), 16u);
  EXPECT_EQ(fp.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(j["commonLabels"], a["labels"]);
  EXPECT_EQ(j["commonAnnotations"], a["annotations"]);
}

TEST(AlertPayload, AlertmanagerResolvedAndMixed) {
  Alert resolved = spike_alert();
  resolved.state = "resolved";
  json j = to_alertmanager_json({resolved}, "ops", "");
  EXPECT_EQ(j["status"], "resolved");
  EXPECT_EQ(j["alerts"][0]["status"], "resolved");
  EXPECT_EQ(j["alerts"][0]["endsAt"], "2024-05-01T12:05:00.000Z");
  EXPECT_EQ(j["alerts"][0]["generatorURL"], "");

  // Same labels -> same fingerprint, whatever the state (it is the identity).
  const json firing = to_alertmanager_json({spike_alert()}, "ops", "");
  EXPECT_EQ(j["alerts"][0]["fingerprint"], firing["alerts"][0]["fingerprint"]);

  Alert other = spike_alert();
  other.rule = "threshold";
  other.cluster_id = "fedcba9876543210";
  other.labels = {{"service", "api"}, {"level", "warn"}};
  j = to_alertmanager_json({resolved, other}, "ops", "");
  EXPECT_EQ(j["status"], "firing");  // any firing alert makes the group firing
  EXPECT_EQ(j["alerts"].size(), 2u);
  EXPECT_EQ(j["commonLabels"], (json{{"rule_id", "rule_errors_spike"}, {"service", "api"}}));
  EXPECT_EQ(j["groupLabels"], json::object());
  EXPECT_EQ(j["groupKey"], "{}:{}");
  EXPECT_NE(j["alerts"][0]["fingerprint"], j["alerts"][1]["fingerprint"]);
}

TEST(AlertPayload, AlertmanagerFingerprintMatchesPrometheus) {
  // FNV-1a 64 of "alertname\xff" "logsift_x\xff" "cluster_id\xff" "c\xff"
  // "rule_id\xff" "r\xff", computed independently with Python:
  //   h=0xcbf29ce484222325
  //   for b in b"alertname\xfflogsift_x\xffcluster_id\xffc\xffrule_id\xffr\xff":
  //       h=((h^b)*0x100000001b3)&(2**64-1)
  Alert a;
  // Move-assigned: GCC 12 -O2 gives a false -Wrestrict on short literal assigns.
  a.rule = std::string("x");
  a.cluster_id = std::string("c");
  a.rule_id = std::string("r");
  a.state = std::string("firing");
  const json j = to_alertmanager_json({a}, "r", "");
  EXPECT_EQ(j["alerts"][0]["fingerprint"], "6ea081d6aee490b4");
}

}  // namespace
}  // namespace logsift::webhook
