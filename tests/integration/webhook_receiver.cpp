#include "webhook_receiver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <set>
#include <sstream>
#include <stdexcept>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace logsift_it {

namespace beast = boost::beast;
namespace http = beast::http;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------
// Signatures

std::string base64_encode(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(data.data()),
                          static_cast<int>(data.size()));
  out.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.empty() || text.size() % 4 != 0) return std::nullopt;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' ||
              (c == '=' && i >= text.size() - 2);
    if (!ok) return std::nullopt;
  }
  std::size_t pad = 0;
  if (text.back() == '=') ++pad;
  if (text.size() >= 2 && text[text.size() - 2] == '=') {
    if (text.back() != '=') return std::nullopt;
    ++pad;
  }
  std::string out(3 * (text.size() / 4) + 1, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0 || static_cast<std::size_t>(n) < pad) return std::nullopt;
  out.resize(static_cast<std::size_t>(n) - pad);  // EVP_DecodeBlock counts the pad as zero bytes
  return out;
}

std::optional<std::string> webhook_key(const std::string& secret) {
  static const std::string kPrefix = "whsec_";
  if (secret.rfind(kPrefix, 0) == 0) {
    auto k = base64_decode(std::string_view(secret).substr(kPrefix.size()));
    if (!k || k->empty()) return std::nullopt;
    return k;
  }
  return secret;
}

std::string webhook_signature(const std::string& key, const std::string& id,
                              const std::string& timestamp, const std::string& body) {
  std::string msg = id + "." + timestamp + "." + body;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), mac, &mac_len)) {
    return "";
  }
  return "v1," + base64_encode(std::string_view(reinterpret_cast<char*>(mac), mac_len));
}

bool verify_webhook_signature(const std::string& secret, const std::string& id,
                              const std::string& timestamp, const std::string& body,
                              const std::string& signature_header, std::string* why) {
  auto fail = [&](const std::string& m) {
    if (why) *why = m;
    return false;
  };
  if (id.empty()) return fail("no webhook-id header");
  if (timestamp.empty()) return fail("no webhook-timestamp header");
  if (timestamp.find_first_not_of("0123456789") != std::string::npos)
    return fail("webhook-timestamp is not unix seconds: '" + timestamp + "'");
  if (signature_header.empty()) return fail("no webhook-signature header");
  auto key = webhook_key(secret);
  if (!key) return fail("test secret is not a valid whsec_ value");
  const std::string want = webhook_signature(*key, id, timestamp, body);
  std::istringstream in(signature_header);
  std::string entry;
  bool any_v1 = false;
  while (in >> entry) {
    if (entry.rfind("v1,", 0) != 0) continue;
    any_v1 = true;
    if (entry.size() == want.size() &&
        CRYPTO_memcmp(entry.data(), want.data(), want.size()) == 0) {
      return true;
    }
  }
  if (!any_v1) return fail("no v1,<sig> entry in webhook-signature '" + signature_header + "'");
  return fail("signature mismatch: got '" + signature_header + "', want '" + want + "'");
}

// ---------------------------------------------------------------------------
// ReceivedRequest

std::string ReceivedRequest::header(const std::string& name) const {
  auto it = headers.find(lower(name));
  return it == headers.end() ? std::string() : it->second;
}

nlohmann::json ReceivedRequest::json_body() const {
  return nlohmann::json::parse(body, nullptr, false);
}

long long ReceivedRequest::received_unix_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(received_wall.time_since_epoch())
      .count();
}

std::string ReceivedRequest::describe() const {
  std::ostringstream os;
  os << "#" << seq << " " << method << " " << target << " webhook-id=" << header("webhook-id")
     << " answered=" << answered_status << " sig=" << (signature_checked ? (signature_ok ? "ok" : "BAD") : "-")
     << " body=" << body.substr(0, 300);
  return os.str();
}

std::vector<std::string> delivered_ids(const std::vector<ReceivedRequest>& reqs) {
  std::set<std::string> ids;
  for (const auto& r : reqs)
    if (r.answered_status >= 200 && r.answered_status < 300) ids.insert(r.webhook_id());
  return {ids.begin(), ids.end()};
}

