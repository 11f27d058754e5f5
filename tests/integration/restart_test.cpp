// Persistence across restarts and clean shutdown on signals.
#include <signal.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "harness.h"

namespace logsift_it {
namespace {

ServerOptions on_dir(const std::string& dir) {
  ServerOptions o;
  o.data_dir = dir;
  return o;
}

std::map<std::string, json> clusters_by_id(int http_port) {
  std::string error;
  auto all = fetch_all_clusters(http_port, &error);
  EXPECT_TRUE(all.has_value()) << error;
  std::map<std::string, json> out;
  if (!all) return out;
  for (const auto& c : *all) {
    if (c.is_object() && c.contains("cluster_id") && c["cluster_id"].is_string())
      out[c["cluster_id"].get<std::string>()] = c;
  }
  return out;
}

long long count_of(int http_port, const std::string& id) {
  HttpResponse r = http_get(http_port, "/clusters/" + id);
  json c = r.json_body();
  if (r.status != 200 || !c.is_object() || !c.contains("count") || !c["count"].is_number_integer())
    return -1;
  return c["count"].get<long long>();
}

void dump_log_on_failure(const ServerProcess& s) {
  if (::testing::Test::HasFailure()) {
    std::string log = s.log_text();
    if (log.size() > 3000) log = log.substr(log.size() - 3000);
    std::cerr << "--- server log tail ---\n" << log << "\n";
  }
}

TEST(Restart, CountsSurviveRestart) {
  TempDir data("logsift-restart-");
  const std::vector<std::pair<std::string, int>> plan = {
      {"User alice logged in", 5},
      {"Disk /dev/sda1 is full", 3},
      {"Connection from 10.0.0.1 port 22 closed", 1},
  };
  std::vector<std::string> ids;
  std::map<std::string, json> before;
  {
    ServerProcess s1(on_dir(data.path()));
    ASSERT_TRUE(s1.start_ready());
    for (const auto& [text, times] : plan) {
      for (int i = 0; i < times; ++i) {
        HttpResponse r = post_infer(s1.http_port(), text);
        ASSERT_EQ(r.status, 200) << r.describe();
        json j = r.json_body();
        ASSERT_TRUE(is_inference_result(j));
        EXPECT_EQ(j["new"].get<bool>(), i == 0) << "fresh data dir, occurrence " << i << ": " << j;
        if (i == 0) ids.push_back(j["cluster_id"]);
      }
    }
    before = clusters_by_id(s1.http_port());
    ASSERT_EQ(before.size(), plan.size());
    for (std::size_t k = 0; k < plan.size(); ++k) {
      ASSERT_TRUE(before.count(ids[k])) << ids[k];
      EXPECT_EQ(before[ids[k]].value("count", -1LL), plan[k].second) << before[ids[k]];
    }
    ProcessExit e = s1.stop(SIGTERM);
    EXPECT_TRUE(e.clean()) << "SIGTERM must exit 0: " << e.describe();
    dump_log_on_failure(s1);
  }
  {
    ServerProcess s2(on_dir(data.path()));
    ASSERT_TRUE(s2.start_ready());
    auto after = clusters_by_id(s2.http_port());
    ASSERT_EQ(after.size(), before.size()) << "clusters lost or invented across the restart";
    for (const auto& [id, c] : before) {
      SCOPED_TRACE(id);
      ASSERT_TRUE(after.count(id));
      const json& a = after[id];
      EXPECT_EQ(a.value("count", -1LL), c.value("count", -2LL)) << a;
      EXPECT_EQ(a["template"], c["template"]);
      EXPECT_EQ(a["template_id"], c["template_id"]);
      EXPECT_EQ(a["first_seen"], c["first_seen"]);
    }
    // Same line again: not new, same cluster, count keeps increasing.
    HttpResponse r = post_infer(s2.http_port(), plan[0].first);
    ASSERT_EQ(r.status, 200) << r.describe();
    json j = r.json_body();
    ASSERT_TRUE(is_inference_result(j));
    EXPECT_FALSE(j["new"].get<bool>()) << j;
    EXPECT_EQ(j["cluster_id"], ids[0]);
    EXPECT_EQ(count_of(s2.http_port(), ids[0]), plan[0].second + 1);
    // A never-seen line is new.
    HttpResponse n = post_infer(s2.http_port(), "Starting nightly backup job for database orders");
    ASSERT_EQ(n.status, 200) << n.describe();
    EXPECT_TRUE(n.json_body().value("new", false)) << n.describe();

    ProcessExit e = s2.stop(SIGINT);
    EXPECT_TRUE(e.clean()) << "SIGINT must exit 0: " << e.describe();
    dump_log_on_failure(s2);
  }
  {
    // What the SIGINT-stopped server counted was flushed too.
    ServerProcess s3(on_dir(data.path()));
    ASSERT_TRUE(s3.start_ready());
    EXPECT_EQ(count_of(s3.http_port(), ids[0]), plan[0].second + 1);
    EXPECT_EQ(clusters_by_id(s3.http_port()).size(), plan.size() + 1);
    ProcessExit e = s3.stop(SIGTERM);
    EXPECT_TRUE(e.clean()) << e.describe();
    dump_log_on_failure(s3);
  }
}

TEST(Shutdown, SigtermWithConnectedClientsExitsZeroAndAnsweredLinesPersist) {
  TempDir data("logsift-shutdown-");
  const std::string text = "Disk /dev/sda1 is full";
  std::string id;
  std::size_t answered = 0;
  constexpr int kFirst = 50;
  constexpr int kInFlight = 200;
  {
    ServerProcess s1(on_dir(data.path()));
    ASSERT_TRUE(s1.start_ready());

    // A: 50 lines answered, connection kept open.
    TcpLineClient a;
    ASSERT_TRUE(a.connect(s1.tcp_port()));
    std::string payload;
    for (int i = 0; i < kFirst; ++i) payload += text + "\n";
    ASSERT_TRUE(a.send_all(payload));
    auto replies = a.read_lines(kFirst);
    ASSERT_EQ(replies.size(), static_cast<std::size_t>(kFirst)) << a.last_error();
    json first = json::parse(replies[0], nullptr, false);
    ASSERT_TRUE(is_inference_result(first)) << replies[0];
    id = first["cluster_id"];

    // An idle TCP connection and an idle HTTP keep-alive connection.
    TcpLineClient idle;
    ASSERT_TRUE(idle.connect(s1.tcp_port()));
    HttpClient http(s1.http_port());
    ASSERT_EQ(http.request("GET", "/healthz").status, 200);

    // B: lines still in flight when the signal arrives.
    TcpLineClient b;
    ASSERT_TRUE(b.connect(s1.tcp_port()));
    std::string burst;
    for (int i = 0; i < kInFlight; ++i) burst += text + "\n";
    ASSERT_TRUE(b.send_all(burst));

    ProcessExit e = s1.stop(SIGTERM, Millis(15000));
    EXPECT_TRUE(e.clean()) << "SIGTERM with connected clients must exit 0 promptly: "
                           << e.describe();
    dump_log_on_failure(s1);

    // Every connection is closed by now; count B's complete, valid replies.
    bool eof = false;
    std::string rest = b.read_until_eof(Millis(5000), &eof);
    EXPECT_TRUE(eof);
    std::size_t pos = 0, nl;
    while ((nl = rest.find('\n', pos)) != std::string::npos) {
      json j = json::parse(rest.substr(pos, nl - pos), nullptr, false);
      if (is_inference_result(j)) ++answered;
      pos = nl + 1;
    }
    a.read_until_eof(Millis(5000), &eof);
    EXPECT_TRUE(eof) << "connection A not closed after exit";
  }
  {
    ServerProcess s2(on_dir(data.path()));
    ASSERT_TRUE(s2.start_ready());
    long long count = count_of(s2.http_port(), id);
    EXPECT_GE(count, static_cast<long long>(kFirst + answered))
        << "answered lines must survive a SIGTERM (" << answered << " of the in-flight burst were"
        << " answered)";
    EXPECT_LE(count, static_cast<long long>(kFirst + kInFlight));
    ProcessExit e = s2.stop(SIGTERM);
    EXPECT_TRUE(e.clean()) << e.describe();
    dump_log_on_failure(s2);
  }
}

}  // namespace
}  // namespace logsift_it
