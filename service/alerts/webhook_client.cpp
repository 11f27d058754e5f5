#include "service/alerts/webhook_client.h"

#include <algorithm>
#include <array>
#include <exception>
#include <limits>
#include <type_traits>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/stream_traits.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include "pipeline/core/text.h"
#include "pipeline/core/time.h"
#include "service/alerts/address_policy.h"

namespace logsift::webhook {
namespace {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using Outcome = Result::Outcome;
using Strand = asio::strand<asio::io_context::executor_type>;

// A response header larger than this is not a webhook receiver we can talk to.
constexpr uint32_t kMaxHeaderBytes = 16 * 1024;
// 1xx responses (e.g. 103 Early Hints) are skipped; a server sending endless
// ones is cut off here rather than by the deadline only.
constexpr int kMaxInterimResponses = 8;

// RFC 9110 token characters.
bool valid_header_name(std::string_view name) {
  static constexpr std::string_view kExtra = "!#$%&'*+-.^_`|~";
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           kExtra.find(c) != std::string_view::npos;
  });
}

// CR/LF in a value would let a caller inject headers or a second request.
bool valid_header_value(std::string_view value) {
  return std::none_of(value.begin(), value.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && u != '\t') || u == 0x7f;
  });
}

bool is_client_owned_header(std::string_view name) {
  return text::iequals(name, "Host") || text::iequals(name, "Content-Length") ||
         text::iequals(name, "Transfer-Encoding") || text::iequals(name, "Connection");
}

Result make_result(Outcome outcome, std::string error, int status = 0) {
  Result r;
  r.outcome = outcome;
  r.status = status;
  r.error = std::move(error);
  return r;
}

Result classify_status(int status, const http::fields& fields) {
  if (status >= 200 && status <= 299) return make_result(Outcome::kDelivered, {}, status);
  std::string error = "HTTP " + std::to_string(status);
  if ((status >= 500 && status <= 599) || status == 408 || status == 429) {
    Result r = make_result(Outcome::kRetry, std::move(error), status);
    const auto it = fields.find(http::field::retry_after);
    if (it != fields.end()) {
      const auto v = it->value();
      r.retry_after = parse_retry_after(std::string_view(v.data(), v.size()),
                                        std::chrono::system_clock::now());
    }
    return r;
  }
  // 1xx/3xx/other 4xx: the request or the subscription is wrong; resending the
  // same bytes to the same URL will not change the answer.
  return make_result(Outcome::kReject, std::move(error), status);
}

void invoke_done(std::function<void(Result)>& done, Result result) {
  if (!done) return;
  auto fn = std::move(done);
  done = nullptr;
  try {
    fn(std::move(result));
  } catch (const std::exception& e) {
    spdlog::error("webhook client: completion handler threw: {}", e.what());
  } catch (...) {
    spdlog::error("webhook client: completion handler threw a non-std exception");
  }
}

