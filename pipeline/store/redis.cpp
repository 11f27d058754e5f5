#include "pipeline/store/redis.h"

#include <hiredis/hiredis.h>

#include <unistd.h>

#include <array>
#include <charconv>
#include <cstdio>
#include <random>
#include <optional>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>

#include "pipeline/core/metrics.h"

namespace logsift::redis {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
using tcp = net::ip::tcp;
using error_code = boost::system::error_code;

namespace {

Reply convert(const redisReply* r) {
  Reply out;
  switch (r->type) {
    case REDIS_REPLY_STRING: out.type = Reply::Type::kString; out.str.assign(r->str, r->len); break;
    case REDIS_REPLY_STATUS: out.type = Reply::Type::kStatus; out.str.assign(r->str, r->len); break;
    case REDIS_REPLY_ERROR: out.type = Reply::Type::kError; out.str.assign(r->str, r->len); break;
    case REDIS_REPLY_INTEGER: out.type = Reply::Type::kInteger; out.integer = r->integer; break;
    case REDIS_REPLY_ARRAY:
      out.type = Reply::Type::kArray;
      out.elements.reserve(r->elements);
      for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
      break;
    default: out.type = Reply::Type::kNil; break;
  }
  return out;
}

}  // namespace

struct Connection::Impl {
  Url url;
  Options opt;
  net::io_context ioc;
  std::optional<ssl::context> tls_ctx;
  std::unique_ptr<tcp::socket> plain;
  std::unique_ptr<ssl::stream<tcp::socket>> tls;
  std::unique_ptr<net::local::stream_protocol::socket> local;
  redisReader* reader = nullptr;
  std::array<char, 64 * 1024> buf{};
  std::chrono::steady_clock::time_point deadline;

  Impl(Url u, Options o) : url(std::move(u)), opt(std::move(o)) {}
  ~Impl() { close(); }

  bool connected() const { return reader != nullptr; }

  void close() {
    error_code ignored;
    if (tls) tls->lowest_layer().close(ignored);
    if (plain) plain->close(ignored);
    if (local) local->close(ignored);
    // Cancelled handlers still hold references into these: let them run.
    ioc.restart();
    ioc.run();
    tls.reset();
    plain.reset();
    local.reset();
    if (reader) redisReaderFree(reader);
    reader = nullptr;
  }

  [[noreturn]] void fail(const std::string& what) {
    close();
    throw Error("redis " + url.redacted() + ": " + what);
  }

  template <class F>
  void with_stream(F&& f) {
    if (tls) f(*tls);
    else if (plain) f(*plain);
    else f(*local);
  }

