// store: redis: real logsift replicas on one real redis-server,
// both started here on loopback / a unix socket and stopped by PID.
#include <chrono>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.h"
#include "webhook_receiver.h"

namespace logsift_it {
namespace {

using json = nlohmann::json;

bool have_redis() { return access("/usr/bin/redis-server", X_OK) == 0; }

// A redis-server listening only on DIR/redis.sock. durable: an append-only
// file synced at every write, so a stop (SIGTERM) and start keeps the data
// (what a production Redis would be configured to do); else no persistence.
struct RedisProcess {
  explicit RedisProcess(bool durable = false) : durable(durable) {}
  bool durable;
  TempDir dir{"logsift-redis-it-"};
  BackgroundProcess proc;
  std::string socket = dir.path() + "/redis.sock";

  ::testing::AssertionResult start() {
    proc = spawn_background({"/usr/bin/redis-server", "--port", "0", "--unixsocket", socket, "--dir", dir.path(),
                             "--save", "", "--appendonly", durable ? "yes" : "no", "--appendfsync", "always"});
    if (proc.pid <= 0) return ::testing::AssertionFailure() << "redis-server: " << proc.error;
    if (!wait_until([&] { return std::filesystem::exists(socket); }, Millis(10000), Millis(20)))
      return ::testing::AssertionFailure() << "redis-server did not open " << socket;
    return ::testing::AssertionSuccess();
  }
  void stop() {
    if (proc.pid > 0) stop_background(proc);
    proc.pid = -1;
  }
  ~RedisProcess() { stop(); }
  std::string url() const { return "unix://" + socket; }
};

ServerOptions replica_options(const RedisProcess& redis) {
  ServerOptions o;
  o.args = {"--store", "redis", "--redis-url", redis.url()};
  return o;
}

// Subscriptions are shared: a replica loads one made on another within
// about a second. True once every replica evaluates `rules` rules.
bool wait_rules(const std::vector<std::unique_ptr<ServerProcess>>& replicas, double rules) {
  return wait_until(
      [&] {
        for (const auto& r : replicas)
          if (fetch_metric(r->http_port(), "logsift_alert_rules").value_or(-1) != rules) return false;
        return true;
      },
      Millis(10000), Millis(100));
}

// The `total` of GET /alerts?status=S on `port` (the outbox is shared); -1
// if the request fails.
long long outbox_total(int port, const std::string& status) {
  auto r = http_get(port, "/alerts?status=" + status + "&limit=1");
  return r.status == 200 ? r.json_body().value("total", -1LL) : -1;
}

// Sum of a metric over the replicas.
double metric_over(const std::vector<std::unique_ptr<ServerProcess>>& replicas, const std::string& name) {
  double sum = 0;
  for (const auto& r : replicas) sum += fetch_metric(r->http_port(), name).value_or(0);
  return sum;
}

// Waits until the receiver has an alert for each of `clusters`.
bool wait_alerted(WebhookReceiver& receiver, const std::set<std::string>& clusters, Millis timeout) {
  return receiver.wait_for(
      [&](const std::vector<ReceivedRequest>& reqs) {
        std::set<std::string> got;
        for (const auto& q : reqs) got.insert(q.json_body().value("cluster_id", ""));
        return std::includes(got.begin(), got.end(), clusters.begin(), clusters.end());
      },
      timeout);
}

// The evidence that no late duplicate alert is on its way: each replica
// turns one more line into a new cluster of its own (a marker); once every
// marker's alert has arrived and nothing is pending, every line before the
// markers went through its replica's aggregator, and all it raised was
// delivered. Returns the markers' cluster ids (empty on failure).
std::set<std::string> settle_with_markers(const std::vector<ServerProcess*>& replicas, WebhookReceiver& receiver,
                                          std::uint64_t seed) {
  std::set<std::string> markers;
  for (size_t i = 0; i < replicas.size(); ++i) {
    auto r = post_infer(replicas[i]->http_port(), distinct_line(seed, i));
    if (r.status != 200 || !r.json_body().value("new", false)) {
      ADD_FAILURE() << "a marker line must open a new cluster: " << r.describe();
      return {};
    }
    markers.insert(r.json_body()["cluster_id"].get<std::string>());
  }
  EXPECT_TRUE(wait_alerted(receiver, markers, Millis(15000))) << "the markers' alerts did not arrive";
  EXPECT_TRUE(wait_until([&] { return outbox_total(replicas[0]->http_port(), "pending") == 0; }, Millis(15000),
                         Millis(50)))
      << http_get(replicas[0]->http_port(), "/alerts?status=pending").describe();
  return markers;
}

json metrics_of(int port, const std::vector<std::string>& names) {
  json j = json::object();
  for (const auto& n : names) j[n] = fetch_metric(port, n).value_or(-1);
  return j;
}

// What the tests share: one redis-server and logsift replicas on it (stopped
// before it: declared after it).
class RedisStore : public ::testing::Test {
 protected:
  ::testing::AssertionResult start_redis(bool durable = false) {
    redis.emplace(durable);
    return redis->start();
  }
  // Starts n more replicas: replica_options(redis) plus `extra` arguments.
  ::testing::AssertionResult start_replicas(int n, const std::vector<std::string>& extra = {}) {
    ServerOptions o = replica_options(*redis);
    o.args.insert(o.args.end(), extra.begin(), extra.end());
    for (int i = 0; i < n; ++i) {
      replicas.push_back(std::make_unique<ServerProcess>(o));
      if (auto started = replicas.back()->start_ready(); !started)
        return started << "\n" << replicas.back()->log_text();
    }
    return ::testing::AssertionSuccess();
  }
  int port(size_t i) const { return replicas[i]->http_port(); }
  // POST /subscriptions of `sub` on replica `on` (201), then every replica evaluates it.
  ::testing::AssertionResult subscribe_all(size_t on, const json& sub) {
    auto r = http_request(port(on), "POST", "/subscriptions", sub.dump(), "application/json");
    if (r.status != 201) return ::testing::AssertionFailure() << "POST /subscriptions: " << r.describe();
    if (!wait_rules(replicas, 1)) return ::testing::AssertionFailure() << "the subscription did not reach every replica";
    return ::testing::AssertionSuccess();
  }

