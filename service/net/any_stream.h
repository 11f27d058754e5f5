// A connection's byte stream, plain TCP or TLS over it, chosen at accept: the
// sessions (HTTP, TCP lines, syslog) are written once against this and do
// not care which. Both sides share the tcp_stream underneath, so timeouts
// (expires_after) and the socket work the same; a read or write branches once
// on which it is. It is an AsyncReadStream and AsyncWriteStream for Beast's
// http::async_read / async_write and Asio's async_write.
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include <openssl/ssl.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream_base.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

namespace logsift {

class AnyStream {
 public:
  using tcp_stream = boost::beast::tcp_stream;
  using tls_stream = boost::beast::ssl_stream<tcp_stream>;
  using executor_type = tcp_stream::executor_type;

  explicit AnyStream(boost::asio::ip::tcp::socket&& socket) : plain_(std::in_place, std::move(socket)) {}
  // TLS: the context stays alive as long as the connection (a rotation
  // replaces the listener's, not this one's).
  AnyStream(boost::asio::ip::tcp::socket&& socket, std::shared_ptr<boost::asio::ssl::context> ctx)
      : ctx_(std::move(ctx)), tls_(std::in_place, std::move(socket), *ctx_) {}

  bool tls() const { return tls_.has_value(); }
  tcp_stream& lowest() { return tls_ ? boost::beast::get_lowest_layer(*tls_) : *plain_; }
  executor_type get_executor() { return lowest().get_executor(); }
  boost::asio::ip::tcp::socket& socket() { return lowest().socket(); }
  template <class Duration>
  void expires_after(Duration d) { lowest().expires_after(d); }
  void expires_never() { lowest().expires_never(); }
  tls_stream& tls_layer() { return *tls_; }
  // TLS: bytes a read would return without waiting (decrypted and pending,
  // or in the socket's receive queue).
  bool more_buffered() {
    if (tls_ && SSL_pending(tls_->native_handle()) > 0) return true;
    boost::system::error_code ec;
    return lowest().socket().available(ec) > 0 && !ec;
  }

  template <class Buffers, class Handler>
  void async_read_some(const Buffers& b, Handler&& h) {
    if (tls_)
      tls_->async_read_some(b, std::forward<Handler>(h));
    else
      plain_->async_read_some(b, std::forward<Handler>(h));
  }
  template <class Buffers, class Handler>
  void async_write_some(const Buffers& b, Handler&& h) {
    if (tls_)
      tls_->async_write_some(b, std::forward<Handler>(h));
    else
      plain_->async_write_some(b, std::forward<Handler>(h));
  }

 private:
  std::shared_ptr<boost::asio::ssl::context> ctx_;  // before tls_: outlives it
  std::optional<tcp_stream> plain_;
  std::optional<tls_stream> tls_;
};

// A TLS peer that closes the TCP connection without close_notify: for a
// line stream that is its end, like EOF.
inline bool is_end_of_stream(const boost::system::error_code& ec) {
  return ec == boost::asio::error::eof || ec == boost::asio::ssl::error::stream_truncated;
}

}  // namespace logsift