  // Runs the io_context until `done` is set or the round trip's deadline.
  void run_until(const bool& done, const char* what) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left > std::chrono::steady_clock::duration::zero()) {
      ioc.restart();
      ioc.run_for(left);
    }
    if (!done) fail(std::string(what) + " timed out after " + std::to_string(opt.timeout.count()) + " ms");
  }

  void connect() {
    deadline = std::chrono::steady_clock::now() + opt.timeout;
    error_code ec;
    bool done = false;
    if (url.scheme == Url::Scheme::kUnix) {
      local = std::make_unique<net::local::stream_protocol::socket>(ioc);
      local->async_connect(net::local::stream_protocol::endpoint(url.socket_path), [&](error_code e) {
        ec = e;
        done = true;
      });
      run_until(done, "connect");
      if (ec) fail("connect: " + ec.message());
    } else {
      tcp::resolver resolver(ioc);
      tcp::resolver::results_type endpoints;
      resolver.async_resolve(url.host, std::to_string(url.port), [&](error_code e, tcp::resolver::results_type r) {
        ec = e;
        endpoints = std::move(r);
        done = true;
      });
      run_until(done, "resolve");
      if (ec) fail("resolve: " + ec.message());
      tcp::socket* sock = nullptr;
      if (url.scheme == Url::Scheme::kTls) {
        if (!tls_ctx) {
          tls_ctx.emplace(ssl::context::tls_client);
          tls_ctx->set_verify_mode(ssl::verify_peer);
          if (opt.tls_ca_file.empty()) tls_ctx->set_default_verify_paths();
          else tls_ctx->load_verify_file(opt.tls_ca_file);
        }
        tls = std::make_unique<ssl::stream<tcp::socket>>(ioc, *tls_ctx);
        tls->set_verify_callback(ssl::host_name_verification(url.host));
        error_code addr_ec;
        net::ip::make_address(url.host, addr_ec);
        if (addr_ec) SSL_set_tlsext_host_name(tls->native_handle(), url.host.c_str());  // SNI for names only
        sock = &tls->next_layer();
      } else {
        plain = std::make_unique<tcp::socket>(ioc);
        sock = plain.get();
      }
      done = false;
      net::async_connect(*sock, endpoints, [&](error_code e, const tcp::endpoint&) {
        ec = e;
        done = true;
      });
      run_until(done, "connect");
      if (ec) fail("connect: " + ec.message());
      sock->set_option(tcp::no_delay(true), ec);
      if (tls) {
        done = false;
        tls->async_handshake(ssl::stream_base::client, [&](error_code e) {
          ec = e;
          done = true;
        });
        run_until(done, "TLS handshake");
        if (ec) fail("TLS handshake: " + ec.message());
      }
    }
    reader = redisReaderCreate();
    if (!reader) fail("out of memory");
    std::vector<std::vector<std::string>> hello;
    if (!url.password.empty()) {
      if (url.user.empty()) hello.push_back({"AUTH", url.password});
      else hello.push_back({"AUTH", url.user, url.password});
    }
    if (url.db > 0) hello.push_back({"SELECT", std::to_string(url.db)});
    if (!hello.empty()) {
      auto replies = exchange(hello);
      for (size_t i = 0; i < replies.size(); ++i)
        if (replies[i].is_error()) fail(std::string(hello[i][0] == "AUTH" ? "AUTH" : "SELECT") + ": " + replies[i].str);
    }
  }

  std::vector<Reply> exchange(const std::vector<std::vector<std::string>>& commands) {
    std::string out;
    std::vector<const char*> argv;
    std::vector<size_t> lens;
    for (const auto& cmd : commands) {
      argv.clear();
      lens.clear();
      for (const auto& a : cmd) {
        argv.push_back(a.data());
        lens.push_back(a.size());
      }
      char* formatted = nullptr;
      const int n = redisFormatCommandArgv(&formatted, static_cast<int>(argv.size()), argv.data(), lens.data());
      if (n < 0) fail("could not format a command");
      out.append(formatted, static_cast<size_t>(n));
      redisFreeCommand(formatted);
    }
    deadline = std::chrono::steady_clock::now() + opt.timeout;
    error_code ec;
    bool done = false;
    with_stream([&](auto& s) {
      net::async_write(s, net::buffer(out), [&](error_code e, size_t) {
        ec = e;
        done = true;
      });
    });
    run_until(done, "write");
    if (ec) fail("write: " + ec.message());
    std::vector<Reply> replies;
    replies.reserve(commands.size());
    while (replies.size() < commands.size()) {
      void* r = nullptr;
      if (redisReaderGetReply(reader, &r) != REDIS_OK) fail(std::string("protocol error: ") + reader->errstr);
      if (r) {
        replies.push_back(convert(static_cast<redisReply*>(r)));
        freeReplyObject(r);
        continue;
      }
      size_t got = 0;
      done = false;
      with_stream([&](auto& s) {
        s.async_read_some(net::buffer(buf), [&](error_code e, size_t n) {
          ec = e;
          got = n;
          done = true;
        });
      });
      run_until(done, "read");
      if (ec) fail("read: " + (ec == net::error::eof ? std::string("connection closed by the server") : ec.message()));
      if (redisReaderFeed(reader, buf.data(), got) != REDIS_OK) fail(std::string("protocol error: ") + reader->errstr);
    }
    return replies;
  }
};

Connection::Connection(Url url, Options options) : impl_(std::make_unique<Impl>(std::move(url), std::move(options))) {}
Connection::~Connection() = default;

std::vector<Reply> Connection::pipeline(const std::vector<std::vector<std::string>>& commands) {
  if (commands.empty()) return {};
  Metrics& m = metrics();
  const int64_t t0 = mono_ns();
  try {
    if (!impl_->connected()) impl_->connect();
    auto replies = impl_->exchange(commands);
    m.redis_round_trips.inc();
    m.redis_commands.inc(commands.size());
    // An error reply (NOGROUP, WRONGTYPE, OOM, ...) is a failed command too,
    // whether or not its caller throws on it.
    for (const auto& r : replies)
      if (r.type == Reply::Type::kError) m.redis_errors.inc();
    m.redis_round_trip_seconds.observe_ns(mono_ns() - t0);
    return replies;
  } catch (const Error&) {
    m.redis_errors.inc();
    throw;
  }
}

std::vector<Reply> Connection::pipeline_repeatable(const std::vector<std::vector<std::string>>& commands) {
  const bool was_open = connected();
  try {
    return pipeline(commands);
  } catch (const Error&) {
    if (!was_open) throw;
    return pipeline(commands);
  }
}

Reply Connection::command(const std::vector<std::string>& args) { return std::move(pipeline({args}).front()); }

bool Connection::connected() const { return impl_->connected(); }
void Connection::close() { impl_->close(); }
const Url& Connection::url() const { return impl_->url; }

void check_reply(const Reply& r, std::string_view who, std::string_view what) {
  if (r.is_error())
    throw std::runtime_error(std::string(who) + ": " + std::string(what) + ": " + r.str);
}

bool transient_error(std::string_view error) {
  for (std::string_view prefix : {"LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN", "OOM",
                                  "NOREPLICAS", "EXECABORT"})
    if (error.substr(0, prefix.size()) == prefix &&
        (error.size() == prefix.size() || error[prefix.size()] == ' '))
      return true;
  return false;
}

int64_t to_int(std::string_view text) {
  int64_t v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

const std::string& process_name() {
  static const std::string name = [] {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::random_device rd;
    char tag[9];
    std::snprintf(tag, sizeof tag, "%08x", static_cast<unsigned>(rd()));
    return std::string(host) + ":" + std::to_string(getpid()) + ":" + tag;
  }();
  return name;
}

}  // namespace logsift::redis