  std::optional<RedisProcess> redis;
  std::vector<std::unique_ptr<ServerProcess>> replicas;
};

// Three replicas on one Redis: whichever replica a line reaches, it gets the
// same cluster id; every replica lists the same catalog, whose counts add up
// to the lines sent to all of them; and a new cluster raises its new_cluster
// alert on exactly one replica (the one whose write created it), although
// each replica has the same subscription.
TEST_F(RedisStore, ThreeReplicasShareOneCatalogAndAlertEachNewClusterOnce) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  ASSERT_TRUE(start_redis());
  ASSERT_TRUE(start_replicas(3));
  WebhookReceiver receiver;
  ASSERT_TRUE(receiver.start());
  // One subscription, made on one replica, holds for all of them.
  json sub = {{"url", "http://127.0.0.1:" + std::to_string(receiver.port()) + "/hook"},
              {"rules", json::array({"new_cluster"})}};
  ASSERT_TRUE(subscribe_all(1, sub));
  for (auto& r : replicas) {
    auto subs = http_get(r->http_port(), "/subscriptions");
    ASSERT_EQ(subs.status, 200);
    EXPECT_EQ(subs.json_body()["subscriptions"].size(), 1u) << subs.describe();
  }

  // 40 statements x 6 values, sprayed round-robin.
  constexpr int kStatements = 40, kValues = 6;
  std::map<int, std::string> id_of;  // statement -> cluster id
  long long sent = 0;
  for (int v = 0; v < kValues; ++v)
    for (int s = 0; s < kStatements; ++s) {
      const std::string line = distinct_line(1414, s) + " after " + std::to_string(100 + 37 * v + s) + " ms";
      auto r = post_infer(replicas[static_cast<size_t>(sent % 3)]->http_port(), line);
      ASSERT_EQ(r.status, 200) << r.describe();
      ++sent;
      const std::string id = r.json_body()["cluster_id"];
      auto [it, fresh] = id_of.emplace(s, id);
      EXPECT_EQ(it->second, id) << "statement " << s << " changed id on replica " << (sent - 1) % 3;
    }
  // The same line on each replica: one id.
  for (int s = 0; s < kStatements; ++s)
    for (auto& r : replicas) {
      auto reply = post_infer(r->http_port(), distinct_line(1414, s) + " after 5 ms");
      ASSERT_EQ(reply.status, 200);
      ++sent;
      EXPECT_EQ(reply.json_body()["cluster_id"], id_of[s]);
    }
  std::set<std::string> ids;
  for (const auto& [s, id] : id_of) ids.insert(id);

  // One catalog: the same clusters and counts on every replica, adding up.
  auto first = cluster_counts(replicas[0]->http_port());
  ASSERT_TRUE(first);
  EXPECT_EQ(total_count(*first), sent);
  EXPECT_EQ(first->size(), ids.size());
  for (const auto& [id, count] : *first) EXPECT_TRUE(ids.count(id)) << id;
  for (size_t i = 1; i < replicas.size(); ++i) {
    auto other = cluster_counts(replicas[i]->http_port());
    ASSERT_TRUE(other);
    EXPECT_EQ(*other, *first) << "replica " << i << " lists another catalog";
  }
  // A bank mined from the shared catalog is the same whichever replica mines it.
  auto mined0 = http_get(replicas[0]->http_port(), "/clusters/mined-bank");
  auto mined2 = http_get(replicas[2]->http_port(), "/clusters/mined-bank");
  ASSERT_EQ(mined0.status, 200) << mined0.describe();
  ASSERT_EQ(mined2.status, 200) << mined2.describe();
  const std::string n = std::to_string(ids.size());
  EXPECT_EQ(mined0.body.rfind("# mined from the catalog: the " + n + " most counted clusters of " + n + "\n", 0), 0u)
      << mined0.body;
  EXPECT_NE(mined0.body.find("# from " + std::to_string(sent) + " sample lines"), std::string::npos) << mined0.body;
  EXPECT_EQ(mined0.body, mined2.body);
  auto one = http_get(replicas[2]->http_port(), "/clusters/" + id_of[0]);
  ASSERT_EQ(one.status, 200) << one.describe();
  EXPECT_EQ(one.json_body()["count"], kValues + 3);
  EXPECT_FALSE(one.json_body()["examples"].empty());

