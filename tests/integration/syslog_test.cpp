// The syslog listener against real senders: util-linux `logger`
// (RFC 5424 and RFC 3164, octet-counted and LF-framed) and rsyslogd
// forwarding with omfwd (RSYSLOG_SyslogProtocol23Format, octet-counted).
// and syslog-ng relaying with its syslog(), network() and network(flags(
// syslog-protocol)) drivers and elasticsearch-http() to /_bulk.
// Only the MSG part is clustered; APP-NAME/TAG, severity and HOSTNAME become
// labels; bad frames are counted and the connection goes on.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"

namespace logsift_it {
namespace {

// The clusters' templates -> counts, from GET /clusters.
std::map<std::string, long long> templates(int http) {
  std::map<std::string, long long> out;
  auto all = fetch_all_clusters(http);
  if (!all) return out;
  for (const auto& c : *all) out[c.value("template", "")] += c.value("count", 0LL);
  return out;
}

RunResult logger(int port, const std::vector<std::string>& flags, const std::string& tag, const std::string& msg) {
  std::vector<std::string> argv = {"/usr/bin/logger", "-T", "-n", "127.0.0.1", "-P", std::to_string(port), "-t", tag};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.push_back(msg);
  return run_program(argv, "", {}, Millis(10000));
}

TEST(SyslogIngest, LoggerBothRfcsBothFramingsGiveOneCluster) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  ASSERT_GT(server.syslog_port(), 0) << "the listening line names the syslog listener";
  const std::vector<std::vector<std::string>> modes = {
      {"--rfc5424", "--octet-count"}, {"--rfc5424"}, {"--rfc3164", "--octet-count"}, {"--rfc3164"}};
  int sent = 0;
  for (size_t m = 0; m < modes.size(); ++m) {
    for (int i = 0; i < 5; ++i) {
      const std::string msg = "Failed password for user" + std::to_string(i) + " from 10.1." + std::to_string(m) + "." +
                              std::to_string(i + 2) + " port " + std::to_string(2200 + i) + " ssh2";
      auto r = logger(server.syslog_port(), modes[m], "sshd", msg);
      ASSERT_TRUE(r.exit.exited && r.exit.code == 0) << r.describe();
      ++sent;
    }
  }
  std::map<std::string, long long> t;
  ASSERT_TRUE(wait_until(
      [&] {
        t = templates(server.http_port());
        long long n = 0;
        for (auto& [k, v] : t) n += v;
        return n >= sent;
      },
      Millis(15000)))
      << "lines counted: " << json(t).dump();
  ASSERT_EQ(t.size(), 1u) << "header, PRI, octet count and SD must not reach the template: " << json(t).dump();
  EXPECT_EQ(t.begin()->first, "Failed password for <*> from <*> port <*> ssh2");
  EXPECT_EQ(t.begin()->second, sent);

  // Labels: service from the tag, level from the PRI (logger's default
  // user.notice), host from HOSTNAME.
  auto all = fetch_all_clusters(server.http_port());
  ASSERT_TRUE(all && all->size() == 1);
  json c = http_get(server.http_port(), "/clusters/" + (*all)[0]["cluster_id"].get<std::string>()).json_body();
  ASSERT_TRUE(c.contains("examples") && !c["examples"].empty()) << c;
  const json& ex = c["examples"][0];
  EXPECT_EQ(ex["labels"].value("service", ""), "sshd") << ex;
  EXPECT_EQ(ex["labels"].value("level", ""), "notice") << ex;
  EXPECT_FALSE(ex["labels"].value("host", "").empty()) << ex;
  EXPECT_EQ(ex["text"].get<std::string>().rfind("Failed password for ", 0), 0u) << "the example is the MSG: " << ex;

