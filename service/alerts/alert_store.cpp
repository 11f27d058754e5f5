#include "service/alerts/alert_store.h"

#include <filesystem>
#include <stdexcept>

#include <sqlite3.h>

#include "pipeline/store/catalog.h"

namespace logsift {
namespace {

using json = nlohmann::json;

void check(sqlite3* db, int rc, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw std::runtime_error(std::string("alert store: ") + what + ": " + sqlite3_errmsg(db));
}

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "error";
    sqlite3_free(err);
    throw std::runtime_error("alert store: " + msg);
  }
}

class Q {
 public:
  Q(sqlite3* db, const char* sql) : db_(db) { check(db, sqlite3_prepare_v2(db, sql, -1, &s_, nullptr), sql); }
  ~Q() { sqlite3_finalize(s_); }
  Q& bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Q& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  bool step() {
    int rc = sqlite3_step(s_);
    check(db_, rc, "step");
    return rc == SQLITE_ROW;
  }
  int64_t i(int c) { return sqlite3_column_int64(s_, c); }
  std::string t(int c) {
    auto* p = sqlite3_column_text(s_, c);
    return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(s_, c)) : "";
  }
  int changes() { return sqlite3_changes(db_); }
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

constexpr const char* kRowColumns =
    "id, subscription_id, status, attempts, last_status, last_error, created_ms, next_attempt_ms, updated_ms, payload";

OutboxRow read_row(Q& q) {
  OutboxRow r;
  r.id = q.t(0);
  r.subscription_id = q.t(1);
  r.status = q.t(2);
  r.attempts = static_cast<int>(q.i(3));
  r.last_status = static_cast<int>(q.i(4));
  r.last_error = q.t(5);
  r.created_ms = q.i(6);
  r.next_attempt_ms = q.i(7);
  r.updated_ms = q.i(8);
  r.payload = q.t(9);
  return r;
}

Subscription read_sub(Q& q) {
  Subscription s;
  s.id = q.t(0);
  s.url = q.t(1);
  s.secret = q.t(2);
  s.format = q.t(3);
  s.rules = json::parse(q.t(4), nullptr, false);
  s.created_ms = q.i(5);
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

AlertStore::AlertStore(const std::string& data_dir) {
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  std::string path = (std::filesystem::path(data_dir) / "alerts.sqlite").string();
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error("alert store: cannot open " + path + ": " + msg);
  }
  sqlite3_busy_timeout(db_, 5000);
  exec(db_, "PRAGMA journal_mode=WAL");
  // FULL: an alert acknowledged as queued survives power loss, not just a crash.
  exec(db_, "PRAGMA synchronous=FULL");
  exec(db_,
       "CREATE TABLE IF NOT EXISTS subscriptions(id TEXT PRIMARY KEY, url TEXT NOT NULL, secret TEXT NOT NULL,"
       " format TEXT NOT NULL, rules TEXT NOT NULL, created_ms INTEGER NOT NULL);"
       "CREATE TABLE IF NOT EXISTS outbox(id TEXT PRIMARY KEY, subscription_id TEXT NOT NULL, status TEXT NOT NULL,"
       " attempts INTEGER NOT NULL, last_status INTEGER NOT NULL, last_error TEXT NOT NULL,"
       " created_ms INTEGER NOT NULL, next_attempt_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL,"
       " payload TEXT NOT NULL);"
       "CREATE INDEX IF NOT EXISTS outbox_due ON outbox(status, next_attempt_ms);"
       "CREATE INDEX IF NOT EXISTS outbox_created ON outbox(created_ms DESC);");
}

AlertStore::~AlertStore() { sqlite3_close_v2(db_); }

void AlertStore::add_subscription(const Subscription& s) {
  std::lock_guard lock(mu_);
  Q(db_, "INSERT INTO subscriptions(id, url, secret, format, rules, created_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6)")
      .bind(1, s.id)
      .bind(2, s.url)
      .bind(3, s.secret)
      .bind(4, s.format)
      .bind(5, s.rules.dump())
      .bind(6, s.created_ms)
      .step();
}

std::vector<Subscription> AlertStore::subscriptions() {
  std::lock_guard lock(mu_);
  std::vector<Subscription> out;
  Q q(db_, "SELECT id, url, secret, format, rules, created_ms FROM subscriptions ORDER BY created_ms, id");
  while (q.step()) out.push_back(read_sub(q));
  return out;
}

std::optional<Subscription> AlertStore::subscription(const std::string& id) {
  std::lock_guard lock(mu_);
  Q q(db_, "SELECT id, url, secret, format, rules, created_ms FROM subscriptions WHERE id = ?1");
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return read_sub(q);
}

bool AlertStore::delete_subscription(const std::string& id) {
  std::lock_guard lock(mu_);
  exec(db_, "BEGIN IMMEDIATE");
  Q del(db_, "DELETE FROM subscriptions WHERE id = ?1");
  del.bind(1, id).step();
  bool found = del.changes() > 0;
  Q(db_, "DELETE FROM outbox WHERE subscription_id = ?1 AND status = 'pending'").bind(1, id).step();
  exec(db_, "COMMIT");
  return found;
}