  // Exactly one new_cluster alert per cluster, over all three replicas.
  ASSERT_TRUE(wait_alerted(receiver, ids, Millis(30000))) << "not every new cluster was alerted";
  const auto markers =
      settle_with_markers({replicas[0].get(), replicas[1].get(), replicas[2].get()}, receiver, 1415);
  ASSERT_EQ(markers.size(), replicas.size());
  std::map<std::string, int> alerts_per_cluster;
  for (const auto& q : receiver.requests()) {
    const json a = q.json_body();
    if (a.value("rule", "") == "new_cluster" && !markers.count(a.value("cluster_id", "")))
      ++alerts_per_cluster[a.value("cluster_id", "")];
  }
  EXPECT_EQ(alerts_per_cluster.size(), ids.size());
  for (const auto& [id, n] : alerts_per_cluster) EXPECT_EQ(n, 1) << "cluster " << id << " alerted " << n << " times";
  std::cout << "[ redis-store ] replicas=3 lines=" << sent << " clusters=" << ids.size()
            << " new_cluster_alerts=" << receiver.requests().size() - markers.size() << std::endl;
}

// A threshold rule on three replicas, with the lines sprayed across them:
// no replica alone reaches the threshold (each gets a third of the lines),
// but each one's windows count the others' lines (the shared counts), so
// all three see the rule cross at about the same moment; the claim lets
// exactly one of them send the alert. Every replica also answers the same
// series for the cluster.
TEST_F(RedisStore, ARuleCrossingOnThreeReplicasSendsOneAlert) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  ASSERT_TRUE(start_redis());
  ASSERT_TRUE(start_replicas(3));
  WebhookReceiver receiver;
  ASSERT_TRUE(receiver.start());
  constexpr int kThreshold = 30, kLines = 60;
  json sub = {{"url", receiver.url()},
              {"rules", json::array({{{"kind", "threshold"}, {"threshold", kThreshold}, {"window", "5m"}}})}};
  ASSERT_TRUE(subscribe_all(0, sub));

  std::string id;
  for (int i = 0; i < kLines; ++i) {
    auto r = post_infer(replicas[static_cast<size_t>(i % 3)]->http_port(),
                        "payment gateway timeout for order " + std::to_string(100000 + 7919 * i));
    ASSERT_EQ(r.status, 200) << r.describe();
    if (id.empty()) id = r.json_body()["cluster_id"];
    ASSERT_EQ(r.json_body()["cluster_id"], id);
  }
  ASSERT_TRUE(receiver.wait_for_count(1, Millis(15000))) << "no replica alerted";
  // Every replica has now counted all the lines: all three crossed.
  for (auto& r : replicas) {
    bool all = wait_until(
        [&] {
          auto series = http_get(r->http_port(), "/clusters/" + id + "/series?window=5m");
          return series.status == 200 && series.json_body().value("total", 0) == kLines;
        },
        Millis(10000), Millis(100));
    EXPECT_TRUE(all) << "replica " << r->http_port() << ": "
                     << http_get(r->http_port(), "/clusters/" + id + "/series?window=5m").describe();
  }
  // A second alert would come from a replica that did not lose the claim:
  // once every replica has decided its crossing (raised, and lost the claim
  // or sent) and nothing is pending, no second alert is on its way.
  EXPECT_TRUE(wait_until(
      [&] {
        return metric_over(replicas, "logsift_alerts_raised_total") == 3 &&
               metric_over(replicas, "logsift_alert_claims_lost_total") == 2 &&
               outbox_total(replicas[0]->http_port(), "pending") == 0;
      },
      Millis(15000), Millis(100)))
      << metrics_of(replicas[0]->http_port(), {"logsift_alerts_raised_total", "logsift_alert_claims_lost_total"});
  int firing = 0;
  for (const auto& q : receiver.requests()) {
    const json a = q.json_body();
    EXPECT_EQ(a.value("cluster_id", ""), id);
    firing += a.value("state", "") == "firing";
  }
  EXPECT_EQ(firing, 1) << "alerts received: " << receiver.requests().size();
  double lost = 0, raised = 0;
  for (auto& r : replicas) {
    lost += fetch_metric(r->http_port(), "logsift_alert_claims_lost_total").value_or(0);
    raised += fetch_metric(r->http_port(), "logsift_alerts_raised_total").value_or(0);
  }
  EXPECT_EQ(raised, 3) << "each replica should have seen the rule cross once";
  EXPECT_EQ(lost, 2);
  std::cout << "[ redis-rule ] replicas=3 lines=" << kLines << " threshold=" << kThreshold << " raised=" << raised
            << " claims_lost=" << lost << " delivered=" << receiver.requests().size() << std::endl;
}

