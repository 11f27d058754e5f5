#include "pipeline/store/sqlite.h"

#include <chrono>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include <sqlite3.h>

namespace logsift::sqlite {

int64_t heap_bytes() { return sqlite3_memory_used(); }

Db::Db(const std::string& path, std::string owner, bool read_only) : owner_(std::move(owner)) {
  int flags = (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error(owner_ + ": cannot open " + path + ": " + msg);
  }
  sqlite3_busy_timeout(db_, 5000);
}

Db::~Db() { sqlite3_close_v2(db_); }

void Db::exec(const char* sql) {
  char* err = nullptr;
  if (const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err); rc != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw Error(owner_ + ": " + msg + " in: " + sql, sqlite3_extended_errcode(db_));
  }
}

void Db::fail(const std::string& context) const {
  throw Error(owner_ + ": " + context + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory"),
              db_ ? sqlite3_extended_errcode(db_) : SQLITE_NOMEM);
}

namespace {

[[noreturn]] void damaged(const std::string& owner, const std::string& path, const std::string& what) {
  throw std::runtime_error(owner + ": " + path + " is damaged (" + what + "); restore it from a backup, or move it " +
                           "aside to start with an empty one: mv " + path + " " + path + ".damaged (and its -wal " +
                           "and -shm files)");
}

bool is_damage(int code) { return (code & 0xff) == SQLITE_CORRUPT || (code & 0xff) == SQLITE_NOTADB; }

}  // namespace

std::unique_ptr<Db> open_checked(const std::string& path, const std::string& owner, int64_t budget_ms,
                                 const std::function<void(Db&)>& setup) {
  std::unique_ptr<Db> db;
  try {
    db = std::make_unique<Db>(path, owner);
    setup(*db);
    // Bounded: a progress callback interrupts the check past the budget.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(budget_ms);
    sqlite3_progress_handler(
        db->get(), 10000,
        [](void* d) { return std::chrono::steady_clock::now() > *static_cast<decltype(deadline)*>(d) ? 1 : 0; },
        const_cast<void*>(static_cast<const void*>(&deadline)));
    sqlite3_stmt* q = nullptr;
    std::string verdict;
    int rc = sqlite3_prepare_v2(db->get(), "PRAGMA quick_check(5)", -1, &q, nullptr);
    if (rc == SQLITE_OK) {
      while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const auto* t = sqlite3_column_text(q, 0);
        if (!verdict.empty()) verdict += "; ";
        verdict += t ? reinterpret_cast<const char*>(t) : "";
      }
    }
    const int code = sqlite3_extended_errcode(db->get());
    sqlite3_finalize(q);
    sqlite3_progress_handler(db->get(), 0, nullptr, nullptr);
    if (rc == SQLITE_INTERRUPT) {
      spdlog::warn("{}: {}: integrity check not finished within {} ms; opened unchecked", owner, path, budget_ms);
    } else if (rc != SQLITE_DONE) {
      if (is_damage(code)) damaged(owner, path, sqlite3_errstr(code));
      db->fail("PRAGMA quick_check");
    } else if (verdict != "ok") {
      damaged(owner, path, "quick_check: " + verdict);
    }
  } catch (const Error& e) {
    if (is_damage(e.code)) damaged(owner, path, e.what());
    throw;
  }
  return db;
}

Error::Error(const std::string& what, int code)
    : StoreError(what, storage_fault(code).empty() ? Status::internal("internal error")
                                                   : Status::unavailable("store unavailable: " + storage_fault(code))),
      code(code) {}

std::string storage_fault(int code) {
  switch (code & 0xff) {
    case SQLITE_FULL: return "disk full";
    case SQLITE_READONLY: return "read-only";
    case SQLITE_IOERR: return "I/O error";
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return "file damaged";
    case SQLITE_CANTOPEN: return "cannot open";
    default: return {};
  }
}

int64_t Db::changes() const { return sqlite3_changes(db_); }

Stmt::Stmt(Db& db, const char* sql, bool persistent) : db_(db) {
  if (sqlite3_prepare_v3(db.get(), sql, -1, persistent ? SQLITE_PREPARE_PERSISTENT : 0, &s_, nullptr) != SQLITE_OK)
    db.fail(std::string("prepare ") + sql);
}

Stmt::~Stmt() { sqlite3_finalize(s_); }

Stmt& Stmt::bind(int i, int64_t v) {
  sqlite3_bind_int64(s_, i, v);
  return *this;
}

Stmt& Stmt::bind_double(int i, double v) {
  sqlite3_bind_double(s_, i, v);
  return *this;
}

Stmt& Stmt::bind(int i, std::string_view v) {
  sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}

bool Stmt::step() {
  int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail("step");
}

void Stmt::reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
}

int64_t Stmt::col_int(int c) const { return sqlite3_column_int64(s_, c); }

double Stmt::col_double(int c) const { return sqlite3_column_double(s_, c); }

std::string Stmt::col_text(int c) const {
  auto* p = sqlite3_column_text(s_, c);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(s_, c)))
           : std::string();
}

bool Stmt::col_null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }

Transaction::Transaction(Db& db, bool immediate) : db_(db) { db_.exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN"); }

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  open_ = false;
}

PreparedTransactions::PreparedTransactions(Db& db) : db_(db) {
  auto prep = [&](const char* sql, sqlite3_stmt** out) {
    if (sqlite3_prepare_v3(db.get(), sql, -1, SQLITE_PREPARE_PERSISTENT, out, nullptr) != SQLITE_OK)
      db.fail(std::string("prepare ") + sql);
  };
  prep("BEGIN IMMEDIATE", &begin_);
  prep("COMMIT", &commit_);
  prep("ROLLBACK", &rollback_);
}

PreparedTransactions::~PreparedTransactions() {
  sqlite3_finalize(begin_);
  sqlite3_finalize(commit_);
  sqlite3_finalize(rollback_);
}

void PreparedTransactions::begin() {
  int rc = sqlite3_step(begin_);
  sqlite3_reset(begin_);
  if (rc != SQLITE_DONE) db_.fail("BEGIN");
}

void PreparedTransactions::commit() {
  int rc = sqlite3_step(commit_);
  sqlite3_reset(commit_);
  if (rc != SQLITE_DONE) db_.fail("COMMIT");
}

void PreparedTransactions::rollback() noexcept {
  sqlite3_step(rollback_);
  sqlite3_reset(rollback_);
}

}  // namespace logsift::sqlite
