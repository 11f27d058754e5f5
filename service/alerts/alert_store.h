// Durable alert state: webhook subscriptions and the delivery outbox. Every
// alert is written to the store before any attempt to send it, so a crash or
// kill -9 loses nothing: pending rows are picked up again (at-least-once,
// same id on every attempt).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace logsift {

namespace sqlite {
class Db;
}

struct Subscription {
  std::string id;
  std::string url;
  std::string secret;
  std::string format = "logsift";  // "logsift" | "alertmanager"
  nlohmann::json rules = nlohmann::json::array();  // normalised RuleSpec JSON objects
  int64_t created_ms = 0;
  // The API view: the secret is never echoed back.
  nlohmann::json to_json() const;
};

struct OutboxRow {
  std::string id;               // the alert's delivery id: webhook-id / idempotency key
  std::string subscription_id;
  std::string status;           // "pending" | "delivered" | "failed"
  int attempts = 0;
  int last_status = 0;          // last HTTP status (0: none)
  std::string last_error;
  int64_t created_ms = 0, next_attempt_ms = 0, updated_ms = 0;
  std::string payload;          // logsift alert JSON (the format conversion happens at send time)
  nlohmann::json to_json() const;
};

// Subscriptions and the outbox. Two stores implement it: SqliteAlertStore
// (the embedded default, data_dir/alerts.sqlite) and RedisAlertStore
// (store: redis; service/alerts/redis_alert_store.h), shared by replicas.
// Thread-safe: HTTP handlers, the state stage (enqueue) and the delivery
// worker call it at once.
class AlertStore {
 public:
  virtual ~AlertStore() = default;

  virtual void add_subscription(const Subscription& s) = 0;
  virtual std::vector<Subscription> subscriptions() = 0;
  virtual std::optional<Subscription> subscription(const std::string& id) = 0;
  // Its pending rows are dropped with it.
  virtual bool delete_subscription(const std::string& id) = 0;
  virtual int64_t subscription_count() = 0;
  // Changes whenever a subscription is added or deleted, by this process or
  // (shared store) by another replica: the router reloads its rules then.
  virtual int64_t subscriptions_version() = 0;

  // Every row, at once (status pending, due now). A row whose id is already
  // in the outbox is skipped: an alert with a derived id raised again (a
  // replay) is a no-op.
  virtual void enqueue(const std::vector<OutboxRow>& rows) = 0;
  // Which rows the caller can send now: (row id, subscription id) -> yes/no.
  using Sendable = std::function<bool(const std::string& id, const std::string& sub)>;
  // Pending rows due at now_ms that this process may send, oldest due first,
  // at most `limit`, each accepted by `sendable` (called in that order, so a
  // caller may count what it accepted). Fair between subscriptions: only the
  // `per_subscription` oldest due rows of each subscription are offered, so
  // a receiver that hangs with thousands of rows due cannot fill the
  // selection and hold back another receiver's alerts. (SQLite: every
  // pending row. Redis: the rows this replica has claimed from the stream.)
  virtual std::vector<OutboxRow> due(int64_t now_ms, size_t limit, size_t per_subscription,
                                     const Sendable& sendable) = 0;
  // Every due row but the `busy` ids, oldest due first (tests, tools).
  std::vector<OutboxRow> due(int64_t now_ms, size_t limit, const std::set<std::string>& busy) {
    return due(now_ms, limit, SIZE_MAX, [&](const std::string& id, const std::string&) { return !busy.count(id); });
  }
  // Earliest next_attempt_ms of those rows that `sendable` accepts
  // (the delivery worker skips rows in flight and receivers at their
  // concurrency limit: those wake it when an attempt finishes). nullopt: none.
  // Only each subscription's `per_subscription` oldest pending rows are
  // looked at: with at most that many in flight per receiver, a receiver
  // that can take a row has it among them.
  virtual std::optional<int64_t> next_due(size_t per_subscription, const Sendable& sendable) = 0;
  std::optional<int64_t> next_due(const Sendable& sendable) { return next_due(SIZE_MAX, sendable); }
  virtual void mark_delivered(const std::string& id, int attempts, int status, int64_t now_ms) = 0;
  virtual void schedule_retry(const std::string& id, int attempts, int status, const std::string& error,
                              int64_t next_ms, int64_t now_ms) = 0;
  virtual void mark_failed(const std::string& id, int attempts, int status, const std::string& error,
                           int64_t now_ms) = 0;
  // failed -> pending, attempts reset, due now. False if unknown or not failed.
  virtual bool retry(const std::string& id, int64_t now_ms) = 0;
  virtual std::optional<OutboxRow> get(const std::string& id) = 0;
  // status "" = any. Newest first.
  virtual std::vector<OutboxRow> list(const std::string& status, int64_t limit, int64_t offset) = 0;
  virtual int64_t count(const std::string& status) = 0;
  // (status, alerts) for each status present: the outbox depth for /metrics.
  virtual std::vector<std::pair<std::string, int64_t>> count_by_status() = 0;
  // The delivery backlog per subscription: pending alerts and when the
  // oldest was created, for /metrics (what waits, and for how long).
  struct Backlog {
    std::string subscription_id;
    int64_t pending = 0;
    int64_t oldest_created_ms = 0;
  };
  virtual std::vector<Backlog> pending_backlog() = 0;
  // Deletes delivered and failed rows last updated before `before_ms`;
  // returns how many. Pending rows are never pruned.
  virtual int64_t prune(int64_t before_ms) = 0;
  // Why the store cannot be trusted now ("" when it can): readiness.
  virtual std::string fault() const { return {}; }
  // One alert per rule firing across replicas: true for the first caller of
  // `key` within ttl_ms (Redis: SET NX PX), false for the others. One
  // process alone (SQLite) always wins.
  virtual bool claim(const std::string& key, int64_t ttl_ms) {
    (void)key;
    (void)ttl_ms;
    return true;
  }
};

// Durable alert state in SQLite (data_dir/alerts.sqlite, WAL). One
// connection behind a mutex; every call is a short statement.
class SqliteAlertStore final : public AlertStore {
 public:
  explicit SqliteAlertStore(const std::string& data_dir);  // throws std::runtime_error
  ~SqliteAlertStore() override;
  SqliteAlertStore(const SqliteAlertStore&) = delete;
  SqliteAlertStore& operator=(const SqliteAlertStore&) = delete;

  void add_subscription(const Subscription& s) override;
  std::vector<Subscription> subscriptions() override;
  std::optional<Subscription> subscription(const std::string& id) override;
  bool delete_subscription(const std::string& id) override;
  int64_t subscription_count() override;
  int64_t subscriptions_version() override { return version_.load(); }

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
  std::vector<Backlog> pending_backlog() override;
  int64_t prune(int64_t before_ms) override;

 private:
  std::vector<std::string> subscription_ids_locked();

  std::mutex mu_;
  std::unique_ptr<sqlite::Db> db_;
  std::atomic<int64_t> version_{0};  // only this process writes the file (the data dir lock)
};

}  // namespace logsift
