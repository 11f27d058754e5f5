#include "harness.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

extern char** environ;

#ifndef LOGSIFT_BINARY
#define LOGSIFT_BINARY "/work/main/build/logsift"
#endif

namespace logsift_it {

namespace {

using Clock = std::chrono::steady_clock;

// Writes to a closed socket/pipe must fail with EPIPE, not kill the test run.
const bool kSigpipeIgnored = [] {
  ::signal(SIGPIPE, SIG_IGN);
  return true;
}();

Millis remaining(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now());
  return left.count() > 0 ? left : Millis(0);
}

int poll_timeout(Clock::time_point deadline) {
  auto left = remaining(deadline).count();
  return static_cast<int>(std::min<long long>(left, 1000 * 1000));
}

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

void close_fd(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

ProcessExit decode_status(int status) {
  ProcessExit e;
  e.reaped = true;
  if (WIFEXITED(status)) {
    e.exited = true;
    e.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    e.signal = WTERMSIG(status);
  }
  return e;
}

// Non-blocking reap. Returns the exit if the child has ended.
std::optional<ProcessExit> try_reap(pid_t pid) {
  int status = 0;
  pid_t r = ::waitpid(pid, &status, WNOHANG);
  if (r == pid) return decode_status(status);
  if (r < 0 && errno == ECHILD) {
    ProcessExit e;  // someone else reaped it; should not happen
    return e;
  }
  return std::nullopt;
}

// Waits up to `deadline` for the child; SIGKILLs and reaps it after that.
ProcessExit wait_or_kill(pid_t pid, Millis deadline) {
  auto end = Clock::now() + deadline;
  for (;;) {
    if (auto e = try_reap(pid)) return *e;
    if (Clock::now() >= end) break;
    std::this_thread::sleep_for(Millis(5));  // polling a child's exit, bounded
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ProcessExit e;
  if (::waitpid(pid, &status, 0) == pid) e = decode_status(status);
  e.killed_after_deadline = true;
  return e;
}

// fork+execve with the given stdio fds (-1 -> /dev/null). The child gets the
// parent's environment minus LOGSIFT_* plus `extra_env`, dies with the parent
// (PR_SET_PDEATHSIG) and inherits no other descriptor.
pid_t spawn(const std::vector<std::string>& argv, const KeyValues& extra_env, int in_fd,
            int out_fd, int err_fd, std::string* error) {
  // Everything the child needs is built before fork (no allocation after it).
  std::vector<std::string> env_strings;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    if (kv.rfind("LOGSIFT_", 0) == 0) continue;
    auto eq = kv.find('=');
    std::string_view key = kv.substr(0, eq);
    bool overridden = std::any_of(extra_env.begin(), extra_env.end(),
                                  [&](const auto& p) { return p.first == key; });
    if (!overridden) env_strings.emplace_back(kv);
  }
  for (const auto& [k, v] : extra_env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  std::vector<char*> args;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    if (error) *error = std::string("fork: ") + std::strerror(errno);
    close_fd(devnull);
    return -1;
  }
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    int fds[3] = {in_fd >= 0 ? in_fd : devnull, out_fd >= 0 ? out_fd : devnull,
                  err_fd >= 0 ? err_fd : devnull};
    for (int i = 0; i < 3; ++i) {
      if (fds[i] == i) {
        int flags = ::fcntl(i, F_GETFD);
        ::fcntl(i, F_SETFD, flags & ~FD_CLOEXEC);
      } else if (::dup2(fds[i], i) < 0) {
        ::_exit(127);
      }
    }
#ifdef SYS_close_range
    if (::syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
#endif
    {
      for (int fd = 3; fd < 4096; ++fd) ::close(fd);
    }
    ::execve(args[0], args.data(), envp.data());
    const char msg[] = "harness: execve failed\n";
    ssize_t ignored = ::write(2, msg, sizeof msg - 1);
    (void)ignored;
    ::_exit(127);
  }
  close_fd(devnull);
  return pid;
}

std::string to_lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string truncate_for_message(const std::string& s, std::size_t max = 4000) {
  if (s.size() <= max) return s;
  return s.substr(0, max / 2) + "\n...[" + std::to_string(s.size() - max) + " bytes elided]...\n" +
         s.substr(s.size() - max / 2);
}

}  // namespace

// LOGSIFT_TEST_BINARY runs the same tests against another build of the server
// (tests/sanitizers/run.sh points it at the ASan + UBSan build).
std::string binary_path() {
  const char* other = std::getenv("LOGSIFT_TEST_BINARY");
  return other && *other ? other : LOGSIFT_BINARY;
}

bool sanitized_server() {
  const char* s = std::getenv("LOGSIFT_TEST_SANITIZER");
  return s && *s;
}

// ---------------------------------------------------------------------------
// TempDir

TempDir::TempDir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + "XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  }
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

std::string TempDir::file(const std::string& rel) const { return path_ + "/" + rel; }

void TempDir::write_file(const std::string& rel, const std::string& content) const {
  std::filesystem::path p(file(rel));
  std::filesystem::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << content;
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

// ---------------------------------------------------------------------------
// ProcessExit / RunResult

std::string ProcessExit::describe() const {
  std::ostringstream os;
  if (!reaped) {
    os << "not reaped";
  } else if (exited) {
    os << "exited with code " << code;
  } else {
    os << "killed by signal " << signal << " (" << ::strsignal(signal) << ")";
  }
  if (killed_after_deadline) os << " [SIGKILLed after the deadline]";
  return os.str();
}

std::string RunResult::describe() const {
  std::ostringstream os;
  os << exit.describe() << (timed_out ? " [timed out]" : "") << "\n--- stdout ---\n"
     << truncate_for_message(out) << "\n--- stderr ---\n"
     << truncate_for_message(err);
  return os.str();
}

RunResult run_logsift(const std::vector<std::string>& args, const std::string& stdin_data,
                      const KeyValues& env, Millis timeout) {
  std::vector<std::string> argv{binary_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, stdin_data, env, timeout);
}

Prometheus::Prometheus(const std::string& scrape_configs) {
  work_.write_file("prometheus.yml",
                   "global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n" + scrape_configs);
  port_ = free_port();
  process_ = spawn_background({"/usr/bin/prometheus", "--config.file=" + work_.file("prometheus.yml"),
                               "--storage.tsdb.path=" + work_.file("data"),
                               "--web.listen-address=127.0.0.1:" + std::to_string(port_)});
}

Prometheus::~Prometheus() {
  if (running()) stop_background(process_);
}

json Prometheus::query(const std::string& promql) const {
  std::string encoded;
  for (unsigned char c : promql) {
    if (std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '~') {
      encoded.push_back(static_cast<char>(c));
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      encoded += hex;
    }
  }
  return http_get(port_, "/api/v1/query?query=" + encoded).json_body();
}

bool Prometheus::wait_for_series(const std::string& promql, json* last, Millis deadline) const {
  return wait_until(
      [&] {
        *last = query(promql);
        return last->is_object() && last->value("status", "") == "success" && !(*last)["data"]["result"].empty();
      },
      deadline, Millis(250));
}

BackgroundProcess spawn_background(const std::vector<std::string>& argv, const KeyValues& env) {
  BackgroundProcess p;
  p.pid = spawn(argv, env, -1, -1, -1, &p.error);
  return p;
}

ProcessExit stop_background(BackgroundProcess& p, Millis deadline) {
  if (p.pid <= 0) return {};
  ::kill(p.pid, SIGTERM);
  ProcessExit e = wait_or_kill(p.pid, deadline);
  p.pid = -1;
  return e;
}

RunResult run_program(const std::vector<std::string>& argv, const std::string& stdin_data,
                      const KeyValues& env, Millis timeout) {
  RunResult res;
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  std::string error;
  pid_t pid = spawn(argv, env, in_pipe[0], out_pipe[1], err_pipe[1], &error);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  int in_fd = in_pipe[1], out_fd = out_pipe[0], err_fd = err_pipe[0];
  if (pid < 0) {
    close_fd(in_fd);
    close_fd(out_fd);
    close_fd(err_fd);
    res.err = error;
    return res;
  }
  set_nonblocking(in_fd);
  set_nonblocking(out_fd);
  set_nonblocking(err_fd);
  std::size_t written = 0;
  if (stdin_data.empty()) close_fd(in_fd);
  auto deadline = Clock::now() + timeout;
  char buf[65536];
  while (out_fd >= 0 || err_fd >= 0) {
    if (Clock::now() >= deadline) {
      res.timed_out = true;
      break;
    }
    std::vector<pollfd> pfds;
    if (in_fd >= 0) pfds.push_back({in_fd, POLLOUT, 0});
    if (out_fd >= 0) pfds.push_back({out_fd, POLLIN, 0});
    if (err_fd >= 0) pfds.push_back({err_fd, POLLIN, 0});
    int n = ::poll(pfds.data(), pfds.size(), poll_timeout(deadline));
    if (n < 0 && errno != EINTR) break;
    for (auto& p : pfds) {
      if (!p.revents) continue;
      if (p.fd == in_fd) {
        ssize_t w = ::write(in_fd, stdin_data.data() + written, stdin_data.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN && errno != EINTR) written = stdin_data.size();
        if (written >= stdin_data.size()) close_fd(in_fd);
      } else {
        int& fd = (p.fd == out_fd) ? out_fd : err_fd;
        std::string& sink = (p.fd == out_fd) ? res.out : res.err;
        ssize_t r = ::read(fd, buf, sizeof buf);
        if (r > 0) {
          sink.append(buf, static_cast<std::size_t>(r));
        } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
          close_fd(fd);
        }
      }
    }
  }
  close_fd(in_fd);
  close_fd(out_fd);
  close_fd(err_fd);
  if (res.timed_out) {
    ::kill(pid, SIGKILL);
    res.exit = wait_or_kill(pid, Millis(5000));
    res.exit.killed_after_deadline = true;
  } else {
    res.exit = wait_or_kill(pid, remaining(deadline) + Millis(1000));
    if (res.exit.killed_after_deadline) res.timed_out = true;
  }
  return res;
}

// ---------------------------------------------------------------------------
// ServerProcess

ServerProcess::ServerProcess(ServerOptions options) : options_(std::move(options)) {
  if (options_.data_dir.empty()) {
    owned_dir_ = std::make_unique<TempDir>("logsift-data-");
    data_dir_ = owned_dir_->path();
  } else {
    data_dir_ = options_.data_dir;
  }
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0 && !exit_) stop(SIGTERM, Millis(10000));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_reader_ = true;
  }
  if (reader_.joinable()) reader_.join();
  close_fd(out_fd_);
}

