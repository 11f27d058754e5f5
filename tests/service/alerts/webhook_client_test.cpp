#include "service/alerts/webhook_client.h"

#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "tests/service/alerts/loopback_server.h"

namespace logsift::webhook {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using Outcome = Result::Outcome;
using namespace std::chrono_literals;
using loopback::LoopbackServer;
using loopback::Reply;
using loopback::status_reply;

// A self-signed certificate (its own CA) made at test time: no key material
// in the repository and nothing that expires.
struct TestCert {
  std::string cert_pem;
  std::string key_pem;
};

std::string bio_to_string(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

TestCert make_self_signed(const std::string& subject_alt_names) {
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  X509* x = X509_new();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
  X509_gmtime_adj(X509_getm_notBefore(x), -3600);
  X509_gmtime_adj(X509_getm_notAfter(x), 3600);
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("logsift test"), -1, -1, 0);
  X509_set_issuer_name(x, name);
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, x, x, nullptr, nullptr, 0);
  for (const auto& [nid, value] : {std::pair{NID_subject_alt_name, subject_alt_names},
                                   std::pair{NID_basic_constraints, std::string("critical,CA:TRUE")}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value.c_str());
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(x, key, EVP_sha256());
  BIO* cert_bio = BIO_new(BIO_s_mem());
  BIO* key_bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(cert_bio, x);
  PEM_write_bio_PrivateKey(key_bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  TestCert out{bio_to_string(cert_bio), bio_to_string(key_bio)};
  BIO_free(cert_bio);
  BIO_free(key_bio);
  X509_free(x);
  EVP_PKEY_free(key);
  return out;
}

// A loopback HTTPS server (same shape as LoopbackServer): handshake, read one
// request, record it and the SNI name the client sent, answer 200, close.
class TlsLoopbackServer {
 public:
  explicit TlsLoopbackServer(const TestCert& cert)
      : ssl_ctx_(asio::ssl::context::tls_server),
        acceptor_(ioc_, tcp::endpoint(asio::ip::address_v4::loopback(), 0)) {
    ssl_ctx_.use_certificate_chain(asio::buffer(cert.cert_pem));
    ssl_ctx_.use_private_key(asio::buffer(cert.key_pem), asio::ssl::context::pem);
    do_accept();
    thread_ = std::thread([this] { ioc_.run(); });
  }
  ~TlsLoopbackServer() {
    ioc_.stop();
    thread_.join();
  }

  uint16_t port() const { return port_; }

  struct Seen {
    std::string sni;
    std::string host;
    std::string body;
  };
  std::vector<Seen> seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  struct Session {
    Session(tcp::socket s, asio::ssl::context& ctx) : stream(std::move(s), ctx) {}
    asio::ssl::stream<tcp::socket> stream;
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::response<http::string_body> response;
  };

  void do_accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) return;
      auto session = std::make_shared<Session>(std::move(socket), ssl_ctx_);
      session->stream.async_handshake(asio::ssl::stream_base::server,
                                      [this, session](boost::system::error_code ec) {
                                        if (!ec) on_handshake(session);
                                      });
      do_accept();
    });
  }

  void on_handshake(const std::shared_ptr<Session>& session) {
    http::async_read(session->stream, session->buffer, session->request,
                     [this, session](boost::system::error_code ec, size_t) {
                       if (ec) return;
                       const char* sni = SSL_get_servername(session->stream.native_handle(),
                                                            TLSEXT_NAMETYPE_host_name);
                       {
                         std::lock_guard lock(mutex_);
                         seen_.push_back({sni ? sni : "",
                                          std::string(session->request[http::field::host]),
                                          session->request.body()});
                       }
                       auto& res = session->response;
                       res.version(11);
                       res.result(http::status::ok);
                       res.keep_alive(false);
                       res.prepare_payload();
                       http::async_write(session->stream, res,
                                         [session](boost::system::error_code, size_t) {
                                           boost::system::error_code ignored;
                                           session->stream.next_layer().close(ignored);
                                         });
                     });
  }

  asio::io_context ioc_;
  asio::ssl::context ssl_ctx_;
  tcp::acceptor acceptor_;
  const uint16_t port_ = acceptor_.local_endpoint().port();
  std::mutex mutex_;
  std::vector<Seen> seen_;
  std::thread thread_;
};

