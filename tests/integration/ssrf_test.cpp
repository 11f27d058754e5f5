// The SSRF guard against a real server and a real receiver: the
// URLs of the hardening review are refused at creation, a name that
// resolves to a refused address is refused at connect time (the receiver
// sees nothing), and the service's own port is refused even when loopback
// is allowed.
#include <arpa/inet.h>
#include <netdb.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "harness.h"
#include "webhook_receiver.h"

namespace logsift_it {
namespace {

HttpResponse subscribe(int port, const std::string& url) {
  json body = {{"url", url}, {"rules", json::array({"new_cluster"})}};
  return http_request(port, "POST", "/subscriptions", body.dump(), "application/json");
}

TEST(Ssrf, InternalDestinationsAreRefusedAtCreation) {
  ServerOptions o;
  o.allow_loopback_webhooks = false;
  ServerProcess server(o);
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  const std::string own = std::to_string(port);
  for (const std::string& url : std::vector<std::string>{
           "http://169.254.169.254/latest/meta-data/", "http://[::ffff:169.254.169.254]/", "http://10.0.0.1/hook",
        "http://0x7f000001/", "http://2130706433:8080/", "http://127.1/", "http://localhost/",
        "http://LOCALHOST.:9/x", "http://foo.localhost/", "http://[::1]:9/", "http://[fd00::1]/",
        "http://192.168.1.1/", "http://172.16.0.1/", "http://100.64.0.1/", "http://0.0.0.0/",
        "http://127.0.0.1:" + own + "/subscriptions"}) {
    auto r = subscribe(port, url);
    EXPECT_TRUE(is_json_error(r, 400)) << url << ": " << r.describe();
    if (r.status == 400) {
      EXPECT_NE(r.json_body().value("error", "").find("url"), std::string::npos) << r.body;
    }
  }
  // A public destination is accepted (it is only judged again at connect time).
  EXPECT_EQ(subscribe(port, "https://hooks.example.com/logsift").status, 201);
  EXPECT_TRUE(server_healthy(port));
}

TEST(Ssrf, OwnPortIsRefusedEvenWhenLoopbackIsAllowed) {
  ServerProcess server;  // harness default: loopback allowed
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  for (const int p : {server.http_port(), server.tcp_port()}) {
    for (const std::string host : {"127.0.0.1", "localhost", "[::1]", "[::ffff:127.0.0.1]"}) {
      const std::string url = "http://" + host + ":" + std::to_string(p) + "/inferences";
      auto r = subscribe(port, url);
      EXPECT_TRUE(is_json_error(r, 400)) << url << ": " << r.describe();
    }
  }
  EXPECT_EQ(subscribe(port, "http://127.0.0.1:9/hook").status, 201);
}

// A host name whose address is refused: the machine's own name, which
// /etc/hosts maps to a loopback or private address here.
std::string refused_host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "";
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(name, "80", &hints, &res) != 0) return "";
  bool all_refused = res != nullptr;
  for (addrinfo* a = res; a; a = a->ai_next) {
    char buf[INET6_ADDRSTRLEN] = {};
    const void* src = a->ai_family == AF_INET ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr)
                                              : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr);
    ::inet_ntop(a->ai_family, src, buf, sizeof(buf));
    const std::string s(buf);
    const bool loopback = s.rfind("127.", 0) == 0 || s == "::1";
    const bool priv = s.rfind("10.", 0) == 0 || s.rfind("192.168.", 0) == 0 || s.rfind("172.", 0) == 0 ||
                      s.rfind("fd", 0) == 0 || s.rfind("fe80", 0) == 0;
    if (!loopback && !priv) all_refused = false;
  }
  ::freeaddrinfo(res);
  return all_refused ? std::string(name) : "";
}

TEST(Ssrf, NameResolvingToARefusedAddressIsRefusedAtConnectTime) {
  const std::string host = refused_host_name();
  if (host.empty() || host == "localhost") GTEST_SKIP() << "this machine's name resolves to a public address";
  WebhookReceiver rcv;
  ASSERT_TRUE(rcv.start());
  ServerOptions o;
  o.allow_loopback_webhooks = false;
  o.args = {"--delivery-first-retry-ms", "50", "--delivery-max-attempts", "3"};
  ServerProcess server(o);
  ASSERT_TRUE(server.start_ready());
  const int port = server.http_port();
  const std::string url = "http://" + host + ":" + std::to_string(rcv.port()) + "/hook";
  auto created = subscribe(port, url);
  ASSERT_EQ(created.status, 201) << "a name is judged at connect time: " << created.describe();
  ASSERT_EQ(post_infer(port, "ssrf probe line that makes a brand new cluster").status, 200);

  json failed;
  ASSERT_TRUE(wait_until(
      [&] {
        auto r = http_get(port, "/alerts?status=failed");
        failed = r.json_body();
        return r.status == 200 && failed.contains("alerts") && !failed["alerts"].empty();
      },
      Millis(15000)))
      << "the alert must fail for good: " << http_get(port, "/alerts?status=pending").body;
  const json& e = failed["alerts"][0];
  EXPECT_EQ(e.value("last_error", ""), "destination not allowed") << e;
  EXPECT_EQ(e.value("attempts", 0), 1) << "refused destinations are not retried: " << e;
  EXPECT_EQ(rcv.count(), 0u) << "the receiver must never be reached";
}

}  // namespace
}  // namespace logsift_it
