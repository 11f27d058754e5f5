// Load generators for logsift, loopback only.
//
//   loadgen http --port P [--rate R] [--duration S] [--connections C] [--batch K]
//                [--lines FILE] [--warmup-pass] [--max-lines N]
//     Open-loop HTTP: request k of connection c is due at t0 + (k*C + c)/R,
//     whatever happened before; it is sent once it is due and the connection
//     has its previous answer (HTTP/1.1, no pipelining). Latency is measured
//     from the DUE time, so a stall delays (and is charged to) every request
//     queued behind it instead of being hidden (no coordinated omission).
//     Bodies: {"text": line} (K = 1) or {"texts": [K lines]}; lines cycle
//     through FILE (default: a fixed set of 64 loghub-style lines).
//     --warmup-pass posts every distinct line once first, so all lines are
//     "already seen" during the measurement.
//     Prints: sent, ok, errors, achieved rate, p50/p90/p99/p999/max in us.
//
//   loadgen tcp --port P --lines FILE [--connections C] [--repeat N] [--no-replies]
//     Each connection streams FILE's lines N times as fast as the socket
//     takes them. With replies (the server's default) it reads one reply line
//     per input line and the clock stops at the last reply; with --no-replies
//     (server started with --tcp-replies false) the connection is half-closed
//     after the last line and the clock stops when the server closes it, i.e.
//     after it finished every line. Prints lines/s over all connections.
//
//   Both modes: --tls CAFILE speaks TLS (verifying the server's certificate
//   for "localhost" against CAFILE), --tls-cert F --tls-key K adds a client
//   certificate. Connections are long-lived (HTTP keep-alive, one TCP stream
//   each), so a handshake is paid once per connection, as a shipper does;
//   RESULT says how many handshakes resumed a session.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string mode;
  int port = 0;
  double rate = 1000;
  double duration = 10;
  int connections = 8;
  int batch = 1;
  std::string lines_file;
  bool warmup_pass = false;
  int repeat = 1;
  bool replies = true;
  size_t max_lines = 0;
  std::string tls_ca, tls_cert, tls_key;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "loadgen: %s\nusage: loadgen http|tcp --port P [options] (see bench/loadgen.cpp)\n", why);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) usage("missing mode");
  o.mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--port") o.port = std::stoi(val());
    else if (a == "--rate") o.rate = std::stod(val());
    else if (a == "--duration") o.duration = std::stod(val());
    else if (a == "--connections") o.connections = std::stoi(val());
    else if (a == "--batch") o.batch = std::stoi(val());
    else if (a == "--lines") o.lines_file = val();
    else if (a == "--warmup-pass") o.warmup_pass = true;
    else if (a == "--repeat") o.repeat = std::stoi(val());
    else if (a == "--no-replies") o.replies = false;
    else if (a == "--max-lines") o.max_lines = std::stoul(val());
    else if (a == "--tls") o.tls_ca = val();
    else if (a == "--tls-cert") o.tls_cert = val();
    else if (a == "--tls-key") o.tls_key = val();
    else usage(("unknown option " + a).c_str());
  }
  if (o.port <= 0) usage("--port is required");
  if (o.connections < 1 || o.batch < 1 || o.rate <= 0 || o.duration <= 0 || o.repeat < 1) usage("bad numbers");
  return o;
}

std::vector<std::string> default_lines() {
  std::vector<std::string> l;
  const char* shapes[] = {
      "Connection from 10.0.%d.%d port %d closed",
      "PacketResponder %d for block blk_%d%d terminating",
      "com.amazonaws.SdkClientException: Unable to execute HTTP request: %08x-c804-4beb-a5cc-%d",
      "Failed password for invalid user admin from 173.234.%d.%d port %d ssh2",
      "Job %d finished in %d ms with status OK",
      "level=warn msg=\"webhook dispatched\" count=%d latency_ms=%d.%d",
      "Disk /dev/sda%d is %d%% full on node-%d",
      "GET /api/v1/orders/%d HTTP/1.1 200 %d",
  };
  char buf[256];
  for (int i = 0; i < 64; ++i) {
    std::snprintf(buf, sizeof buf, shapes[i % 8], i * 7 % 251, i * 13 % 97, 1000 + i * 31);
    l.emplace_back(buf);
  }
  return l;
}

std::vector<std::string> load_lines(const Options& o) {
  if (o.lines_file.empty()) return default_lines();
  std::ifstream in(o.lines_file);
  if (!in) usage(("cannot read " + o.lines_file).c_str());
  std::vector<std::string> l;
  std::string s;
  while (std::getline(in, s) && (o.max_lines == 0 || l.size() < o.max_lines))
    if (!s.empty()) l.push_back(s);
  if (l.empty()) usage("no lines");
  return l;
}

void json_escape(std::string& out, const std::string& s) {
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          out += b;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
}

