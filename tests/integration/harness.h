// Integration-test harness: real logsift processes, real loopback sockets.
//
// Everything here is bounded in time: every wait has a deadline, every child
// process is stopped by PID (SIGTERM, wait with a deadline, SIGKILL as a last
// resort) by an RAII owner, even when an assertion fails. No wall-clock sleeps
// are used to wait for readiness: a server is ready when it has printed its
// "listening http=HOST:PORT tcp=HOST:PORT" line and GET /readyz answers 200.
//
// Beast/Asio stay inside harness.cpp (pimpl) so test files compile quickly.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../test_util.h"

namespace logsift_it {

using logsift::test::let_time_pass;
using logsift::test::wait_until;

using json = nlohmann::json;
using Millis = std::chrono::milliseconds;
using KeyValues = std::vector<std::pair<std::string, std::string>>;

// Absolute path of the logsift binary (compile definition LOGSIFT_BINARY).
std::string binary_path();
// The server under test is a sanitizer build (LOGSIFT_TEST_SANITIZER, set by
// tests/sanitizers/run.sh): RSS bounds do not hold there (shadow memory,
// ASan's quarantine of freed blocks), so tests check them only without it.
bool sanitized_server();

// ---------------------------------------------------------------------------
// Temporary directory (mkdtemp under /tmp), removed recursively on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "logsift-it-");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + rel
  std::string file(const std::string& rel) const;
  // Writes `content` to path()/rel, creating parent directories.
  void write_file(const std::string& rel, const std::string& content) const;

 private:
  std::string path_;
};

// ---------------------------------------------------------------------------
// How a child process ended.
struct ProcessExit {
  bool reaped = false;   // waitpid returned the child's status
  bool exited = false;   // WIFEXITED
  int code = -1;         // WEXITSTATUS if exited
  int signal = 0;        // WTERMSIG if killed by a signal
  bool killed_after_deadline = false;  // we had to SIGKILL it

  bool clean() const { return reaped && exited && code == 0 && !killed_after_deadline; }
  std::string describe() const;
};

// ---------------------------------------------------------------------------
// A `logsift serve` child process.
struct ServerOptions {
  // Appended after `serve --http-port 0 --tcp-port 0 --syslog-port 0 --data-dir DIR`.
  std::vector<std::string> args;
  // Extra environment variables (the inherited LOGSIFT_* variables are dropped).
  KeyValues env;
  // Empty: the server owns a fresh temp dir, removed when it is destroyed.
  std::string data_dir;
  Millis startup_timeout{20000};
  // Tests run their webhook receivers on loopback, which the SSRF guard
  // refuses: true adds --webhook-allow-cidrs 127.0.0.0/8,::1/128 (before
  // `args`, so a test's own flag wins). The guard's own tests set false.
  bool allow_loopback_webhooks = true;
};

class ServerProcess {
 public:
  explicit ServerProcess(ServerOptions options = {});
  ~ServerProcess();  // stops the child (SIGTERM, deadline, SIGKILL) if running
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Spawns the child and waits (up to startup_timeout) for the listening line.
  ::testing::AssertionResult start();
  // start() and then GET /readyz until it answers 200 (same deadline).
  ::testing::AssertionResult start_ready();

  int http_port() const { return http_port_; }
  int tcp_port() const { return tcp_port_; }
  int syslog_port() const { return syslog_port_; }  // 0: no syslog listener
  int syslog_tls_port() const { return syslog_tls_port_; }  // 0: no TLS syslog listener
  pid_t pid() const { return pid_; }
  const std::string& data_dir() const { return data_dir_; }

  // True while the child has not exited (reaps it if it has).
  bool running();
  // Sends `sig`, waits up to `deadline` for the exit, then SIGKILLs.
  ProcessExit stop(int sig = 15 /*SIGTERM*/, Millis deadline = Millis(15000));
  // Everything the child wrote to stdout+stderr so far (diagnostics only).
  std::string log_text() const;

 private:
  void reader_loop();
  ProcessExit wait_exit(Millis deadline);

  ServerOptions options_;
  std::unique_ptr<TempDir> owned_dir_;
  std::string data_dir_;
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int http_port_ = 0;
  int tcp_port_ = 0;
  int syslog_port_ = 0;
  int syslog_tls_port_ = 0;
  std::optional<ProcessExit> exit_;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::string log_;
  bool log_eof_ = false;
  bool stop_reader_ = false;
  std::thread reader_;
};

// ---------------------------------------------------------------------------
// Runs `logsift ARGS...` to completion (bounded by `timeout`; killed after it).
struct RunResult {
  ProcessExit exit;
  std::string out;
  std::string err;
  bool timed_out = false;
  std::string describe() const;  // exit status + both streams, for messages
};
RunResult run_logsift(const std::vector<std::string>& args, const std::string& stdin_data = "",
                      const KeyValues& env = {}, Millis timeout = Millis(30000));
// The same for any program: argv[0] is its full path.
RunResult run_program(const std::vector<std::string>& argv, const std::string& stdin_data = "",
                      const KeyValues& env = {}, Millis timeout = Millis(30000));

// A helper process (a real log shipper, say) run beside the server: stdio on
// /dev/null, killed with the test process (PR_SET_PDEATHSIG). Stop it by PID.
struct BackgroundProcess {
  pid_t pid = -1;
  std::string error;  // why spawning failed (pid == -1)
};
BackgroundProcess spawn_background(const std::vector<std::string>& argv, const KeyValues& env = {});
// SIGTERM, then SIGKILL after `deadline`; reaps it.
ProcessExit stop_background(BackgroundProcess& p, Millis deadline = Millis(10000));

