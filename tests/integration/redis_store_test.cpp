// store: redis (issue 14): real logsift replicas on one real redis-server,
// both started here on loopback / a unix socket and stopped by PID.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
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

// A redis-server listening only on DIR/redis.sock, no persistence.
struct RedisProcess {
  TempDir dir{"logsift-redis-it-"};
  BackgroundProcess proc;
  std::string socket = dir.path() + "/redis.sock";

  ::testing::AssertionResult start() {
    proc = spawn_background({"/usr/bin/redis-server", "--port", "0", "--unixsocket", socket, "--dir", dir.path(),
                             "--save", "", "--appendonly", "no"});
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

// Three replicas on one Redis: whichever replica a line reaches, it gets the
// same cluster id; every replica lists the same catalog, whose counts add up
// to the lines sent to all of them; and a new cluster raises its new_cluster
// alert on exactly one replica (the one whose write created it), although
// each replica has the same subscription.
TEST(RedisStore, ThreeReplicasShareOneCatalogAndAlertEachNewClusterOnce) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  RedisProcess redis;
  ASSERT_TRUE(redis.start());
  std::vector<std::unique_ptr<ServerProcess>> replicas;
  for (int i = 0; i < 3; ++i) {
    replicas.push_back(std::make_unique<ServerProcess>(replica_options(redis)));
    ASSERT_TRUE(replicas.back()->start_ready()) << replicas.back()->log_text();
  }
  WebhookReceiver receiver;
  ASSERT_TRUE(receiver.start());
  for (auto& r : replicas) {
    json sub = {{"url", "http://127.0.0.1:" + std::to_string(receiver.port()) + "/hook"},
                {"rules", json::array({"new_cluster"})}};
    ASSERT_EQ(http_request(r->http_port(), "POST", "/subscriptions", sub.dump(), "application/json").status, 201);
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
  auto one = http_get(replicas[2]->http_port(), "/clusters/" + id_of[0]);
  ASSERT_EQ(one.status, 200) << one.describe();
  EXPECT_EQ(one.json_body()["count"], kValues + 3);
  EXPECT_FALSE(one.json_body()["examples"].empty());

  // Exactly one new_cluster alert per cluster, over all three replicas.
  const bool all = receiver.wait_for(
      [&](const std::vector<ReceivedRequest>& reqs) {
        std::set<std::string> got;
        for (const auto& q : reqs) got.insert(q.json_body().value("cluster_id", ""));
        return std::includes(got.begin(), got.end(), ids.begin(), ids.end());
      },
      Millis(30000));
  ASSERT_TRUE(all) << "not every new cluster was alerted";
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // late duplicates would arrive by now
  std::map<std::string, int> alerts_per_cluster;
  for (const auto& q : receiver.requests()) {
    const json a = q.json_body();
    if (a.value("rule", "") == "new_cluster") ++alerts_per_cluster[a.value("cluster_id", "")];
  }
  EXPECT_EQ(alerts_per_cluster.size(), ids.size());
  for (const auto& [id, n] : alerts_per_cluster) EXPECT_EQ(n, 1) << "cluster " << id << " alerted " << n << " times";
  std::cout << "[ redis-store ] replicas=3 lines=" << sent << " clusters=" << ids.size()
            << " new_cluster_alerts=" << receiver.requests().size() << std::endl;
}

// Redis goes away under a running replica and comes back: writes fail with
// an error reply (never a silent 200), /readyz says degraded, the metrics
// count the failures; once Redis is back the next batch reconnects, loads
// its script again and everything is ready.
TEST(RedisStore, RedisGoingAwayIsReportedAndTheReplicaRecovers) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  RedisProcess redis;
  ASSERT_TRUE(redis.start());
  ServerOptions o = replica_options(redis);
  o.args.insert(o.args.end(), {"--redis-timeout-ms", "500"});
  ServerProcess replica(o);
  ASSERT_TRUE(replica.start_ready()) << replica.log_text();
  const int http = replica.http_port();
  ASSERT_EQ(post_infer(http, "disk quota exceeded for volume 7").status, 200);
  EXPECT_EQ(http_get(http, "/readyz").status, 200);

  redis.stop();
  auto failed = post_infer(http, "disk quota exceeded for volume 8");
  EXPECT_NE(failed.status, 200) << failed.describe();
  EXPECT_TRUE(failed.json_body().contains("error")) << failed.describe();
  auto ready = http_get(http, "/readyz");
  EXPECT_EQ(ready.status, 503) << ready.describe();
  EXPECT_EQ(ready.json_body().value("status", ""), "degraded") << ready.describe();
  EXPECT_EQ(ready.json_body().value("store", ""), "redis unreachable") << ready.describe();
  EXPECT_EQ(http_get(http, "/healthz").status, 200);  // alive: a restart would not help
  bool found = false;
  EXPECT_GE(fetch_metric(http, "logsift_redis_errors_total", &found).value_or(0), 1.0);
  EXPECT_TRUE(found);

  ASSERT_TRUE(redis.start());  // an empty Redis: no script, no keys
  bool back = wait_until([&] { return post_infer(http, "disk quota exceeded for volume 9").status == 200; },
                         Millis(10000), Millis(200));
  EXPECT_TRUE(back) << replica.log_text();
  EXPECT_EQ(http_get(http, "/readyz").status, 200);
  auto counts = cluster_counts(http);
  ASSERT_TRUE(counts);
  EXPECT_GE(total_count(*counts), 1);
  EXPECT_GE(fetch_metric(http, "logsift_redis_round_trips_total").value_or(0), 3.0);
  EXPECT_TRUE(replica.running());
}

// A replica that cannot reach its Redis at start says so and exits non-zero,
// instead of serving a catalog nobody else sees.
TEST(RedisStore, UnreachableRedisFailsTheStartWithAClearError) {
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