std::string request_for(const std::vector<std::string>& lines, size_t first, int batch) {
  std::string body;
  if (batch == 1) {
    body = "{\"text\":\"";
    json_escape(body, lines[first % lines.size()]);
    body += "\"}";
  } else {
    body = "{\"texts\":[";
    for (int i = 0; i < batch; ++i) {
      if (i) body += ',';
      body += '"';
      json_escape(body, lines[(first + i) % lines.size()]);
      body += '"';
    }
    body += "]}";
  }
  std::string req = "POST /inferences HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n";
  return req + body;
}

// ---------------------------------------------------------------------------
// A connection's stream: plain TCP, or TLS over it (--tls).

namespace ssl = net::ssl;

std::unique_ptr<ssl::context> make_tls(const Options& o) {
  if (o.tls_ca.empty()) return nullptr;
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_client);
  ctx->load_verify_file(o.tls_ca);
  ctx->set_verify_mode(ssl::verify_peer);
  if (!o.tls_cert.empty()) {
    ctx->use_certificate_chain_file(o.tls_cert);
    ctx->use_private_key_file(o.tls_key, ssl::context::pem);
  }
  return ctx;
}

uint64_t g_handshakes = 0, g_resumed = 0;  // one io thread: no atomics needed

class Link {
 public:
  using executor_type = tcp::socket::executor_type;
  Link(net::io_context& ioc, ssl::context* ctx) : sock_(ioc) {
    if (ctx) tls_ = std::make_unique<ssl::stream<tcp::socket&>>(sock_, *ctx);
  }
  executor_type get_executor() { return sock_.get_executor(); }
  tcp::socket& socket() { return sock_; }

  // Connects, then (TLS) handshakes; h(ec).
  template <class H>
  void connect(tcp::endpoint ep, H h) {
    sock_.async_connect(ep, [this, h](boost::system::error_code ec) mutable {
      if (!ec) sock_.set_option(tcp::no_delay(true));
      if (ec || !tls_) return h(ec);
      SSL_set_tlsext_host_name(tls_->native_handle(), "localhost");
      tls_->set_verify_callback(ssl::host_name_verification("localhost"));
      tls_->async_handshake(ssl::stream_base::client, [this, h](boost::system::error_code hec) mutable {
        if (!hec) {
          ++g_handshakes;
          if (SSL_session_reused(tls_->native_handle())) ++g_resumed;
        }
        h(hec);
      });
    });
  }
  template <class B, class H>
  void async_read_some(const B& b, H&& h) {
    if (tls_)
      tls_->async_read_some(b, std::forward<H>(h));
    else
      sock_.async_read_some(b, std::forward<H>(h));
  }
  template <class B, class H>
  void async_write_some(const B& b, H&& h) {
    if (tls_)
      tls_->async_write_some(b, std::forward<H>(h));
    else
      sock_.async_write_some(b, std::forward<H>(h));
  }

 private:
  tcp::socket sock_;
  std::unique_ptr<ssl::stream<tcp::socket&>> tls_;
};

// ---------------------------------------------------------------------------
// HTTP open loop

struct HttpStats {
  std::vector<uint32_t> latency_us;
  uint64_t sent = 0, ok = 0, errors = 0;
};

class HttpConn : public std::enable_shared_from_this<HttpConn> {
 public:
  HttpConn(net::io_context& ioc, ssl::context* tls, const Options& o, const std::vector<std::string>& lines, int index,
           Clock::time_point t0, Clock::time_point end, HttpStats& stats, bool record)
      : sock_(ioc, tls), timer_(ioc), o_(o), lines_(lines), index_(index), t0_(t0), end_(end), stats_(stats),
        record_(record) {}

  void start(tcp::endpoint ep) {
    sock_.connect(ep, [self = shared_from_this()](boost::system::error_code ec) {
      if (ec) {
        std::fprintf(stderr, "loadgen: connect: %s\n", ec.message().c_str());
        ++self->stats_.errors;
        return;
      }
      self->schedule();
    });
  }

  // Requests the given lines once each (warm-up), then stops.
  void set_fixed(size_t count) { fixed_ = count; }

 private:
  Clock::time_point due(uint64_t k) const {
    double s = (static_cast<double>(k) * o_.connections + index_) / o_.rate;
    return t0_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }

  void schedule() {
    if (fixed_ ? k_ >= fixed_ : due(k_) >= end_) return;
    Clock::time_point when = fixed_ ? Clock::now() : due(k_);
    if (when <= Clock::now()) return send(when);
    timer_.expires_at(when);
    timer_.async_wait([self = shared_from_this(), when](boost::system::error_code) { self->send(when); });
  }

