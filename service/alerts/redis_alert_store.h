#pragma once
// Subscriptions and the outbox in Redis (store: redis): every replica that
// points at the same Redis and key prefix shares them, and each alert is
// delivered by one replica.
//
// Keys (P = redis_key_prefix, ID = the alert id, which is its webhook-id):
//   P subs            hash: subscription id -> JSON (secret included)
//   P subs:version    counter, bumped on every add and delete: replicas poll
//                     it and reload their rules when it moves
//   P ob:ID           hash: one outbox row (sub, status, attempts, last_status,
//                     last_error, created, next, updated, payload)
//   P ob:all          zset ID -> created ms (GET /alerts, newest first)
//   P ob:st:STATUS    zset ID -> created ms, per status (pending, delivered,
//                     failed)
//   P ob:done         zset ID -> updated ms of delivered and failed rows (pruning)
//   P outbox          stream, consumer group "delivery": one entry {id: ID}
//                     per row to send (XADD at enqueue and at a manual retry)
//   P deployment      the marker: a random value set when the first replica
//                     starts on an empty prefix. Gone means Redis lost its
//                     data (a restart without persistence, FLUSHALL, a
//                     failover to an empty replica): each replica checks it
//                     at every pump (at most once a second), logs the loss
//                     at error level, counts it (logsift_redis_data_lost_total),
//                     reports not ready, and re-seeds what it knows: the
//                     subscriptions it last read, the alerts it holds, the
//                     consumer group; then sets the marker again.
//
// Delivery: a replica takes new entries with XREADGROUP under its own
// consumer name; they stay in its pending entries list (PEL) until the row
// is delivered or dead-lettered (XACK + XDEL). While it holds them it
// refreshes their idle time (XCLAIM ... JUSTID) at every pump, backoff
// included; a replica that dies stops refreshing, and after claim_idle_ms
// another replica takes them over with XAUTOCLAIM and sends them with the
// same webhook-id and the attempts already counted. Each row's writes are
// one Lua script, so its hash, its indexes and the stream move together.
//
// A replica whose pump stalls for longer than claim_idle_ms may have its rows
// taken while an attempt is in flight: that row can then reach the receiver
// twice, with the same webhook-id (at-least-once; receivers de-duplicate).
//
// Thread-safe: one connection behind a mutex (alert traffic is small).

#include <map>
#include <mutex>

#include "pipeline/store/redis.h"
#include "service/alerts/alert_store.h"

namespace logsift {

class RedisAlertStore final : public AlertStore {
 public:
  // Connects and creates the consumer group at once: a wrong URL or an
  // unreachable Redis fails the start with a clear error. consumer: this
  // replica's name in the group (unique per process; empty:
  // redis::process_name()).
  RedisAlertStore(const redis::Url& url, const redis::Options& options, std::string key_prefix,
                  int64_t claim_idle_ms, std::string consumer = {});
  ~RedisAlertStore() override;

  void add_subscription(const Subscription& s) override;
  std::vector<Subscription> subscriptions() override;
  std::optional<Subscription> subscription(const std::string& id) override;
  bool delete_subscription(const std::string& id) override;
  int64_t subscription_count() override;
  int64_t subscriptions_version() override;

  void enqueue(const std::vector<OutboxRow>& rows) override;
  using AlertStore::due;
  std::vector<OutboxRow> due(int64_t now_ms, size_t limit, size_t per_subscription, const Sendable& sendable) override;
  using AlertStore::next_due;
  std::optional<int64_t> next_due(size_t per_subscription, const Sendable& sendable) override;
  void mark_delivered(const std::string& id, int attempts, int status, int64_t now_ms) override;
  void schedule_retry(const std::string& id, int attempts, int status, const std::string& error, int64_t next_ms,
                      int64_t now_ms) override;
  void mark_failed(const std::string& id, int attempts, int status, const std::string& error,
                   int64_t now_ms) override;
  bool retry(const std::string& id, int64_t now_ms) override;
  std::optional<OutboxRow> get(const std::string& id) override;
  std::vector<OutboxRow> list(const std::string& status, int64_t limit, int64_t offset) override;
  int64_t count(const std::string& status) override;
  std::vector<std::pair<std::string, int64_t>> count_by_status() override;
  // From the oldest kBacklogRows pending rows (a larger backlog is counted
  // that far; its age is exact).
  std::vector<Backlog> pending_backlog() override;
  static constexpr int64_t kBacklogRows = 10000;
  int64_t prune(int64_t before_ms) override;
  // SET P claim:KEY <consumer> NX PX ttl_ms.
  bool claim(const std::string& key, int64_t ttl_ms) override;

  // "redis lost its data ..." from the moment the loss is seen until the
  // re-seed has gone through; "" otherwise (readiness).
  std::string fault() const override;

  const std::string& consumer() const { return consumer_; }
  // Rows this replica holds (claimed, not yet delivered or dead-lettered).
  size_t owned();

 private:
  struct Owned {
    std::string entry;  // stream entry id
    OutboxRow row;
  };
  std::vector<redis::Reply> call(const std::vector<std::vector<std::string>>& cmds);
  redis::Reply call1(const std::vector<std::string>& cmd);
  std::string key(std::string_view suffix) const { return prefix_ + std::string(suffix); }
  std::string row_key(const std::string& id) const { return key("ob:" + id); }
  // Takes stream entries (new ones, and at most every claim_idle_ms / 4 the
  // idle ones of dead replicas) into owned_; refreshes the idle time of
  // those already held. mu_ held.
  void claim_locked(int64_t now_ms);
  // The final move of a row (delivered / failed) and the ack of its entry.
  void finish(const std::string& id, const char* status, int attempts, int last_status, const std::string& error,
              int64_t now_ms);
  std::vector<OutboxRow> rows_locked(const std::vector<std::string>& ids);
  // Checks the deployment marker (at most once a second unless `force`);
  // on a loss re-seeds. mu_ held; throws redis::Error while Redis is away.
  void check_marker_locked(int64_t now_ms, bool force);
  void reseed_locked();
  // Sets the deployment marker to a fresh epoch where none is, and remembers
  // the one in Redis: a replica that finds another epoch later knows that
  // Redis lost its data, even when another replica re-seeded it first.
  void adopt_epoch_locked();
  // XGROUP CREATE of the outbox's delivery group (MKSTREAM; BUSYGROUP is fine).
  void create_group();

  std::string prefix_;
  int64_t claim_idle_ms_;
  std::string consumer_;
  std::mutex mu_;
  redis::Connection conn_;
  std::map<std::string, Owned> owned_;  // by alert id
  int64_t next_reclaim_ms_ = 0, next_heartbeat_ms_ = 0;
  // The subscriptions as this replica last read or wrote them (id -> the
  // stored JSON): what a Redis that lost its data is re-seeded from.
  std::map<std::string, std::string> known_subs_;
  int64_t next_marker_check_ms_ = 0;
  std::string epoch_;  // the deployment marker's value this replica last adopted
  mutable std::mutex fault_mu_;
  std::string fault_;  // under fault_mu_
};

}  // namespace logsift