::testing::AssertionResult ServerProcess::start() {
  if (pid_ > 0) return ::testing::AssertionFailure() << "server already started";
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    return ::testing::AssertionFailure() << "pipe2: " << std::strerror(errno);
  }
  std::vector<std::string> argv{binary_path(), "serve",      "--http-port", "0",
                                "--tcp-port",  "0",          "--syslog-port", "0", "--data-dir",  data_dir_};
  if (options_.allow_loopback_webhooks) {
    argv.push_back("--webhook-allow-cidrs");
    argv.push_back("127.0.0.0/8,::1/128");
  }
  argv.insert(argv.end(), options_.args.begin(), options_.args.end());
  std::string error;
  pid_ = spawn(argv, options_.env, -1, pipefd[1], pipefd[1], &error);
  ::close(pipefd[1]);
  if (pid_ < 0) {
    ::close(pipefd[0]);
    return ::testing::AssertionFailure() << error;
  }
  out_fd_ = pipefd[0];
  set_nonblocking(out_fd_);
  reader_ = std::thread([this] { reader_loop(); });

  static const std::regex kListening(
      R"(listening http=(\S+):([0-9]+) tcp=(\S+):([0-9]+)(?: syslog=(\S+):([0-9]+))?(?: syslog_tls=(\S+):([0-9]+))?)");
  auto deadline = Clock::now() + options_.startup_timeout;
  std::unique_lock<std::mutex> lock(mutex_);
  std::size_t scanned_lines_end = 0;
  for (;;) {
    // Scan complete lines not scanned yet.
    std::size_t nl;
    while ((nl = log_.find('\n', scanned_lines_end)) != std::string::npos) {
      std::string line = log_.substr(scanned_lines_end, nl - scanned_lines_end);
      scanned_lines_end = nl + 1;
      std::smatch m;
      if (std::regex_search(line, m, kListening)) {
        http_port_ = std::stoi(m[2].str());
        tcp_port_ = std::stoi(m[4].str());
        syslog_port_ = m[6].matched ? std::stoi(m[6].str()) : 0;
        syslog_tls_port_ = m[8].matched ? std::stoi(m[8].str()) : 0;
        if (http_port_ <= 0 || http_port_ > 65535 || tcp_port_ <= 0 || tcp_port_ > 65535) {
          return ::testing::AssertionFailure() << "bad ports in listening line: " << line;
        }
        return ::testing::AssertionSuccess();
      }
    }
    if (log_eof_) break;
    if (Clock::now() >= deadline) break;
    cv_.wait_until(lock, deadline);
  }
  bool eof = log_eof_;
  lock.unlock();
  std::string why = eof ? "the server closed its output before printing the listening line"
                        : "no listening line within the startup deadline";
  ProcessExit e = stop(SIGTERM, Millis(5000));
  return ::testing::AssertionFailure() << why << "; process " << e.describe() << "\n--- log ---\n"
                                       << truncate_for_message(log_text());
}