  void send(Clock::time_point intended) {
    intended_ = intended;
    size_t first = fixed_ ? (k_ * o_.connections + index_) * o_.batch
                          : (k_ * o_.connections + static_cast<uint64_t>(index_)) * static_cast<uint64_t>(o_.batch);
    req_ = request_for(lines_, first, o_.batch);
    ++k_;
    ++stats_.sent;
    net::async_write(sock_, net::buffer(req_), [self = shared_from_this()](boost::system::error_code ec, size_t) {
      if (ec) return self->fail(ec);
      self->read_header();
    });
  }

  void read_header() {
    net::async_read_until(sock_, net::dynamic_buffer(buf_), "\r\n\r\n",
                          [self = shared_from_this()](boost::system::error_code ec, size_t n) {
                            if (ec) return self->fail(ec);
                            self->on_header(n);
                          });
  }

  void on_header(size_t n) {
    std::string head = buf_.substr(0, n);
    buf_.erase(0, n);
    status_ = head.size() > 12 ? std::atoi(head.c_str() + 9) : 0;
    size_t len = 0;
    for (size_t p = 0; (p = head.find('\n', p)) != std::string::npos;) {
      ++p;
      if (head.size() - p > 15 && strncasecmp(head.c_str() + p, "content-length:", 15) == 0)
        len = static_cast<size_t>(std::atol(head.c_str() + p + 15));
    }
    if (buf_.size() >= len) return on_body(len);
    net::async_read(sock_, net::dynamic_buffer(buf_), net::transfer_at_least(len - buf_.size()),
                    [self = shared_from_this(), len](boost::system::error_code ec, size_t) {
                      if (ec) return self->fail(ec);
                      self->on_body(len);
                    });
  }

  void on_body(size_t len) {
    buf_.erase(0, len);
    auto now = Clock::now();
    if (status_ == 200) ++stats_.ok;
    else ++stats_.errors;
    if (record_)
      stats_.latency_us.push_back(static_cast<uint32_t>(
          std::min<int64_t>(std::chrono::duration_cast<std::chrono::microseconds>(now - intended_).count(), UINT32_MAX)));
    schedule();
  }

  void fail(boost::system::error_code ec) {
    ++stats_.errors;
    std::fprintf(stderr, "loadgen: connection %d: %s\n", index_, ec.message().c_str());
  }

  Link sock_;
  net::steady_timer timer_;
  const Options& o_;
  const std::vector<std::string>& lines_;
  int index_;
  Clock::time_point t0_, end_, intended_;
  HttpStats& stats_;
  bool record_;
  uint64_t k_ = 0;
  size_t fixed_ = 0;
  int status_ = 0;
  std::string req_, buf_;
};

double pct(std::vector<uint32_t>& v, double q) {
  if (v.empty()) return 0;
  size_t i = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
  return v[i];
}

int run_http(const Options& o) {
  auto lines = load_lines(o);
  net::io_context ioc;
  auto tls = make_tls(o);
  tcp::endpoint ep(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(o.port));
  if (o.warmup_pass) {  // every distinct line once, closed loop
    HttpStats warm;
    Options wo = o;
    wo.batch = 1;
    size_t per = (lines.size() + o.connections - 1) / o.connections;
    for (int c = 0; c < o.connections; ++c) {
      auto conn = std::make_shared<HttpConn>(ioc, tls.get(), wo, lines, c, Clock::now(), Clock::now(), warm, false);
      conn->set_fixed(per);
      conn->start(ep);
    }
    ioc.run();
    ioc.restart();
    std::printf("warmup requests=%llu ok=%llu errors=%llu\n", (unsigned long long)warm.sent,
                (unsigned long long)warm.ok, (unsigned long long)warm.errors);
  }
  HttpStats stats;
  stats.latency_us.reserve(static_cast<size_t>(o.rate * o.duration) + 16);
  auto t0 = Clock::now() + std::chrono::milliseconds(200);  // connections open first
  auto end = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.duration));
  for (int c = 0; c < o.connections; ++c)
    std::make_shared<HttpConn>(ioc, tls.get(), o, lines, c, t0, end, stats, true)->start(ep);
  ioc.run();
  double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  auto& v = stats.latency_us;
  double p50 = pct(v, 0.50), p90 = pct(v, 0.90), p99 = pct(v, 0.99), p999 = pct(v, 0.999);
  double mx = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  std::printf(
      "RESULT http connections=%d batch=%d target_rate=%.0f achieved_rate=%.0f lines_per_s=%.0f sent=%llu ok=%llu "
      "errors=%llu p50_us=%.0f p90_us=%.0f p99_us=%.0f p999_us=%.0f max_us=%.0f tls=%s handshakes=%llu resumed=%llu\n",
      o.connections, o.batch, o.rate, static_cast<double>(stats.ok) / wall,
      static_cast<double>(stats.ok) * o.batch / wall, (unsigned long long)stats.sent, (unsigned long long)stats.ok,
      (unsigned long long)stats.errors, p50, p90, p99, p999, mx, tls ? "yes" : "no", (unsigned long long)g_handshakes,
      (unsigned long long)g_resumed);
  return stats.errors ? 1 : 0;
}