void AlertStore::enqueue(const std::vector<OutboxRow>& rows) {
  if (rows.empty()) return;
  std::lock_guard lock(mu_);
  exec(db_, "BEGIN IMMEDIATE");
  try {
    Q q(db_, "INSERT INTO outbox(id, subscription_id, status, attempts, last_status, last_error, created_ms,"
             " next_attempt_ms, updated_ms, payload) VALUES(?1, ?2, 'pending', 0, 0, '', ?3, ?3, ?3, ?4)");
    for (const auto& r : rows) {
      q.bind(1, r.id).bind(2, r.subscription_id).bind(3, r.created_ms).bind(4, r.payload).step();
      q.reset();
    }
    exec(db_, "COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<OutboxRow> AlertStore::due(int64_t now_ms, size_t limit, const std::set<std::string>& busy) {
  std::lock_guard lock(mu_);
  std::vector<OutboxRow> out;
  std::string sql = std::string("SELECT ") + kRowColumns +
                    " FROM outbox WHERE status = 'pending' AND next_attempt_ms <= ?1 ORDER BY next_attempt_ms, id"
                    " LIMIT ?2";
  Q q(db_, sql.c_str());
  q.bind(1, now_ms).bind(2, static_cast<int64_t>(limit + busy.size()));
  while (q.step() && out.size() < limit) {
    OutboxRow r = read_row(q);
    if (!busy.count(r.id)) out.push_back(std::move(r));
  }
  return out;
}

std::optional<int64_t> AlertStore::next_due() {
  std::lock_guard lock(mu_);
  Q q(db_, "SELECT min(next_attempt_ms) FROM outbox WHERE status = 'pending'");
  if (!q.step() || q.t(0).empty()) return std::nullopt;
  return q.i(0);
}

void AlertStore::mark_delivered(const std::string& id, int attempts, int status, int64_t now_ms) {
  std::lock_guard lock(mu_);
  Q(db_, "UPDATE outbox SET status = 'delivered', attempts = ?2, last_status = ?3, last_error = '', updated_ms = ?4"
         " WHERE id = ?1")
      .bind(1, id)
      .bind(2, attempts)
      .bind(3, status)
      .bind(4, now_ms)
      .step();
}

void AlertStore::schedule_retry(const std::string& id, int attempts, int status, const std::string& error,
                                int64_t next_ms, int64_t now_ms) {
  std::lock_guard lock(mu_);
  Q(db_, "UPDATE outbox SET attempts = ?2, last_status = ?3, last_error = ?4, next_attempt_ms = ?5, updated_ms = ?6"
         " WHERE id = ?1 AND status = 'pending'")
      .bind(1, id)
      .bind(2, attempts)
      .bind(3, status)
      .bind(4, error)
      .bind(5, next_ms)
      .bind(6, now_ms)
      .step();
}

void AlertStore::mark_failed(const std::string& id, int attempts, int status, const std::string& error,
                             int64_t now_ms) {
  std::lock_guard lock(mu_);
  Q(db_, "UPDATE outbox SET status = 'failed', attempts = ?2, last_status = ?3, last_error = ?4, updated_ms = ?5"
         " WHERE id = ?1")
      .bind(1, id)
      .bind(2, attempts)
      .bind(3, status)
      .bind(4, error)
      .bind(5, now_ms)
      .step();
}

bool AlertStore::retry(const std::string& id, int64_t now_ms) {
  std::lock_guard lock(mu_);
  Q q(db_, "UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_ms = ?2, updated_ms = ?2"
           " WHERE id = ?1 AND status = 'failed'");
  q.bind(1, id).bind(2, now_ms).step();
  return q.changes() > 0;
}

std::optional<OutboxRow> AlertStore::get(const std::string& id) {
  std::lock_guard lock(mu_);
  std::string sql = std::string("SELECT ") + kRowColumns + " FROM outbox WHERE id = ?1";
  Q q(db_, sql.c_str());
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  return read_row(q);
}

std::vector<OutboxRow> AlertStore::list(const std::string& status, int64_t limit, int64_t offset) {
  std::lock_guard lock(mu_);
  std::string sql = std::string("SELECT ") + kRowColumns + " FROM outbox WHERE (?1 = '' OR status = ?1)" +
                    " ORDER BY created_ms DESC, id LIMIT ?2 OFFSET ?3";
  Q q(db_, sql.c_str());
  q.bind(1, status).bind(2, limit).bind(3, offset);
  std::vector<OutboxRow> out;
  while (q.step()) out.push_back(read_row(q));
  return out;
}

int64_t AlertStore::count(const std::string& status) {
  std::lock_guard lock(mu_);
  Q q(db_, "SELECT count(*) FROM outbox WHERE (?1 = '' OR status = ?1)");
  q.bind(1, status);
  q.step();
  return q.i(0);
}

}  // namespace logsift
