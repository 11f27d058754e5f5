#pragma once
// Shared windows (store: redis): every replica publishes what it counted to
// a Redis Stream, and folds what the other replicas counted into its own
// aggregator. So each replica's sliding windows (GET /clusters/{id}/series)
// and its threshold and spike rules count the lines of the whole fleet, and
// a rule crosses its threshold on every replica at about the same moment;
// the alert claim in the alert store (AlertStore::claim) then lets one of
// them send it.
//
// Key: P counts, a stream capped near max_entries (XADD MAXLEN ~). Entry
// fields: r (the replica that counted), d (JSON: [[cluster id hex, ts ms,
// count, template, {labels}], ...], one element per CountDelta).
//
// One thread ("ls-counts") owns one connection: it sends the queued deltas
// (pipelined XADDs), then reads new entries (XREAD BLOCK 50 ms) from the
// last id it saw. A replica starts reading at Redis's clock when it starts:
// windows hold what was counted from then on, as after a restart today.
// While Redis is unreachable the queue keeps at most max_queued deltas (the
// oldest are dropped and counted: these are window counts, not the catalog,
// whose writes are never dropped) and the thread retries every 200 ms.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/store/catalog.h"
#include "pipeline/store/redis.h"

namespace logsift {

class RedisWindows {
 public:
  using Sink = std::function<void(std::vector<CountDelta>&&)>;
  // Connects at once (a wrong URL fails the start). on_remote: the deltas
  // of other replicas, on the windows thread.
  RedisWindows(const redis::Url& url, const redis::Options& options, std::string key_prefix, std::string replica,
               Sink on_remote, size_t max_queued = 100000, size_t max_entries = 100000);
  ~RedisWindows();  // stops the thread; deltas still queued are dropped
  RedisWindows(const RedisWindows&) = delete;
  RedisWindows& operator=(const RedisWindows&) = delete;

  void start();
  // Thread-safe, never blocks on Redis.
  void publish(std::vector<CountDelta>&& deltas);
  uint64_t dropped() const { return dropped_.load(); }
  const std::string& replica() const { return replica_; }

  // The stream entry's "d" field and back (exposed for the tests). decode
  // skips malformed elements.
  static std::string encode(const std::vector<CountDelta>& deltas);
  static std::vector<CountDelta> decode(const std::string& text);

 private:
  void run();
  bool send_queued();  // false: Redis failed (the deltas are queued again)
  bool read_new();
  void trim_locked();  // mu_ held: keeps the newest max_queued_ deltas, counts the rest

  std::string key_;
  std::string replica_;
  Sink on_remote_;
  size_t max_queued_, max_entries_;
  redis::Connection conn_;
  std::string last_id_;
  std::mutex mu_;
  std::deque<CountDelta> queue_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> dropped_{0};
  std::thread thread_;
};

}  // namespace logsift
