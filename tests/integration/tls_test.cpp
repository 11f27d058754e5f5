// TLS and mutual TLS on every listener, with real clients: curl and
// openssl s_client (HTTPS, TLS on the TCP line listener, refusals: TLS 1.1,
// a wrong CA, an expired certificate, a wrong host name, no client
// certificate when one is required, plain text to a TLS port, a handshake
// that never comes), rsyslog (gtls and ossl drivers) and syslog-ng (tls())
// to the RFC 5425 syslog port, winston-loki and the OpenTelemetry JS exporter
// over https, a real Prometheus scraping /metrics with a client certificate,
// a certificate rotation under load (nothing lost, nothing refused) and the
// start-up rules. Every certificate is made here by openssl, with short lives.
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <regex>
#include <thread>

#include "harness.h"

namespace logsift_it {
namespace {

const std::string kOpenssl = "/usr/bin/openssl";
const std::string kCurl = "/usr/bin/curl";

bool have(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

RunResult sh(const std::string& script, const std::string& in = "", Millis timeout = Millis(30000)) {
  return run_program({"/bin/bash", "-c", script}, in, {}, timeout);
}

// A test PKI in a temp dir: a CA; a server certificate for localhost and
// 127.0.0.1 (and a second one, for rotation); a client certificate; an
// expired client certificate; and a second CA with a client of its own.
class Pki {
 public:
  Pki() : dir_("logsift-tls-") {
    const std::string d = dir_.path();
    std::ofstream(d + "/server.ext") << "subjectAltName=DNS:localhost,IP:127.0.0.1\n";
    auto r = sh("set -e; cd " + d +
                "\n"
                "key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out $1.key 2>/dev/null; }\n"
                "ca() { key $1; openssl req -x509 -new -key $1.key -out $1.crt -days 2 -subj /CN=$1 2>/dev/null; }\n"
                "cert() { key $1; openssl req -new -key $1.key -out $1.csr -subj /CN=$3 2>/dev/null;"
                " openssl x509 -req -in $1.csr -CA $2.crt -CAkey $2.key -CAcreateserial -out $1.crt -days $4 $5 "
                "2>/dev/null; }\n"
                "ca ca; ca other-ca\n"
                "cert server ca localhost 1 '-extfile server.ext'\n"
                "cert server2 ca localhost 2 '-extfile server.ext'\n"
                "cert client ca shipper 1\n"
                "cert expired ca shipper -1\n"
                "cert stranger other-ca shipper 1\n");
    ok_ = r.exit.clean();
    error_ = r.describe();
  }
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  std::string operator()(const std::string& name) const { return dir_.path() + "/" + name; }

 private:
  TempDir dir_;
  bool ok_ = false;
  std::string error_;
};

std::vector<std::string> tls_args(const Pki& pki, const std::vector<std::string>& more = {}) {
  std::vector<std::string> a = {"--tls-cert-file", pki("server.crt"), "--tls-key-file", pki("server.key"),
                                "--tls-client-ca-file", pki("ca.crt")};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

// curl against https://localhost:PORT (resolved to 127.0.0.1); the last line
// of out is the HTTP status.
RunResult curl(int port, const std::string& target, std::vector<std::string> opts, const std::string& host = "localhost") {
  std::vector<std::string> argv = {kCurl, "-sS", "--max-time", "10", "--resolve",
                                   host + ":" + std::to_string(port) + ":127.0.0.1", "-w", "\n%{http_code}"};
  argv.insert(argv.end(), opts.begin(), opts.end());
  argv.push_back("https://" + host + ":" + std::to_string(port) + target);
  return run_program(argv, "", {}, Millis(20000));
}

std::string metrics_of(const Pki& pki, int port) {
  return curl(port, "/metrics", {"--cacert", pki("ca.crt"), "--cert", pki("client.crt"), "--key", pki("client.key")}).out;
}

double failures(const std::string& prom, const std::string& listener, const std::string& reason) {
  return metric_sum(prom, "logsift_tls_handshake_failures_total{listener=\"" + listener + "\",reason=\"" + reason + "\"}");
}

::testing::AssertionResult start_tls(ServerProcess& server, const Pki& pki) {
  if (auto s = server.start(); !s) return s;
  const bool ready = wait_until(
      [&] {
        auto r = curl(server.http_port(), "/readyz",
                      {"--cacert", pki("ca.crt"), "--cert", pki("client.crt"), "--key", pki("client.key")});
        return r.out.ends_with("\n200");
      },
      Millis(20000), Millis(100));
  if (!ready) return ::testing::AssertionFailure() << "never ready over https: " << server.log_text();
  return ::testing::AssertionSuccess();
}

// openssl s_client sending `lines` to PORT and printing what comes back; the
// server's idle timeout ends the connection once the replies are read.
RunResult s_client(int port, const std::string& lines, const std::vector<std::string>& opts) {
  std::vector<std::string> argv = {kOpenssl, "s_client", "-quiet", "-verify_return_error", "-connect",
                                   "127.0.0.1:" + std::to_string(port)};
  argv.insert(argv.end(), opts.begin(), opts.end());
  return run_program(argv, lines, {}, Millis(30000));
}

// s_client's session went well: verified, and ended only by the server's
// idle timeout (which closes the socket without a close_notify, as Beast's
// timeouts do; s_client then reports "unexpected eof").
bool closed_cleanly(const RunResult& r) {
  if (r.exit.code == 0) return true;
  return r.exit.exited && r.err.find("unexpected eof while reading") != std::string::npos &&
         r.err.find("verify error") == std::string::npos && r.err.find("alert") == std::string::npos;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string numbered_lines(const std::string& prefix, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += prefix + " " + std::to_string(i) + " finished in " + std::to_string(i % 97) + " ms\n";
  return out;
}

TEST(Tls, HttpsWithCurlAndWhatItRefuses) {
  if (!have(kOpenssl) || !have(kCurl)) GTEST_SKIP() << "openssl or curl missing";
  Pki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  ServerProcess server({.args = tls_args(pki)});
  ASSERT_TRUE(start_tls(server, pki));
  const int port = server.http_port();
  EXPECT_NE(server.log_text().find("tls=http(client_auth none),tcp(client_auth none)"), std::string::npos)
      << server.log_text();

  // A line over HTTPS: TLS 1.2 and 1.3 both, ALPN http/1.1.
  for (const char* version : {"--tlsv1.2", "--tlsv1.3"}) {
    auto r = curl(port, "/inferences",
                  {version, "--cacert", pki("ca.crt"), "-H", "Content-Type: application/json", "-d",
                   R"({"text":"disk quota exceeded for user 42"})"});
    ASSERT_TRUE(r.out.ends_with("\n200")) << version << " " << r.describe();
    EXPECT_NE(r.out.find("\"cluster_id\""), std::string::npos) << r.out;
  }
  auto alpn = sh("echo | openssl s_client -connect 127.0.0.1:" + std::to_string(port) +
                 " -alpn h2,http/1.1 -CAfile " + pki("ca.crt") + " 2>&1");
  EXPECT_NE(alpn.out.find("ALPN protocol: http/1.1"), std::string::npos) << alpn.out;
  auto ciphers = sh("echo | openssl s_client -connect 127.0.0.1:" + std::to_string(port) +
                    " -tls1_2 -cipher AES128-SHA -CAfile " + pki("ca.crt") + " 2>&1");
  EXPECT_NE(ciphers.exit.code, 0) << "a non-forward-secret cipher was accepted: " << ciphers.out;

  // What a client must refuse, and what the server must.
  auto old = curl(port, "/readyz", {"--tlsv1.1", "--tls-max", "1.1", "--cacert", pki("ca.crt")});
  EXPECT_EQ(old.exit.code, 35) << "TLS 1.1 was accepted: " << old.describe();
  auto wrong_ca = curl(port, "/readyz", {"--cacert", pki("other-ca.crt")});
  EXPECT_EQ(wrong_ca.exit.code, 60) << wrong_ca.describe();
  auto wrong_name = curl(port, "/readyz", {"--cacert", pki("ca.crt")}, "wrong.example");
  EXPECT_EQ(wrong_name.exit.code, 60) << wrong_name.describe();
  EXPECT_NE(wrong_name.err.find("wrong.example"), std::string::npos) << wrong_name.err;
  auto plain = run_program({kCurl, "-sS", "--max-time", "10", "http://127.0.0.1:" + std::to_string(port) + "/readyz"});
  EXPECT_NE(plain.exit.code, 0) << "plain HTTP answered on the TLS port: " << plain.describe();

  const std::string prom = metrics_of(pki, port);
  EXPECT_GE(failures(prom, "http", "protocol_version"), 1) << prom;
  // (curl checks the name after the handshake, so only the wrong CA's alert reaches the server.)
  EXPECT_GE(failures(prom, "http", "client_rejected_certificate"), 1) << "wrong CA: " << prom;
  EXPECT_GE(failures(prom, "http", "not_tls"), 1) << prom;
  EXPECT_GE(metric_sum(prom, "logsift_tls_handshakes_total{listener=\"http\"}"), 3) << prom;
  const double expiry = metric_sum(prom, "logsift_tls_certificate_expiry_timestamp_seconds{listener=\"http\"}");
  EXPECT_GT(expiry, static_cast<double>(::time(nullptr))) << prom;
  EXPECT_LT(expiry, static_cast<double>(::time(nullptr)) + 2 * 86400) << prom;
  EXPECT_NE(server.log_text().find("handshake from 127.0.0.1"), std::string::npos) << server.log_text();
}

TEST(Tls, TcpLinesWithMutualTlsAndEachRefusal) {
  if (!have(kOpenssl) || !have(kCurl)) GTEST_SKIP() << "openssl or curl missing";
  Pki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  ServerProcess server(
      {.args = tls_args(pki, {"--tcp-tls-client-auth", "require", "--tcp-idle-timeout-ms", "1500"})});
  ASSERT_TRUE(start_tls(server, pki));
  const int tcp = server.tcp_port();
  const std::string ca = pki("ca.crt");
  auto good = s_client(tcp, numbered_lines("backup job", 50),
                       {"-CAfile", ca, "-cert", pki("client.crt"), "-key", pki("client.key")});
  EXPECT_TRUE(closed_cleanly(good)) << good.describe();
  EXPECT_EQ(count_of(good.out, "\"cluster_id\""), 50u) << good.describe();

  auto none = s_client(tcp, "never read\n", {"-CAfile", ca});
  EXPECT_EQ(count_of(none.out, "\"cluster_id\""), 0u) << none.describe();
  auto stranger = s_client(tcp, "never read\n", {"-CAfile", ca, "-cert", pki("stranger.crt"), "-key", pki("stranger.key")});
  EXPECT_EQ(count_of(stranger.out, "\"cluster_id\""), 0u) << stranger.describe();
  auto expired = s_client(tcp, "never read\n", {"-CAfile", ca, "-cert", pki("expired.crt"), "-key", pki("expired.key")});
  EXPECT_EQ(count_of(expired.out, "\"cluster_id\""), 0u) << expired.describe();

  const std::string prom = metrics_of(pki, server.http_port());
  EXPECT_EQ(failures(prom, "tcp", "no_client_certificate"), 1) << prom;
  EXPECT_EQ(failures(prom, "tcp", "bad_client_certificate"), 2) << "other CA and expired: " << prom;
  EXPECT_EQ(metric_sum(prom, "logsift_tcp_lines_total"), 50) << "no line of a refused client was read: " << prom;
  // HTTP kept client_auth none: curl needs no certificate there.
  EXPECT_TRUE(curl(server.http_port(), "/readyz", {"--cacert", ca}).out.ends_with("\n200"));
}

TEST(Tls, HandshakeTimeoutFreesTheConnection) {
  if (!have(kOpenssl) || !have(kCurl)) GTEST_SKIP() << "openssl or curl missing";
  Pki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  ServerProcess server({.args = tls_args(pki, {"--tls-handshake-timeout-ms", "300", "--max-tcp-connections", "1",
                                               "--tcp-idle-timeout-ms", "1500"})});
  ASSERT_TRUE(start_tls(server, pki));
  // A client that connects and says nothing holds the only TCP slot until
  // the handshake timeout closes it.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(server.tcp_port()));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  pollfd p{fd, POLLIN, 0};
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(::poll(&p, 1, 5000), 1) << "the server never closed a silent connection";
  char c;
  EXPECT_LE(::recv(fd, &c, 1, 0), 0);
  ::close(fd);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, Millis(3000));
  // The slot is free again: a real client gets in.
  auto good = s_client(server.tcp_port(), "after the silent one 1\n", {"-CAfile", pki("ca.crt")});
  EXPECT_EQ(count_of(good.out, "\"cluster_id\""), 1u) << good.describe();
  EXPECT_EQ(failures(metrics_of(pki, server.http_port()), "tcp", "timeout"), 1);
}

// rsyslog's two TLS drivers (GnuTLS and OpenSSL) forward to the RFC 5425
// port with a client certificate, checking ours by name.
TEST(Tls, RsyslogGtlsAndOsslToTheSyslogTlsPort) {
  if (!have(kOpenssl) || !have(kCurl) || !have("/usr/sbin/rsyslogd")) GTEST_SKIP() << "openssl, curl or rsyslog missing";
  Pki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  ServerProcess server({.args = tls_args(pki, {"--syslog-tls-port", "0", "--syslog-tls-client-auth", "require"})});
  ASSERT_TRUE(start_tls(server, pki));
  ASSERT_GT(server.syslog_tls_port(), 0) << server.log_text();
  long long expected = 0;
  for (const std::string driver : {"gtls", "ossl"}) {
    SCOPED_TRACE(driver);
    if (::access(("/usr/lib/x86_64-linux-gnu/rsyslog/lmnsd_" + driver + ".so").c_str(), R_OK) != 0) {
      ADD_FAILURE() << "rsyslog's " << driver << " driver is not installed (docker/packages.txt: rsyslog-gnutls, "
                    << "rsyslog-openssl)";
      continue;
    }
    TempDir work("logsift-rsyslog-tls-");
    const std::string port_file = work.path() + "/imtcp.port";
    {
      std::ofstream conf(work.path() + "/rsyslog.conf");
      conf << "global(workDirectory=\"" << work.path() << "\" DefaultNetstreamDriverCAFile=\"" << pki("ca.crt")
           << "\" DefaultNetstreamDriverCertFile=\"" << pki("client.crt") << "\" DefaultNetstreamDriverKeyFile=\""
           << pki("client.key") << "\")\n"
           << "module(load=\"imtcp\")\n"
           << "input(type=\"imtcp\" address=\"127.0.0.1\" port=\"0\" listenPortFileName=\"" << port_file << "\")\n"
           << "action(type=\"omfwd\" target=\"127.0.0.1\" port=\"" << server.syslog_tls_port()
           << "\" protocol=\"tcp\" tcp_framing=\"octet-counted\" StreamDriver=\"" << driver
           << "\" StreamDriverMode=\"1\" StreamDriverAuthMode=\"x509/name\" StreamDriverPermittedPeers=\"localhost\" "
              "template=\"RSYSLOG_SyslogProtocol23Format\")\n";
    }
    auto rs = spawn_background({"/usr/sbin/rsyslogd", "-n", "-f", work.path() + "/rsyslog.conf", "-i",
                                work.path() + "/rsyslogd.pid"});
    ASSERT_GT(rs.pid, 0) << rs.error;
    int in_port = 0;
    ASSERT_TRUE(wait_until([&] { std::ifstream f(port_file); return static_cast<bool>(f >> in_port) && in_port > 0; },
                           Millis(10000)));
    constexpr int kLines = 20;
    for (int i = 0; i < kLines; ++i) {
      auto r = run_program({"/usr/bin/logger", "--tcp", "--server", "127.0.0.1", "--port", std::to_string(in_port),
                            "--rfc3164", "-t", "vault", "lease " + std::to_string(i) + " renewed via " + driver});
      ASSERT_EQ(r.exit.code, 0) << r.describe();
    }
    expected += kLines;
    const bool in = wait_until(
        [&] { return metric_sum(metrics_of(pki, server.http_port()), "logsift_syslog_frames_total") >= expected; },
        Millis(20000), Millis(200));
    stop_background(rs);
    EXPECT_TRUE(in) << metrics_of(pki, server.http_port());
  }
  const std::string prom = metrics_of(pki, server.http_port());
  EXPECT_EQ(metric_sum(prom, "logsift_syslog_frames_total"), expected) << prom;
  EXPECT_EQ(metric_sum(prom, "logsift_syslog_rejected_total"), 0) << prom;
  EXPECT_GE(metric_sum(prom, "logsift_tls_handshakes_total{listener=\"syslog\"}"), 2) << prom;
}

TEST(Tls, SyslogNgTlsDestination) {
  const std::string root = LOGSIFT_SYSLOG_NG_ROOT;
  const std::string bin = root + "/usr/sbin/syslog-ng";
  if (::access(bin.c_str(), X_OK) != 0 || !have(kOpenssl) || !have(kCurl))
    GTEST_SKIP() << "syslog-ng is not unpacked: docker/setup.sh test puts it in " << root;
  Pki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  ServerProcess server({.args = tls_args(pki, {"--syslog-tls-port", "0", "--syslog-tls-client-auth", "require"})});
  ASSERT_TRUE(start_tls(server, pki));
  TempDir work("logsift-syslog-ng-tls-");
  const int in_port = free_port();
  ASSERT_GT(in_port, 0);
  {
    std::ofstream conf(work.path() + "/syslog-ng.conf");
    conf << "@version: 3.38\n"
         << "options { keep-hostname(yes); use-dns(no); dns-cache(no); stats_freq(0); };\n"
         << "source s_in { network(ip(\"127.0.0.1\") port(" << in_port << ") transport(\"tcp\")); };\n"
         << "destination d_tls { syslog(\"127.0.0.1\" port(" << server.syslog_tls_port()
         << ") transport(\"tls\") tls(ca-file(\"" << pki("ca.crt") << "\") cert-file(\"" << pki("client.crt")
         << "\") key-file(\"" << pki("client.key") << "\") peer-verify(required-trusted))); };\n"
         << "log { source(s_in); destination(d_tls); };\n";
  }
  const std::string w = work.path();
  auto sng = spawn_background({bin, "-F", "--no-caps", "--module-path=" + root + "/usr/lib/syslog-ng/3.38", "-f",
                               w + "/syslog-ng.conf", "-p", w + "/pid", "-c", w + "/ctl", "-R", w + "/persist"},
                              {{"LD_LIBRARY_PATH", root + "/usr/lib/syslog-ng"}});
  ASSERT_GT(sng.pid, 0) << sng.error;
  auto send = [&](int i) {
    return run_program({"/usr/bin/logger", "--tcp", "--server", "127.0.0.1", "--port", std::to_string(in_port),
                        "--rfc3164", "-t", "vault", "token " + std::to_string(i) + " revoked by syslog-ng"});
  };
  ASSERT_TRUE(wait_until([&] { return send(0).exit.code == 0; }, Millis(15000))) << "syslog-ng never listened";
  for (int i = 1; i < 20; ++i) ASSERT_EQ(send(i).exit.code, 0);
  const bool in = wait_until(
      [&] { return metric_sum(metrics_of(pki, server.http_port()), "logsift_syslog_frames_total") >= 20; },
      Millis(20000), Millis(200));
  stop_background(sng);
  const std::string prom = metrics_of(pki, server.http_port());
  EXPECT_TRUE(in) << prom << server.log_text();
  EXPECT_EQ(metric_sum(prom, "logsift_syslog_rejected_total"), 0) << prom;
}

TEST(Tls, NodeClientsOverHttps) {
  const std::string clients = LOGSIFT_NPM_CLIENTS_DIR;
  if (!have("/usr/bin/node") || ::access((clients + "/node_modules/winston-loki/package.json").c_str(), R_OK) != 0)
    GTEST_SKIP() << "node or the npm clients are missing: docker/setup.sh test installs them into " << clients;
  Pki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  ServerProcess server({.args = tls_args(pki)});
  ASSERT_TRUE(start_tls(server, pki));
  const std::string base = "https://localhost:" + std::to_string(server.http_port());
  for (const char* script : {"loki.js", "otlp.js"}) {
    auto r = run_program({"/usr/bin/node", std::string(LOGSIFT_SOURCE_DIR) + "/tests/clients/" + script, "proto",
                          std::to_string(server.http_port()), "20"},
                         "",
                         {{"NODE_PATH", clients + "/node_modules"}, {"LOGSIFT_BASE_URL", base},
                          {"NODE_EXTRA_CA_CERTS", pki("ca.crt")}},
                         Millis(60000));
    EXPECT_TRUE(r.exit.clean()) << script << ": " << r.describe();
  }
  // 20 + 5 lines from each client.
  EXPECT_TRUE(wait_until([&] { return metric_sum(metrics_of(pki, server.http_port()), "logsift_lines_total") >= 50; },
                         Millis(10000)))
      << metrics_of(pki, server.http_port());
  // Without the CA, Node refuses our certificate.
  auto refused = run_program({"/usr/bin/node", std::string(LOGSIFT_SOURCE_DIR) + "/tests/clients/otlp.js", "proto",
                              std::to_string(server.http_port()), "1"},
                             "", {{"NODE_PATH", clients + "/node_modules"}, {"LOGSIFT_BASE_URL", base}}, Millis(60000));
  EXPECT_NE(refused.exit.code, 0) << refused.describe();
}

TEST(Tls, PrometheusScrapesWithAClientCertificate) {
  if (!have("/usr/bin/prometheus") || !have(kOpenssl) || !have(kCurl)) GTEST_SKIP() << "prometheus not installed";
  Pki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  ServerProcess server({.args = tls_args(pki, {"--http-tls-client-auth", "require"})});
  ASSERT_TRUE(start_tls(server, pki));
  // Without a certificate curl is turned away.
  auto bare = curl(server.http_port(), "/metrics", {"--cacert", pki("ca.crt")});
  EXPECT_FALSE(bare.out.ends_with("\n200")) << bare.describe();
  Prometheus prom("  - job_name: logsift\n    scheme: https\n    tls_config: {ca_file: '" + pki("ca.crt") +
                  "', cert_file: '" + pki("client.crt") + "', key_file: '" + pki("client.key") +
                  "', server_name: localhost}\n    static_configs:\n      - targets: ['127.0.0.1:" +
                  std::to_string(server.http_port()) + "']\n");
  ASSERT_TRUE(prom.running()) << prom.error();
  json result;
  const bool scraped = prom.wait_for_series("logsift_tls_handshakes_total{job=\"logsift\"}", &result);
  json up = prom.query("up{job=\"logsift\"}");
  ASSERT_TRUE(scraped) << result.dump() << "\n" << server.log_text();
  ASSERT_TRUE(up.is_object() && !up["data"]["result"].empty()) << up;
  EXPECT_EQ(up["data"]["result"][0]["value"][1], "1") << up;
  EXPECT_GE(failures(metrics_of(pki, server.http_port()), "http", "no_client_certificate"), 1);
}

std::string served_fingerprint(int port, const Pki& pki) {
  auto r = sh("echo | openssl s_client -connect 127.0.0.1:" + std::to_string(port) + " -CAfile " + pki("ca.crt") +
              " 2>/dev/null | openssl x509 -noout -fingerprint -sha256");
  return r.out;
}

std::string file_fingerprint(const std::string& crt) {
  return sh("openssl x509 -noout -fingerprint -sha256 -in " + crt).out;
}

// Four connections keep streaming lines with replies while the pair is
// replaced on disk (the file watch) and then by SIGHUP, and a bad pair is
// offered in between: every line is answered, no connection is refused, new
// connections get the new certificate, and the bad pair is refused with the
// old one kept.
TEST(Tls, RotationUnderLoadLosesNothing) {
  if (!have(kOpenssl) || !have(kCurl)) GTEST_SKIP() << "openssl or curl missing";
  Pki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  TempDir live("logsift-tls-live-");
  const std::string crt = live.file("tls.crt"), key = live.file("tls.key");
  ASSERT_EQ(sh("cp " + pki("server.crt") + " " + crt + " && cp " + pki("server.key") + " " + key).exit.code, 0);
  ServerProcess server({.args = {"--tls-cert-file", crt, "--tls-key-file", key, "--tls-reload-interval-ms", "200",
                                 "--tcp-idle-timeout-ms", "1000"}});
  ASSERT_TRUE(start_tls(server, pki));
  const int tcp = server.tcp_port();
  EXPECT_EQ(served_fingerprint(tcp, pki), file_fingerprint(pki("server.crt")));

  std::atomic<bool> stop{false};
  std::atomic<long long> sent{0}, answered{0}, sessions{0}, failed_sessions{0};
  std::mutex mu;
  std::string first_failure;
  std::vector<std::thread> load;
  for (int t = 0; t < 4; ++t)
    load.emplace_back([&, t] {
      for (int round = 0; !stop; ++round) {
        const int n = 300;
        auto r = s_client(tcp, numbered_lines("rotation t" + std::to_string(t) + " r" + std::to_string(round), n),
                          {"-CAfile", pki("ca.crt")});
        sent += n;
        answered += static_cast<long long>(count_of(r.out, "\"cluster_id\""));
        ++sessions;
        if (!closed_cleanly(r)) {
          ++failed_sessions;
          std::lock_guard lock(mu);
          if (first_failure.empty()) first_failure = r.describe();
        }
      }
    });
  let_time_pass(Millis(1500));
  // 1. A new pair written over the old: the file watch picks it up.
  ASSERT_EQ(sh("cp " + pki("server2.key") + " " + key + ".new && cp " + pki("server2.crt") + " " + crt +
               ".new && mv " + key + ".new " + key + " && mv " + crt + ".new " + crt)
                .exit.code,
            0);
  EXPECT_TRUE(wait_until([&] { return served_fingerprint(tcp, pki) == file_fingerprint(pki("server2.crt")); },
                         Millis(10000)));
  let_time_pass(Millis(1000));
  // 2. A bad pair (the key of another certificate): refused, the old pair stays.
  ASSERT_EQ(sh("cp " + pki("client.key") + " " + key).exit.code, 0);
  ::kill(server.pid(), SIGHUP);
  EXPECT_TRUE(wait_until(
      [&] { return metric_sum(metrics_of(pki, server.http_port()), "logsift_tls_reloads_total{listener=\"tcp\",result=\"error\"}") >= 1; },
      Millis(10000)));
  EXPECT_EQ(served_fingerprint(tcp, pki), file_fingerprint(pki("server2.crt")));
  // 3. The first pair back, by SIGHUP.
  ASSERT_EQ(sh("cp " + pki("server.key") + " " + key + " && cp " + pki("server.crt") + " " + crt).exit.code, 0);
  ::kill(server.pid(), SIGHUP);
  EXPECT_TRUE(wait_until([&] { return served_fingerprint(tcp, pki) == file_fingerprint(pki("server.crt")); },
                         Millis(10000)));
  let_time_pass(Millis(1500));
  stop = true;
  for (auto& t : load) t.join();
  EXPECT_EQ(failed_sessions.load(), 0) << first_failure;
  EXPECT_GE(sessions.load(), 8);
  EXPECT_EQ(answered.load(), sent.load()) << "lines without a reply";
  long long total = -1;
  std::string listing;
  ASSERT_TRUE(wait_until(
      [&] {
        auto r = curl(server.http_port(), "/clusters?limit=1000", {"--cacert", pki("ca.crt")});
        listing = r.describe();
        if (!r.out.ends_with("\n200")) return false;
        total = 0;
        const json listed = json::parse(r.out.substr(0, r.out.rfind('\n')));
        for (const auto& c : listed["clusters"]) total += c.value("count", 0LL);
        return total == sent.load();
      },
      Millis(10000)))
      << "the catalog counts " << total << " of " << sent.load() << " lines sent: " << listing.substr(0, 2000);
  const std::string prom = metrics_of(pki, server.http_port());
  EXPECT_GE(metric_sum(prom, "logsift_tls_reloads_total{listener=\"tcp\",result=\"ok\"}"), 2) << prom;
  EXPECT_NE(server.log_text().find("new certificate refused, the old one stays in use"), std::string::npos);
}

TEST(Tls, StartUpRules) {
  if (!have(kOpenssl)) GTEST_SKIP() << "openssl missing";
  Pki pki;
  ASSERT_TRUE(pki.ok()) << pki.error();
  TempDir data("logsift-tls-start-");
  const std::vector<std::string> base = {"serve", "--http-port", "0", "--tcp-port", "0", "--syslog-port", "-1",
                                         "--data-dir", data.path(), "--admin-token", "t0k3n-for-the-start-test"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> a = base;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  // Beyond loopback in plain text: refused, saying why and how.
  auto plain = run_logsift(with({"--http-host", "0.0.0.0"}), "", {}, Millis(20000));
  EXPECT_EQ(plain.exit.code, 2) << plain.describe();
  EXPECT_NE(plain.err.find("in plain text"), std::string::npos) << plain.describe();
  EXPECT_NE(plain.err.find("tls_cert_file"), std::string::npos) << plain.describe();
  EXPECT_NE(plain.err.find("allow_plaintext"), std::string::npos) << plain.describe();
  // With TLS on both listeners it starts (the listening line), as it does with allow_plaintext.
  for (const auto& extra : {tls_args(pki, {"--http-host", "0.0.0.0", "--tcp-host", "0.0.0.0"}),
                            std::vector<std::string>{"--http-host", "0.0.0.0", "--allow-plaintext", "true"}}) {
    std::vector<std::string> args(base.begin() + 1, base.end());
    args.insert(args.end(), extra.begin(), extra.end());
    ServerProcess s({.args = args, .data_dir = data.path()});
    EXPECT_TRUE(s.start()) << s.log_text();
    EXPECT_TRUE(s.stop().clean());
  }
  // A key that is not the certificate's, an expired certificate, a missing
  // CA for required client certificates: refused before listening.
  auto mismatch = run_logsift(with({"--tls-cert-file", pki("server.crt"), "--tls-key-file", pki("client.key")}), "", {},
                              Millis(20000));
  EXPECT_EQ(mismatch.exit.code, 2) << mismatch.describe();
  EXPECT_NE(mismatch.err.find("cannot start TLS"), std::string::npos) << mismatch.describe();
  auto expired = run_logsift(with({"--tls-cert-file", pki("expired.crt"), "--tls-key-file", pki("expired.key")}), "",
                             {}, Millis(20000));
  EXPECT_EQ(expired.exit.code, 2) << expired.describe();
  EXPECT_NE(expired.err.find("expired"), std::string::npos) << expired.describe();
  auto no_ca = run_logsift(with({"--tls-cert-file", pki("server.crt"), "--tls-key-file", pki("server.key"),
                                 "--tls-client-auth", "require"}),
                           "", {}, Millis(20000));
  EXPECT_NE(no_ca.exit.code, 0) << no_ca.describe();
  EXPECT_NE(no_ca.err.find("tls_client_ca_file"), std::string::npos) << no_ca.describe();
}

}  // namespace
}  // namespace logsift_it