::testing::AssertionResult ServerProcess::start_ready() {
  auto started = start();
  if (!started) return started;
  HttpResponse last;
  bool ok = wait_until(
      [&] {
        last = http_request(http_port_, "GET", "/readyz", "", "");
        return last.status == 200;
      },
      options_.startup_timeout, Millis(20));
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "GET /readyz never answered 200; last: "
                                       << last.describe() << "\n--- log ---\n"
                                       << truncate_for_message(log_text());
}

void ServerProcess::reader_loop() {
  char buf[65536];
  constexpr std::size_t kMaxLog = 16u << 20;
  std::optional<Clock::time_point> drain_deadline;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_reader_ && !drain_deadline) drain_deadline = Clock::now() + Millis(2000);
    }
    if (drain_deadline && Clock::now() >= *drain_deadline) break;
    pollfd p{out_fd_, POLLIN, 0};
    int n = ::poll(&p, 1, 100);
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    ssize_t r = ::read(out_fd_, buf, sizeof buf);
    if (r > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (log_.size() < kMaxLog) log_.append(buf, static_cast<std::size_t>(r));
      cv_.notify_all();
    } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
      break;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  log_eof_ = true;
  cv_.notify_all();
}

bool ServerProcess::running() {
  if (pid_ <= 0 || exit_) return false;
  if (auto e = try_reap(pid_)) {
    exit_ = *e;
    return false;
  }
  return true;
}

