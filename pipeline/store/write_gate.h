// Whether catalog writes are let in, for the cluster-id contract: closed while
// a migration runs or after it failed, or because the store moved on to
// another contract (pipeline/migrate.h). The migrator owns it and is the only
// one to open or close it; the state stage consults it before each group
// commit (a closed gate refuses the lines: 503 + Retry-After, error lines),
// /readyz and /info report it. Reads go on meanwhile, under the ids in the
// store. Thread-safe.
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "pipeline/core/status.h"

namespace logsift {

class WriteGate {
 public:
  enum class State { kOpen, kMigrating, kMigrationFailed, kOtherContract };

  void close(State why_closed, std::string reason) {
    std::lock_guard lock(mu_);
    reason_ = why_closed == State::kOpen ? std::string() : std::move(reason);
    state_.store(why_closed, std::memory_order_release);
  }
  void open() { close(State::kOpen, {}); }

  State state() const { return state_.load(std::memory_order_acquire); }
  bool is_open() const { return state() == State::kOpen; }
  // "" while open.
  std::string reason() const {
    std::lock_guard lock(mu_);
    return reason_;
  }
  // Ok while open; else kUnavailable naming why.
  Status status() const {
    if (is_open()) return {};
    std::lock_guard lock(mu_);
    if (reason_.empty()) return {};  // opened meanwhile
    return Status::unavailable("store unavailable: " + reason_);
  }

 private:
  mutable std::mutex mu_;
  std::string reason_;  // under mu_
  std::atomic<State> state_{State::kOpen};
};

}  // namespace logsift