// Posts one request and runs the client io_context until it has no work left
// (bounded by run_for), checking that `done` ran exactly once.
Result post_and_wait(Request req, std::string_view extra_ca_pem = {}) {
  asio::io_context ioc;
  Client client(ioc, extra_ca_pem);
  int calls = 0;
  Result result;
  client.post(std::move(req), [&](Result r) {
    ++calls;
    result = std::move(r);
  });
  ioc.run_for(10s);
  EXPECT_EQ(calls, 1);
  return result;
}

Request make_request(const std::string& url, std::string body = R"({"hello":"world"})") {
  Request req;
  req.url = url;
  req.body = std::move(body);
  req.timeout = 5s;
  return req;
}

TEST(WebhookClient, DeliversOn200WithExactBodyAndHeaders) {
  LoopbackServer server([](const auto&) { return status_reply(200, {}, "ok"); });
  Request req = make_request(server.base_url() + "/hooks/a?x=1#frag", R"({"id":"msg_1","n":[1,2]})");
  req.headers = {{"webhook-id", "msg_1"}, {"webhook-timestamp", "1700000000"},
                 {"webhook-signature", "v1,abc="}};
  const Result r = post_and_wait(req);
  EXPECT_EQ(r.outcome, Outcome::kDelivered) << r.error;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.body, "ok");
  EXPECT_FALSE(r.retry_after);

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto& got = requests[0];
  EXPECT_EQ(got.method(), http::verb::post);
  EXPECT_EQ(got.target(), "/hooks/a?x=1");
  EXPECT_EQ(got.body(), R"({"id":"msg_1","n":[1,2]})");
  EXPECT_EQ(got[http::field::host], "127.0.0.1:" + std::to_string(server.port()));
  EXPECT_EQ(got[http::field::user_agent], "logsift");
  EXPECT_EQ(got[http::field::content_type], "application/json");
  EXPECT_EQ(got[http::field::content_length], std::to_string(req.body.size()));
  EXPECT_EQ(got["webhook-id"], "msg_1");
  EXPECT_EQ(got["webhook-timestamp"], "1700000000");
  EXPECT_EQ(got["webhook-signature"], "v1,abc=");
}

TEST(WebhookClient, Retries503) {
  LoopbackServer server([](const auto&) { return status_reply(503, {}, "busy"); });
  const Result r = post_and_wait(make_request(server.base_url() + "/"));
  EXPECT_EQ(r.outcome, Outcome::kRetry);
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.error, "HTTP 503");
  EXPECT_FALSE(r.retry_after);
}

TEST(WebhookClient, Retries429AndHonoursRetryAfter) {
  LoopbackServer server([](const auto&) { return status_reply(429, {{"Retry-After", "7"}}); });
  const Result r = post_and_wait(make_request(server.base_url()));
  EXPECT_EQ(r.outcome, Outcome::kRetry);
  EXPECT_EQ(r.status, 429);
  ASSERT_TRUE(r.retry_after);
  EXPECT_EQ(*r.retry_after, 7s);
}

TEST(WebhookClient, Retries408And500) {
  for (const int status : {408, 500, 502, 599}) {
    LoopbackServer server([status](const auto&) { return status_reply(status); });
    const Result r = post_and_wait(make_request(server.base_url()));
    EXPECT_EQ(r.outcome, Outcome::kRetry) << status;
    EXPECT_EQ(r.status, status);
  }
}