ProcessExit ServerProcess::wait_exit(Millis deadline) {
  if (exit_) return *exit_;
  exit_ = wait_or_kill(pid_, deadline);
  return *exit_;
}

ProcessExit ServerProcess::stop(int sig, Millis deadline) {
  if (pid_ <= 0) return ProcessExit{};
  if (exit_) return *exit_;
  if (running()) ::kill(pid_, sig);
  ProcessExit e = wait_exit(deadline);
  // Let the reader collect the tail of the output (bounded), then stop it.
  {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait_for(lock, Millis(2000), [&] { return log_eof_; });
    stop_reader_ = true;
  }
  if (reader_.joinable()) reader_.join();
  return e;
}

std::string ServerProcess::log_text() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return log_;
}

// ---------------------------------------------------------------------------
// HTTP client

namespace beast = boost::beast;
namespace http = beast::http;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct HttpClient::Impl {
  int port;
  Millis timeout;
  asio::io_context ioc;
  std::optional<beast::tcp_stream> stream;
  beast::flat_buffer buffer;

  Impl(int p, Millis t) : port(p), timeout(t) {}

  // Runs one asynchronous operation to completion on this thread. The
  // tcp_stream's expiry (expires_after) bounds it.
  template <class Start>
  beast::error_code run(Start&& start) {
    beast::error_code result = asio::error::would_block;
    start([&result](beast::error_code ec, auto&&...) { result = ec; });
    ioc.restart();
    ioc.run();
    return result;
  }

