#include "service/alerts/alert_store.h"

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <stdexcept>

#include "pipeline/core/time.h"
#include "pipeline/store/sqlite.h"

namespace logsift {
namespace {

using json = nlohmann::json;

using Q = sqlite::Stmt;

constexpr const char* kRowColumns =
    "id, subscription_id, status, attempts, last_status, last_error, created_ms, next_attempt_ms, updated_ms, payload";

OutboxRow read_row(Q& q) {
  OutboxRow r;
  r.id = q.col_text(0);
  r.subscription_id = q.col_text(1);
  r.status = q.col_text(2);
  r.attempts = static_cast<int>(q.col_int(3));
  r.last_status = static_cast<int>(q.col_int(4));
  r.last_error = q.col_text(5);
  r.created_ms = q.col_int(6);
  r.next_attempt_ms = q.col_int(7);
  r.updated_ms = q.col_int(8);
  r.payload = q.col_text(9);
  return r;
}

Subscription read_sub(Q& q) {
  Subscription s;
  s.id = q.col_text(0);
  s.url = q.col_text(1);
  s.secret = q.col_text(2);
  s.format = q.col_text(3);
  s.rules = json::parse(q.col_text(4), nullptr, false);
  s.created_ms = q.col_int(5);
  return s;
}

}  // namespace

json Subscription::to_json() const {
  return {{"id", id},         {"url", url},
          {"format", format}, {"rules", rules},
          {"secret_set", !secret.empty()}, {"created_at", format_time_ms(created_ms)}};
}

json OutboxRow::to_json() const {
  json j = {{"id", id},
            {"subscription_id", subscription_id},
            {"status", status},
            {"attempts", attempts},
            {"last_status", last_status},
            {"last_error", last_error},
            {"created_at", format_time_ms(created_ms)},
            {"updated_at", format_time_ms(updated_ms)},
            {"alert", json::parse(payload, nullptr, false)}};
  if (status == "pending") j["next_attempt_at"] = format_time_ms(next_attempt_ms);
  return j;
}

SqliteAlertStore::SqliteAlertStore(const std::string& data_dir) {
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  std::string path = (std::filesystem::path(data_dir) / "alerts.sqlite").string();
  db_ = sqlite::open_checked(path, "alert store", 20000, [](sqlite::Db& db) {
    db.exec("PRAGMA journal_mode=WAL");
    // FULL: an alert acknowledged as queued survives power loss, not just a crash.
    db.exec("PRAGMA synchronous=FULL");
  });
  db_->exec(
       "CREATE TABLE IF NOT EXISTS subscriptions(id TEXT PRIMARY KEY, url TEXT NOT NULL, secret TEXT NOT NULL,"
       " format TEXT NOT NULL, rules TEXT NOT NULL, created_ms INTEGER NOT NULL);"
       "CREATE TABLE IF NOT EXISTS outbox(id TEXT PRIMARY KEY, subscription_id TEXT NOT NULL, status TEXT NOT NULL,"
       " attempts INTEGER NOT NULL, last_status INTEGER NOT NULL, last_error TEXT NOT NULL,"
       " created_ms INTEGER NOT NULL, next_attempt_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL,"
       " payload TEXT NOT NULL);"
       "CREATE INDEX IF NOT EXISTS outbox_due ON outbox(status, next_attempt_ms);"
       "CREATE INDEX IF NOT EXISTS outbox_created ON outbox(created_ms DESC);"
       // Delivery reads each subscription's oldest due rows (fair and bounded).
       "CREATE INDEX IF NOT EXISTS outbox_sub_due ON outbox(subscription_id, status, next_attempt_ms, id);");
}

SqliteAlertStore::~SqliteAlertStore() = default;

void SqliteAlertStore::add_subscription(const Subscription& s) {
  std::lock_guard lock(mu_);
  Q(*db_, "INSERT INTO subscriptions(id, url, secret, format, rules, created_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6)")
      .bind(1, s.id)
      .bind(2, s.url)
      .bind(3, s.secret)
      .bind(4, s.format)
      .bind(5, s.rules.dump())
      .bind(6, s.created_ms)
      .step();
  ++version_;
}

std::vector<Subscription> SqliteAlertStore::subscriptions() {
  std::lock_guard lock(mu_);
  std::vector<Subscription> out;
  Q q(*db_, "SELECT id, url, secret, format, rules, created_ms FROM subscriptions ORDER BY created_ms, id");
  while (q.step()) out.push_back(read_sub(q));
  return out;
}

std::optional<Subscription> SqliteAlertStore::subscription(const std::string& id) {
  std::lock_guard lock(mu_);
  Q q(*db_, "SELECT id, url, secret, format, rules, created_ms FROM subscriptions WHERE id = ?1");
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return read_sub(q);
}

bool SqliteAlertStore::delete_subscription(const std::string& id) {
  std::lock_guard lock(mu_);
  sqlite::Transaction tx(*db_);
  Q(*db_, "DELETE FROM subscriptions WHERE id = ?1").bind(1, id).step();
  bool found = db_->changes() > 0;
  Q(*db_, "DELETE FROM outbox WHERE subscription_id = ?1 AND status = 'pending'").bind(1, id).step();
  tx.commit();
  if (found) ++version_;
  return found;
}

void SqliteAlertStore::enqueue(const std::vector<OutboxRow>& rows) {
  if (rows.empty()) return;
  std::lock_guard lock(mu_);
  sqlite::Transaction tx(*db_);
  // OR IGNORE: an alert with a derived id raised again (a replay) is a no-op.
  Q q(*db_, "INSERT OR IGNORE INTO outbox(id, subscription_id, status, attempts, last_status, last_error, created_ms,"
            " next_attempt_ms, updated_ms, payload) VALUES(?1, ?2, 'pending', 0, 0, '', ?3, ?3, ?3, ?4)");
  for (const auto& r : rows) {
    q.bind(1, r.id).bind(2, r.subscription_id).bind(3, r.created_ms).bind(4, r.payload).step();
    q.reset();
  }
  tx.commit();
}

std::vector<OutboxRow> SqliteAlertStore::due(int64_t now_ms, size_t limit, size_t per_subscription,
                                             const Sendable& sendable) {
  std::lock_guard lock(mu_);
  // The oldest due rows of each subscription, read through the
  // (subscription, status, due) index: at most subscriptions x
  // per_subscription rows are read, however many a hung receiver has due,
  // so a pump costs the same with a backlog of ten or of ten thousand.
  // Pending rows always belong to a listed subscription (a delete drops
  // them in the same transaction).
  // Rows the worker cannot send now (in flight, or sent with an outcome not
  // yet saved) are stepped over, so they never hide the sendable rows
  // behind them.
  std::vector<OutboxRow> rows;
  std::string sql = std::string("SELECT ") + kRowColumns +
                    " FROM outbox WHERE subscription_id = ?1 AND status = 'pending' AND next_attempt_ms <= ?2"
                    " ORDER BY next_attempt_ms, id";
  Q q(*db_, sql.c_str());
  for (const auto& sub : subscription_ids_locked()) {
    q.bind(1, sub).bind(2, now_ms);
    size_t taken = 0;
    while (taken < per_subscription && rows.size() < limit && q.step()) {
      OutboxRow r = read_row(q);
      if (!sendable(r.id, r.subscription_id)) continue;
      rows.push_back(std::move(r));
      ++taken;
    }
    q.reset();
  }
  std::sort(rows.begin(), rows.end(), [](const OutboxRow& a, const OutboxRow& b) {
    return std::tie(a.next_attempt_ms, a.id) < std::tie(b.next_attempt_ms, b.id);
  });
  return rows;
}

std::optional<int64_t> SqliteAlertStore::next_due(size_t per_subscription, const Sendable& sendable) {
  std::lock_guard lock(mu_);
  // Per subscription, its pending rows in due order up to the first
  // sendable one: the scan steps over the rows in flight (at most the
  // receiver's concurrency) and those whose outcome waits to be saved (a
  // bounded number), not the backlog.
  (void)per_subscription;
  Q q(*db_, "SELECT id, next_attempt_ms FROM outbox WHERE subscription_id = ?1 AND status = 'pending'"
            " ORDER BY next_attempt_ms, id");
  std::optional<int64_t> next;
  for (const auto& sub : subscription_ids_locked()) {
    q.bind(1, sub);
    while (q.step()) {
      if (!sendable(q.col_text(0), sub)) continue;
      const int64_t t = q.col_int(1);
      if (!next || t < *next) next = t;
      break;
    }
    q.reset();
  }
  return next;
}

std::vector<std::string> SqliteAlertStore::subscription_ids_locked() {
  std::vector<std::string> ids;
  Q q(*db_, "SELECT id FROM subscriptions ORDER BY id");
  while (q.step()) ids.push_back(q.col_text(0));
  return ids;
}

void SqliteAlertStore::mark_delivered(const std::string& id, int attempts, int status, int64_t now_ms) {
  std::lock_guard lock(mu_);
  Q(*db_, "UPDATE outbox SET status = 'delivered', attempts = ?2, last_status = ?3, last_error = '', updated_ms = ?4"
         " WHERE id = ?1")
      .bind(1, id)
      .bind(2, attempts)
      .bind(3, status)
      .bind(4, now_ms)
      .step();
}

void SqliteAlertStore::schedule_retry(const std::string& id, int attempts, int status, const std::string& error,
                                int64_t next_ms, int64_t now_ms) {
  std::lock_guard lock(mu_);
  Q(*db_, "UPDATE outbox SET attempts = ?2, last_status = ?3, last_error = ?4, next_attempt_ms = ?5, updated_ms = ?6"
         " WHERE id = ?1 AND status = 'pending'")
      .bind(1, id)
      .bind(2, attempts)
      .bind(3, status)
      .bind(4, error)
      .bind(5, next_ms)
      .bind(6, now_ms)
      .step();
}

void SqliteAlertStore::mark_failed(const std::string& id, int attempts, int status, const std::string& error,
                             int64_t now_ms) {
  std::lock_guard lock(mu_);
  Q(*db_, "UPDATE outbox SET status = 'failed', attempts = ?2, last_status = ?3, last_error = ?4, updated_ms = ?5"
         " WHERE id = ?1")
      .bind(1, id)
      .bind(2, attempts)
      .bind(3, status)
      .bind(4, error)
      .bind(5, now_ms)
      .step();
}

bool SqliteAlertStore::retry(const std::string& id, int64_t now_ms) {
  std::lock_guard lock(mu_);
  Q q(*db_, "UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_ms = ?2, updated_ms = ?2"
           " WHERE id = ?1 AND status = 'failed'");
  q.bind(1, id).bind(2, now_ms).step();
  return db_->changes() > 0;
}

std::optional<OutboxRow> SqliteAlertStore::get(const std::string& id) {
  std::lock_guard lock(mu_);
  std::string sql = std::string("SELECT ") + kRowColumns + " FROM outbox WHERE id = ?1";
  Q q(*db_, sql.c_str());
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return read_row(q);
}

std::vector<OutboxRow> SqliteAlertStore::list(const std::string& status, int64_t limit, int64_t offset) {
  std::lock_guard lock(mu_);
  std::string sql = std::string("SELECT ") + kRowColumns + " FROM outbox WHERE (?1 = '' OR status = ?1)" +
                    " ORDER BY created_ms DESC, id LIMIT ?2 OFFSET ?3";
  Q q(*db_, sql.c_str());
  q.bind(1, status).bind(2, limit).bind(3, offset);
  std::vector<OutboxRow> out;
  while (q.step()) out.push_back(read_row(q));
  return out;
}

int64_t SqliteAlertStore::subscription_count() {
  std::lock_guard lock(mu_);
  Q q(*db_, "SELECT count(*) FROM subscriptions");
  q.step();
  return q.col_int(0);
}

int64_t SqliteAlertStore::prune(int64_t before_ms) {
  std::lock_guard lock(mu_);
  Q(*db_, "DELETE FROM outbox WHERE status IN ('delivered', 'failed') AND updated_ms < ?1").bind(1, before_ms).step();
  return db_->changes();
}

std::vector<std::pair<std::string, int64_t>> SqliteAlertStore::count_by_status() {
  std::lock_guard lock(mu_);
  Q q(*db_, "SELECT status, count(*) FROM outbox GROUP BY status");
  std::vector<std::pair<std::string, int64_t>> out;
  while (q.step()) out.emplace_back(q.col_text(0), q.col_int(1));
  return out;
}

std::vector<AlertStore::Backlog> SqliteAlertStore::pending_backlog() {
  std::lock_guard lock(mu_);
  Q q(*db_,
      "SELECT subscription_id, count(*), min(created_ms) FROM outbox WHERE status = 'pending' GROUP BY subscription_id");
  std::vector<Backlog> out;
  while (q.step()) out.push_back({q.col_text(0), q.col_int(1), q.col_int(2)});
  return out;
}

int64_t SqliteAlertStore::count(const std::string& status) {
  std::lock_guard lock(mu_);
  Q q(*db_, "SELECT count(*) FROM outbox WHERE (?1 = '' OR status = ?1)");
  q.bind(1, status);
  q.step();
  return q.col_int(0);
}

}  // namespace logsift