  auto frames = fetch_metric(server.http_port(), "logsift_syslog_frames_total");
  ASSERT_TRUE(frames);
  EXPECT_EQ(*frames, sent);
}

TEST(SyslogIngest, BadFramesAreCountedAndTheConnectionGoesOn) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  TcpLineClient c;
  ASSERT_TRUE(c.connect(server.syslog_port()));
  // LF framing (the first byte is not a digit): a bad PRI, an empty MSG,
  // invalid UTF-8, then a good RFC 3164 line.
  ASSERT_TRUE(c.send_all("<999>bad pri line\n"
                         "<13>1 2026-11-23T10:00:00Z host app - - -\n"
                         "<13>Nov 23 10:00:00 host app: bad \xff\xfe utf8\n"
                         "<13>Nov 23 10:00:00 host app[42]: Connection from 10.9.8.7 closed\n"));
  ASSERT_TRUE(c.shutdown_write());
  std::map<std::string, long long> t;
  ASSERT_TRUE(wait_until(
      [&] {
        t = templates(server.http_port());
        return t.count("Connection from <*> closed") > 0;
      },
      Millis(15000)))
      << json(t).dump();
  EXPECT_EQ(t.size(), 1u) << json(t).dump();
  auto rejected = fetch_metric(server.http_port(), "logsift_syslog_rejected_total");
  ASSERT_TRUE(rejected);
  EXPECT_EQ(*rejected, 3) << "the bad PRI, the empty message and the invalid UTF-8";
  EXPECT_TRUE(server_healthy(server.http_port()));
}

// rsyslogd receives lines over its own TCP input and forwards them with omfwd
// in the RFC 5424 format, octet-counted, as a production relay does.
TEST(SyslogIngest, RsyslogForwardsOctetCountedRfc5424) {
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  TempDir work("logsift-rsyslog-");
  const std::string port_file = work.path() + "/imtcp.port";
  {
    std::ofstream conf(work.path() + "/rsyslog.conf");
    conf << "global(workDirectory=\"" << work.path() << "\")\n"
         << "module(load=\"imtcp\")\n"
         << "input(type=\"imtcp\" address=\"127.0.0.1\" port=\"0\" listenPortFileName=\"" << port_file << "\")\n"
         << "action(type=\"omfwd\" target=\"127.0.0.1\" port=\"" << server.syslog_port()
         << "\" protocol=\"tcp\" tcp_framing=\"octet-counted\" template=\"RSYSLOG_SyslogProtocol23Format\")\n";
  }
  const std::string pidfile = work.path() + "/rsyslogd.pid";
  auto spawned = spawn_background({"/usr/sbin/rsyslogd", "-n", "-f", work.path() + "/rsyslog.conf", "-i", pidfile});
  ASSERT_GT(spawned.pid, 0) << spawned.error;
  int in_port = 0;
  ASSERT_TRUE(wait_until(
      [&] {
        std::ifstream f(port_file);
        return static_cast<bool>(f >> in_port) && in_port > 0;
      },
      Millis(10000)))
      << "rsyslogd did not write its input port";
  constexpr int kLines = 20;
  for (int i = 0; i < kLines; ++i) {
    auto r = logger(in_port, {"--rfc3164"}, "payments",
                    "charge " + std::to_string(1000 + i) + " declined for card ending " + std::to_string(4000 + i));
    ASSERT_TRUE(r.exit.exited && r.exit.code == 0) << r.describe();
  }
  std::map<std::string, long long> t;
  const bool all_in = wait_until(
      [&] {
        t = templates(server.http_port());
        return t["charge <*> declined for card ending <*>"] >= kLines;
      },
      Millis(20000));
  stop_background(spawned);
  ASSERT_TRUE(all_in) << json(t).dump() << "\n" << server.log_text();
  EXPECT_EQ(t.size(), 1u) << json(t).dump();
  EXPECT_EQ(t["charge <*> declined for card ending <*>"], kLines);
  auto rejected = fetch_metric(server.http_port(), "logsift_syslog_rejected_total");
  ASSERT_TRUE(rejected);
  EXPECT_EQ(*rejected, 0);
}

