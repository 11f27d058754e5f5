// Accepts connections of one kind (HTTP, TCP lines) onto their own strand and
// hands each to its session; refuses them over max_connections.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "service/net/server_context.h"

namespace logsift {

class TlsServer;

// tls: null for plain text.
using StartFn = void (*)(boost::asio::ip::tcp::socket, ServerContext&, ListenerGrant, std::shared_ptr<TlsServer> tls);

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // Binds host:port (port 0: ephemeral) and listens; throws on failure.
  // At most `limit` connections of this listener at once, plus `reserve`
  // restricted ones (see ListenerGrant); `refusal` is written to a connection
  // refused beyond that.
  // `tls`: the listener's TLS (service/net/tls.h), null for plain text.
  Listener(boost::asio::io_context& ioc, ServerContext& ctx, const std::string& host, int port, StartFn start,
           int limit, int reserve, const char* refusal, std::shared_ptr<TlsServer> tls = nullptr);
  boost::asio::ip::tcp::endpoint local() const { return acceptor_.local_endpoint(); }
  void run() { do_accept(); }
  void close();

 private:
  void do_accept();
  // accept() failed for want of descriptors: serve one waiting health check
  // from the reserve (HTTP), log at most once a second, retry after a back-off.
  void on_out_of_descriptors(const boost::system::error_code& ec);

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  ServerContext& ctx_;
  StartFn start_;
  std::shared_ptr<TlsServer> tls_;
  int limit_, reserve_;
  std::shared_ptr<std::atomic<int>> count_ = std::make_shared<std::atomic<int>>(0);
  const char* refusal_;
  boost::asio::steady_timer retry_;
  std::chrono::milliseconds backoff_{0};           // 0: not backing off
  std::chrono::steady_clock::time_point last_log_;  // of an out-of-descriptors error
  uint64_t unlogged_ = 0;                           // such errors since then
};

// "HOST:PORT", IPv6 hosts in brackets.
std::string endpoint_text(const boost::asio::ip::tcp::endpoint& ep);

}  // namespace logsift