  void reset() {
    if (stream) {
      beast::error_code ignored;
      stream->socket().shutdown(tcp::socket::shutdown_both, ignored);
      stream->close();
      stream.reset();
    }
    buffer.clear();
  }

  beast::error_code connect() {
    reset();
    stream.emplace(ioc);
    stream->expires_after(timeout);
    tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port));
    auto ec = run([&](auto handler) { stream->async_connect(ep, std::move(handler)); });
    if (ec) {
      reset();
      return ec;
    }
    beast::error_code ignored;
    stream->socket().set_option(tcp::no_delay(true), ignored);
    return ec;
  }

  HttpResponse request(const std::string& method, const std::string& target,
                       const std::string& body, const std::string& content_type,
                       const KeyValues& headers) {
    HttpResponse res;
    if (!stream) {
      if (auto ec = connect()) {
        res.error = "connect: " + ec.message();
        return res;
      }
    }
    http::request<http::string_body> req;
    http::verb v = http::string_to_verb(method);
    if (v == http::verb::unknown) {
      req.method_string(method);
    } else {
      req.method(v);
    }
    req.target(target);
    req.version(11);
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
    req.set(http::field::user_agent, "logsift-integration-tests");
    if (!content_type.empty()) req.set(http::field::content_type, content_type);
    for (const auto& [k, val] : headers) req.set(k, val);
    req.body() = body;
    req.keep_alive(true);
    req.prepare_payload();

    stream->expires_after(timeout);
    auto wec = run([&](auto handler) { http::async_write(*stream, req, std::move(handler)); });

    // Even if the write failed (the server may reject early and close), try
    // to read the response it may have sent.
    http::response_parser<http::string_body> parser;
    parser.body_limit(std::uint64_t{256} << 20);
    parser.header_limit(1u << 20);
    if (stream) {
      stream->expires_after(timeout);
      auto rec = run([&](auto handler) {
        http::async_read(*stream, buffer, parser, std::move(handler));
      });
      if (rec) {
        res.error = "read: " + rec.message();
        if (wec) res.error += " (write: " + wec.message() + ")";
        reset();
        return res;
      }
    }
    auto& msg = parser.get();
    res.status = static_cast<int>(msg.result_int());
    res.body = msg.body();
    for (const auto& f : msg) {
      res.headers[to_lower(std::string(f.name_string()))] = std::string(f.value());
    }
    if (!msg.keep_alive()) reset();
    return res;
  }
};

HttpClient::HttpClient(int port, Millis timeout) : impl_(std::make_unique<Impl>(port, timeout)) {}
HttpClient::~HttpClient() { impl_->reset(); }

HttpResponse HttpClient::request(const std::string& method, const std::string& target,
                                 const std::string& body, const std::string& content_type,
                                 const KeyValues& headers) {
  try {
    return impl_->request(method, target, body, content_type, headers);
  } catch (const std::exception& e) {
    impl_->reset();
    HttpResponse r;
    r.error = std::string("exception: ") + e.what();
    return r;
  }
}

bool HttpClient::connected() const { return impl_->stream.has_value(); }

std::string HttpResponse::header(const std::string& name) const {
  auto it = headers.find(to_lower(name));
  return it == headers.end() ? std::string() : it->second;
}

json HttpResponse::json_body() const { return json::parse(body, nullptr, false); }

std::string HttpResponse::describe() const {
  std::ostringstream os;
  if (!error.empty()) os << "[transport error: " << error << "] ";
  os << "status " << status << " content-type '" << header("content-type") << "' body: "
     << truncate_for_message(body, 1500);
  return os.str();
}

HttpResponse http_request(int port, const std::string& method, const std::string& target,
                          const std::string& body, const std::string& content_type,
                          const KeyValues& headers) {
  HttpClient client(port);
  std::string ct = content_type;
  if (body.empty() && (method == "GET" || method == "HEAD" || method == "DELETE")) ct.clear();
  return client.request(method, target, body, ct, headers);
}

HttpResponse http_get(int port, const std::string& target) {
  return http_request(port, "GET", target, "", "");
}

