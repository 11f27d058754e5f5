#include "service/net/listener.h"

#include <algorithm>

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/metrics.h"
#include "service/net/fd_limits.h"

namespace logsift {

namespace net = boost::asio;
using tcp = net::ip::tcp;

Listener::Listener(net::io_context& ioc, ServerContext& ctx, const std::string& host, int port, StartFn start,
                   int limit, int reserve, const char* refusal, std::shared_ptr<TlsServer> tls)
    : ioc_(ioc),
      acceptor_(ioc),
      ctx_(ctx),
      start_(start),
      tls_(std::move(tls)),
      limit_(limit),
      reserve_(reserve),
      refusal_(refusal),
      retry_(ioc) {
  auto addr = net::ip::make_address(host);
  tcp::endpoint ep(addr, static_cast<unsigned short>(port));
  acceptor_.open(ep.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(ep);
  acceptor_.listen(net::socket_base::max_listen_connections);
}

void Listener::close() {
  net::post(acceptor_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ec;
    self->acceptor_.close(ec);
    self->retry_.cancel();
  });
}

void Listener::do_accept() {
  acceptor_.async_accept(net::make_strand(ioc_), [self = shared_from_this()](boost::system::error_code ec,
                                                                             tcp::socket socket) {
    if (ec == net::error::operation_aborted || !self->acceptor_.is_open()) return;
    if (!ec) {
      const int n = self->count_->fetch_add(1);
      if (n >= self->limit_ + self->reserve_) {
        self->count_->fetch_sub(1);
        metrics().reject(Reject::kTooManyConnections);
        // Best effort refusal message, then close; never blocks the accept loop for long.
        boost::system::error_code ignored;
        socket.non_blocking(true, ignored);
        // (TLS: the client expects a handshake, not text: just close.)
        if (!self->tls_) socket.write_some(net::buffer(std::string(self->refusal_)), ignored);
        socket.close(ignored);
      } else {
        self->start_(std::move(socket), self->ctx_, ListenerGrant(self->count_, n >= self->limit_), self->tls_);
      }
    } else if (out_of_descriptors(ec.value())) {
      return self->on_out_of_descriptors(ec);
    } else {
      spdlog::warn("accept: {}", ec.message());
    }
    self->backoff_ = std::chrono::milliseconds(0);
    if (self->ctx_.fd_reserve) self->ctx_.fd_reserve->acquire();  // taken back once a descriptor is free
    self->do_accept();
  });
}

void Listener::on_out_of_descriptors(const boost::system::error_code& ec) {
  metrics().accept_out_of_fds.inc();
  ++unlogged_;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_log_ >= std::chrono::seconds(1)) {
    spdlog::error("accept on {}: {} ({} times since the last report); backing off, health checks answered from the "
                  "reserve (raise the open-file limit or lower the connection limits)",
                  endpoint_text(local()), ec.message(), unlogged_);
    last_log_ = now;
    unlogged_ = 0;
  }
  // The waiting client still gets an answer: the reserve descriptor takes it
  // on the HTTP listener, restricted to /healthz, /readyz and /metrics.
  if (reserve_ > 0 && ctx_.fd_reserve && ctx_.fd_reserve->release()) {
    tcp::socket socket(net::make_strand(ioc_));
    boost::system::error_code aec;
    acceptor_.non_blocking(true, aec);
    acceptor_.accept(socket, aec);
    acceptor_.non_blocking(false, aec);
    if (!aec) {
      count_->fetch_add(1);
      start_(std::move(socket), ctx_, ListenerGrant(count_, /*restricted=*/true), tls_);
    }
    ctx_.fd_reserve->acquire();  // fails while that connection holds the descriptor; retried below
  }
  backoff_ = std::min(std::chrono::milliseconds(1000), std::max(std::chrono::milliseconds(50), backoff_ * 2));
  retry_.expires_after(backoff_);
  retry_.async_wait([self = shared_from_this()](const boost::system::error_code& wec) {
    if (wec || !self->acceptor_.is_open()) return;
    if (self->ctx_.fd_reserve) self->ctx_.fd_reserve->acquire();
    self->do_accept();
  });
}

std::string endpoint_text(const tcp::endpoint& ep) {
  auto a = ep.address();
  std::string host = a.is_v6() ? "[" + a.to_string() + "]" : a.to_string();
  return host + ":" + std::to_string(ep.port());
}

}  // namespace logsift
