// A bounded multi-producer single-consumer mailbox. A full mailbox blocks
// push() (stage-to-stage backpressure) or fails try_push() (the sockets pause
// reading instead of blocking an io thread). Memory never grows past capacity.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace logsift {

template <typename T>
class Mailbox {
 public:
  explicit Mailbox(size_t capacity) : capacity_(capacity) {}

  // Blocks while full. False if the mailbox is closed (the item is left in `item`).
  bool push(T& item) {
    std::unique_lock lock(mu_);
    ++blocked_;
    not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    --blocked_;
    if (closed_) return false;
    items_.push_back(std::move(item));
    lock.unlock();
    not_empty_.notify_one();
    return true;
  }

  // Never blocks. False if full or closed (the item is left in `item`).
  bool try_push(T& item) {
    std::unique_lock lock(mu_);
    if (closed_ || items_.size() >= capacity_) return false;
    items_.push_back(std::move(item));
    lock.unlock();
    not_empty_.notify_one();
    return true;
  }

  // Blocks until an item arrives or the mailbox is closed and drained (nullopt).
  std::optional<T> pop() {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    return take(lock);
  }

  // Never blocks: the next item, or nullopt when none is queued.
  std::optional<T> try_pop() {
    std::unique_lock lock(mu_);
    return take(lock);
  }

  // Like pop() but gives up at `deadline` (nullopt; check closed_and_empty()).
  std::optional<T> pop_until(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mu_);
    not_empty_.wait_until(lock, deadline, [&] { return closed_ || !items_.empty(); });
    return take(lock);
  }

  // Pushers fail from now on; pop() drains what is queued, then returns nullopt.
  void close() {
    {
      std::lock_guard lock(mu_);
      closed_ = true;
    }
    not_empty_.notify_all();
    not_full_.notify_all();
  }

  bool closed_and_empty() const {
    std::lock_guard lock(mu_);
    return closed_ && items_.empty();
  }
  size_t size() const {
    std::lock_guard lock(mu_);
    return items_.size();
  }
  size_t capacity() const { return capacity_; }
  // Pushers in push() now, waiting for room or about to take it: how a test
  // knows that backpressure holds a producer.
  size_t blocked_pushers() const {
    std::lock_guard lock(mu_);
    return blocked_;
  }

 private:
  std::optional<T> take(std::unique_lock<std::mutex>& lock) {
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    lock.unlock();
    not_full_.notify_one();
    return item;
  }

  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable not_empty_, not_full_;
  std::deque<T> items_;
  bool closed_ = false;
  size_t blocked_ = 0;
};

}  // namespace logsift
