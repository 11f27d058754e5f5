#include "service/net/listener.h"

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/metrics.h"

namespace logsift {

namespace net = boost::asio;
using tcp = net::ip::tcp;

Listener::Listener(net::io_context& ioc, ServerContext& ctx, const std::string& host, int port, StartFn start,
                   int limit, int reserve, const char* refusal)
    : ioc_(ioc), acceptor_(ioc), ctx_(ctx), start_(start), limit_(limit), reserve_(reserve), refusal_(refusal) {
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
        socket.write_some(net::buffer(std::string(self->refusal_)), ignored);
        socket.close(ignored);
      } else {
        self->start_(std::move(socket), self->ctx_, ListenerGrant(self->count_, n >= self->limit_));
      }
    } else {
      spdlog::warn("accept: {}", ec.message());
    }
    self->do_accept();
  });
}

std::string endpoint_text(const tcp::endpoint& ep) {
  auto a = ep.address();
  std::string host = a.is_v6() ? "[" + a.to_string() + "]" : a.to_string();
  return host + ":" + std::to_string(ep.port());
}

}  // namespace logsift