HttpResponse post_json(int port, const json& body) {
  return http_request(port, "POST", "/inferences", body.dump(), "application/json");
}

HttpResponse post_infer(int port, const std::string& text, const json& labels) {
  json body = {{"text", text}};
  if (!labels.is_null()) body["labels"] = labels;
  return post_json(port, body);
}

// ---------------------------------------------------------------------------
// TcpLineClient

TcpLineClient::~TcpLineClient() { close(); }

void TcpLineClient::close() {
  close_fd(fd_);
  rbuf_.clear();
  eof_ = false;
}

::testing::AssertionResult TcpLineClient::connect(int port, Millis timeout) {
  close();
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) return ::testing::AssertionFailure() << "socket: " << std::strerror(errno);
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int r = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  if (r != 0 && errno != EINPROGRESS) {
    std::string e = std::strerror(errno);
    close_fd(fd_);
    return ::testing::AssertionFailure() << "connect to 127.0.0.1:" << port << ": " << e;
  }
  if (r != 0) {
    pollfd p{fd_, POLLOUT, 0};
    int n = ::poll(&p, 1, static_cast<int>(timeout.count()));
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (n <= 0 || ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0) {
      close_fd(fd_);
      return ::testing::AssertionFailure()
             << "connect to 127.0.0.1:" << port << ": "
             << (n <= 0 ? std::string("timeout") : std::string(std::strerror(soerr)));
    }
  }
  return ::testing::AssertionSuccess();
}

bool TcpLineClient::fill(Millis timeout) {
  if (fd_ < 0 || eof_) return false;
  pollfd p{fd_, POLLIN, 0};
  int n = ::poll(&p, 1, static_cast<int>(timeout.count()));
  if (n <= 0) return false;
  char buf[65536];
  ssize_t r = ::recv(fd_, buf, sizeof buf, 0);
  if (r > 0) {
    rbuf_.append(buf, static_cast<std::size_t>(r));
    return true;
  }
  if (r == 0) {
    eof_ = true;
    return false;
  }
  if (errno == EAGAIN || errno == EINTR) return true;
  error_ = std::string("recv: ") + std::strerror(errno);
  eof_ = true;
  return false;
}

bool TcpLineClient::send_all(std::string_view data, Millis timeout) {
  if (fd_ < 0) return false;
  auto deadline = Clock::now() + timeout;
  std::size_t sent = 0;
  while (sent < data.size()) {
    if (Clock::now() >= deadline) {
      error_ = "send timeout";
      return false;
    }
    pollfd p{fd_, static_cast<short>(POLLOUT | (eof_ ? 0 : POLLIN)), 0};
    int n = ::poll(&p, 1, poll_timeout(deadline));
    if (n < 0 && errno != EINTR) return false;
    if (n <= 0) continue;
    if ((p.revents & POLLIN) && !eof_) {
      char buf[65536];
      ssize_t r = ::recv(fd_, buf, sizeof buf, 0);
      if (r > 0) rbuf_.append(buf, static_cast<std::size_t>(r));
      if (r == 0) eof_ = true;
    }
    if (p.revents & (POLLOUT | POLLERR | POLLHUP)) {
      ssize_t w = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (w > 0) {
        sent += static_cast<std::size_t>(w);
      } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
        error_ = std::string("send: ") + std::strerror(errno);
        return false;
      }
    }
  }
  return true;
}

std::optional<std::string> TcpLineClient::read_line(Millis timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    auto nl = rbuf_.find('\n');
    if (nl != std::string::npos) {
      std::string line = rbuf_.substr(0, nl);
      rbuf_.erase(0, nl + 1);
      return line;
    }
    if (eof_ || fd_ < 0 || Clock::now() >= deadline) return std::nullopt;
    fill(remaining(deadline));
  }
}

std::vector<std::string> TcpLineClient::read_lines(std::size_t n, Millis timeout) {
  auto deadline = Clock::now() + timeout;
  std::vector<std::string> out;
  out.reserve(n);
  while (out.size() < n) {
    auto line = read_line(remaining(deadline));
    if (!line) break;
    out.push_back(std::move(*line));
  }
  return out;
}