// kill -9 of a replica that holds undelivered alerts while their receiver
// is down: another replica takes them over once they have been idle for
// redis_claim_idle_ms, and when the receiver comes up every alert arrives
// exactly once, with the webhook-id it had from the start.
TEST_F(RedisStore, AlertsOfAKilledReplicaAreDeliveredOnceByAnother) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  ASSERT_TRUE(start_redis());
  ASSERT_TRUE(start_replicas(2, {"--redis-claim-idle-ms", "2000", "--delivery-first-retry-ms", "200",
                               "--delivery-max-backoff-ms", "500"}));
  PortReservation down;  // the receiver's port: connects are refused until it listens
  json sub = {{"url", down.url()}, {"rules", json::array({"new_cluster"})}};
  ASSERT_TRUE(subscribe_all(0, sub));

  constexpr int kClusters = 20;
  for (int s = 0; s < kClusters; ++s) ASSERT_EQ(post_infer(replicas[0]->http_port(), distinct_line(2718, s)).status, 200);
  // Replica 0 raised them all and is retrying them against the dead port.
  const int victim = replicas[0]->http_port();
  ASSERT_TRUE(wait_until([&] { return fetch_metric(victim, "logsift_alerts_enqueued_total").value_or(0) == kClusters &&
                                      fetch_metric(victim, "logsift_alert_attempts_failed_total").value_or(0) >= kClusters; },
                         Millis(15000), Millis(100)))
      << metrics_of(victim, {"logsift_alerts_enqueued_total", "logsift_alert_attempts_failed_total"}).dump();
  auto before = http_get(replicas[1]->http_port(), "/alerts?status=pending&limit=100");
  ASSERT_EQ(before.status, 200);
  std::set<std::string> pending;
  const json listed = before.json_body();
  for (const auto& a : listed["alerts"]) pending.insert(a["id"].get<std::string>());
  ASSERT_EQ(pending.size(), static_cast<size_t>(kClusters)) << before.describe();

  auto killed = replicas[0]->stop(SIGKILL);
  EXPECT_EQ(killed.signal, SIGKILL) << killed.describe();
  WebhookReceiver receiver;
  ASSERT_TRUE(receiver.start(down));
  const int survivor = replicas[1]->http_port();
  const bool all = receiver.wait_for(
      [&](const std::vector<ReceivedRequest>& reqs) {
        std::set<std::string> got;
        for (const auto& q : reqs) got.insert(q.webhook_id());
        return got.size() >= static_cast<size_t>(kClusters);
      },
      Millis(30000));
  EXPECT_TRUE(all) << replicas[1]->log_text();
  // Once every alert is marked delivered and none is pending, nothing is
  // left that could be sent again.
  EXPECT_TRUE(wait_until(
      [&] {
        return outbox_total(survivor, "delivered") == kClusters && outbox_total(survivor, "pending") == 0;
      },
      Millis(15000), Millis(100)))
      << http_get(survivor, "/alerts?status=pending").describe();
  std::map<std::string, int> per_id;
  for (const auto& q : receiver.requests()) ++per_id[q.webhook_id()];
  std::set<std::string> delivered;
  int duplicated = 0;
  for (const auto& [id, n] : per_id) {
    delivered.insert(id);
    duplicated += n - 1;
  }
  EXPECT_EQ(delivered, pending) << "the receiver got other ids than the outbox held";
  EXPECT_EQ(duplicated, 0);
  const double taken = fetch_metric(survivor, "logsift_alerts_taken_over_total").value_or(0);
  EXPECT_GE(taken, 1.0) << "the survivor took nothing over";
  auto after = http_get(survivor, "/alerts?status=delivered&limit=100");
  EXPECT_EQ(after.json_body().value("total", 0), kClusters) << after.describe();
  std::cout << "[ redis-kill9 ] alerts=" << kClusters << " delivered=" << delivered.size()
            << " duplicated=" << duplicated << " lost=" << (pending.size() - delivered.size())
            << " taken_over=" << taken << std::endl;
}

// Redis goes away under a running replica and comes back, with a small
// write buffer: lines are still answered while the buffer has room (ids
// need no Redis), /readyz says degraded, the metrics show what waits; once
// the buffer is full, lines are refused with 503 and a JSON reason (counted),
// never accepted and dropped. When Redis is back the buffered writes land:
// the catalog holds every line that was answered 200, exactly once, and each
// cluster born during the outage gets its new_cluster alert then, once.
TEST_F(RedisStore, RedisDownBuffersWritesThenRefusesWith503AndLosesNothing) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  ASSERT_TRUE(start_redis(/*durable=*/true));
  ASSERT_TRUE(start_replicas(1, {"--redis-timeout-ms", "500", "--redis-buffer-bytes", "6000"}));
  ServerProcess& replica = *replicas[0];
  const int http = replica.http_port();
  WebhookReceiver receiver;
  ASSERT_TRUE(receiver.start());
  json sub = {{"url", receiver.url()}, {"rules", json::array({"new_cluster"})}};
  ASSERT_EQ(http_request(http, "POST", "/subscriptions", sub.dump(), "application/json").status, 201);
  long long accepted = 0;
  ASSERT_EQ(post_infer(http, "disk quota exceeded for volume 7").status, 200);
  ++accepted;
  EXPECT_EQ(http_get(http, "/readyz").status, 200);
  // Its new_cluster alert is out and recorded before Redis goes.
  ASSERT_TRUE(wait_until(
      [&] { return http_get(http, "/alerts?status=delivered").json_body().value("total", 0) == 1; }, Millis(10000),
      Millis(50)));

  redis->stop();
  int refused = 0;
  std::string refusal;
  for (int i = 0; i < 200 && refused == 0; ++i) {
    auto r = post_infer(http, distinct_line(5150, i) + " on volume " + std::to_string(i));
    if (r.status == 200) {
      ++accepted;
      // Whether its cluster is new cannot be known while Redis is away: the
      // reply says so (null), it does not guess.
      EXPECT_TRUE(r.json_body()["new"].is_null()) << r.describe();
    } else {
      EXPECT_EQ(r.status, 503) << r.describe();
      refusal = r.json_body().value("error", "");
      ++refused;
    }
  }
  EXPECT_GT(accepted, 5) << "the buffer took nothing";
  ASSERT_EQ(refused, 1) << "the buffer never filled";
  EXPECT_NE(refusal.find("buffer is full"), std::string::npos) << refusal;
  auto ready = http_get(http, "/readyz");
  EXPECT_EQ(ready.status, 503) << ready.describe();
  EXPECT_EQ(ready.json_body().value("status", ""), "degraded") << ready.describe();
  EXPECT_EQ(ready.json_body().value("store", ""), "redis unreachable") << ready.describe();
  EXPECT_EQ(http_get(http, "/healthz").status, 200);  // alive: a restart would not help
  EXPECT_EQ(fetch_metric(http, "logsift_redis_buffered_lines").value_or(0), accepted - 1);
  EXPECT_GE(fetch_metric(http, "logsift_redis_buffer_rejected_total").value_or(0), 1.0);
  EXPECT_GE(fetch_metric(http, "logsift_redis_errors_total").value_or(0), 1.0);
  auto listing = http_get(http, "/clusters");
  EXPECT_EQ(listing.status, 503) << listing.describe();  // reads need Redis: a clear 503, not a 500
  EXPECT_TRUE(listing.json_body().contains("error")) << listing.describe();

  ASSERT_TRUE(redis->start());  // the same data (append-only file)
  bool drained = wait_until([&] { return fetch_metric(http, "logsift_redis_buffered_lines").value_or(-1) == 0; },
                            Millis(10000), Millis(100));
  EXPECT_TRUE(drained) << replica.log_text();
  EXPECT_TRUE(wait_until([&] { return http_get(http, "/readyz").status == 200; }, Millis(10000), Millis(100)));
  ASSERT_EQ(post_infer(http, "disk quota exceeded for volume 9").status, 200);
  ++accepted;
  auto counts = cluster_counts(http);
  ASSERT_TRUE(counts);
  EXPECT_EQ(total_count(*counts), accepted) << "lines answered 200 are missing from (or doubled in) the catalog";
  // One new_cluster alert per cluster in the catalog, the outage's included.
  const bool alerted = receiver.wait_for(
      [&](const std::vector<ReceivedRequest>& reqs) {
        std::set<std::string> got;
        for (const auto& q : reqs) got.insert(q.json_body().value("cluster_id", ""));
        return got.size() >= counts->size();
      },
      Millis(15000));
  EXPECT_TRUE(alerted) << receiver.requests().size() << " alerts for " << counts->size() << " clusters";
  const auto markers = settle_with_markers({&replica}, receiver, 5151);
  ASSERT_EQ(markers.size(), 1u);
  std::map<std::string, std::set<std::string>> ids_per_cluster;  // cluster -> webhook-ids
  std::size_t marker_requests = 0;
  for (const auto& q : receiver.requests()) {
    const std::string cluster = q.json_body().value("cluster_id", "");
    if (markers.count(cluster)) ++marker_requests;
    else ids_per_cluster[cluster].insert(q.webhook_id());
  }
  EXPECT_EQ(ids_per_cluster.size(), counts->size());
  for (const auto& [id, ids] : ids_per_cluster) {
    EXPECT_TRUE(counts->count(id)) << id;
    EXPECT_EQ(ids.size(), 1u) << "cluster " << id << " raised " << ids.size() << " alerts";
  }
  const size_t redelivered = receiver.requests().size() - marker_requests - ids_per_cluster.size();
  EXPECT_EQ(redelivered, 0u) << "an alert reached the receiver twice";
  EXPECT_TRUE(replica.running());
  std::cout << "[ redis-down ] accepted=" << accepted << " refused=" << refused << " clusters=" << counts->size()
            << " catalog_total=" << total_count(*counts) << " new_cluster_alerts=" << ids_per_cluster.size()
            << " duplicated=" << redelivered << std::endl;
}