// ---------------------------------------------------------------------------
// PortReservation

PortReservation::PortReservation() {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = 0;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::string e = std::strerror(errno);
    ::close(fd_);
    throw std::runtime_error("bind: " + e);
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
}

PortReservation::~PortReservation() {
  if (fd_ >= 0) ::close(fd_);
}

std::string PortReservation::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

int PortReservation::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

// ---------------------------------------------------------------------------
// WebhookReceiver

struct WebhookReceiver::Impl {
  // --- state shared with the io thread (guarded by mutex) ---
  mutable std::mutex mutex;
  std::condition_variable cv;
  std::vector<ReceivedRequest> recorded;
  std::deque<ScriptedResponse> script;
  ScriptedResponse default_response;
  Handler handler;
  std::optional<std::string> secret;

  // --- io (owned by the test thread: start/stop) ---
  std::unique_ptr<asio::io_context> ioc;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::thread thread;
  int port = 0;
  bool running = false;

  struct Session : std::enable_shared_from_this<Session> {
    Impl* owner;
    beast::tcp_stream stream;
    beast::flat_buffer buffer;
    std::optional<http::request_parser<http::string_body>> parser;
    http::response<http::string_body> response;
    asio::steady_timer timer;

    Session(Impl* o, tcp::socket s)
        : owner(o), stream(std::move(s)), timer(stream.get_executor()) {}

    void read() {
      parser.emplace();
      parser->body_limit(std::uint64_t{256} << 20);
      parser->header_limit(1u << 20);
      stream.expires_after(std::chrono::seconds(60));
      http::async_read(stream, buffer, *parser,
                       [self = shared_from_this()](beast::error_code ec, std::size_t) {
                         self->on_read(ec);
                       });
    }

    void on_read(beast::error_code ec) {
      if (ec) return close();
      auto req = parser->release();
      bool keep_alive = req.keep_alive();
      ScriptedResponse r = owner->record(req);
      auto act = [self = shared_from_this(), r, keep_alive] {
        if (r.close_without_response) return self->close();
        self->respond(r, keep_alive);
      };
      if (r.delay.count() > 0) {
        timer.expires_after(r.delay);
        timer.async_wait([act](beast::error_code) { act(); });
      } else {
        act();
      }
    }

    void respond(const ScriptedResponse& r, bool keep_alive) {
      response = {};
      response.version(11);
      response.result(static_cast<unsigned>(r.status));
      response.set(http::field::server, "logsift-test-receiver");
      response.set(http::field::content_type, "text/plain");
      for (const auto& [k, v] : r.headers) response.set(k, v);
      response.body() = r.body;
      response.keep_alive(keep_alive);
      response.prepare_payload();
      stream.expires_after(std::chrono::seconds(30));
      http::async_write(stream, response,
                        [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
                          if (ec || !keep_alive) return self->close();
                          self->read();
                        });
    }

    void close() {
      beast::error_code ignored;
      stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
      stream.socket().close(ignored);
    }
  };

  // Records a request and decides the answer (called on the io thread).
  ScriptedResponse record(const http::request<http::string_body>& req) {
    ReceivedRequest rr;
    rr.received_steady = Clock::now();
    rr.received_wall = std::chrono::system_clock::now();
    rr.method = std::string(req.method_string());
    rr.target = std::string(req.target());
    for (const auto& f : req) rr.headers[lower(std::string(f.name_string()))] = std::string(f.value());
    rr.body = req.body();
    std::lock_guard<std::mutex> lock(mutex);
    rr.seq = recorded.size();
    if (secret) {
      rr.signature_checked = true;
      rr.signature_ok =
          verify_webhook_signature(*secret, rr.header("webhook-id"), rr.header("webhook-timestamp"),
                                   rr.body, rr.header("webhook-signature"), &rr.signature_error);
    }
    ScriptedResponse r = default_response;
    if (handler) {
      r = handler(rr);
    } else if (!script.empty()) {
      r = script.front();
      script.pop_front();
    }
    rr.answered_status = r.close_without_response ? 0 : r.status;
    recorded.push_back(std::move(rr));
    cv.notify_all();
    return r;
  }

