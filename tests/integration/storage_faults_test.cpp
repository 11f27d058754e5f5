// Faults below the service, made for real by the test as root: a data dir on
// a small tmpfs that fills up and is then enlarged (mount -o remount,size=).
// What is acknowledged must be stored: lines answered 200 are counted in the
// catalog after recovery and a restart; while writes fail, lines are refused
// (503 with Retry-After and a JSON reason; an error line on TCP) and
// /readyz says why; readiness comes back by itself when space does.
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>
#include <fstream>
#include <string>
#include <vector>

#include "harness.h"
#include "webhook_receiver.h"

namespace logsift_it {
namespace {

// A tmpfs of `size` mounted on a fresh directory, unmounted at the end.
class SmallTmpfs {
 public:
  explicit SmallTmpfs(const std::string& size) {
    if (::geteuid() != 0) {
      why_not_ = "needs root to mount a tmpfs";
      return;
    }
    const std::string opts = "size=" + size + ",mode=0700";
    if (::mount("tmpfs", dir_.path().c_str(), "tmpfs", 0, opts.c_str()) != 0)
      why_not_ = std::string("mount tmpfs: ") + std::strerror(errno);
    else
      mounted_ = true;
  }
  ~SmallTmpfs() {
    if (mounted_) ::umount2(dir_.path().c_str(), MNT_DETACH);
  }
  bool resize(const std::string& size) {
    const std::string opts = "size=" + size + ",mode=0700";
    return ::mount("tmpfs", dir_.path().c_str(), "tmpfs", MS_REMOUNT, opts.c_str()) == 0;
  }
  const std::string& why_not() const { return why_not_; }
  std::string path() const { return dir_.path(); }