// Redis stopped for 30 s under a steady load on two replicas, then started:
// no crash, every line answered 200 is in the catalog exactly once (nothing
// acknowledged lost), and the counts converge on both replicas.
TEST_F(RedisStore, RedisStoppedForThirtySecondsUnderLoadLosesNothing) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  ASSERT_TRUE(start_redis(/*durable=*/true));
  ASSERT_TRUE(start_replicas(2, {"--redis-timeout-ms", "500"}));
  // One load thread per replica: 20-line NDJSON requests, ~100 a second.
  std::atomic<bool> stop{false};
  std::atomic<long long> acked{0}, refused{0}, failed{0};
  std::vector<std::thread> load;
  for (size_t r = 0; r < replicas.size(); ++r)
    load.emplace_back([&, r] {
      const int port = replicas[r]->http_port();
      for (int i = 0; !stop; ++i) {
        std::string body;
        for (int k = 0; k < 20; ++k)
          body += json{{"text", distinct_line(77, (i * 20 + k) % 300) + " took " + std::to_string(i + k) + " ms"}}
                      .dump() + "\n";
        auto res = http_request(port, "POST", "/inferences", body, "application/x-ndjson");
        if (res.status == 200) acked += 20;
        else if (res.status == 503) refused += 20;
        else ++failed;
        let_time_pass(Millis(10));  // load pacing
      }
    });
  // The scenario is defined in time: steady load for 3 s, an outage of 30 s
  // under it, then 3 s more with Redis back.
  let_time_pass(Millis(3000));
  const long long before = acked.load();
  redis->stop();
  let_time_pass(Millis(30000));
  const long long during = acked.load() - before;
  bool degraded = true;
  for (auto& r : replicas) degraded = degraded && http_get(r->http_port(), "/readyz").status == 503;
  const double buffered = fetch_metric(replicas[0]->http_port(), "logsift_redis_buffered_lines").value_or(0) +
                          fetch_metric(replicas[1]->http_port(), "logsift_redis_buffered_lines").value_or(0);
  ASSERT_TRUE(redis->start());
  let_time_pass(Millis(3000));
  stop = true;
  for (auto& t : load) t.join();
  for (auto& r : replicas)
    EXPECT_TRUE(wait_until([&] { return fetch_metric(r->http_port(), "logsift_redis_buffered_lines").value_or(-1) == 0; },
                           Millis(15000), Millis(100)));
  EXPECT_TRUE(degraded) << "readiness did not report the outage";
  EXPECT_GT(during, 1000) << "ingest stopped answering while Redis was away";
  EXPECT_EQ(refused.load(), 0);  // the default buffer is far from full at this rate
  EXPECT_EQ(failed.load(), 0);
  auto a = cluster_counts(replicas[0]->http_port());
  auto b = cluster_counts(replicas[1]->http_port());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(total_count(*a), acked.load()) << "acknowledged lines lost or counted twice";
  EXPECT_EQ(*a, *b) << "the replicas list different counts";
  for (auto& r : replicas) EXPECT_TRUE(r->running());
  std::cout << "[ redis-outage ] replicas=2 outage_s=30 acked=" << acked.load() << " acked_during_outage=" << during
            << " buffered_at_end_of_outage=" << buffered << " refused=" << refused.load()
            << " catalog_total=" << total_count(*a) << std::endl;
}

