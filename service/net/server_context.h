// What every connection needs: config, the pipeline (TCP and syslog lines go
// straight to it), the handler of HTTP requests (the routes, with the app's
// services: service/api/app_context.h), readiness, the live-session registry
// (for draining at shutdown) and the connection count. Transport state only.
// Filled once by `logsift serve` (service/cli/serve.cpp) before any listener
// runs; read-only afterwards but for the atomics.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "config/config.h"
#include "pipeline/core/record.h"
#include "pipeline/pipeline.h"
#include "service/net/http_message.h"

namespace logsift {

class FdReserve;

// A connection that can be asked to finish its accepted work and close.
class Session {
 public:
  virtual ~Session() = default;
  virtual void begin_drain() = 0;
};

struct ServerContext {
  Config config;
  HttpHandler http_handler;  // the routes (service/api/http_api.h)
  Pipeline* pipeline = nullptr;
  FdReserve* fd_reserve = nullptr;  // health checks when descriptors run out (net/fd_limits.h)
  std::atomic<bool> ready{false};
  std::atomic<bool> draining{false};
  std::atomic<int> connections{0};

  // Registers a live session; sessions are drained on shutdown.
  void track(const std::shared_ptr<Session>& s);
  void drain_all();
  // Waits until no connection is open (ConnectionSlot) or `deadline` has
  // passed; true if none is.
  bool wait_for_no_connections(std::chrono::steady_clock::time_point deadline);

 private:
  friend class ConnectionSlot;
  void connection_closed();

  std::mutex mu_;
  std::vector<std::weak_ptr<Session>> sessions_;
  std::mutex closed_mu_;
  std::condition_variable closed_cv_;
};

// A connection's place in its listener's limit, held by its session and
// released when the session ends. `restricted`: admitted over the limit into
// the HTTP listener's small reserve, which serves only health, readiness and
// metrics (so /healthz never depends on how many clients hold connections).
struct ListenerGrant {
  std::shared_ptr<std::atomic<int>> count;  // the listener's open connections
  bool restricted = false;
  ListenerGrant() = default;
  ListenerGrant(std::shared_ptr<std::atomic<int>> c, bool r) : count(std::move(c)), restricted(r) {}
  ListenerGrant(ListenerGrant&& o) noexcept : count(std::move(o.count)), restricted(o.restricted) {}
  ListenerGrant& operator=(ListenerGrant&&) = delete;
  ~ListenerGrant() {
    if (count) count->fetch_sub(1);
  }
};

// RAII connection slot: counted while a session lives.
class ConnectionSlot {
 public:
  ConnectionSlot(ServerContext& ctx, ListenerGrant grant);
  ~ConnectionSlot();
  ConnectionSlot(const ConnectionSlot&) = delete;
  ConnectionSlot& operator=(const ConnectionSlot&) = delete;
  bool restricted() const { return grant_.restricted; }

 private:
  ServerContext& ctx_;
  ListenerGrant grant_;
};

// Submits `batch` without blocking the io thread: when the pipeline's first
// mailbox is full, retries on a timer with backoff (the caller keeps its
// socket paused meanwhile: that is the backpressure). After `give_up` the
// batch is handed to on_overload instead (HTTP answers 503; TCP never gives up).
template <typename Executor>
void submit_with_backoff(Executor ex, Pipeline* pipeline, std::unique_ptr<Batch> batch,
                         std::chrono::milliseconds give_up,
                         std::function<void(std::unique_ptr<Batch>)> on_overload);

}  // namespace logsift

#include "service/net/submit_impl.h"
