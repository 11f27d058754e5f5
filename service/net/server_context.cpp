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

ConnectionSlot::~ConnectionSlot() {
  ctx_.connections.fetch_sub(1);
  metrics().connections_active.add(-1);
}

}  // namespace logsift
