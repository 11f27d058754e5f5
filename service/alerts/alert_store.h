// Durable alert state in SQLite (data_dir/alerts.sqlite, WAL): webhook
// subscriptions and the delivery outbox. Every alert is written here before
// any attempt to send it, so a crash or kill -9 loses nothing: pending rows
// are picked up again at start (at-least-once, same id on every attempt).
// Thread-safe: one connection behind a mutex; every call is a short statement.
#pragma once

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

class AlertStore {
 public:
  explicit AlertStore(const std::string& data_dir);  // throws std::runtime_error
  ~AlertStore();
  AlertStore(const AlertStore&) = delete;
  AlertStore& operator=(const AlertStore&) = delete;

  void add_subscription(const Subscription& s);
  std::vector<Subscription> subscriptions();
  std::optional<Subscription> subscription(const std::string& id);
  bool delete_subscription(const std::string& id);  // its pending rows are dropped with it
  int64_t subscription_count();

  // One transaction for all rows (status pending, due now).
  void enqueue(const std::vector<OutboxRow>& rows);
  // Pending rows due at now_ms, oldest due first, skipping `busy` ids.
  std::vector<OutboxRow> due(int64_t now_ms, size_t limit, const std::set<std::string>& busy);
  // Earliest next_attempt_ms of the pending rows that `sendable` accepts
  // (the delivery worker skips rows in flight and receivers at their
  // concurrency limit: those wake it when an attempt finishes). nullopt: none.
  std::optional<int64_t> next_due(const std::function<bool(const std::string& id, const std::string& sub)>& sendable);
  void mark_delivered(const std::string& id, int attempts, int status, int64_t now_ms);
  void schedule_retry(const std::string& id, int attempts, int status, const std::string& error, int64_t next_ms,
                      int64_t now_ms);
  void mark_failed(const std::string& id, int attempts, int status, const std::string& error, int64_t now_ms);
  // failed -> pending, attempts reset, due now. False if unknown or not failed.
  bool retry(const std::string& id, int64_t now_ms);
  std::optional<OutboxRow> get(const std::string& id);
  // status "" = any. Newest first.
  std::vector<OutboxRow> list(const std::string& status, int64_t limit, int64_t offset);
  int64_t count(const std::string& status);
  // (status, alerts) for each status present: the outbox depth for /metrics.
  std::vector<std::pair<std::string, int64_t>> count_by_status();
  // Deletes delivered and failed rows last updated before `before_ms`;
  // returns how many. Pending rows are never pruned.
  int64_t prune(int64_t before_ms);

 private:
  std::mutex mu_;
  std::unique_ptr<sqlite::Db> db_;
};

}  // namespace logsift
