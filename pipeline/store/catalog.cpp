#include "pipeline/store/catalog.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "lsh/lsh.h"

namespace logsift {
namespace {

using json = nlohmann::json;

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  throw std::runtime_error("catalog: " + what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error(std::string("catalog: ") + msg + " in: " + sql);
  }
}

// RAII prepared statement.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s_, nullptr) != SQLITE_OK)
      fail(db, std::string("prepare ") + sql);
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  sqlite3_stmt* get() { return s_; }
  void bind(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void bind(int i, const std::string& v) { sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT); }
  bool step() {
    int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, "step");
  }
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  int64_t col_int(int i) { return sqlite3_column_int64(s_, i); }
  std::string col_text(int i) {
    auto* p = sqlite3_column_text(s_, i);
    return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(s_, i)) : std::string();
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
};

int64_t as_i64(uint64_t v) { return static_cast<int64_t>(v); }  // bit pattern kept
uint64_t as_u64(int64_t v) { return static_cast<uint64_t>(v); }

sqlite3* open_db(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw std::runtime_error("catalog: cannot open " + path + ": " + msg);
  }
  sqlite3_busy_timeout(db, 5000);
  return db;
}

json labels_json(const Labels& labels) {
  json o = json::object();
  for (const auto& [k, v] : labels) o[k] = v;
  return o;
}

json cluster_row(Stmt& q) {
  return {{"cluster_id", lsh::format_id(as_u64(q.col_int(0)))},
          {"template_id", lsh::format_id(as_u64(q.col_int(1)))},
          {"template", q.col_text(2)},
          {"count", q.col_int(3)},
          {"first_seen", format_time_ms(q.col_int(4))},
          {"last_seen", format_time_ms(q.col_int(5))}};
}

}  // namespace

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string format_time_ms(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

Catalog::Catalog(const std::string& data_dir, int max_examples) : max_examples_(max_examples) {
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec) throw std::runtime_error("catalog: cannot create data_dir " + data_dir + ": " + ec.message());
  path_ = (std::filesystem::path(data_dir) / "catalog.sqlite").string();
  writer_ = open_db(path_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  // WAL: readers never block the writer; synchronous=NORMAL: a committed batch
  // survives a process crash (a power loss may lose the last few commits).
  exec(writer_, "PRAGMA journal_mode=WAL");
  exec(writer_, "PRAGMA synchronous=NORMAL");
  exec(writer_,
       "CREATE TABLE IF NOT EXISTS clusters("
       " cluster_id INTEGER PRIMARY KEY, template_id INTEGER NOT NULL, template TEXT NOT NULL,"
       " count INTEGER NOT NULL, first_seen_ms INTEGER NOT NULL, last_seen_ms INTEGER NOT NULL);"
       "CREATE INDEX IF NOT EXISTS clusters_by_count ON clusters(count DESC, cluster_id);"
       "CREATE TABLE IF NOT EXISTS examples("
       " cluster_id INTEGER NOT NULL, seq INTEGER NOT NULL, text TEXT NOT NULL, labels TEXT NOT NULL,"
       " ts_ms INTEGER NOT NULL, PRIMARY KEY(cluster_id, seq)) WITHOUT ROWID;"
       "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
       "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '1');");
  reader_ = open_db(path_, SQLITE_OPEN_READONLY);
}

Catalog::~Catalog() {
  sqlite3_close_v2(reader_);
  sqlite3_close_v2(writer_);
}

std::vector<bool> Catalog::apply(const std::vector<ClusterUpdate>& updates) {
  std::vector<bool> is_new(updates.size(), false);
  if (updates.empty()) return is_new;
  Stmt upsert(writer_,
              "INSERT INTO clusters(cluster_id, template_id, template, count, first_seen_ms, last_seen_ms)"
              " VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
              " ON CONFLICT(cluster_id) DO UPDATE SET count = count + excluded.count,"
              " last_seen_ms = max(last_seen_ms, excluded.last_seen_ms)"
              " RETURNING count");
  Stmt example(writer_, "INSERT OR IGNORE INTO examples(cluster_id, seq, text, labels, ts_ms) VALUES(?1, ?2, ?3, ?4, ?5)");
  exec(writer_, "BEGIN IMMEDIATE");
  try {
    for (size_t i = 0; i < updates.size(); ++i) {
      const auto& u = updates[i];
      upsert.bind(1, as_i64(u.cluster_id));
      upsert.bind(2, as_i64(u.template_id));
      upsert.bind(3, u.template_text);
      upsert.bind(4, static_cast<int64_t>(u.count));
      upsert.bind(5, u.first_ms);
      upsert.bind(6, u.last_ms);
      if (!upsert.step()) fail(writer_, "upsert returned no row");
      int64_t total = upsert.col_int(0);
      upsert.step();  // finish the statement
      upsert.reset();
      int64_t before = total - static_cast<int64_t>(u.count);
      is_new[i] = before == 0;
      // Keep the first max_examples lines of the cluster's life.
      for (size_t e = 0; e < u.examples.size() && before + static_cast<int64_t>(e) < max_examples_; ++e) {
        example.bind(1, as_i64(u.cluster_id));
        example.bind(2, before + static_cast<int64_t>(e));
        example.bind(3, u.examples[e].first);
        example.bind(4, labels_json(u.examples[e].second).dump());
        example.bind(5, u.last_ms);
        example.step();
        example.reset();
      }
    }
    exec(writer_, "COMMIT");
  } catch (...) {
    sqlite3_exec(writer_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return is_new;
}

json Catalog::list(int64_t limit, int64_t offset) {
  std::lock_guard lock(reader_mu_);
  json out = {{"clusters", json::array()}, {"limit", limit}, {"offset", offset}};
  exec(reader_, "BEGIN");  // one snapshot for the page and the total
  try {
    Stmt q(reader_,
           "SELECT cluster_id, template_id, template, count, first_seen_ms, last_seen_ms FROM clusters"
           " ORDER BY count DESC, cluster_id LIMIT ?1 OFFSET ?2");
    q.bind(1, limit);
    q.bind(2, offset);
    while (q.step()) out["clusters"].push_back(cluster_row(q));
    Stmt t(reader_, "SELECT count(*) FROM clusters");
    t.step();
    out["total"] = t.col_int(0);
  } catch (...) {
    sqlite3_exec(reader_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec(reader_, "COMMIT");
  return out;
}

std::optional<json> Catalog::get(uint64_t cluster_id) {
  std::lock_guard lock(reader_mu_);
  exec(reader_, "BEGIN");
  std::optional<json> out;
  try {
    Stmt q(reader_,
           "SELECT cluster_id, template_id, template, count, first_seen_ms, last_seen_ms FROM clusters"
           " WHERE cluster_id = ?1");
    q.bind(1, as_i64(cluster_id));
    if (q.step()) {
      out = cluster_row(q);
      json ex = json::array();
      Stmt e(reader_, "SELECT text, labels, ts_ms FROM examples WHERE cluster_id = ?1 ORDER BY seq");
      e.bind(1, as_i64(cluster_id));
      while (e.step())
        ex.push_back({{"text", e.col_text(0)}, {"labels", json::parse(e.col_text(1), nullptr, false)},
                      {"seen", format_time_ms(e.col_int(2))}});
      (*out)["examples"] = std::move(ex);
    }
  } catch (...) {
    sqlite3_exec(reader_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  exec(reader_, "COMMIT");
  return out;
}

void Catalog::checkpoint() { sqlite3_wal_checkpoint_v2(writer_, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr); }

}  // namespace logsift