// Queue ingest: a producer XADDs lines to a stream before any replica runs;
// a consumer of the group ("ghost") reads some and dies without acking. Two
// replicas then consume the stream through the group: every line lands in
// the catalog once (the ghost's entries taken over after
// redis_claim_idle_ms), the entries are acknowledged (nothing left pending),
// and entries that can never succeed (no "line" field, an empty line) are
// counted as rejected and acknowledged rather than retried forever.
TEST_F(RedisStore, QueueIngestFeedsTheFleetAndAcksWhatIsInTheCatalog) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  ASSERT_TRUE(start_redis());
  // redis-cli reads one command per line from stdin.
  constexpr int kLines = 600;
  std::string commands;
  for (int i = 0; i < kLines; ++i) {
    std::string line = distinct_line(3141, i % 60) + " in " + std::to_string(10 + i) + " ms";
    if (i % 3 == 0)  // a JSON line with labels, as on the TCP port
      line = json{{"message", line}, {"service", "billing"}}.dump();
    std::string quoted;
    for (char c : line) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    commands += "XADD logs * line \"" + quoted + "\"\n";
  }
  commands += "XADD logs * payload \"no line field\"\nXADD logs * line \"\"\n";
  auto produced = run_program({"/usr/bin/redis-cli", "-s", redis->socket},
                              "XGROUP CREATE logs logsift 0 MKSTREAM\n" + commands +
                                  "XREADGROUP GROUP logsift ghost COUNT 25 STREAMS logs >\n");
  ASSERT_TRUE(produced.exit.clean()) << produced.describe();
  auto ghost = run_program({"/usr/bin/redis-cli", "-s", redis->socket, "XPENDING", "logs", "logsift"});
  ASSERT_EQ(ghost.out.substr(0, 3), "25\n") << ghost.describe();
  ASSERT_TRUE(start_replicas(2, {"--redis-ingest-stream", "logs", "--redis-claim-idle-ms", "1000"}));

  const bool landed = wait_until(
      [&] {
        auto c = cluster_counts(replicas[0]->http_port());
        return c && total_count(*c) == kLines;
      },
      Millis(30000), Millis(200));
  auto counts = cluster_counts(replicas[0]->http_port());
  ASSERT_TRUE(counts);
  EXPECT_TRUE(landed) << "catalog total " << total_count(*counts) << " of " << kLines;
  EXPECT_EQ(counts->size(), 60u);
  double read = 0, acked = 0;
  EXPECT_TRUE(wait_until(
      [&] {
        read = acked = 0;
        for (auto& r : replicas) {
          read += fetch_metric(r->http_port(), "logsift_queue_entries_total").value_or(0);
          acked += fetch_metric(r->http_port(), "logsift_queue_acked_total").value_or(0);
        }
        return acked == kLines + 2;
      },
      Millis(10000), Millis(100)))
      << "read " << read << " acked " << acked;
  EXPECT_EQ(read, kLines + 2);
  auto pending = run_program({"/usr/bin/redis-cli", "-s", redis->socket, "XPENDING", "logs", "logsift"});
  EXPECT_EQ(pending.out.substr(0, 2), "0\n") << pending.describe();  // nothing left unacknowledged
  double rejected = 0;
  for (auto& r : replicas) {
    rejected += fetch_metric(r->http_port(), "logsift_rejected_total").value_or(0);
    EXPECT_TRUE(r->running());
  }
  EXPECT_EQ(rejected, 2);
  std::cout << "[ redis-queue ] replicas=2 entries=" << kLines + 2 << " read=" << read << " acked=" << acked
            << " rejected=" << rejected << " catalog_total=" << total_count(*counts) << std::endl;
}