bool is_ip_literal(const std::string& host) {
  boost::system::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

// One request from resolve to response. Every step runs on `strand_`; the
// op keeps itself alive through the shared_ptr captured by each pending
// handler, so it owes nothing to the Client that started it.
template <class Stream>
class PostOp : public std::enable_shared_from_this<PostOp<Stream>> {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, tcp::socket>;

  PostOp(Strand strand, std::shared_ptr<ssl::context> ssl_ctx, std::shared_ptr<const AddressPolicy> policy, Url url,
         http::request<http::string_body> req, std::chrono::milliseconds timeout,
         std::function<void(Result)> done)
      : strand_(std::move(strand)),
        ssl_ctx_(std::move(ssl_ctx)),
        policy_(std::move(policy)),
        url_(std::move(url)),
        req_(std::move(req)),
        timeout_(timeout),
        done_(std::move(done)),
        resolver_(strand_),
        timer_(strand_) {
    if constexpr (kTls) {
      stream_.emplace(strand_, *ssl_ctx_);
    } else {
      stream_.emplace(strand_);
    }
  }

  void start() {
    auto self = this->shared_from_this();
    asio::post(strand_, [self] { self->do_start(); });
  }

 private:
  void do_start() {
    auto self = this->shared_from_this();
    timer_.expires_after(timeout_);
    timer_.async_wait([self](boost::system::error_code ec) { self->on_deadline(ec); });
    resolver_.async_resolve(url_.host, url_.port,
                            [self](boost::system::error_code ec, tcp::resolver::results_type results) {
                              self->on_resolve(ec, std::move(results));
                            });
  }

  void on_deadline(boost::system::error_code ec) {
    if (ec || finished_) return;
    // Finish now instead of waiting for the cancelled step to report back:
    // a cancelled getaddrinfo only returns when the DNS lookup itself ends,
    // which could overrun the deadline by many seconds.
    if (header_received_) {
      // Keep the body bytes the pending read has already parsed into chunk_.
      take_chunk();
      finish(classify_status(status_, parser_->get().base()));
    } else {
      finish(make_result(Outcome::kRetry, "timeout"));
    }
  }

  void on_resolve(boost::system::error_code ec, tcp::resolver::results_type results) {
    if (finished_) return;
    if (ec) return fail("resolve", ec);
    auto self = this->shared_from_this();
    if (policy_) {
      // Connect to exactly the addresses checked here: no second lookup.
      std::vector<tcp::endpoint> allowed;
      for (const auto& entry : results)
        if (policy_->allowed(entry.endpoint().address(), entry.endpoint().port())) allowed.push_back(entry.endpoint());
      if (allowed.empty()) {
        // Coarse on purpose: the reply must not map the internal network.
        spdlog::warn("webhook: {} resolved only to addresses the policy refuses; not connecting", url_.host);
        return finish(make_result(Outcome::kReject, "destination not allowed"));
      }
      asio::async_connect(beast::get_lowest_layer(*stream_), allowed,
                          [self](boost::system::error_code ec, const tcp::endpoint&) { self->on_connect(ec); });
      return;
    }
    asio::async_connect(beast::get_lowest_layer(*stream_), results,
                        [self](boost::system::error_code ec, const tcp::endpoint&) { self->on_connect(ec); });
  }

  void on_connect(boost::system::error_code ec) {
    if (finished_) return;
    if (ec) return fail("connect", ec);
    if constexpr (kTls) {
      // SNI carries host names only (RFC 6066); IP literals are verified
      // against the certificate's IP SANs by host_name_verification.
      if (!is_ip_literal(url_.host) &&
          SSL_set_tlsext_host_name(stream_->native_handle(), url_.host.c_str()) != 1) {
        return finish(make_result(Outcome::kRetry, "tls: cannot set SNI"));
      }
      stream_->set_verify_callback(ssl::host_name_verification(url_.host), ec);
      if (ec) return fail("tls", ec);
      auto self = this->shared_from_this();
      stream_->async_handshake(ssl::stream_base::client,
                               [self](boost::system::error_code ec) { self->on_handshake(ec); });
    } else {
      do_write();
    }
  }

  void on_handshake(boost::system::error_code ec) {
    if (finished_) return;
    if (ec) return fail("tls", ec);
    do_write();
  }

  void do_write() {
    auto self = this->shared_from_this();
    http::async_write(*stream_, req_,
                      [self](boost::system::error_code ec, size_t) { self->on_write(ec); });
  }

  void on_write(boost::system::error_code ec) {
    if (finished_) return;
    if (ec) return fail("write", ec);
    do_read_header();
  }

  void do_read_header() {
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    // We stop reading after kMaxStoredBody ourselves; a large declared
    // Content-Length must not turn a 200 into a parse error. Not boost::none:
    // Beast 1.74 compares the length with the optional, and "len > none" is
    // always true.
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    auto self = this->shared_from_this();
    http::async_read_header(*stream_, buffer_, *parser_,
                            [self](boost::system::error_code ec, size_t) { self->on_header(ec); });
  }

  void on_header(boost::system::error_code ec) {
    if (finished_) return;
    if (ec) return fail("read", ec);
    const int status = parser_->get().result_int();
    if (status >= 100 && status <= 199 && status != 101) {
      if (++interim_responses_ > kMaxInterimResponses) {
        return finish(make_result(Outcome::kRetry, "read: too many 1xx responses", status));
      }
      return do_read_header();
    }
    status_ = status;
    header_received_ = true;
    if (parser_->is_done()) return finish(classify_status(status_, parser_->get().base()));
    do_read_body();
  }

  void do_read_body() {
    auto& body = parser_->get().body();
    body.data = chunk_.data();
    body.size = chunk_.size();
    auto self = this->shared_from_this();
    http::async_read(*stream_, buffer_, *parser_,
                     [self](boost::system::error_code ec, size_t) { self->on_body(ec); });
  }

  void on_body(boost::system::error_code ec) {
    if (finished_) return;
    if (ec == http::error::need_buffer) ec = {};
    take_chunk();
    // The status decides the outcome; a body error after a complete header
    // (or more body than we store) only truncates what we keep.
    if (ec || parser_->is_done() || body_.size() >= kMaxStoredBody) {
      return finish(classify_status(status_, parser_->get().base()));
    }
    do_read_body();
  }

  // Moves the body bytes parsed into chunk_ since do_read_body into body_.
  void take_chunk() {
    auto& body = parser_->get().body();
    if (body.data == nullptr) return;
    const size_t got = chunk_.size() - body.size;
    body_.append(chunk_.data(), std::min(got, kMaxStoredBody - body_.size()));
    body.data = nullptr;
    body.size = 0;
  }

  void fail(const char* what, boost::system::error_code ec) {
    finish(make_result(Outcome::kRetry, std::string(what) + ": " + ec.message()));
  }

  void finish(Result result) {
    if (finished_) return;
    finished_ = true;
    timer_.cancel();
    resolver_.cancel();
    boost::system::error_code ignored;
    // No TLS close_notify: the response is in hand and a shutdown exchange
    // with a slow peer would only hold the connection longer.
    beast::get_lowest_layer(*stream_).close(ignored);
    result.body = std::move(body_);
    invoke_done(done_, std::move(result));
  }

  Strand strand_;
  std::shared_ptr<ssl::context> ssl_ctx_;  // outlives stream_ (declared first)
  std::shared_ptr<const AddressPolicy> policy_;
  Url url_;
  http::request<http::string_body> req_;
  std::chrono::milliseconds timeout_;
  std::function<void(Result)> done_;
  tcp::resolver resolver_;
  asio::steady_timer timer_;
  std::optional<Stream> stream_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::buffer_body>> parser_;
  std::array<char, 16 * 1024> chunk_{};
  std::string body_;
  int status_ = 0;
  int interim_responses_ = 0;
  bool header_received_ = false;
  bool finished_ = false;
};

}  // namespace