TEST(WebhookClient, Rejects4xxAnd3xx) {
  for (const int status : {400, 401, 404, 410, 302, 301, 307}) {
    LoopbackServer server([status](const auto&) {
      return status_reply(status, {{"Location", "http://127.0.0.1:1/elsewhere"}});
    });
    const Result r = post_and_wait(make_request(server.base_url()));
    EXPECT_EQ(r.outcome, Outcome::kReject) << status;
    EXPECT_EQ(r.status, status);
    EXPECT_EQ(r.error, "HTTP " + std::to_string(status));
    EXPECT_EQ(server.requests().size(), 1u) << "redirect must not be followed";
  }
}

TEST(WebhookClient, LargeBodyIsDeliveredAndTruncated) {
  const std::string big(200 * 1024, 'x');
  LoopbackServer server([&big](const auto&) { return status_reply(200, {}, big); });
  const Result r = post_and_wait(make_request(server.base_url()));
  EXPECT_EQ(r.outcome, Outcome::kDelivered) << r.error;
  EXPECT_EQ(r.body.size(), kMaxStoredBody);
}

TEST(WebhookClient, SkipsInterimResponsesAndReadsChunkedBody) {
  LoopbackServer server([](const auto&) {
    Reply r;
    r.raw =
        "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
        "HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
    return r;
  });
  const Result r = post_and_wait(make_request(server.base_url()));
  EXPECT_EQ(r.outcome, Outcome::kDelivered) << r.error;
  EXPECT_EQ(r.status, 202);
  EXPECT_EQ(r.body, "hello world");
}

TEST(WebhookClient, RetryAfterHttpDateOn503) {
  LoopbackServer server([](const auto&) {
    // In the past: retry now (0), but the header was understood.
    return status_reply(503, {{"Retry-After", "Sun, 06 Nov 1994 08:49:37 GMT"}});
  });
  const Result r = post_and_wait(make_request(server.base_url()));
  EXPECT_EQ(r.outcome, Outcome::kRetry);
  EXPECT_EQ(r.retry_after, std::chrono::milliseconds(0));
}

TEST(WebhookClient, DeadlineDuringBodyKeepsStatusOutcome) {
  // The header arrived, so the receiver has answered; a stalled body only
  // truncates what we store.
  LoopbackServer server([](const auto&) {
    Reply r;
    r.raw = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial";
    r.hang = true;
    return r;
  });
  Request req = make_request(server.base_url());
  req.timeout = 300ms;
  const Result r = post_and_wait(req);
  EXPECT_EQ(r.outcome, Outcome::kDelivered) << r.error;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "partial");
}

TEST(WebhookClient, ClosedPortIsRetryWithConnectError) {
  uint16_t port = 0;
  {
    asio::io_context ioc;
    tcp::acceptor acceptor(ioc, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    port = acceptor.local_endpoint().port();
  }  // closed: nothing listens on `port` now
  const Result r = post_and_wait(make_request("http://127.0.0.1:" + std::to_string(port) + "/"));
  EXPECT_EQ(r.outcome, Outcome::kRetry);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.error.rfind("connect: ", 0), 0u) << r.error;
}

TEST(WebhookClient, SilentServerTimesOutWithinDeadline) {
  LoopbackServer server([](const auto&) { Reply r;
    r.hang = true;
    return r; });
  Request req = make_request(server.base_url());
  req.timeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  const Result r = post_and_wait(req);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.outcome, Outcome::kRetry);
  EXPECT_EQ(r.error, "timeout");
  EXPECT_GE(elapsed, 290ms);
  EXPECT_LT(elapsed, 3s);  // generous: the build machine is shared
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(WebhookClient, TlsToPlainServerIsRetryWithTlsError) {
  LoopbackServer server([](const auto&) { return status_reply(200); });
  const Result r =
      post_and_wait(make_request("https://127.0.0.1:" + std::to_string(server.port()) + "/"));
  EXPECT_EQ(r.outcome, Outcome::kRetry);
  EXPECT_EQ(r.error.rfind("tls: ", 0), 0u) << r.error;
}

