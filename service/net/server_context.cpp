#include "service/net/server_context.h"

#include "pipeline/core/metrics.h"

namespace logsift {

void ServerContext::track(const std::shared_ptr<Session>& s) {
  std::lock_guard lock(mu_);
  std::erase_if(sessions_, [](const std::weak_ptr<Session>& w) { return w.expired(); });
  sessions_.push_back(s);
}

void ServerContext::drain_all() {
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard lock(mu_);  // copy targets under the lock, act after releasing it
    for (auto& w : sessions_)
      if (auto s = w.lock()) live.push_back(std::move(s));
  }
  for (auto& s : live) s->begin_drain();
}

ConnectionSlot::ConnectionSlot(ServerContext& ctx, ListenerGrant grant) : ctx_(ctx), grant_(std::move(grant)) {
  ctx_.connections.fetch_add(1);
  metrics().connections_active.add(1);
}

bool ServerContext::wait_for_no_connections(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(closed_mu_);
  return closed_cv_.wait_until(lock, deadline, [this] { return connections.load() == 0; });
}

void ServerContext::connection_closed() {
  // Under the mutex: a waiter between its check and its wait cannot miss it.
  std::lock_guard lock(closed_mu_);
  closed_cv_.notify_all();
}

ConnectionSlot::~ConnectionSlot() {
  metrics().connections_active.add(-1);
  if (ctx_.connections.fetch_sub(1) == 1) ctx_.connection_closed();
}

}  // namespace logsift