Client::Client(boost::asio::io_context& ioc, std::string_view extra_ca_pem,
               std::shared_ptr<const AddressPolicy> policy)
    : ioc_(ioc), ssl_ctx_(std::make_shared<ssl::context>(ssl::context::tls_client)), policy_(std::move(policy)) {
  boost::system::error_code ec;
  // Without a system CA store every handshake fails verification and is
  // reported per request ("tls: certificate verify failed"), not here.
  ssl_ctx_->set_default_verify_paths(ec);
  if (ec) spdlog::warn("webhook client: no default CA paths: {}", ec.message());
  if (!extra_ca_pem.empty()) {
    ssl_ctx_->add_certificate_authority(asio::buffer(extra_ca_pem.data(), extra_ca_pem.size()));
  }
  ssl_ctx_->set_verify_mode(ssl::verify_peer);
  SSL_CTX_set_min_proto_version(ssl_ctx_->native_handle(), TLS1_2_VERSION);
}

Client::~Client() = default;

void Client::post(Request req, std::function<void(Result)> done) {
  Strand strand = asio::make_strand(ioc_);
  auto reject_async = [&](std::string error) {
    // Still asynchronous: callers may hold a lock around post().
    asio::post(strand, [done = std::move(done), error = std::move(error)]() mutable {
      invoke_done(done, make_result(Outcome::kReject, std::move(error)));
    });
  };

  auto url = parse_webhook_url(req.url);
  if (!url) return reject_async("invalid url");
  for (const auto& [name, value] : req.headers) {
    if (!valid_header_name(name) || !valid_header_value(value)) {
      return reject_async("invalid header: " + (valid_header_name(name) ? name : std::string("name")));
    }
    if (is_client_owned_header(name)) return reject_async("header set by the client: " + name);
  }
  if (!valid_header_value(req.content_type)) return reject_async("invalid content type");

  http::request<http::string_body> msg;
  try {
    msg.method(http::verb::post);
    msg.target(url->target);
    msg.version(11);
    const bool default_port = url->port == (url->scheme == "https" ? "443" : "80");
    const bool v6 = url->host.find(':') != std::string::npos;
    std::string host_header = v6 ? "[" + url->host + "]" : url->host;
    if (!default_port) host_header += ":" + url->port;
    msg.set(http::field::host, host_header);
    msg.set(http::field::user_agent, "logsift");
    msg.set(http::field::content_type, req.content_type);
    for (const auto& [name, value] : req.headers) msg.set(name, value);
    msg.keep_alive(false);  // one connection per request
    msg.body() = std::move(req.body);
    msg.prepare_payload();
  } catch (const std::exception& e) {
    // Beast throws length_error for oversized header fields.
    return reject_async(std::string("invalid request: ") + e.what());
  }

  const auto timeout = std::max(req.timeout, std::chrono::milliseconds(1));
  if (url->scheme == "https") {
    std::make_shared<PostOp<ssl::stream<tcp::socket>>>(std::move(strand), ssl_ctx_, policy_, std::move(*url),
                                                       std::move(msg), timeout, std::move(done))
        ->start();
  } else {
    std::make_shared<PostOp<tcp::socket>>(std::move(strand), ssl_ctx_, policy_, std::move(*url), std::move(msg),
                                          timeout, std::move(done))
        ->start();
  }
}

}  // namespace logsift::webhook