  void accept() {
    acceptor->async_accept([this](beast::error_code ec, tcp::socket s) {
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor->is_open()) return;
        return accept();  // e.g. EMFILE: keep accepting
      }
      beast::error_code ignored;
      s.set_option(tcp::no_delay(true), ignored);
      std::make_shared<Session>(this, std::move(s))->read();
      accept();
    });
  }

  ::testing::AssertionResult start_with(int fd, int want_port) {
    if (running) return ::testing::AssertionFailure() << "receiver already listening";
    ioc = std::make_unique<asio::io_context>(1);
    acceptor = std::make_unique<tcp::acceptor>(*ioc);
    beast::error_code ec;
    if (fd >= 0) {
      acceptor->assign(tcp::v4(), fd, ec);
      if (ec) {
        ::close(fd);
        return fail("assign", ec);
      }
    } else {
      acceptor->open(tcp::v4(), ec);
      if (ec) return fail("open", ec);
      acceptor->set_option(asio::socket_base::reuse_address(true), ec);
      if (ec) return fail("SO_REUSEADDR", ec);
      acceptor->bind(tcp::endpoint(asio::ip::make_address("127.0.0.1"),
                                   static_cast<unsigned short>(want_port)),
                     ec);
      if (ec) return fail("bind 127.0.0.1:" + std::to_string(want_port), ec);
    }
    acceptor->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return fail("listen", ec);
    port = acceptor->local_endpoint(ec).port();
    if (ec) return fail("local_endpoint", ec);
    accept();
    running = true;
    thread = std::thread([io = ioc.get()] {
      for (;;) {
        try {
          io->run();
          return;
        } catch (const std::exception& e) {
          std::fprintf(stderr, "webhook receiver: io thread exception: %s\n", e.what());
        }
      }
    });
    return ::testing::AssertionSuccess();
  }

  ::testing::AssertionResult fail(const std::string& what, const beast::error_code& ec) {
    acceptor.reset();
    ioc.reset();
    return ::testing::AssertionFailure() << "webhook receiver: " << what << ": " << ec.message();
  }

  void stop() {
    if (!running) return;
    ioc->stop();
    if (thread.joinable()) thread.join();
    acceptor.reset();
    ioc.reset();  // destroys pending handlers -> sessions -> closes their sockets
    running = false;
  }
};

WebhookReceiver::WebhookReceiver() : impl_(std::make_unique<Impl>()) {}
WebhookReceiver::~WebhookReceiver() { impl_->stop(); }

::testing::AssertionResult WebhookReceiver::start(int port) { return impl_->start_with(-1, port); }

::testing::AssertionResult WebhookReceiver::start(PortReservation& reservation) {
  int fd = reservation.release();
  if (fd < 0) return ::testing::AssertionFailure() << "empty port reservation";
  return impl_->start_with(fd, 0);
}

void WebhookReceiver::stop() { impl_->stop(); }
bool WebhookReceiver::listening() const { return impl_->running; }
int WebhookReceiver::port() const { return impl_->port; }

std::string WebhookReceiver::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + path;
}

void WebhookReceiver::set_secret(const std::string& secret) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->secret = secret;
}

void WebhookReceiver::set_default_response(ScriptedResponse r) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->default_response = std::move(r);
}

void WebhookReceiver::push_responses(std::vector<ScriptedResponse> rs) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  for (auto& r : rs) impl_->script.push_back(std::move(r));
}

void WebhookReceiver::set_handler(Handler h) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->handler = std::move(h);
}

std::vector<ReceivedRequest> WebhookReceiver::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->recorded;
}

std::size_t WebhookReceiver::count() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->recorded.size();
}

bool WebhookReceiver::wait_for_count(std::size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  return impl_->cv.wait_for(lock, timeout, [&] { return impl_->recorded.size() >= n; });
}

bool WebhookReceiver::wait_for(
    const std::function<bool(const std::vector<ReceivedRequest>&)>& pred,
    std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  return impl_->cv.wait_for(lock, timeout, [&] { return pred(impl_->recorded); });
}

void WebhookReceiver::clear() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->recorded.clear();
}

}  // namespace logsift_it
