// The one SQLite helper of the catalog and the alert outbox: a connection
// opened in WAL mode with a busy timeout, RAII prepared statements (keep them
// and reuse them: prepare once, reset per use), and a transaction guard that
// rolls back on every path that does not commit. Errors are thrown as
// std::runtime_error prefixed with the owner's name ("catalog: ...").
// Not thread-safe: one thread at a time per Db (callers lock or own it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "pipeline/store/store_error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace logsift::sqlite {

// Bytes SQLite's allocator holds now, over every connection of the process.
int64_t heap_bytes();

// For an error below the database (the disk is full or read-only, the file
// went away or is damaged, I/O failed): a short reason for /readyz and the
// replies ("disk full", "read-only", "I/O error", "file damaged",
// "cannot open"); empty for any other error (a bug, a constraint).
std::string storage_fault(int code);

// A failed SQLite call, with its extended result code: unavailable when the
// fault is below the database (storage_fault), internal otherwise.
struct Error : StoreError {
  Error(const std::string& what, int code);
  int code;
};

class Db {
 public:
  // Opens `path` (read-write and created when `read_only` is false), WAL,
  // busy timeout 5 s. `owner` prefixes error messages.
  Db(const std::string& path, std::string owner, bool read_only = false);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // Runs one or more statements without results.
  void exec(const char* sql);
  [[noreturn]] void fail(const std::string& context) const;
  int64_t changes() const;
  sqlite3* get() const { return db_; }
  const std::string& owner() const { return owner_; }

 private:
  sqlite3* db_ = nullptr;
  std::string owner_;
};

// Opens `path` as the owner's database and checks it (PRAGMA quick_check,
// given at most `budget_ms`; a larger file is then opened unchecked, with a
// warning). A damaged file (or one that is not a database) throws, naming the
// file and the ways out: restore it from a backup, or move it aside to start
// empty. `setup` runs the owner's pragmas and schema on the open connection;
// damage found there throws the same way.
std::unique_ptr<Db> open_checked(const std::string& path, const std::string& owner, int64_t budget_ms,
                                 const std::function<void(Db&)>& setup);

class Stmt {
 public:
  // `persistent`: a statement kept for the connection's life (SQLite plans
  // its memory accordingly).
  Stmt(Db& db, const char* sql, bool persistent = false);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, int64_t v);
  Stmt& bind_double(int i, double v);
  Stmt& bind(int i, std::string_view v);  // copied (SQLITE_TRANSIENT)
  // True when a row is ready, false when done; throws on an error.
  bool step();
  // Ready for the next use: bindings cleared.
  void reset();
  int64_t col_int(int c) const;
  double col_double(int c) const;
  std::string col_text(int c) const;
  bool col_null(int c) const;

 private:
  Db& db_;
  sqlite3_stmt* s_ = nullptr;
};

class Transaction {
 public:
  // BEGIN IMMEDIATE (a writer) or BEGIN (a consistent read snapshot).
  explicit Transaction(Db& db, bool immediate = true);
  ~Transaction();  // rolls back unless committed
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Db& db_;
  bool open_ = true;
};

// The same with BEGIN / COMMIT / ROLLBACK prepared once (a writer that
// commits thousands of times a second does not re-parse them).
class PreparedTransactions {
 public:
  explicit PreparedTransactions(Db& db);
  ~PreparedTransactions();
  void begin();
  void commit();
  void rollback() noexcept;

 private:
  Db& db_;
  sqlite3_stmt *begin_ = nullptr, *commit_ = nullptr, *rollback_ = nullptr;
};

}  // namespace logsift::sqlite
