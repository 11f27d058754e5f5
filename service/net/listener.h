// Accepts connections of one kind (HTTP, TCP lines) onto their own strand and
// hands each to its session; refuses them over max_connections.
#pragma once

#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "service/net/server_context.h"

namespace logsift {

using StartFn = void (*)(boost::asio::ip::tcp::socket, ServerContext&, ListenerGrant);

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  // Binds host:port (port 0: ephemeral) and listens; throws on failure.
  // At most `limit` connections of this listener at once, plus `reserve`
  // restricted ones (see ListenerGrant); `refusal` is written to a connection
  // refused beyond that.
  Listener(boost::asio::io_context& ioc, ServerContext& ctx, const std::string& host, int port, StartFn start,
           int limit, int reserve, const char* refusal);
  boost::asio::ip::tcp::endpoint local() const { return acceptor_.local_endpoint(); }
  void run() { do_accept(); }
  void close();

 private:
  void do_accept();

  boost::asio::io_context& ioc_;
  boost::asio::ip::tcp::acceptor acceptor_;
  ServerContext& ctx_;
  StartFn start_;
  int limit_, reserve_;
  std::shared_ptr<std::atomic<int>> count_ = std::make_shared<std::atomic<int>>(0);
  const char* refusal_;
};

// "HOST:PORT", IPv6 hosts in brackets.
std::string endpoint_text(const boost::asio::ip::tcp::endpoint& ep);

}  // namespace logsift
