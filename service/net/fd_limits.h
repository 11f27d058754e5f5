// File descriptors: every connection, data file and outbound call holds one.
// systemd starts services with a soft limit of 1,024 whatever the hard limit,
// so 2,000 idle shippers used to exhaust it, after which accept() failed in
// a tight loop and nothing (not even /healthz) was answered.
//
// At start the soft limit is raised to the hard limit, and startup is refused
// when even the hard limit is below what the configured connection limits
// need. While running, an accept that fails for want of descriptors (EMFILE,
// ENFILE) backs off instead of spinning (Listener), and one descriptor is
// held in reserve so that a health check can still be accepted and answered.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "config/config.h"

namespace logsift {

struct FdBudget {
  uint64_t soft_before = 0;  // the soft limit the process started with
  uint64_t soft = 0;         // the soft limit now (the hard limit, when it could be raised)
  uint64_t hard = 0;
  uint64_t need = 0;  // what the connection limits and the service's own files need
};

// Descriptors the service needs beyond its connections: data files (catalog,
// outbox, WAL and shared-memory files), Redis, webhook calls, the epoll and
// timer descriptors, the standard streams.
inline constexpr uint64_t kFdOverhead = 128;

// What `config`'s connection limits need: HTTP (plus its 16 health-only
// connections), TCP, syslog (it shares max_tcp_connections) and kFdOverhead.
uint64_t fds_needed(const Config& config);

// Raises the soft RLIMIT_NOFILE to the hard limit. Returns the budget, or
// sets *error (naming the numbers and how to fix it) when the hard limit is
// below fds_needed(config).
FdBudget raise_fd_limit(const Config& config, std::string* error);

// One descriptor kept open in reserve (/dev/null). When accept() fails with
// EMFILE, the HTTP listener releases it, accepts the waiting connection into
// it (health, readiness and metrics only) and takes it back once a
// descriptor is free again. Thread-safe.
class FdReserve {
 public:
  FdReserve();
  ~FdReserve();
  FdReserve(const FdReserve&) = delete;
  FdReserve& operator=(const FdReserve&) = delete;
  // Closes the reserve (true if it was held).
  bool release();
  // Re-opens it; false while no descriptor is free.
  bool acquire();
  bool held() const { return fd_.load() >= 0; }

 private:
  std::atomic<int> fd_{-1};  // the listeners' accept handlers may run on different io threads
};

// Whether an accept error means "no descriptor left" (EMFILE, ENFILE).
bool out_of_descriptors(int error_value);

}  // namespace logsift