// ---------------------------------------------------------------------------
// HTTP/1.1 client (Boost.Beast). Every operation has a timeout.
struct HttpResponse {
  int status = 0;     // 0: no response (see error)
  std::string body;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string error;  // transport error, empty on success

  std::string header(const std::string& name) const;  // "" if absent
  // Parsed body; a discarded (is_discarded()) value if not JSON.
  json json_body() const;
  std::string describe() const;
};

class HttpClient {
 public:
  // Keeps one keep-alive connection to 127.0.0.1:port; reconnects when the
  // server closes it (Connection: close) or after an error.
  explicit HttpClient(int port, Millis timeout = Millis(10000));
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  HttpResponse request(const std::string& method, const std::string& target,
                       const std::string& body = "", const std::string& content_type = "",
                       const KeyValues& headers = {});
  bool connected() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One request on a fresh connection.
HttpResponse http_request(int port, const std::string& method, const std::string& target,
                          const std::string& body = "",
                          const std::string& content_type = "application/json",
                          const KeyValues& headers = {});
HttpResponse http_get(int port, const std::string& target);
HttpResponse post_json(int port, const json& body);
HttpResponse post_infer(int port, const std::string& text, const json& labels = nullptr);

// ---------------------------------------------------------------------------
// Newline-delimited TCP client (POSIX sockets, non-blocking + poll deadlines).
class TcpLineClient {
 public:
  TcpLineClient() = default;
  ~TcpLineClient();
  TcpLineClient(const TcpLineClient&) = delete;
  TcpLineClient& operator=(const TcpLineClient&) = delete;

  ::testing::AssertionResult connect(int port, Millis timeout = Millis(5000));
  // Writes all of `data` (reading whatever arrives meanwhile, so a peer that
  // answers while we write cannot deadlock us). False on error/timeout.
  bool send_all(std::string_view data, Millis timeout = Millis(10000));
  // Next line without its '\n'; nullopt on timeout, EOF or error.
  std::optional<std::string> read_line(Millis timeout = Millis(10000));
  // Up to n lines, all within one overall deadline.
  std::vector<std::string> read_lines(std::size_t n, Millis timeout = Millis(20000));
  // Reads until the peer closes or the deadline passes; *eof tells which.
  std::string read_until_eof(Millis timeout, bool* eof = nullptr);
  bool shutdown_write();
  void close();
  bool eof() const { return eof_; }
  const std::string& last_error() const { return error_; }

 private:
  bool fill(Millis timeout);  // one poll+recv round; false on timeout/EOF/error
  int fd_ = -1;
  std::string rbuf_;
  bool eof_ = false;
  std::string error_;
};

// ---------------------------------------------------------------------------
// Helpers.
bool is_hex16(const std::string& s);
// "YYYY-MM-DDTHH:MM:SS[.f+](Z|+HH:MM|-HH:MM)" -> unix ms; nullopt if malformed.
std::optional<long long> parse_rfc3339_ms(const std::string& s);
// {"cluster_id","template_id","template","new"} with the right types/shapes.
::testing::AssertionResult is_inference_result(const json& j);
// {"error": "<non-empty string>"}
::testing::AssertionResult is_error_object(const json& j);
// HTTP 4xx (exactly `status` if non-zero) with a JSON {"error": ...} body.
::testing::AssertionResult is_json_error(const HttpResponse& r, int status = 0);
// GET /healthz answers 200 {"status":"ok"}.
::testing::AssertionResult server_healthy(int http_port);

// Sum of all samples of a Prometheus metric `name` (any labels). *found is
// set to whether any sample line of that metric exists.
double metric_sum(const std::string& prom_text, const std::string& name, bool* found = nullptr);
// GET /metrics and metric_sum(); nullopt if the request failed.
std::optional<double> fetch_metric(int http_port, const std::string& name, bool* found = nullptr);

// A free loopback port (bound and released: for tools that take a fixed
// port and print nothing we could read it back from).
int free_port();

// A real Prometheus on a free loopback port with its data in a temporary
// directory, scraping what `scrape_configs` (YAML, the list's items) names
// every second. Stopped by PID when it goes out of scope.
class Prometheus {
 public:
  explicit Prometheus(const std::string& scrape_configs);
  ~Prometheus();
  Prometheus(const Prometheus&) = delete;
  Prometheus& operator=(const Prometheus&) = delete;
  bool running() const { return process_.pid > 0; }
  const std::string& error() const { return process_.error; }
  // GET /api/v1/query?query=<promql, URL-encoded here>: its JSON.
  json query(const std::string& promql) const;
  // Waits (30 s at most) until `promql` has a sample; that last answer in *last.
  bool wait_for_series(const std::string& promql, json* last, Millis deadline = Millis(30000)) const;

 private:
  TempDir work_{"logsift-prometheus-"};
  int port_ = 0;
  BackgroundProcess process_;
};

// All clusters from GET /clusters, following limit/offset pages.
std::optional<std::vector<json>> fetch_all_clusters(int http_port, std::string* error = nullptr);
// Map cluster_id -> count, from fetch_all_clusters.
std::optional<std::map<std::string, long long>> cluster_counts(int http_port);
long long total_count(const std::map<std::string, long long>& counts);

// A text of `n` bytes made of words (no newlines).
std::string long_text(std::size_t n);
// Line i of a family: 4..8 distinct words of 64 picked by splitmix64 from
// (seed, i), so every line is its own cluster (bench/alert_latency.py uses the
// same scheme).
std::string distinct_line(std::uint64_t seed, std::uint64_t i);

}  // namespace logsift_it