// A replica that cannot reach its Redis at start says so and exits non-zero,
// instead of serving a catalog nobody else sees.
// Redis restarted without persistence under two replicas: all keys gone.
// Every replica, not only the first to look, counts the loss and logs it at
// error level (the second finds the marker of another epoch, set by the
// first's re-seed); the subscriptions come back from the replicas' copies and
// the delivery group is made again, so the next new cluster is alerted once.
TEST_F(RedisStore, RedisThatLostItsDataIsDetectedCountedAndReseeded) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  ASSERT_TRUE(start_redis());
  ASSERT_TRUE(start_replicas(2));
  WebhookReceiver receiver;
  ASSERT_TRUE(receiver.start());
  json sub = {{"url", "http://127.0.0.1:" + std::to_string(receiver.port()) + "/hook"},
              {"rules", json::array({"new_cluster"})}};
  ASSERT_TRUE(subscribe_all(0, sub));
  const std::string sub_id = http_get(port(0), "/subscriptions").json_body()["subscriptions"][0].value("id", "");
  auto before = post_infer(port(0), distinct_line(5150, 0));
  ASSERT_TRUE(before.status == 200 && before.json_body().value("new", false)) << before.describe();
  ASSERT_TRUE(wait_alerted(receiver, {before.json_body()["cluster_id"].get<std::string>()}, Millis(10000)));

  redis->stop();
  ASSERT_TRUE(redis->start());  // the same socket, no data

  const auto restarted = std::chrono::steady_clock::now();
  for (size_t i = 0; i < replicas.size(); ++i) {
    EXPECT_TRUE(wait_until([&] { return fetch_metric(port(i), "logsift_redis_data_lost_total").value_or(0) >= 1; },
                           Millis(15000), Millis(50)))
        << "replica " << i << " never counted the loss: "
        << metrics_of(port(i), {"logsift_redis_data_lost_total", "logsift_redis_errors_total"}).dump();
    std::cout << "[ redis-data-loss ] replica " << i << " counted it after "
              << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - restarted).count()
              << " ms" << std::endl;
  }
  for (const auto& r : replicas)
    EXPECT_TRUE(wait_until([&] { return r->log_text().find("Redis lost its data") != std::string::npos; }, Millis(5000)))
        << r->log_text();
  EXPECT_EQ(metric_over(replicas, "logsift_redis_data_lost_total"), 2) << "each replica counts the one loss once";
  // Re-seeded: the subscription is back on every replica, both ready.
  for (size_t i = 0; i < replicas.size(); ++i) {
    EXPECT_TRUE(wait_until([&] { return http_get(port(i), "/readyz").status == 200; }, Millis(10000)));
    auto subs = http_get(port(i), "/subscriptions");
    ASSERT_EQ(subs.status, 200);
    ASSERT_EQ(subs.json_body()["subscriptions"].size(), 1u) << subs.describe();
    EXPECT_EQ(subs.json_body()["subscriptions"][0].value("id", ""), sub_id);
  }
  // Delivery works again: a new cluster is alerted, once. Its reply says
  // new: true, or null when the first write after the restart broke on the
  // old connection and was buffered (the alert follows when it lands), never
  // false for a cluster nobody saw.
  auto after = post_infer(port(1), distinct_line(6160, 1));
  ASSERT_EQ(after.status, 200) << after.describe();
  EXPECT_TRUE(after.json_body()["new"].is_null() || after.json_body()["new"] == true) << after.describe();
  const std::string cid = after.json_body()["cluster_id"].get<std::string>();
  ASSERT_NE(cid, before.json_body()["cluster_id"].get<std::string>());
  EXPECT_TRUE(wait_alerted(receiver, {cid}, Millis(15000))) << replicas[1]->log_text();
  int copies = 0;
  for (const auto& q : receiver.requests()) copies += q.json_body().value("cluster_id", "") == cid;
  EXPECT_EQ(copies, 1);
}

// A rolling upgrade on one Redis: two replicas of the old contract (LSH
// seed 4242), then one of the new. The new one migrates the shared catalog
// (one replica, under a lock); from then on the old ones refuse to write
// (503 naming both contracts, not ready) instead of mixing their ids in;
// the same events raise no new_cluster alert, old ids answer, counts carry;
// a second new replica finds the store migrated and migrates nothing.
TEST_F(RedisStore, ARollingUpgradeMigratesOnceAndNeverMixesContracts) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  ASSERT_TRUE(start_redis());
  ASSERT_TRUE(start_replicas(2, {"--lsh-seed", "4242"}));
  WebhookReceiver receiver;
  ASSERT_TRUE(receiver.start());
  ASSERT_TRUE(subscribe_all(0, {{"url", "http://127.0.0.1:" + std::to_string(receiver.port()) + "/hook"},
                                {"rules", json::array({"new_cluster"})}}));
  const std::vector<std::string> events = {"Connection from 10.0.0.1 closed after 35 seconds",
                                           "User alice logged in from host web-1", "Disk /dev/sda1 is 91% full",
                                           "Job 4711 finished in 120 ms"};
  std::vector<std::string> old_ids;
  long long acknowledged = 0;
  for (int round = 0; round < 3; ++round)
    for (const auto& e : events) {
      auto r = post_infer(port(static_cast<size_t>(round % 2)), e);
      ASSERT_EQ(r.status, 200) << r.describe();
      if (round == 0) old_ids.push_back(r.json_body()["cluster_id"].get<std::string>());
      ++acknowledged;
    }
  ASSERT_TRUE(receiver.wait_for_count(events.size(), Millis(15000)));

  // The new release: no seed flag, another contract.
  ServerOptions o = replica_options(*redis);
  replicas.push_back(std::make_unique<ServerProcess>(o));
  ASSERT_TRUE(replicas.back()->start_ready()) << replicas.back()->log_text();
  const int fresh = replicas.back()->http_port();
  const json info = http_get(fresh, "/info").json_body();
  ASSERT_EQ(info["migrations"].size(), 1u) << info.dump();
  EXPECT_EQ(info["migrations"][0].value("mapped", 0), 4);

  // The old replicas now refuse to write, and say why.
  for (size_t i = 0; i < 2; ++i) {
    auto w = post_infer(port(i), events[0]);
    EXPECT_EQ(w.status, 503) << w.describe();
    EXPECT_NE(w.json_body().value("error", "").find("contract"), std::string::npos) << w.describe();
    EXPECT_TRUE(wait_until([&] { return http_get(port(i), "/readyz").status == 503; }, Millis(5000)));
  }
  // The new one: the same events are known, old ids answer, counts carry.
  for (size_t i = 0; i < events.size(); ++i) {
    auto r = post_infer(fresh, events[i]);
    ASSERT_EQ(r.status, 200) << r.describe();
    EXPECT_FALSE(r.json_body().value("new", true)) << events[i];
    ++acknowledged;
    auto old = http_get(fresh, "/clusters/" + old_ids[i]);
    ASSERT_EQ(old.status, 200) << old.describe();
    EXPECT_EQ(old.json_body().value("cluster_id", ""), r.json_body().value("cluster_id", ""));
    EXPECT_EQ(old.json_body().value("count", 0), 4);
  }
  // A marker's alert arrives, and nothing else did.
  auto marker = post_infer(fresh, "marker event 3c9e never seen before the upgrade");
  ASSERT_EQ(marker.status, 200);
  ++acknowledged;
  EXPECT_TRUE(wait_alerted(receiver, {marker.json_body()["cluster_id"].get<std::string>()}, Millis(15000)));
  EXPECT_EQ(receiver.count(), events.size() + 1) << "the upgrade raised new_cluster alerts for known events";

  // Another replica of the new release: nothing to migrate.
  replicas.push_back(std::make_unique<ServerProcess>(o));
  ASSERT_TRUE(replicas.back()->start_ready());
  EXPECT_EQ(http_get(replicas.back()->http_port(), "/info").json_body()["migrations"].size(), 1u);
  EXPECT_EQ(post_infer(replicas.back()->http_port(), events[1]).json_body().value("new", true), false);
  ++acknowledged;
  auto counts = cluster_counts(fresh);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->size(), events.size() + 1);
  EXPECT_EQ(total_count(*counts), acknowledged);
}

