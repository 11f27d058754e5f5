// The skeleton every connection shares (HTTP, TCP lines, syslog): its stream
// on its own strand, its place in the listener's limit, the start on the
// strand, the drain at shutdown and the close. A session derives from
// StreamSession<Itself> and provides
//   do_read()       read the next request or chunk unless read_done_ (or paused)
//                   (line streams: read_chunk(), which calls on_read(ec, n)),
//   maybe_finish()  close once read_done_ and everything accepted is answered.
// Everything runs on the connection's strand; nothing here blocks. On a TLS
// listener the handshake comes first, bounded by tls_handshake_timeout_ms; a
// failed one is counted and closes the connection before any read.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include "service/net/any_stream.h"
#include "service/net/server_context.h"
#include "service/net/tls.h"

namespace logsift {

template <class Derived>
class StreamSession : public Session, public std::enable_shared_from_this<Derived> {
 public:
  using tcp = boost::asio::ip::tcp;

  StreamSession(tcp::socket&& socket, ServerContext& ctx, ListenerGrant grant, std::shared_ptr<TlsServer> tls)
      : stream_(tls ? AnyStream(std::move(socket), tls->context()) : AnyStream(std::move(socket))),
        ctx_(ctx),
        slot_(ctx, std::move(grant)),
        tls_(std::move(tls)) {}

  void start() {
    boost::asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
      if (self->tls_) return self->handshake();
      self->do_read();
    });
  }

  // Stop reading (a pending read completes at once); what was accepted still
  // finishes, then maybe_finish() closes.
  void begin_drain() override {
    boost::asio::post(stream_.get_executor(), [self = this->shared_from_this()] {
      self->read_done_ = true;
      if (self->reading_) self->stream_.socket().shutdown(tcp::socket::shutdown_receive, self->ignored_);
      self->maybe_finish();
    });
  }

 protected:
  // A line-stream session's next read: up to kReadChunk bytes into *buf (resized
  // to it), bounded by the idle timeout, then Derived::on_read(ec, n) on the
  // strand. Unless no more reads are wanted or one is in flight.
  static constexpr size_t kReadChunk = 64 * 1024;
  void read_chunk(std::string* buf, int idle_timeout_ms) {
    if (read_done_ || reading_) return;
    reading_ = true;
    buf->resize(kReadChunk);
    if (held_error_) {  // met while filling the last chunk: its turn now
      boost::asio::post(stream_.get_executor(), [self = this->shared_from_this()] {
        self->on_read(std::exchange(self->held_error_, {}), 0);
      });
      return;
    }
    stream_.expires_after(std::chrono::milliseconds(idle_timeout_ms));
    read_into(buf, 0);
  }

  // TLS hands over one record (at most 16 KB) a read. While more is already
  // here (decrypted, or in the socket), the chunk keeps filling, so a TLS
  // connection's batches are as large as a plain one's and cost as little
  // a line.
  void read_into(std::string* buf, size_t filled) {
    stream_.async_read_some(
        boost::asio::buffer(buf->data() + filled, buf->size() - filled),
        [self = this->shared_from_this(), buf, filled](boost::beast::error_code ec, std::size_t n) {
          const size_t have = filled + n;
          if (ec && filled > 0) {  // deliver what was read; the error comes with the next read
            self->held_error_ = ec;
            return self->on_read({}, have);
          }
          if (!ec && self->stream_.tls() && have + kTlsRecord <= buf->size() && self->stream_.more_buffered())
            return self->read_into(buf, have);
          self->on_read(ec, have);
        });
  }

  void close() {
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored_);
    stream_.socket().close(ignored_);
  }

  AnyStream stream_;
  ServerContext& ctx_;
  ConnectionSlot slot_;
  std::shared_ptr<TlsServer> tls_;  // null: plain text
  static constexpr size_t kTlsRecord = 16 * 1024 + 256;
  boost::beast::error_code held_error_;  // read_into() met it after filling part of a chunk
  bool reading_ = false;    // a read is in flight
  bool read_done_ = false;  // no more reads: end of stream, an error, a timeout or a drain
  boost::beast::error_code ignored_;

 private:
  // A handshake holds a connection slot and no thread; the timeout frees the
  // slot of a peer that never finishes one.
  void handshake() {
    reading_ = true;  // a drain meanwhile shuts the receive side, which ends the handshake
    stream_.expires_after(std::chrono::milliseconds(ctx_.config.tls_handshake_timeout_ms));
    stream_.tls_layer().async_handshake(boost::asio::ssl::stream_base::server,
                                        [self = this->shared_from_this()](boost::beast::error_code ec) {
                                          self->reading_ = false;
                                          if (ec || self->read_done_) {
                                            if (ec) self->tls_->handshake_failed(ec, self->peer());
                                            self->read_done_ = true;
                                            return self->close();
                                          }
                                          self->tls_->handshake_done();
                                          self->do_read();
                                        });
  }

  std::string peer() {
    boost::beast::error_code ec;
    const auto ep = stream_.socket().remote_endpoint(ec);
    return ec ? std::string("?") : ep.address().to_string() + ":" + std::to_string(ep.port());
  }
};

// Makes a session of type S for an accepted socket, registers it for the
// drain at shutdown and starts it.
template <class S>
void start_session(boost::asio::ip::tcp::socket socket, ServerContext& ctx, ListenerGrant grant,
                   std::shared_ptr<TlsServer> tls) {
  auto s = std::make_shared<S>(std::move(socket), ctx, std::move(grant), std::move(tls));
  ctx.track(s);
  s->start();
}

}  // namespace logsift