 private:
  TempDir dir_{"logsift-tmpfs-"};
  bool mounted_ = false;
  std::string why_not_;
};

// Posts batches of distinct lines until the server refuses one (bounded).
// Returns the lines acknowledged with a result; *refusal gets the refusal.
long long post_until_refused(int port, HttpResponse* refusal, int max_batches = 400) {
  long long acknowledged = 0;
  for (int b = 0; b < max_batches; ++b) {
    json texts = json::array();
    for (int i = 0; i < 100; ++i) texts.push_back(distinct_line(42, static_cast<uint64_t>(b) * 100 + i));
    HttpResponse r = post_json(port, json{{"texts", texts}});
    if (r.status != 200) {
      *refusal = r;
      return acknowledged;
    }
    const json j = r.json_body();
    for (const auto& item : j["results"]) {
      EXPECT_TRUE(item.contains("cluster_id")) << "a 200 reply carried a failed line: " << item.dump();
      acknowledged += item.contains("cluster_id");
    }
  }
  return acknowledged;
}

TEST(StorageFaults, DiskFullRefusesLinesReportsNotReadyAndRecoversWithoutLosingAnAcknowledgedLine) {
  SmallTmpfs fs("4m");
  if (!fs.why_not().empty()) GTEST_SKIP() << fs.why_not();
  ServerOptions o;
  o.data_dir = fs.path();
  long long acknowledged = 0;
  {
    ServerProcess server(o);
    ASSERT_TRUE(server.start_ready());
    HttpResponse refusal;
    acknowledged = post_until_refused(server.http_port(), &refusal);
    ASSERT_EQ(refusal.status, 503) << "the disk never filled: " << acknowledged << " lines acknowledged";
    EXPECT_EQ(refusal.headers["retry-after"], "1") << refusal.describe();
    EXPECT_NE(refusal.json_body().value("error", "").find("disk full"), std::string::npos) << refusal.describe();
    EXPECT_GT(acknowledged, 0);

    // Readiness tells the truth; health is about the process and stays up.
    HttpResponse ready = http_get(server.http_port(), "/readyz");
    EXPECT_EQ(ready.status, 503) << ready.describe();
    EXPECT_EQ(ready.json_body().value("status", ""), "degraded") << ready.describe();
    EXPECT_NE(ready.json_body().value("store", "").find("disk full"), std::string::npos) << ready.describe();
    EXPECT_EQ(http_get(server.http_port(), "/healthz").status, 200);
    // On TCP, a line the store cannot take gets an error line naming why,
    // never a result (lines that still fit are stored and counted).
    TcpLineClient tcp;
    ASSERT_TRUE(tcp.connect(server.tcp_port()));
    long long tcp_errors = 0;
    for (int round = 0; round < 40 && tcp_errors == 0; ++round) {
      std::string chunk;
      for (int i = 0; i < 100; ++i) chunk += distinct_line(43, static_cast<uint64_t>(round) * 100 + i) + "\n";
      ASSERT_TRUE(tcp.send_all(chunk));
      for (const std::string& line : tcp.read_lines(100)) {
        const json j = json::parse(line, nullptr, false);
        if (j.contains("cluster_id")) {
          ++acknowledged;
        } else {
          ++tcp_errors;
          EXPECT_NE(j.value("error", "").find("disk full"), std::string::npos) << line;
        }
      }
    }
    EXPECT_GT(tcp_errors, 0) << "no TCP line was refused";
    tcp.close();
    // The shippers get the answer their protocols retry on (Loki push,
    // OTLP/HTTP, Elasticsearch bulk: 503 with Retry-After), never a success
    // for lines that were not stored. A push that still fit is counted.
    int shipper_refusals = 0;
    auto push_until_refused = [&](const char* target, const char* content_type, auto body_of, int lines_per_push) {
      for (int round = 0; round < 20; ++round) {
        HttpResponse r = http_request(server.http_port(), "POST", target, body_of(round), content_type);
        if (r.status == 503) {
          EXPECT_EQ(r.headers["retry-after"], "1") << target << ": " << r.describe();
          EXPECT_NE(r.json_body().value("error", "").find("disk full"), std::string::npos) << r.describe();
          ++shipper_refusals;
          return;
        }
        ASSERT_TRUE(r.status == 200 || r.status == 204) << target << ": " << r.describe();
        acknowledged += lines_per_push;
      }
      ADD_FAILURE() << target << " was never refused";
    };
    push_until_refused("/loki/api/v1/push", "application/json", [](int round) {
      json values = json::array();
      for (int i = 0; i < 10; ++i)
        values.push_back({"1700000000000000000", distinct_line(44, static_cast<uint64_t>(round) * 10 + i)});
      return json{{"streams", json::array({{{"stream", {{"app", "disk"}}}, {"values", values}}})}}.dump();
    }, 10);
    push_until_refused("/v1/logs", "application/json", [](int round) {
      json records = json::array();
      for (int i = 0; i < 10; ++i)
        records.push_back({{"body", {{"stringValue", distinct_line(45, static_cast<uint64_t>(round) * 10 + i)}}}});
      return json{{"resourceLogs", json::array({{{"scopeLogs", json::array({{{"logRecords", records}}})}}})}}.dump();
    }, 10);
    push_until_refused("/_bulk", "application/x-ndjson", [](int round) {
      std::string body;
      for (int i = 0; i < 10; ++i)
        body += "{\"index\":{}}\n" + json{{"message", distinct_line(46, static_cast<uint64_t>(round) * 10 + i)}}.dump() + "\n";
      return body;
    }, 10);
    bool found = false;
    const double refused = metric_sum(http_get(server.http_port(), "/metrics").body,
                                      "logsift_rejected_total{reason=\"store_unavailable\"}", &found);
    EXPECT_GE(refused, 1 + tcp_errors + shipper_refusals) << "the refusals are not counted";

    // Space comes back: readiness recovers by itself, with no traffic.
    ASSERT_TRUE(fs.resize("64m"));
    EXPECT_TRUE(wait_until([&] { return http_get(server.http_port(), "/readyz").status == 200; }, Millis(10000)));
    HttpResponse after;
    const long long more = post_until_refused(server.http_port(), &after, 3);
    EXPECT_EQ(more, 300);
    acknowledged += more;
    EXPECT_TRUE(server.stop().clean());
  }
  // After a restart the catalog counts exactly what was acknowledged.
  ServerProcess again(o);
  ASSERT_TRUE(again.start_ready());
  auto counts = cluster_counts(again.http_port());
  ASSERT_TRUE(counts);
  EXPECT_EQ(total_count(*counts), acknowledged);
}

// Fills the filesystem holding `dir` with one file; returns its path.
std::string fill_up(const std::string& dir) {
  const std::string path = dir + "/filler";
  std::ofstream f(path, std::ios::binary);
  const std::string block(64 * 1024, 'x');
  for (int i = 0; i < 4096 && f.write(block.data(), block.size()); ++i) f.flush();
  return path;
}

// The outbox's filesystem fills while the catalog's does not (alerts.sqlite
// is a link to a small tmpfs; SQLite keeps its journal beside the target):
// lines are still taken, and the alerts they raise, a new cluster's and a
// threshold crossed during the fault, are held in memory, readiness says
// why, and once space is back they are written and delivered with no
// restart: every cluster gets its alert, exactly once.
TEST(StorageFaults, AlertsRaisedWhileTheOutboxIsFullAreDeliveredWhenSpaceIsBack) {
  SmallTmpfs outbox_fs("1m");
  if (!outbox_fs.why_not().empty()) GTEST_SKIP() << outbox_fs.why_not();
  TempDir data("logsift-outbox-");
  std::filesystem::create_symlink(outbox_fs.path() + "/alerts.sqlite", data.path() + "/alerts.sqlite");
  WebhookReceiver rcv;
  ASSERT_TRUE(rcv.start());
  ServerOptions o;
  o.data_dir = data.path();
  ServerProcess server(o);
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  ASSERT_TRUE(std::filesystem::exists(outbox_fs.path() + "/alerts.sqlite")) << "the outbox is not on the small disk";
  const json rules = json::array({"new_cluster", {{"kind", "threshold"}, {"threshold", 50}, {"window", "1m"}}});
  HttpResponse sub = http_request(port, "POST", "/subscriptions", json{{"url", rcv.url()}, {"rules", rules}}.dump(),
                                  "application/json");
  ASSERT_EQ(sub.status, 201) << sub.describe();

  const std::string filler = fill_up(outbox_fs.path());
  // Ten new clusters, then one line 60 times: past the threshold of 50.
  json texts = json::array();
  for (int i = 0; i < 10; ++i) texts.push_back(distinct_line(77, static_cast<uint64_t>(i)));
  for (int i = 0; i < 60; ++i) texts.push_back(distinct_line(78, 0));
  HttpResponse r = post_json(port, json{{"texts", texts}});
  ASSERT_EQ(r.status, 200) << "the catalog's disk has room: " << r.describe();
  std::set<std::string> clusters;
  const json reply = r.json_body();
  for (const auto& item : reply["results"]) clusters.insert(item.value("cluster_id", ""));
  ASSERT_EQ(clusters.size(), 11u) << r.describe();
  const std::string hot = reply["results"][10].value("cluster_id", "");

  // Held, and said so: a metric and readiness.
  EXPECT_TRUE(wait_until([&] { return fetch_metric(port, "logsift_alerts_held").value_or(0) >= 12; }, Millis(5000)))
      << fetch_metric(port, "logsift_alerts_held").value_or(-1);
  HttpResponse ready = http_get(port, "/readyz");
  EXPECT_EQ(ready.status, 503) << ready.describe();
  EXPECT_NE(ready.json_body().value("store", "").find("outbox"), std::string::npos) << ready.describe();
  EXPECT_EQ(rcv.count(), 0u);

  // Space comes back: written and sent by themselves, no restart.
  std::filesystem::remove(filler);
  EXPECT_TRUE(wait_until([&] { return http_get(port, "/readyz").status == 200; }, Millis(10000)));
  std::set<std::string> new_cluster_alerts;
  int threshold_alerts = 0;
  auto tally = [&] {
    new_cluster_alerts.clear();
    threshold_alerts = 0;
    for (const auto& q : rcv.requests()) {
      const json a = q.json_body();
      if (a.value("rule", "") == "new_cluster") new_cluster_alerts.insert(a.value("cluster_id", ""));
      if (a.value("rule", "") == "threshold" && a.value("cluster_id", "") == hot) ++threshold_alerts;
    }
    return new_cluster_alerts.size() == clusters.size() && threshold_alerts >= 1;
  };
  EXPECT_TRUE(wait_until(tally, Millis(20000)))
      << new_cluster_alerts.size() << " new_cluster alerts, " << threshold_alerts << " threshold alerts";
  EXPECT_EQ(new_cluster_alerts, clusters);
  EXPECT_EQ(threshold_alerts, 1);
  EXPECT_EQ(rcv.count(), clusters.size() + 1) << "an alert was sent twice";
  EXPECT_EQ(fetch_metric(port, "logsift_alerts_held").value_or(-1), 0);
  EXPECT_EQ(fetch_metric(port, "logsift_alerts_dropped_total").value_or(-1), 0);
  rcv.stop();
  EXPECT_TRUE(server.stop().clean());
}

// The outbox's disk fills while alerts wait for a receiver that was down:
// when it comes back, every alert is delivered although no outcome can be
// saved (held in memory and counted), none is sent twice, and the outcomes
// are written once space is back.
TEST(StorageFaults, DeliveryGoesOnWhileItsResultsCannotBeSaved) {
  // Room, once the filler goes, for the 40 outcomes' WAL frames.
  SmallTmpfs outbox_fs("8m");
  if (!outbox_fs.why_not().empty()) GTEST_SKIP() << outbox_fs.why_not();
  TempDir data("logsift-outbox-results-");
  std::filesystem::create_symlink(outbox_fs.path() + "/alerts.sqlite", data.path() + "/alerts.sqlite");
  PortReservation down;  // bound, not listening: the receiver is down
  ServerOptions o;
  o.data_dir = data.path();
  o.args = {"--delivery-first-retry-ms", "200", "--delivery-max-backoff-ms", "400"};
  ServerProcess server(o);
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  HttpResponse sub = http_request(port, "POST", "/subscriptions",
                                  json{{"url", down.url()}, {"rules", json::array({"new_cluster"})}}.dump(),
                                  "application/json");
  ASSERT_EQ(sub.status, 201) << sub.describe();
  constexpr int kN = 40;
  json texts = json::array();
  for (int i = 0; i < kN; ++i) texts.push_back(distinct_line(91, static_cast<uint64_t>(i)));
  ASSERT_EQ(post_json(port, json{{"texts", texts}}).status, 200);
  ASSERT_TRUE(wait_until([&] { return fetch_metric(port, "logsift_alert_attempts_failed_total").value_or(0) >= kN; },
                         Millis(15000)))
      << "every alert tried once against the receiver that is down";

  const std::string filler = fill_up(outbox_fs.path());
  WebhookReceiver rcv;
  ASSERT_TRUE(rcv.start(down));  // the receiver comes back on the same port
  EXPECT_TRUE(wait_until([&] { return rcv.count() >= static_cast<size_t>(kN); }, Millis(20000)))
      << rcv.count() << " of " << kN << " delivered while the outbox's disk is full";
  EXPECT_GT(fetch_metric(port, "logsift_delivery_results_unsaved").value_or(0), 0) << "the held outcomes are shown";
  std::set<std::string> ids;
  for (const auto& q : rcv.requests()) ids.insert(q.header("webhook-id"));
  EXPECT_EQ(ids.size(), rcv.count()) << "an alert was sent twice while its outcome waited";

  std::filesystem::remove(filler);
  EXPECT_TRUE(wait_until([&] { return fetch_metric(port, "logsift_delivery_results_unsaved").value_or(-1) == 0; },
                         Millis(10000)))
      << fetch_metric(port, "logsift_delivery_results_unsaved").value_or(-1) << "\n" << server.log_text();
  EXPECT_TRUE(wait_until(
      [&] { return http_get(port, "/alerts?status=delivered&limit=1").json_body().value("total", 0) == kN; },
      Millis(10000)))
      << http_get(port, "/alerts?limit=1").body;
  EXPECT_EQ(rcv.count(), static_cast<size_t>(kN)) << "nothing sent again once the outcomes were saved";
  rcv.stop();
  EXPECT_TRUE(server.stop().clean());
}

// Posts `n` distinct lines in batches of 100; all must be acknowledged.
void post_lines(int port, uint64_t seed, int n) {
  for (int b = 0; b < n / 100; ++b) {
    json texts = json::array();
    for (int i = 0; i < 100; ++i) texts.push_back(distinct_line(seed, static_cast<uint64_t>(b) * 100 + i));
    ASSERT_EQ(post_json(port, json{{"texts", texts}}).status, 200);
  }
}

// Overwrites `len` bytes at `offset` of `path` with a pattern.
void scribble(const std::string& path, std::streamoff offset, size_t len) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f.good()) << path;
  f.seekp(offset);
  std::string junk(len, '\0');
  for (size_t i = 0; i < len; ++i) junk[i] = static_cast<char>(0xA5 ^ (i * 31));
  f.write(junk.data(), static_cast<std::streamsize>(len));
}

