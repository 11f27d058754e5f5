// A scripted loopback HTTP/1.1 receiver for the webhook client and delivery
// tests (tests only).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace logsift::webhook::loopback {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

struct Reply {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  bool hang = false;  // never close (after `raw`, if any, or without answering)
  std::string raw;    // if set, written verbatim instead of a Beast response
};

inline Reply status_reply(int status, std::vector<std::pair<std::string, std::string>> headers = {},
                   std::string body = {}) {
  Reply r;
  r.status = status;
  r.headers = std::move(headers);
  r.body = std::move(body);
  return r;
}

// A loopback HTTP/1.1 server on 127.0.0.1:<ephemeral>, run by its own thread
// and io_context. Each connection: read one request, record it, answer with
// the scripted reply (or hang), close. Stopped and joined in the destructor.
class LoopbackServer {
 public:
  explicit LoopbackServer(std::function<Reply(const http::request<http::string_body>&)> script)
      : script_(std::move(script)), acceptor_(ioc_, tcp::endpoint(asio::ip::address_v4::loopback(), 0)) {
    do_accept();
    thread_ = std::thread([this] { ioc_.run(); });
  }
  ~LoopbackServer() {
    ioc_.stop();
    thread_.join();
  }

  uint16_t port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  std::vector<http::request<http::string_body>> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  struct Session {
    explicit Session(tcp::socket s) : socket(std::move(s)) {}
    tcp::socket socket;
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::response<http::string_body> response;
    std::string raw;
  };

  void do_accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) return;
      auto session = std::make_shared<Session>(std::move(socket));
      http::async_read(session->socket, session->buffer, session->request,
                       [this, session](boost::system::error_code ec, size_t) { on_read(session, ec); });
      do_accept();
    });
  }

  void on_read(const std::shared_ptr<Session>& session, boost::system::error_code ec) {
    if (ec) return;
    Reply reply;
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(session->request);
      reply = script_(session->request);
    }
    if (reply.hang) hung_.push_back(session);  // keep the socket open until the server stops
    if (!reply.raw.empty()) {
      session->raw = std::move(reply.raw);
      asio::async_write(session->socket, asio::buffer(session->raw),
                        [session, hang = reply.hang](boost::system::error_code, size_t) {
                          boost::system::error_code ignored;
                          if (!hang) session->socket.shutdown(tcp::socket::shutdown_both, ignored);
                        });
      return;
    }
    if (reply.hang) return;
    auto& res = session->response;
    res.version(11);
    res.result(static_cast<unsigned>(reply.status));
    for (const auto& [k, v] : reply.headers) res.set(k, v);
    res.body() = reply.body;
    res.keep_alive(false);
    res.prepare_payload();
    http::async_write(session->socket, res, [session](boost::system::error_code, size_t) {
      boost::system::error_code ignored;
      session->socket.shutdown(tcp::socket::shutdown_both, ignored);
    });
  }

  std::function<Reply(const http::request<http::string_body>&)> script_;
  asio::io_context ioc_;
  tcp::acceptor acceptor_;
  const uint16_t port_ = acceptor_.local_endpoint().port();
  std::vector<std::shared_ptr<Session>> hung_;  // server thread only
  std::mutex mutex_;
  std::vector<http::request<http::string_body>> requests_;
  std::thread thread_;
};

}  // namespace logsift::webhook::loopback