std::string TcpLineClient::read_until_eof(Millis timeout, bool* eof) {
  auto deadline = Clock::now() + timeout;
  while (!eof_ && fd_ >= 0 && Clock::now() < deadline) fill(remaining(deadline));
  if (eof) *eof = eof_;
  std::string out;
  out.swap(rbuf_);
  return out;
}

bool TcpLineClient::shutdown_write() { return fd_ >= 0 && ::shutdown(fd_, SHUT_WR) == 0; }

// ---------------------------------------------------------------------------
// Helpers

bool is_hex16(const std::string& s) {
  static const std::regex re("^[0-9a-f]{16}$");
  return std::regex_match(s, re);
}

::testing::AssertionResult is_inference_result(const json& j) {
  if (!j.is_object()) return ::testing::AssertionFailure() << "not an object: " << j.dump();
  for (const char* k : {"cluster_id", "template_id", "template"}) {
    if (!j.contains(k) || !j[k].is_string()) {
      return ::testing::AssertionFailure() << "missing string field '" << k << "': " << j.dump();
    }
  }
  if (!is_hex16(j["cluster_id"].get<std::string>()))
    return ::testing::AssertionFailure() << "cluster_id is not 16 lowercase hex: " << j.dump();
  if (!is_hex16(j["template_id"].get<std::string>()))
    return ::testing::AssertionFailure() << "template_id is not 16 lowercase hex: " << j.dump();
  if (!j.contains("new") || !j["new"].is_boolean())
    return ::testing::AssertionFailure() << "missing boolean field 'new': " << j.dump();
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult is_error_object(const json& j) {
  if (j.is_object() && j.contains("error") && j["error"].is_string() &&
      !j["error"].get<std::string>().empty()) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "not an {\"error\": \"...\"} object: "
                                       << (j.is_discarded() ? std::string("<not JSON>") : j.dump());
}

::testing::AssertionResult is_json_error(const HttpResponse& r, int status) {
  if (status != 0 ? r.status != status : (r.status < 400 || r.status > 499)) {
    return ::testing::AssertionFailure()
           << "expected status " << (status ? std::to_string(status) : std::string("4xx"))
           << ", got " << r.describe();
  }
  json j = r.json_body();
  auto e = is_error_object(j);
  if (!e) return ::testing::AssertionFailure() << e.message() << " (" << r.describe() << ")";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult server_healthy(int http_port) {
  auto r = http_get(http_port, "/healthz");
  json j = r.json_body();
  if (r.status == 200 && j.is_object() && j.value("status", "") == "ok")
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "GET /healthz: " << r.describe();
}

double metric_sum(const std::string& prom_text, const std::string& name, bool* found) {
  double sum = 0;
  bool any = false;
  std::istringstream in(prom_text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.compare(0, name.size(), name) != 0) continue;
    if (line.size() == name.size()) continue;
    char next = line[name.size()];
    std::size_t value_pos;
    if (next == '{') {
      auto close = line.find('}', name.size());
      if (close == std::string::npos) continue;
      value_pos = close + 1;
    } else if (next == ' ' || next == '\t') {
      value_pos = name.size();
    } else {
      continue;  // another metric with this prefix
    }
    std::istringstream vs(line.substr(value_pos));
    std::string value;
    vs >> value;
    try {
      sum += std::stod(value);
      any = true;
    } catch (...) {
    }
  }
  if (found) *found = any;
  return sum;
}

std::optional<double> fetch_metric(int http_port, const std::string& name, bool* found) {
  auto r = http_get(http_port, "/metrics");
  if (r.status != 200) return std::nullopt;
  return metric_sum(r.body, name, found);
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    return 0;
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

std::optional<std::vector<json>> fetch_all_clusters(int http_port, std::string* error) {
  std::vector<json> all;
  constexpr int kPage = 100;
  for (int offset = 0; offset < 100000; offset += kPage) {
    auto r = http_get(http_port, "/clusters?limit=" + std::to_string(kPage) +
                                     "&offset=" + std::to_string(offset));
    json j = r.json_body();
    if (r.status != 200 || !j.is_object() || !j.contains("clusters") ||
        !j["clusters"].is_array()) {
      if (error) *error = "GET /clusters: " + r.describe();
      return std::nullopt;
    }
    for (auto& c : j["clusters"]) all.push_back(c);
    long long total = j.value("total", -1LL);
    if (j["clusters"].empty() || (total >= 0 && static_cast<long long>(all.size()) >= total)) break;
  }
  return all;
}

std::optional<std::map<std::string, long long>> cluster_counts(int http_port) {
  auto all = fetch_all_clusters(http_port);
  if (!all) return std::nullopt;
  std::map<std::string, long long> out;
  for (const auto& c : *all) {
    if (!c.contains("cluster_id") || !c["cluster_id"].is_string() || !c.contains("count") ||
        !c["count"].is_number_integer()) {
      return std::nullopt;
    }
    out[c["cluster_id"].get<std::string>()] = c["count"].get<long long>();
  }
  return out;
}

long long total_count(const std::map<std::string, long long>& counts) {
  long long t = 0;
  for (const auto& [id, n] : counts) t += n;
  return t;
}

namespace {
const std::vector<std::string>& words() {
  static const std::vector<std::string> w = {
      "alpha",     "bravo",     "charlie",  "delta",      "echo",      "foxtrot", "golf",
      "hotel",     "india",     "juliet",   "kilo",       "lima",      "mike",    "november",
      "oscar",     "papa",      "quebec",   "romeo",      "sierra",    "tango",   "uniform",
      "victor",    "whiskey",   "xray",     "yankee",     "zulu",      "cache",   "queue",
      "socket",    "worker",    "shard",    "ledger",     "router",    "scheduler", "indexer",
      "mailer",    "gateway",   "balancer", "resolver",   "compactor", "replicator", "watcher",
      "tracker",   "planner",   "stalled",  "drained",    "rebuilt",   "evicted", "throttled",
      "rotated",   "paused",    "flushed",  "migrated",   "reset",     "apple",   "banana",
      "cherry",    "grape",     "lemon",    "mango",      "olive",     "peach",   "pear",
      "plum"};
  return w;
}
}  // namespace

std::string distinct_line(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t st = seed * 1000003ULL + i;
  const std::size_t k = 4 + i % 5;
  std::vector<std::size_t> picked;
  while (picked.size() < k) {
    st += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = st;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    std::size_t idx = static_cast<std::size_t>(z % words().size());
    if (std::find(picked.begin(), picked.end(), idx) == picked.end()) picked.push_back(idx);
  }
  std::string s;
  for (auto idx : picked) {
    if (!s.empty()) s += ' ';
    s += words()[idx];
  }
  return s;
}

std::string long_text(std::size_t n) {
  static const char* const kWords[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"};
  std::string s;
  s.reserve(n + 16);
  for (std::size_t i = 0; s.size() < n; ++i) {
    if (!s.empty()) s += ' ';
    s += kWords[i % 6];
  }
  s.resize(n);
  if (s.back() == ' ') s.back() = 'x';
  return s;
}

std::optional<long long> parse_rfc3339_ms(const std::string& s) {
  static const std::regex re(
      R"(^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$)");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return std::nullopt;
  std::tm tm{};
  tm.tm_year = std::stoi(m[1]) - 1900;
  tm.tm_mon = std::stoi(m[2]) - 1;
  tm.tm_mday = std::stoi(m[3]);
  tm.tm_hour = std::stoi(m[4]);
  tm.tm_min = std::stoi(m[5]);
  tm.tm_sec = std::stoi(m[6]);
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60)
    return std::nullopt;
  long long ms = static_cast<long long>(::timegm(&tm)) * 1000;
  if (m[7].matched) {
    std::string f = m[7].str();
    f.resize(3, '0');
    ms += std::stoll(f.substr(0, 3));
  }
  std::string zone = m[8];
  if (zone != "Z") {
    int sign = zone[0] == '-' ? -1 : 1;
    ms -= sign * (std::stoll(zone.substr(1, 2)) * 3600 + std::stoll(zone.substr(4, 2)) * 60) * 1000;
  }
  return ms;
}

}  // namespace logsift_it