// Garbage written into a stopped catalog's pages (and, second, into its
// header): the server refuses to start, naming the file and the way out,
// instead of failing every write or answering known clusters as new.
TEST(StorageFaults, DamagedCatalogStopsStartupNamingTheFileAndTheWayOut) {
  TempDir dir;
  ServerOptions o;
  o.data_dir = dir.path();
  {
    ServerProcess server(o);
    ASSERT_TRUE(server.start_ready());
    post_lines(server.http_port(), 7, 2000);
    ASSERT_TRUE(server.stop().clean());
  }
  const std::string catalog = dir.path() + "/catalog.sqlite";
  ASSERT_GT(std::filesystem::file_size(catalog), 8u * 4096) << "too small to damage a page in the middle";
  for (const auto& [offset, what] : std::vector<std::pair<std::streamoff, std::string>>{{3 * 4096 + 200, "a page"},
                                                                                     {0, "the header"}}) {
    SCOPED_TRACE(what);
    scribble(catalog, offset, 1500);
    ServerProcess damaged(o);
    EXPECT_FALSE(damaged.start()) << "started on a damaged catalog";
    const ProcessExit exit = damaged.stop();
    EXPECT_TRUE(exit.exited && exit.code != 0) << exit.describe();
    const std::string log = damaged.log_text();
    EXPECT_NE(log.find(catalog + " is damaged"), std::string::npos) << log;
    EXPECT_NE(log.find("mv " + catalog + " " + catalog + ".damaged"), std::string::npos) << log;
  }
  // The way out works: moved aside, the server starts with an empty catalog.
  std::filesystem::rename(catalog, catalog + ".damaged");
  std::filesystem::remove(catalog + "-wal");
  std::filesystem::remove(catalog + "-shm");
  ServerProcess fresh(o);
  ASSERT_TRUE(fresh.start_ready());
  auto counts = cluster_counts(fresh.http_port());
  ASSERT_TRUE(counts);
  EXPECT_EQ(total_count(*counts), 0);
}

