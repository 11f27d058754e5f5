#include "service/net/fd_limits.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>

namespace logsift {

uint64_t fds_needed(const Config& config) {
  const uint64_t http = static_cast<uint64_t>(config.max_http_connections) + 16;
  const uint64_t tcp = static_cast<uint64_t>(config.max_tcp_connections);
  const uint64_t syslog = config.syslog_port >= 0 ? static_cast<uint64_t>(config.max_tcp_connections) : 0;
  return http + tcp + syslog + kFdOverhead;
}

FdBudget raise_fd_limit(const Config& config, std::string* error) {
  FdBudget b;
  b.need = fds_needed(config);
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return b;  // unknown: nothing to check against
  b.soft_before = rl.rlim_cur;
  b.hard = rl.rlim_max;
  if (rl.rlim_cur < rl.rlim_max) {
    rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  b.soft = rl.rlim_cur;
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < b.need) {
    const uint64_t syslog = config.syslog_port >= 0 ? static_cast<uint64_t>(config.max_tcp_connections) : 0;
    *error = "open-file limit " + std::to_string(rl.rlim_cur) + " (hard " + std::to_string(rl.rlim_max) +
             ") is below the " + std::to_string(b.need) + " descriptors the connection limits need: " +
             "max_http_connections " + std::to_string(config.max_http_connections) + " + 16 health-only + " +
             "max_tcp_connections " + std::to_string(config.max_tcp_connections) + " + syslog " +
             std::to_string(syslog) + " + " + std::to_string(kFdOverhead) +
             " for files and calls; raise the hard limit (ulimit -Hn " + std::to_string(b.need) +
             ", systemd LimitNOFILE=" + std::to_string(b.need) +
             ", docker --ulimit nofile=" + std::to_string(b.need) + ") or lower the connection limits";
  }
  return b;
}

FdReserve::FdReserve() { acquire(); }

FdReserve::~FdReserve() { release(); }

bool FdReserve::release() {
  const int fd = fd_.exchange(-1);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

bool FdReserve::acquire() {
  if (fd_.load() >= 0) return true;
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  int none = -1;
  if (!fd_.compare_exchange_strong(none, fd)) ::close(fd);  // another thread got there first
  return true;
}

bool out_of_descriptors(int error_value) { return error_value == EMFILE || error_value == ENFILE; }

}  // namespace logsift
