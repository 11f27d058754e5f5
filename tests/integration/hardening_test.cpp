// Findings of the hardening review, each against a real server:
// every one of these failed before its fix.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "harness.h"
#include "webhook_receiver.h"

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


namespace {

long rss_kb(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

}  // namespace

// A TCP client that sends and never reads its replies: the server used to
// queue replies without bound (200k lines: RSS +50 MB). Now reading pauses
// once tcp_max_write_queue_bytes of replies wait, so the kernel buffers fill
// and the client blocks; the server's memory stays flat and it stays healthy.
TEST(HardeningTcp, ClientThatNeverReadsCannotGrowMemory) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  // Warm the caches first so what follows measures queues, not caches.
  ASSERT_EQ(post_infer(server.http_port(), "job 1 finished in 20 ms on worker 3").status, 200);
  const long before = rss_kb(server.pid());
  ASSERT_GT(before, 0);
  // A raw socket that only writes (TcpLineClient reads while it writes).
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server.tcp_port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  pollfd pw{fd, POLLOUT, 0};
  ASSERT_EQ(::poll(&pw, 1, 5000), 1);
  std::string chunk;
  for (int i = 0; i < 1000; ++i) chunk += "job " + std::to_string(i) + " finished in 20 ms on worker 3\n";
  // Up to 200k lines; writing stalls (2 s without progress) once the
  // server stops reading and the kernel buffers are full: that is the point.
  size_t sent = 0;
  const size_t want = 200 * chunk.size();
  while (sent < want) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, 2000) != 1) break;
    const size_t off = sent % chunk.size();
    const ssize_t n = ::send(fd, chunk.data() + off, chunk.size() - off, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  // Not vacuous: the connection took lines (a failed connect would also stall).
  ASSERT_GT(sent, chunk.size()) << "nothing was sent: the connection never worked";
  EXPECT_LT(sent, want) << "the server kept reading although nobody read its replies";
  // Whatever the server had read is analysed before RSS is sampled.
  EXPECT_TRUE(wait_until(
      [&] { return fetch_metric(server.http_port(), "logsift_inflight_lines").value_or(-1) == 0; },
      Millis(10000), Millis(20)));
  const long after = rss_kb(server.pid());
  if (!sanitized_server())
    EXPECT_LT(after - before, 20 * 1024) << "RSS grew from " << before << " kB to " << after << " kB";
  EXPECT_TRUE(server_healthy(server.http_port()));
  ::close(fd);
  EXPECT_TRUE(server_healthy(server.http_port()));
}

// One huge request must not stall everyone else: 120 lines of 64 KB of
// "1 1 1 ..." (the pre-mask used to be quadratic: 23 s for this request,
// and a small inference sent meanwhile waited 21 s).
TEST(HardeningFairness, BigRequestDoesNotStallSmallOnes) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  std::string line;
  while (line.size() < 64 * 1024 - 2) line += "1 ";
  json big = {{"texts", json::array()}};
  for (int i = 0; i < 120; ++i) big["texts"].push_back(line);
  std::atomic<bool> heavy_done{false};
  std::thread heavy([&] {
    auto r = http_request(port, "POST", "/inferences", big.dump(), "application/json");
    EXPECT_EQ(r.status, 200) << r.describe().substr(0, 300);
    heavy_done = true;
  });
  // A head start for the big request; the loop below runs until it is done
  // whatever this is, so nothing waits on it.
  let_time_pass(Millis(50));
  // Small requests all through the big one: while it is parsed, analysed,
  // written to the catalog and while its 15 MB reply is built (that used to
  // run on the state thread and held every other batch for ~220 ms).
  int64_t worst = 0;
  int sent = 0;
  do {
    const auto t0 = std::chrono::steady_clock::now();
    auto small = post_infer(port, "small request while a big one runs " + std::to_string(sent++));
    const auto waited = std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(small.status, 200);
    worst = std::max<int64_t>(worst, waited);
    let_time_pass(Millis(20));  // pacing: a small request every ~20 ms
  } while (!heavy_done && sent < 1000);
  heavy.join();
  // Generous bound (a loaded CI machine, sanitizers): the point is "not 21 s".
  EXPECT_LT(worst, 2000) << "a small request waited " << worst << " ms behind a big one (" << sent << " sent)";
}

}  // namespace
}  // namespace logsift_it

namespace logsift_it {
namespace {

// The catalog and the outbox are two databases: a process that died after
// the catalog commit of a new cluster and before its new_cluster alert was
// written to the outbox lost that alert for good. The cluster now stays
// alert-pending until the outbox write returns, and the next start raises
// its alerts (with derived ids, so a replay can never duplicate one).
TEST(HardeningAlerts, NewClusterAlertSurvivesACrashBetweenCatalogAndOutbox) {
  WebhookReceiver rcv;
  ASSERT_TRUE(rcv.start());
  TempDir dir;
  const std::vector<std::string> fast = {"--delivery-first-retry-ms", "50", "--delivery-max-backoff-ms", "200"};
  {
    ServerOptions o;
    o.data_dir = dir.path();
    o.args = fast;
    o.env = {{"LOGSIFT_FAILPOINT_CRASH_AFTER_CATALOG_COMMIT", "1"}};
    ServerProcess crashing(o);
    ASSERT_TRUE(crashing.start_ready());
    json sub = {{"url", rcv.url()}, {"rules", json::array({"new_cluster"})}};
    ASSERT_EQ(http_request(crashing.http_port(), "POST", "/subscriptions", sub.dump(), "application/json").status, 201);
    auto r = post_infer(crashing.http_port(), "Shard rebalance aborted on node n7 after 3 retries");
    EXPECT_NE(r.status, 200) << "the fault must stop the process before it replies";
    ASSERT_TRUE(wait_until([&] { return !crashing.running(); }, Millis(10000)));
  }
  EXPECT_EQ(rcv.count(), 0u) << "nothing can have been sent before the crash";
  ServerOptions o;
  o.data_dir = dir.path();
  o.args = fast;
  ServerProcess restarted(o);
  ASSERT_TRUE(restarted.start_ready());
  ASSERT_TRUE(rcv.wait_for_count(1, std::chrono::milliseconds(15000)))
      << "the new_cluster alert was lost\n" << restarted.log_text();
  // The same event again, and a second restart: still exactly one alert.
  ASSERT_EQ(post_infer(restarted.http_port(), "Shard rebalance aborted on node n9 after 4 retries").status, 200);
  restarted.stop();
  ServerProcess again(o);
  ASSERT_TRUE(again.start_ready());
  // A start raises the pending new_cluster alerts into the outbox before it
  // listens: once nothing is pending, a replayed duplicate would have been
  // delivered to the receiver.
  EXPECT_TRUE(wait_until(
      [&] {
        auto r = http_get(again.http_port(), "/alerts?status=pending&limit=1");
        return r.status == 200 && r.json_body().value("total", -1) == 0;
      },
      Millis(10000), Millis(20)));
  const auto reqs = rcv.requests();
  ASSERT_EQ(reqs.size(), 1u);
  json payload = json::parse(reqs[0].body, nullptr, false);
  EXPECT_EQ(payload.value("rule", ""), "new_cluster") << reqs[0].body;
  EXPECT_NE(payload.value("template", "").find("Shard rebalance aborted"), std::string::npos) << reqs[0].body;
}

}  // namespace
}  // namespace logsift_it