TEST(WebhookClient, TlsDeliversWithTrustedCertByIpAndByName) {
  const TestCert cert = make_self_signed("IP:127.0.0.1,DNS:localhost");
  TlsLoopbackServer server(cert);
  const std::string port = std::to_string(server.port());

  Result r = post_and_wait(make_request("https://127.0.0.1:" + port + "/h", "by-ip"), cert.cert_pem);
  EXPECT_EQ(r.outcome, Outcome::kDelivered) << r.error;
  EXPECT_EQ(r.status, 200);

  r = post_and_wait(make_request("https://localhost:" + port + "/h", "by-name"), cert.cert_pem);
  EXPECT_EQ(r.outcome, Outcome::kDelivered) << r.error;

  const auto seen = server.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].sni, "");  // no SNI for IP literals
  EXPECT_EQ(seen[0].host, "127.0.0.1:" + port);
  EXPECT_EQ(seen[0].body, "by-ip");
  EXPECT_EQ(seen[1].sni, "localhost");
  EXPECT_EQ(seen[1].host, "localhost:" + port);
  EXPECT_EQ(seen[1].body, "by-name");
}

TEST(WebhookClient, TlsRejectsUntrustedOrMismatchedCert) {
  const TestCert cert = make_self_signed("DNS:other.test");
  TlsLoopbackServer server(cert);
  const std::string url = "https://127.0.0.1:" + std::to_string(server.port()) + "/";

  const Result untrusted = post_and_wait(make_request(url));  // system CAs only
  EXPECT_EQ(untrusted.outcome, Outcome::kRetry);
  EXPECT_NE(untrusted.error.find("certificate verify failed"), std::string::npos) << untrusted.error;

  // Trusted CA, but the certificate names other.test, not 127.0.0.1.
  const Result mismatch = post_and_wait(make_request(url), cert.cert_pem);
  EXPECT_EQ(mismatch.outcome, Outcome::kRetry);
  EXPECT_NE(mismatch.error.find("certificate verify failed"), std::string::npos) << mismatch.error;
  EXPECT_TRUE(server.seen().empty());
}

TEST(WebhookClient, RejectsBadRequestsWithoutConnecting) {
  LoopbackServer server([](const auto&) { return status_reply(200); });
  Request bad_url = make_request("ftp://127.0.0.1/");
  EXPECT_EQ(post_and_wait(bad_url).outcome, Outcome::kReject);
  Request injected = make_request(server.base_url());
  injected.headers = {{"x-a", "1\r\nx-b: 2"}};
  EXPECT_EQ(post_and_wait(injected).outcome, Outcome::kReject);
  Request owned = make_request(server.base_url());
  owned.headers = {{"Content-Length", "1"}};
  EXPECT_EQ(post_and_wait(owned).outcome, Outcome::kReject);
  EXPECT_TRUE(server.requests().empty());
}

TEST(WebhookClient, RequestOutlivesClient) {
  LoopbackServer server([](const auto&) { return status_reply(204); });
  asio::io_context ioc;
  int calls = 0;
  Result result;
  {
    Client client(ioc);
    client.post(make_request(server.base_url()), [&](Result r) {
      ++calls;
      result = std::move(r);
    });
  }
  ioc.run_for(10s);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(result.outcome, Outcome::kDelivered);
  EXPECT_EQ(result.status, 204);
}

TEST(WebhookClient, ConcurrentRequestsOnTwoIoThreads) {
  LoopbackServer server([](const auto& req) {
    return status_reply(req.body() == "fail" ? 500 : 200);
  });
  asio::io_context ioc;
  Client client(ioc);
  constexpr int kRequests = 40;
  std::mutex mutex;
  std::map<std::string, int> calls;  // body -> times done ran
  int delivered = 0;
  for (int i = 0; i < kRequests; ++i) {
    const std::string body = i % 10 == 0 ? "fail" : "req-" + std::to_string(i);
    client.post(make_request(server.base_url(), body), [&, body](Result r) {
      std::lock_guard lock(mutex);
      ++calls[body];
      if (r.outcome == Outcome::kDelivered) ++delivered;
    });
  }
  std::thread other([&ioc] { ioc.run_for(10s); });
  ioc.run_for(10s);
  other.join();
  int total = 0;
  for (const auto& [body, n] : calls) total += n;
  EXPECT_EQ(total, kRequests);
  EXPECT_EQ(calls["fail"], kRequests / 10);
  EXPECT_EQ(delivered, kRequests - kRequests / 10);
  EXPECT_EQ(server.requests().size(), static_cast<size_t>(kRequests));
}

