// Asynchronous HTTP(S) POST for webhook delivery (Boost.Beast over Asio).
//
// One connection per request, no pooling, no redirects. Every request has a
// single deadline covering resolve + connect + TLS handshake + write + read.
// Once the response header is in, the status decides the outcome: a body that
// stalls past the deadline, fails, or exceeds kMaxStoredBody (reading stops
// there) is only truncated in Result::body. Outcomes for the delivery worker:
//   kDelivered  2xx
//   kRetry      resolve/connect/TLS/IO errors, timeout, 5xx, 408, 429
//               (with Retry-After, capped at one hour, when the server sent it)
//   kReject     any other status (3xx, other 4xx, 101) and unusable requests
//               (bad URL, bad header); retrying these cannot succeed.
//               Interim 1xx responses (100, 103) are skipped.
//
// Threading and lifetimes:
//  - post() may be called from any thread. Each request runs on its own strand
//    of the io_context, so the io_context may be run by several threads.
//  - `done` is called exactly once, on a thread running the io_context, never
//    inline from post(), provided the io_context keeps running until the
//    request finishes (at most `timeout` plus scheduling delay). If the
//    io_context is stopped or destroyed first, pending requests are destroyed
//    with it and `done` is NOT called; the outbox must treat such requests as
//    not delivered.
//  - `done` should not throw; if it does, the exception is logged and dropped
//    so the io thread survives.
//  - A request does not reference its Client: the Client may be destroyed at
//    any time, in-flight requests still complete. The io_context must outlive
//    every in-flight request.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "service/alerts/webhook_url.h"

namespace boost::asio::ssl {
class context;
}

namespace logsift::webhook {

class AddressPolicy;


struct Request {
  std::string url;
  std::string body;
  std::string content_type = "application/json";
  // Extra headers (e.g. webhook-id, webhook-signature). They replace the
  // client's own User-Agent / Content-Type if named so. Host, Content-Length,
  // Transfer-Encoding and Connection are owned by the client: a request that
  // sets them, or has a name/value with CR, LF or other control bytes, is
  // rejected (kReject) without connecting.
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds timeout{10000};
};

struct Result {
  enum class Outcome { kDelivered, kRetry, kReject };
  Outcome outcome = Outcome::kRetry;
  int status = 0;     // HTTP status, 0 if no response header was received
  std::string error;  // short reason: "connect: Connection refused", "timeout", "HTTP 503"
  std::optional<std::chrono::milliseconds> retry_after;  // only with kRetry
  std::string body;  // first kMaxStoredBody bytes of the response body
};

inline constexpr size_t kMaxStoredBody = 64 * 1024;

class Client {
 public:
  // TLS: system CA store (set_default_verify_paths), peer verification,
  // SNI and host-name verification, TLS 1.2 minimum. extra_ca_pem: PEM
  // certificates trusted in addition (private CAs, tests); throws
  // boost::system::system_error if it is not valid PEM.
  //
  // policy: where connections may go (address_policy.h). Every address the
  // resolver returns is checked and only allowed ones are connected to (the
  // same addresses, no second lookup); none allowed is kReject with the
  // coarse error "destination not allowed". Null: no check (unit tests of
  // the HTTP mechanics only; the service always passes one).
  explicit Client(boost::asio::io_context& ioc, std::string_view extra_ca_pem = {},
                  std::shared_ptr<const AddressPolicy> policy = nullptr);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  void post(Request req, std::function<void(Result)> done);

 private:
  boost::asio::io_context& ioc_;
  // Shared with in-flight requests so they never depend on the Client.
  std::shared_ptr<boost::asio::ssl::context> ssl_ctx_;
  std::shared_ptr<const AddressPolicy> policy_;
};

}  // namespace logsift::webhook
