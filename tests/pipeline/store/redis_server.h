#pragma once
// A real redis-server (Debian's) for tests: its own scratch directory, a unix
// socket there, the given config lines; started at construction, killed and
// reaped by PID at destruction.
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>
#include "tests/test_util.h"

extern char** environ;

namespace logsift::testing {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

inline bool have_redis() { return access("/usr/bin/redis-server", X_OK) == 0; }

inline int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

// True once something listens on the unix socket at `path`.
inline bool unix_socket_accepts(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) return false;
  path.copy(a.sun_path, path.size());
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return false;
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

inline pid_t spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return -1;
  return pid;
}

// A redis-server in its own scratch directory, configured by `conf` lines.
class RedisServer {
 public:
  explicit RedisServer(const std::vector<std::string>& conf) {
    dir_ = fs::temp_directory_path() / ("logsift-redis-" + std::to_string(getpid()) + "-" + std::to_string(++n_));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    socket_ = (dir_ / "redis.sock").string();
    std::ofstream f(dir_ / "redis.conf");
    f << "dir " << dir_.string() << "\nunixsocket " << socket_ << "\nsave \"\"\nappendonly no\n"
      << "bind 127.0.0.1\nlogfile " << (dir_ / "redis.log").string() << "\n";
    for (const auto& l : conf) f << l << '\n';
    f.close();
    start();
  }
  ~RedisServer() {
    stop();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void start() {
    pid_ = spawn({"/usr/bin/redis-server", (dir_ / "redis.conf").string()});
    // Ready once the socket accepts a connection.
    logsift::test::wait_until([&] { return unix_socket_accepts(socket_); },
                              std::chrono::milliseconds(5000));
  }
  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGCONT);
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
    std::error_code ec;
    fs::remove(socket_, ec);
  }
  void pause() { kill(pid_, SIGSTOP); }
  void resume() { kill(pid_, SIGCONT); }
  const std::string& socket() const { return socket_; }
  const fs::path& dir() const { return dir_; }
  std::string log() const {
    std::ifstream f(dir_ / "redis.log");
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

 private:
  static inline int n_ = 0;
  fs::path dir_;
  std::string socket_;
  pid_t pid_ = -1;
};

}  // namespace logsift::testing