// syslog-ng from Debian's archive (syslog-ng-core, -scl, -mod-http), unpacked
// by `docker/setup.sh test` into the build directory: the package conflicts
// with rsyslog, so it is run from there rather than installed. It receives
// RFC 3164 lines from logger and relays each one four ways at once: syslog()
// (RFC 5424, octet-counted), network() (RFC 3164, LF), network() with
// flags(syslog-protocol) (RFC 5424, LF) and elasticsearch-http() to /_bulk.
TEST(SyslogIngest, SyslogNgRelaysThroughEachOfItsDrivers) {
  const std::string root = LOGSIFT_SYSLOG_NG_ROOT;
  const std::string bin = root + "/usr/sbin/syslog-ng";
  if (::access(bin.c_str(), X_OK) != 0)
    GTEST_SKIP() << "syslog-ng is not unpacked: docker/setup.sh test puts it in " << root;
  ServerProcess server;
  ASSERT_TRUE(server.start_ready());
  TempDir work("logsift-syslog-ng-");
  const int in_port = free_port();
  ASSERT_GT(in_port, 0);
  const std::string to = "\"127.0.0.1\" transport(\"tcp\") port(" + std::to_string(server.syslog_port()) + ")";
  {
    std::ofstream conf(work.path() + "/syslog-ng.conf");
    conf << "@version: 3.38\n"
         << "@include \"" << root << "/usr/share/syslog-ng/include/scl/elasticsearch/elastic-http.conf\"\n"
         << "options { keep-hostname(yes); chain-hostnames(no); use-dns(no); dns-cache(no); stats_freq(0); };\n"
         << "source s_in { network(ip(\"127.0.0.1\") port(" << in_port << ") transport(\"tcp\")); };\n"
         << "destination d_syslog { syslog(" << to << " persist-name(\"d_syslog\")); };\n"
         << "destination d_network { network(" << to << " persist-name(\"d_network\")); };\n"
         << "destination d_5424 { network(" << to << " flags(syslog-protocol) persist-name(\"d_5424\")); };\n"
         << "destination d_es { elasticsearch-http(url(\"http://127.0.0.1:" << server.http_port()
         << "/_bulk\") index(\"logs-sng\") type(\"\") batch_lines(10) timeout(2)); };\n"
         << "log { source(s_in); destination(d_syslog); destination(d_network); destination(d_5424); "
            "destination(d_es); };\n";
  }
  const std::string w = work.path();
  auto spawned = spawn_background({bin, "-F", "--no-caps", "--module-path=" + root + "/usr/lib/syslog-ng/3.38",
                                   "-f", w + "/syslog-ng.conf", "-p", w + "/pid", "-c", w + "/ctl", "-R",
                                   w + "/persist"},
                                  {{"LD_LIBRARY_PATH", root + "/usr/lib/syslog-ng"}});
  ASSERT_GT(spawned.pid, 0) << spawned.error;
  // Ready once its source accepts a connection.
  ASSERT_TRUE(wait_until([&] { return logger(in_port, {"--rfc3164"}, "probe", "").exit.code == 0; },
                         Millis(15000)))
      << "syslog-ng did not open its source port";
  constexpr int kLines = 10;
  for (int i = 0; i < kLines; ++i) {
    auto r = logger(in_port, {"--rfc3164", "-p", "auth.info"}, "sshd",
                    "Accepted publickey for deploy from 10.0.3." + std::to_string(i) + " port " +
                        std::to_string(50000 + i) + " ssh2");
    ASSERT_TRUE(r.exit.exited && r.exit.code == 0) << r.describe();
  }
  const std::string tmpl = "Accepted publickey for <*> from <*> port <*> ssh2";
  std::map<std::string, long long> t;
  const bool all_in = wait_until(
      [&] {
        t = templates(server.http_port());
        return t[tmpl] >= 4 * kLines;
      },
      Millis(30000));
  stop_background(spawned);
  ASSERT_TRUE(all_in) << json(t).dump() << "\n" << server.log_text();
  EXPECT_EQ(t[tmpl], 4 * kLines) << "each line once per driver: " << json(t).dump();
  // Three syslog drivers: 3 frames per line (the probe may add up to 3 more),
  // none refused; the fourth copy came through /_bulk.
  auto frames = fetch_metric(server.http_port(), "logsift_syslog_frames_total");
  ASSERT_TRUE(frames);
  EXPECT_GE(*frames, 3 * kLines);
  auto rejected = fetch_metric(server.http_port(), "logsift_syslog_rejected_total");
  ASSERT_TRUE(rejected);
  EXPECT_LE(*rejected, 3) << "only the empty probe lines may be refused";
  auto sshd = http_get(server.http_port(), "/clusters?label=service:sshd&limit=10").json_body();
  ASSERT_EQ(sshd.value("total", 0), 1) << sshd.dump();
  EXPECT_EQ(sshd["clusters"][0].value("count", 0LL), 4 * kLines) << "service label from the tag, on every path";
}

}  // namespace
}  // namespace logsift_it