// The data dir removed under a running server: it notices within seconds,
// reports not ready, and refuses lines instead of writing them into unlinked
// files that vanish at the next start.
TEST(StorageFaults, DataDirRemovedWhileRunningIsReportedAndLinesAreRefused) {
  TempDir parent;
  ServerOptions o;
  o.data_dir = parent.path() + "/data";
  ServerProcess server(o);
  ASSERT_TRUE(server.start_ready());
  post_lines(server.http_port(), 9, 200);
  std::filesystem::remove_all(o.data_dir);
  EXPECT_TRUE(wait_until([&] { return http_get(server.http_port(), "/readyz").status == 503; }, Millis(10000)));
  HttpResponse ready = http_get(server.http_port(), "/readyz");
  EXPECT_NE(ready.json_body().value("store", "").find("removed"), std::string::npos) << ready.describe();
  HttpResponse r = post_infer(server.http_port(), "user 42 logged in");
  EXPECT_EQ(r.status, 503) << r.describe();
  EXPECT_EQ(http_get(server.http_port(), "/healthz").status, 200);
}

// An ext4 data dir (a loop device, mounted errors=remount-ro) that hits an
// error under the running server and turns read-only: lines and
// subscriptions are refused with 503 and the reason, /readyz says degraded
// (it said ready before), /healthz stays up, and a restart is refused with a
// clear message.
TEST(StorageFaults, FilesystemTurnedReadOnlyIsReportedAndRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root for a loop mount";
  TempDir work;
  const std::string image = work.path() + "/fs.img", mnt = work.path() + "/mnt";
  std::filesystem::create_directories(mnt);
  { std::ofstream(image).close(); }
  std::filesystem::resize_file(image, 32u << 20);
  RunResult mkfs = run_program({"/usr/sbin/mkfs.ext4", "-q", "-F", image});
  if (!mkfs.exit.clean()) GTEST_SKIP() << "mkfs.ext4: " << mkfs.describe();
  RunResult mnt_r = run_program({"/usr/bin/mount", "-o", "loop,errors=remount-ro", image, mnt});
  if (!mnt_r.exit.clean()) GTEST_SKIP() << "loop mount: " << mnt_r.describe();
  struct Unmount {
    std::string dir;
    ~Unmount() { run_program({"/usr/bin/umount", "-l", dir}); }
  } unmount{mnt};
  const RunResult src = run_program({"/usr/bin/findmnt", "-n", "-o", "SOURCE", mnt});
  std::string dev = src.out.substr(0, src.out.find('\n'));
  dev = dev.substr(dev.rfind('/') + 1);
  const std::string trigger = "/sys/fs/ext4/" + dev + "/trigger_fs_error";
  if (!std::filesystem::exists(trigger)) GTEST_SKIP() << "no " << trigger;

  ServerOptions o;
  o.data_dir = mnt + "/data";
  {
    ServerProcess server(o);
    ASSERT_TRUE(server.start_ready());
    post_lines(server.http_port(), 11, 200);
    // The kernel's reaction to a filesystem error: errors=remount-ro.
    { std::ofstream(trigger) << "logsift test\n"; }
    HttpResponse r = post_infer(server.http_port(), "user 42 logged in from a read-only disk");
    EXPECT_EQ(r.status, 503) << r.describe();
    EXPECT_EQ(r.headers["retry-after"], "1");
    EXPECT_NE(r.json_body().value("error", "").find("store unavailable"), std::string::npos) << r.describe();
    HttpResponse ready = http_get(server.http_port(), "/readyz");
    EXPECT_EQ(ready.status, 503) << ready.describe();
    EXPECT_EQ(ready.json_body().value("status", ""), "degraded") << ready.describe();
    EXPECT_EQ(http_get(server.http_port(), "/healthz").status, 200);
    const json sub = {{"url", "https://hooks.example.com/x"}, {"rules", json::array({{{"kind", "new_cluster"}}})}};
    HttpResponse s = http_request(server.http_port(), "POST", "/subscriptions", sub.dump(), "application/json");
    EXPECT_EQ(s.status, 503) << s.describe();
    server.stop();
  }
  ServerProcess again(o);
  EXPECT_FALSE(again.start()) << "started on a read-only data dir";
  again.stop();
  EXPECT_NE(again.log_text().find("startup failed"), std::string::npos) << again.log_text();
}

}  // namespace
}  // namespace logsift_it
