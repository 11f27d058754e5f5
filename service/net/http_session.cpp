#include "service/net/http_session.h"

#include <optional>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/metrics.h"
#include "service/net/http_message.h"
#include "service/net/stream_session.h"

namespace logsift {
namespace {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// read_done_: no request after the one in progress (a drain, or a
// restricted connection's one request); the reply then closes.
class HttpSession : public StreamSession<HttpSession> {
 public:
  using StreamSession::StreamSession;

  void do_read() {
    if (read_done_) return close();
    parser_.emplace();
    parser_->body_limit(static_cast<uint64_t>(ctx_.config.max_body_bytes));
    parser_->header_limit(static_cast<uint32_t>(ctx_.config.max_header_bytes));
    stream_.expires_after(std::chrono::milliseconds(ctx_.config.http_idle_timeout_ms));
    reading_ = true;
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&HttpSession::on_read, shared_from_this()));
  }

  // A drain while idle ends the pending read (the receive side is shut
  // down); mid-request, send() closes after the reply. Nothing to do here.
  void maybe_finish() {}

 private:
  void on_read(beast::error_code ec, std::size_t) {
    reading_ = false;
    if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == net::error::operation_aborted ||
        is_end_of_stream(ec) || ec == net::error::connection_reset)
      return close();
    if (ec == http::error::body_limit)
      return send_error(http::status::payload_too_large, Reject::kBodyTooLarge,
                        "body over max_body_bytes (" + std::to_string(ctx_.config.max_body_bytes) + ")");
    if (ec == http::error::header_limit)
      return send_error(http::status::request_header_fields_too_large, Reject::kHeaderTooLarge,
                        "header over max_header_bytes (" + std::to_string(ctx_.config.max_header_bytes) + ")");
    if (ec == http::error::partial_message && read_done_) {
      // A drain shut the receive side while a request was arriving: it was
      // cut off, not malformed. Retryable, like every refusal at shutdown.
      auto res = error_response(11, false, http::status::service_unavailable, Reject::kOverloaded,
                                "shutting down: the request was cut off before it was read whole; send it again");
      res.set(http::field::retry_after, "1");
      return send(std::move(res));
    }
    if (ec) {
      if (ec.category() == http::make_error_code(http::error::bad_method).category())
        return send_error(http::status::bad_request, Reject::kBadRequest, "malformed HTTP request: " + ec.message());
      return close();
    }
    if (slot_.restricted()) {  // over the connection limit: health only, then close
      auto target = parser_->get().target();
      if (target != "/healthz" && target != "/readyz" && target != "/metrics") {
        auto res = error_response(parser_->get().version(), false, http::status::service_unavailable,
                                  Reject::kTooManyConnections, "too many connections");
        res.set(http::field::retry_after, "1");
        return send(std::move(res));
      }
      read_done_ = true;  // close after this reply
    }
    stream_.expires_never();  // the pipeline may take a moment; the reply write re-arms it
    request_ns_ = mono_ns();
    {
      auto target = parser_->get().target();
      inference_ = target.size() >= 11 && target.substr(0, 11) == "/inferences";
    }
    ctx_.http_handler(stream_.get_executor(), parser_->release(), [self = shared_from_this()](HttpResponse res) {
      net::post(self->stream_.get_executor(), [self, res = std::move(res)]() mutable { self->send(std::move(res)); });
    });
  }

  void send_error(http::status status, Reject reason, const std::string& message) {
    // The request was not read whole: reply, then close without reading on.
    send(error_response(11, false, status, reason, message));
  }

  void send(HttpResponse res) {
    if (request_ns_) {
      (inference_ ? metrics().http_inference_seconds : metrics().http_other_seconds).observe_ns(mono_ns() - request_ns_);
      request_ns_ = 0;
    }
    if (read_done_) res.keep_alive(false);
    auto sp = std::make_shared<HttpResponse>(std::move(res));
    stream_.expires_after(std::chrono::milliseconds(ctx_.config.http_idle_timeout_ms));
    http::async_write(stream_, *sp, [self = shared_from_this(), sp](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      if (!sp->keep_alive()) return self->lingering_close();
      self->do_read();
    });
  }

  // Half-close and drain what the client still sends (e.g. the rest of an
  // oversized body) so it reads our reply instead of a connection reset.
  void lingering_close() {
    if (stream_.tls()) return close();  // a TLS half-close needs the peer's close_notify; not worth waiting for
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored_);
    stream_.expires_after(std::chrono::seconds(2));
    drain_buf_ = std::make_shared<std::array<char, 8192>>();
    do_discard();
  }

  void do_discard() {
    stream_.async_read_some(net::buffer(*drain_buf_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      self->do_discard();
    });
  }

  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  int64_t request_ns_ = 0;  // when the request in progress was read
  bool inference_ = false;
  std::shared_ptr<std::array<char, 8192>> drain_buf_;
};

}  // namespace

void start_http_session(tcp::socket socket, ServerContext& ctx, ListenerGrant grant, std::shared_ptr<TlsServer> tls) {
  metrics().http_connections_total.inc();
  start_session<HttpSession>(std::move(socket), ctx, std::move(grant), std::move(tls));
}

}  // namespace logsift