TEST(WebhookRetryAfter, ParsesSecondsAndDates) {
  const auto now = std::chrono::sys_days{std::chrono::year{1994} / 11 / 6} + 8h + 49min + 30s;
  EXPECT_EQ(parse_retry_after("7", now), 7s);
  EXPECT_EQ(parse_retry_after(" 0 ", now), 0s);
  EXPECT_EQ(parse_retry_after("86400", now), kMaxRetryAfter);
  EXPECT_EQ(parse_retry_after("99999999999999999999", now), kMaxRetryAfter);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), 7s);
  EXPECT_EQ(parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", now), 7s);
  EXPECT_EQ(parse_retry_after("Sun Nov  6 08:49:37 1994", now), 7s);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", now), 0s);  // past
  EXPECT_EQ(parse_retry_after("Mon, 07 Nov 1994 08:49:37 GMT", now), kMaxRetryAfter);
  // Beyond what system_clock holds (found by fuzz_webhook): clamped, no overflow.
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 6015 07:28:00 GMT", now), kMaxRetryAfter);
  EXPECT_EQ(parse_retry_after("Mon, 01 Jan 0001 00:00:00 GMT", now), 0s);
  EXPECT_FALSE(parse_retry_after("", now));
  EXPECT_FALSE(parse_retry_after("-5", now));
  EXPECT_FALSE(parse_retry_after("1.5", now));
  EXPECT_FALSE(parse_retry_after("soon", now));
  EXPECT_FALSE(parse_retry_after("Sun, 31 Feb 1994 08:49:37 GMT", now));
  EXPECT_FALSE(parse_retry_after("Sun, 06 Nov 1994 08:49:37 PST", now));
}

TEST(WebhookUrl, ParsesGoodUrls) {
  auto u = parse_webhook_url("http://example.com");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->scheme, "http");
  EXPECT_EQ(u->host, "example.com");
  EXPECT_EQ(u->port, "80");
  EXPECT_EQ(u->target, "/");

  u = parse_webhook_url("HTTPS://hooks.example.com/a/b?x=1&y=2#section");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->scheme, "https");
  EXPECT_EQ(u->port, "443");
  EXPECT_EQ(u->target, "/a/b?x=1&y=2");

  u = parse_webhook_url("http://127.0.0.1:8080?q=1");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, "8080");
  EXPECT_EQ(u->target, "/?q=1");

  u = parse_webhook_url("https://[::1]:8443/hook");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, "8443");
  EXPECT_EQ(u->target, "/hook");

  u = parse_webhook_url("http://[2001:db8::1]");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "2001:db8::1");
  EXPECT_EQ(u->port, "80");

  u = parse_webhook_url("http://alert_sink:9000/");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "alert_sink");
}

TEST(WebhookUrl, RejectsBadUrls) {
  for (const char* bad : {"", "example.com", "ftp://example.com/", "http//example.com",
                          "http://", "http:///path", "http://user:pw@example.com/",
                          "http://user@example.com", "http://exa mple.com/", "http://example.com/a b",
                          "http://example.com/\t", "http://example.com:/", "http://example.com:0/",
                          "http://example.com:65536/", "http://example.com:80a/",
                          "http://example.com:123456/", "http://[::1/", "http://[not-ipv6]/",
                          "http://[::1]x/", "http://::1/", "http://exa%6dple.com/",
                          "http://ex\xc3\xa4mple.com/"}) {
    EXPECT_FALSE(parse_webhook_url(bad)) << bad;
  }
  EXPECT_FALSE(parse_webhook_url(std::string_view("http://a\0b/", 11)));
}

}  // namespace
}  // namespace logsift::webhook