// ---------------------------------------------------------------------------
// TCP streaming

struct TcpConn : std::enable_shared_from_this<TcpConn> {
  TcpConn(net::io_context& ioc, ssl::context* tls, const Options& o, const std::string& payload, uint64_t lines)
      : sock(ioc, tls), o(o), payload(payload), expect(lines) {}

  void start(tcp::endpoint ep) {
    sock.connect(ep, [self = shared_from_this()](boost::system::error_code ec) {
      if (ec) return self->fail("connect", ec);
      self->do_write();
      self->do_read();
    });
  }

  void do_write() {
    if (written == o.repeat) {
      if (!o.replies) sock.socket().shutdown(tcp::socket::shutdown_send);
      return;
    }
    net::async_write(sock, net::buffer(payload), [self = shared_from_this()](boost::system::error_code ec, size_t) {
      if (ec) return self->fail("write", ec);
      ++self->written;
      self->do_write();
    });
  }

  void do_read() {
    sock.async_read_some(net::buffer(rbuf), [self = shared_from_this()](boost::system::error_code ec, size_t n) {
      if (ec) {
        if (ec == net::error::eof || ec == ssl::error::stream_truncated) {
          self->done = Clock::now();
          self->finished = true;
          return;
        }
        return self->fail("read", ec);
      }
      self->replies += static_cast<uint64_t>(std::count(self->rbuf.data(), self->rbuf.data() + n, '\n'));
      self->errors += count_errors(self->rbuf.data(), n, &self->carry);
      if (self->o.replies && self->replies >= self->expect) {
        self->done = Clock::now();
        self->finished = true;
        self->sock.socket().close();
        return;
      }
      self->do_read();
    });
  }

  // Counts reply lines that start with {"error" (carry: bytes since the last '\n').
  static uint64_t count_errors(const char* p, size_t n, std::string* carry) {
    uint64_t e = 0;
    for (size_t i = 0; i < n; ++i) {
      if (carry->size() < 8) carry->push_back(p[i]);
      if (p[i] == '\n') {
        if (carry->rfind("{\"error", 0) == 0) ++e;
        carry->clear();
      }
    }
    return e;
  }

  void fail(const char* what, boost::system::error_code ec) {
    std::fprintf(stderr, "loadgen: tcp %s: %s\n", what, ec.message().c_str());
    failed = true;
  }

  Link sock;
  const Options& o;
  const std::string& payload;
  uint64_t expect;
  int written = 0;
  uint64_t replies = 0, errors = 0;
  std::array<char, 65536> rbuf{};
  std::string carry;
  bool finished = false, failed = false;
  Clock::time_point done;
};

int run_tcp(const Options& o) {
  auto lines = load_lines(o);
  std::string payload;
  for (const auto& l : lines) {
    payload += l;
    payload += '\n';
  }
  const uint64_t per_conn = static_cast<uint64_t>(lines.size()) * static_cast<uint64_t>(o.repeat);
  net::io_context ioc;
  auto tls = make_tls(o);
  tcp::endpoint ep(net::ip::make_address("127.0.0.1"), static_cast<unsigned short>(o.port));
  std::vector<std::shared_ptr<TcpConn>> conns;
  auto t0 = Clock::now();
  for (int c = 0; c < o.connections; ++c) {
    conns.push_back(std::make_shared<TcpConn>(ioc, tls.get(), o, payload, per_conn));
    conns.back()->start(ep);
  }
  ioc.run();
  Clock::time_point last = t0;
  uint64_t replies = 0, errors = 0;
  bool ok = true;
  for (auto& c : conns) {
    ok &= c->finished && !c->failed;
    last = std::max(last, c->done);
    replies += c->replies;
    errors += c->errors;
  }
  double wall = std::chrono::duration<double>(last - t0).count();
  uint64_t total = per_conn * static_cast<uint64_t>(o.connections);
  std::printf("RESULT tcp connections=%d replies=%s lines=%llu wall_s=%.3f lines_per_s=%.0f reply_lines=%llu "
              "error_replies=%llu complete=%s tls=%s handshakes=%llu\n",
              o.connections, o.replies ? "yes" : "no", (unsigned long long)total, wall,
              static_cast<double>(total) / wall, (unsigned long long)replies, (unsigned long long)errors,
              ok ? "yes" : "no", tls ? "yes" : "no", (unsigned long long)g_handshakes);
  return ok && (!o.replies || replies == total) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  try {
    if (o.mode == "http") return run_http(o);
    if (o.mode == "tcp") return run_tcp(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loadgen: %s\n", e.what());
    return 1;
  }
  usage("mode must be http or tcp");
}