// Curation on Redis is one log for every replica: a merge taken on one
// replica sends the next line of the merged cluster to the cluster it
// joined on the other within about a second (its state tick); two replicas
// merging the same cluster into different ones at once: one is written,
// the other refused with 409, never both.
TEST_F(RedisStore, CurationIsOneLogThatEveryReplicaFollowsAndEditsDoNotRace) {
  if (!have_redis()) GTEST_SKIP() << "redis-server is not installed";
  ASSERT_TRUE(start_redis());
  ASSERT_TRUE(start_replicas(2));
  auto id_on = [&](size_t replica, const std::string& text) {
    return post_infer(port(replica), text).json_body().value("cluster_id", "");
  };
  const std::string a = id_on(0, "Payment 7731 declined by issuer for card ending 4242");
  const std::string b = id_on(0, "Cache node cache-3 evicted 1200 keys under memory pressure");
  const std::string c = id_on(0, "Job nightly-export finished with 0 errors in 42 s");
  ASSERT_TRUE(is_hex16(a) && is_hex16(b) && is_hex16(c));
  auto merge = [&](size_t replica, const std::string& from, const std::string& into) {
    return http_request(port(replica), "POST", "/clusters/" + from + "/merge", json{{"into", into}}.dump(),
                        "application/json");
  };
  ASSERT_EQ(merge(0, a, b).status, 201);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(wait_until([&] { return id_on(1, "Payment 9000 declined by issuer for card ending 1111") == b; },
                         Millis(5000), Millis(50)))
      << "the other replica never followed the merge";
  const auto took_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LE(took_ms, 1000) << "a merge reaches the next line on every replica within a second";
  std::cout << "the merge reached the other replica's replies after " << took_ms << " ms\n";
  EXPECT_EQ(http_get(port(1), "/clusters/" + a).json_body().value("cluster_id", ""), b);

  // The same cluster merged into two others on two replicas at once.
  ASSERT_EQ(http_request(port(0), "POST", "/curation/1/undo", "", "application/json").status, 201);
  for (int round = 0; round < 5; ++round) {
    HttpResponse r0, r1;
    std::thread t([&] { r0 = merge(0, a, b); });
    r1 = merge(1, a, c);
    t.join();
    const int ok = (r0.status == 201) + (r1.status == 201);
    ASSERT_EQ(ok, 1) << "round " << round << ": " << r0.describe() << " / " << r1.describe();
    EXPECT_EQ(r0.status == 201 ? r1.status : r0.status, 409);
    const json log = http_get(port(0), "/curation").json_body();
    const std::string winner = r0.status == 201 ? b : c;
    EXPECT_EQ(log["merged"].value(a, ""), winner);
    // Both replicas agree, then the merge is undone for the next round.
    const int seq = (r0.status == 201 ? r0 : r1).json_body().value("seq", 0);
    ASSERT_EQ(http_request(port(1), "POST", "/curation/" + std::to_string(seq) + "/undo", "", "application/json").status,
              201);
  }
  EXPECT_EQ(http_get(port(1), "/curation").json_body().value("version", 0), 12);
}

TEST_F(RedisStore, UnreachableRedisFailsTheStartWithAClearError) {
  TempDir dir("logsift-redis-none-");
  auto r = run_logsift({"serve", "--http-port", "0", "--tcp-port", "0", "--syslog-port", "-1", "--data-dir",
                        dir.path() + "/data", "--store", "redis", "--redis-url", "unix://" + dir.path() + "/none.sock",
                        "--redis-timeout-ms", "500"},
                       "", {}, Millis(20000));
  EXPECT_TRUE(r.exit.exited && r.exit.code != 0) << r.describe();
  EXPECT_NE((r.out + r.err).find("none.sock"), std::string::npos) << r.describe();
  auto bad = run_logsift({"serve", "--store", "redis", "--redis-url", "redis://ops:hunter2hunter2@cache:0"}, "", {},
                         Millis(20000));
  EXPECT_TRUE(bad.exit.exited && bad.exit.code != 0) << bad.describe();
  EXPECT_NE((bad.out + bad.err).find("redis_url"), std::string::npos) << bad.describe();
  EXPECT_EQ((bad.out + bad.err).find("hunter2"), std::string::npos) << bad.describe();
}

}  // namespace
}  // namespace logsift_it
