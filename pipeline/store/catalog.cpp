#include "pipeline/store/catalog.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <unordered_map>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include "lsh/lsh.h"
#include "pipeline/core/metrics.h"
#include "pipeline/core/thread_name.h"
#include "pipeline/core/time.h"
#include "pipeline/store/sqlite.h"

namespace logsift {
namespace {

using json = nlohmann::json;
using sqlite::Stmt;

int64_t as_i64(uint64_t v) { return static_cast<int64_t>(v); }  // bit pattern kept
uint64_t as_u64(int64_t v) { return static_cast<uint64_t>(v); }

json labels_json(const Labels& labels) {
  json o = json::object();
  for (const auto& [k, v] : labels) o[k] = v;
  return o;
}

// A row of "SELECT cluster_id, template_id, template, count, first_seen_ms, last_seen_ms".
ClusterRow cluster_row(Stmt& q) {
  ClusterRow r;
  r.cluster_id = as_u64(q.col_int(0));
  r.template_id = as_u64(q.col_int(1));
  r.template_text = q.col_text(2);
  r.count = static_cast<uint64_t>(q.col_int(3));
  r.first_ms = q.col_int(4);
  r.last_ms = q.col_int(5);
  return r;
}

}  // namespace

namespace {

// (device, inode) of a path; (0, 0) if it does not exist.
std::pair<uint64_t, uint64_t> file_id(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {0, 0};
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

}  // namespace

SqliteCatalog::SqliteCatalog(const std::string& data_dir, int max_examples, bool sync_full)
    : max_examples_(max_examples), data_dir_(data_dir) {
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec) throw std::runtime_error("catalog: cannot create data_dir " + data_dir + ": " + ec.message());
  path_ = (std::filesystem::path(data_dir) / "catalog.sqlite").string();
  // Checked at open: a damaged catalog stops startup with the way out, instead
  // of failing every write (or answering known clusters as new) later.
  writer_ = sqlite::open_checked(path_, "catalog", kIntegrityBudgetMs, [sync_full](sqlite::Db& db) {
    // WAL: readers never block the writer; synchronous=NORMAL: a committed
    // batch survives a process crash (a power loss may lose the last few
    // commits); FULL: it survives that too, for an fsync per group commit.
    db.exec("PRAGMA journal_mode=WAL");
    db.exec(sync_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
  });
  writer_->exec(
      "CREATE TABLE IF NOT EXISTS clusters("
      " cluster_id INTEGER PRIMARY KEY, template_id INTEGER NOT NULL, template TEXT NOT NULL,"
      " count INTEGER NOT NULL, first_seen_ms INTEGER NOT NULL, last_seen_ms INTEGER NOT NULL);"
      "CREATE INDEX IF NOT EXISTS clusters_by_count ON clusters(count DESC, cluster_id);"
      "CREATE TABLE IF NOT EXISTS examples("
      " cluster_id INTEGER NOT NULL, seq INTEGER NOT NULL, text TEXT NOT NULL, labels TEXT NOT NULL,"
      " ts_ms INTEGER NOT NULL, PRIMARY KEY(cluster_id, seq)) WITHOUT ROWID;"
      "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
      "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '1');");
  {
    // A catalog written by a newer release may hold what this one cannot
    // read right (or would damage by writing): refused, naming both.
    Stmt v(*writer_, "SELECT value FROM meta WHERE key = 'schema_version'");
    const int schema = v.step() ? std::atoi(v.col_text(0).c_str()) : 1;
    if (schema > kSchemaVersion)
      throw StoreTooNew(path_ + " was written by a newer logsift (catalog schema " + std::to_string(schema) +
                        "; this release reads up to " + std::to_string(kSchemaVersion) +
                        "): run that release or newer, or restore a backup made by this one");
  }
  // Schema 2: the contract the catalog was written under (meta 'contract'),
  // its history, and the map of ids that migrations changed.
  writer_->exec(
      "CREATE TABLE IF NOT EXISTS id_map(old_id INTEGER NOT NULL, new_id INTEGER NOT NULL, share REAL NOT NULL,"
      " PRIMARY KEY(old_id, new_id)) WITHOUT ROWID;"
      "CREATE INDEX IF NOT EXISTS id_map_new ON id_map(new_id);");
  writer_->exec("UPDATE meta SET value = '2' WHERE key = 'schema_version' AND CAST(value AS INTEGER) < 2");
  // Curation (pipeline/store/curation.h): a table an older release of schema 2
  // leaves alone.
  writer_->exec("CREATE TABLE IF NOT EXISTS curation(seq INTEGER PRIMARY KEY, action TEXT NOT NULL)");
  // alert_pending: 1 from the commit that created the cluster until its
  // new_cluster alerts are in the outbox (a separate database), so a crash
  // in between is repaired at the next start. Added to older catalogs here.
  {
    Stmt cols(*writer_, "SELECT count(*) FROM pragma_table_info('clusters') WHERE name = 'alert_pending'");
    cols.step();
    if (cols.col_int(0) == 0)
      writer_->exec("ALTER TABLE clusters ADD COLUMN alert_pending INTEGER NOT NULL DEFAULT 0");
    writer_->exec("CREATE INDEX IF NOT EXISTS clusters_alert_pending ON clusters(cluster_id) WHERE alert_pending = 1");
  }
  // A cluster's count is read by its rowid, then updated or inserted: an
  // UPSERT ... RETURNING would do the same work plus a temporary b-tree per
  // statement (SQLite materialises RETURNING rows), which was a fifth of the
  // state thread's time on a busy stream.
  count_ = std::make_unique<Stmt>(*writer_, "SELECT count FROM clusters WHERE cluster_id = ?1", true);
  update_ = std::make_unique<Stmt>(
      *writer_,
      "UPDATE clusters SET count = count + ?2, last_seen_ms = max(last_seen_ms, ?3) WHERE cluster_id = ?1", true);
  insert_ = std::make_unique<Stmt>(
      *writer_,
      "INSERT INTO clusters(cluster_id, template_id, template, count, first_seen_ms, last_seen_ms, alert_pending)"
      " VALUES(?1, ?2, ?3, ?4, ?5, ?6, 1)",
      true);
  example_ = std::make_unique<Stmt>(
      *writer_, "INSERT OR IGNORE INTO examples(cluster_id, seq, text, labels, ts_ms) VALUES(?1, ?2, ?3, ?4, ?5)",
      true);
  tx_ = std::make_unique<sqlite::PreparedTransactions>(*writer_);
  {
    Stmt n(*writer_, "SELECT count(*) FROM clusters");
    n.step();
    clusters_.store(n.col_int(0), std::memory_order_relaxed);
  }
  reader_ = std::make_unique<sqlite::Db>(path_, "catalog", /*read_only=*/true);
  writer_->exec("PRAGMA wal_autocheckpoint=0");
  // After a burst (a cold start writes ~30 MB of WAL) the file is cut back
  // to this when the WAL restarts, so its disk use stays bounded too.
  writer_->exec("PRAGMA journal_size_limit=67108864");
  // The WAL only starts over from its beginning once every frame is copied
  // into the database, which a writer that never pauses never allows to the
  // background PASSIVE checkpoints: the WAL grew without bound (600 MB a
  // minute in a soak). Past kRestartFrames the writer itself runs a RESTART
  // checkpoint right after that commit (apply()), copying what PASSIVE has
  // not yet copied; the next commit then starts the WAL over.
  sqlite3_wal_hook(
      writer_->get(),
      [](void* self, sqlite3*, const char*, int frames) {
        constexpr int kRestartFrames = 4096;  // 16 MB of 4 KB pages
        if (frames >= kRestartFrames) static_cast<SqliteCatalog*>(self)->restart_wal_.store(true, std::memory_order_relaxed);
        return SQLITE_OK;
      },
      this);
  curation_db_ = std::make_unique<sqlite::Db>(path_, "catalog");
  checkpointer_db_ = std::make_unique<sqlite::Db>(path_, "catalog");
  // A connection learns that the database is in WAL mode only when it first
  // reads it; until then sqlite3_wal_checkpoint_v2 returns OK having done
  // nothing (log and checkpointed frames -1), and the WAL grew without bound
  // (71 GB in a one-hour soak). Reading the journal mode opens the file.
  checkpointer_db_->exec("PRAGMA journal_mode=WAL");
  dir_id_ = file_id(data_dir_);
  file_id_ = file_id(path_);
  checkpointer_ = std::thread([this] {
    set_thread_name("ls-checkpoint");
    checkpoint_loop();
  });
}

SqliteCatalog::~SqliteCatalog() {
  {
    std::lock_guard lock(checkpoint_mu_);
    stopping_ = true;
  }
  checkpoint_cv_.notify_all();
  if (checkpointer_.joinable()) checkpointer_.join();
}

void SqliteCatalog::checkpoint_loop() {
  // Every 50 ms: the writer's RESTART (past 4096 frames) then finds the WAL
  // already copied and only starts it over. At 500 ms it had up to 16 MB left
  // to copy and fsync on the state thread: a 10-50 ms stall about every 0.6 s
  // at 10k single-line requests/s (each commit writes ~10 KB of WAL), which
  // was the p90-p99 of 13-36 ms of bench/loadgen http (now 0.75 / 3.1 ms).
  // An idle pass is a no-op.
  std::unique_lock lock(checkpoint_mu_);
  while (!checkpoint_cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return stopping_; })) {
    lock.unlock();
    // PASSIVE: copies what it can without blocking the writer or readers
    // (the WAL hook in the constructor bounds the WAL when this falls behind).
    int wal_frames = 0, copied = 0;
    const int64_t t0 = mono_ns();
    const int rc = sqlite3_wal_checkpoint_v2(checkpointer_db_->get(), nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                             &wal_frames, &copied);
    metrics().time(StageTimer::kCheckpoint, mono_ns() - t0);
    if (rc != SQLITE_BUSY && (rc != SQLITE_OK || wal_frames < 0))  // busy: the writer is restarting the WAL
      spdlog::warn("catalog: WAL checkpoint failed: {} (frames {})", sqlite3_errmsg(checkpointer_db_->get()),
                   wal_frames);
    lock.lock();
  }
}

std::string SqliteCatalog::files_gone() const {
  const auto dir = file_id(data_dir_);
  if (dir.second == 0) return "data dir " + data_dir_ + " removed";
  if (dir != dir_id_) return "data dir " + data_dir_ + " replaced";
  const auto file = file_id(path_);
  if (file.second == 0) return "catalog " + path_ + " removed";
  if (file != file_id_) return "catalog " + path_ + " replaced";
  return {};
}

Status SqliteCatalog::apply(const std::vector<ClusterUpdate>& updates, std::vector<bool>* created) {
  std::vector<bool>& is_new = *created;
  is_new.assign(updates.size(), false);
  if (updates.empty()) return {};
  if (gone_) return Status::unavailable("store unavailable: " + health());
  Stmt& count = *count_;
  Stmt& example = *example_;
  tx_->begin();
  try {
    for (size_t i = 0; i < updates.size(); ++i) {
      const auto& u = updates[i];
      // A cluster with all its examples stored is neither new nor owed an
      // example: one UPDATE (the count lookup is skipped), unless the row
      // went away behind this cache (a migration's rewrite), which the
      // change count shows.
      if (u.examples.empty() && saturated_.count(u.cluster_id)) {
        Stmt& up = *update_;
        up.reset();
        up.bind(1, as_i64(u.cluster_id)).bind(2, static_cast<int64_t>(u.count)).bind(3, u.last_ms);
        up.step();
        up.reset();
        if (sqlite3_changes(writer_->get()) == 1) continue;
        saturated_.erase(u.cluster_id);
      }
      count.reset();
      count.bind(1, as_i64(u.cluster_id));
      const bool known = count.step();
      const int64_t before = known ? count.col_int(0) : 0;
      count.reset();
      Stmt& write = known ? *update_ : *insert_;
      write.reset();
      if (known) {
        write.bind(1, as_i64(u.cluster_id)).bind(2, static_cast<int64_t>(u.count)).bind(3, u.last_ms);
      } else {
        write.bind(1, as_i64(u.cluster_id))
            .bind(2, as_i64(u.template_id))
            .bind(3, u.template_text)
            .bind(4, static_cast<int64_t>(u.count))
            .bind(5, u.first_ms)
            .bind(6, u.last_ms);
      }
      write.step();
      write.reset();
      is_new[i] = before == 0;
      if (before + static_cast<int64_t>(u.count) >= max_examples_) {
        if (saturated_.size() >= 1000000) saturated_.clear();  // bounded: forgetting costs one lookup again
        saturated_.insert(u.cluster_id);
      }
      // Keep the first max_examples lines of the cluster's life.
      for (size_t e = 0; e < u.examples.size() && before + static_cast<int64_t>(e) < max_examples_; ++e) {
        example.reset();
        example.bind(1, as_i64(u.cluster_id))
            .bind(2, before + static_cast<int64_t>(e))
            .bind(3, u.examples[e].first)
            .bind(4, labels_json(u.examples[e].second).dump())
            .bind(5, u.last_ms);
        example.step();
        example.reset();
      }
    }
    tx_->commit();
  } catch (const sqlite::Error& e) {
    tx_->rollback();
    const std::string fault = sqlite::storage_fault(e.code);
    if (fault.empty()) throw;
    // Below the database: nothing of this group is stored, so none of it is
    // acknowledged (503 and an error line per line), and /readyz says why.
    set_unavailable(fault + ": " + e.what());
    is_new.assign(updates.size(), false);
    return Status::unavailable("store unavailable: " + fault + " (" + e.what() + ")");
  } catch (...) {
    tx_->rollback();
    throw;
  }
  if (failing_.load(std::memory_order_relaxed)) set_unavailable({});
  clusters_.fetch_add(std::count(is_new.begin(), is_new.end(), true), std::memory_order_relaxed);
  if (restart_wal_.exchange(false, std::memory_order_relaxed)) {
    const int64_t t0 = mono_ns();
    const int rc = sqlite3_wal_checkpoint_v2(writer_->get(), nullptr, SQLITE_CHECKPOINT_RESTART, nullptr, nullptr);
    metrics().time(StageTimer::kCheckpoint, mono_ns() - t0);
    if (rc != SQLITE_OK && rc != SQLITE_BUSY) spdlog::warn("catalog: WAL restart failed: {}", sqlite3_errmsg(writer_->get()));
  }
  return {};
}

void SqliteCatalog::set_unavailable(std::string why) {
  std::lock_guard lock(unavailable_mu_);
  if (why.empty() && !unavailable_.empty()) spdlog::info("catalog: writes work again ({})", unavailable_);
  if (!why.empty() && unavailable_.empty()) spdlog::error("catalog: {}; lines are refused until writes work", why);
  unavailable_ = std::move(why);
  failing_.store(!unavailable_.empty(), std::memory_order_relaxed);
}

std::string SqliteCatalog::health() const {
  std::lock_guard lock(unavailable_mu_);
  return unavailable_;
}

namespace {

// meta rows as JSON (null when absent or not JSON).
json read_meta_json(sqlite::Db& db, const char* key) {
  Stmt q(db, "SELECT value FROM meta WHERE key = ?1");
  q.bind(1, std::string_view(key));
  if (!q.step()) return nullptr;
  json j = json::parse(q.col_text(0), nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

void write_meta(sqlite::Db& db, const char* key, const std::string& value) {
  Stmt(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)").bind(1, std::string_view(key)).bind(2, value).step();
}

// Appends `entry` to the JSON array in meta `key`, keeping the last `keep`.
void append_meta(sqlite::Db& db, const char* key, json entry, size_t keep) {
  json list = read_meta_json(db, key);
  if (!list.is_array()) list = json::array();
  list.push_back(std::move(entry));
  while (list.size() > keep) list.erase(list.begin());
  write_meta(db, key, list.dump());
}

// The contract the catalog is under from now on, and its place in the history.
void write_contract(sqlite::Db& db, const std::string& contract, const std::string& digest) {
  write_meta(db, "contract", json{{"digest", digest}, {"contract", json::parse(contract)}}.dump());
  append_meta(db, "contract_history", {{"digest", digest}, {"since", format_time_ms(now_ms())}}, 100);
}

}  // namespace

std::string SqliteCatalog::stored_digest() {
  std::lock_guard lock(reader_mu_);
  json c = read_meta_json(*reader_, "contract");
  return c.is_object() ? c.value("digest", std::string()) : std::string();
}

void SqliteCatalog::record_contract(const std::string& contract, const std::string& digest) {
  sqlite::Db db(path_, "catalog");
  sqlite::Transaction tx(db);
  write_contract(db, contract, digest);
  tx.commit();
}

ContractHistory SqliteCatalog::contract_history() {
  std::lock_guard lock(reader_mu_);
  const json h = read_meta_json(*reader_, "contract_history");
  const json m = read_meta_json(*reader_, "migrations");
  ContractHistory out;
  if (h.is_array())
    for (const auto& e : h)
      if (e.is_object()) out.contracts.push_back({e.value("digest", std::string()), e.value("since", std::string())});
  if (m.is_array())
    for (const auto& r : m) out.migrations.push_back(r.dump());
  return out;
}

std::vector<StoredCluster> SqliteCatalog::read_all() {
  std::lock_guard lock(reader_mu_);
  sqlite::Transaction tx(*reader_, /*immediate=*/false);  // one snapshot
  std::vector<StoredCluster> out;
  std::unordered_map<int64_t, size_t> at;
  Stmt c(*reader_,
         "SELECT cluster_id, template_id, template, count, first_seen_ms, last_seen_ms, alert_pending FROM clusters"
         " ORDER BY cluster_id");
  while (c.step()) {
    StoredCluster sc;
    sc.cluster_id = as_u64(c.col_int(0));
    sc.template_id = as_u64(c.col_int(1));
    sc.template_text = c.col_text(2);
    sc.count = static_cast<uint64_t>(c.col_int(3));
    sc.first_ms = c.col_int(4);
    sc.last_ms = c.col_int(5);
    sc.alert_pending = c.col_int(6) != 0;
    at.emplace(c.col_int(0), out.size());
    out.push_back(std::move(sc));
  }
  Stmt e(*reader_, "SELECT cluster_id, text, labels, ts_ms FROM examples ORDER BY cluster_id, seq");
  while (e.step()) {
    auto it = at.find(e.col_int(0));
    if (it == at.end()) continue;
    out[it->second].examples.push_back({e.col_text(1), e.col_text(2), e.col_int(3)});
  }
  tx.commit();
  return out;
}

void SqliteCatalog::commit_migration(const MigrationPlan& plan) {
  // Its own connection: the writer's belongs to the state thread, whose
  // writes are refused meanwhile (the migrator closed the write gate).
  sqlite::Db db(path_, "catalog migration");
  sqlite::Transaction tx(db);
  db.exec("DELETE FROM clusters; DELETE FROM examples;");
  Stmt ins(db,
           "INSERT INTO clusters(cluster_id, template_id, template, count, first_seen_ms, last_seen_ms, alert_pending)"
           " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  Stmt ex(db, "INSERT INTO examples(cluster_id, seq, text, labels, ts_ms) VALUES(?1, ?2, ?3, ?4, ?5)");
  for (const auto& c : plan.clusters) {
    ins.bind(1, as_i64(c.cluster_id))
        .bind(2, as_i64(c.template_id))
        .bind(3, c.template_text)
        .bind(4, static_cast<int64_t>(c.count))
        .bind(5, c.first_ms)
        .bind(6, c.last_ms)
        .bind(7, int64_t{c.alert_pending ? 1 : 0})
        .step();
    ins.reset();
    for (size_t i = 0; i < c.examples.size(); ++i) {
      const auto& e = c.examples[i];
      ex.bind(1, as_i64(c.cluster_id)).bind(2, static_cast<int64_t>(i)).bind(3, e.text).bind(4, e.labels_json).bind(5, e.ts_ms).step();
      ex.reset();
    }
  }
  // Ids of earlier contracts that pointed at an id this migration changed
  // now point at what it became (its largest share), so every id a user
  // ever saw answers.
  std::unordered_map<uint64_t, const IdMapping*> primary;
  for (const auto& m : plan.map) {
    auto [it, added] = primary.emplace(m.old_id, &m);
    if (!added && m.share > it->second->share) it->second = &m;
  }
  {
    std::vector<std::pair<int64_t, int64_t>> chained;  // (older id, the id it pointed at)
    Stmt q(db, "SELECT old_id, new_id FROM id_map");
    while (q.step())
      if (primary.count(as_u64(q.col_int(1)))) chained.emplace_back(q.col_int(0), q.col_int(1));
    Stmt up(db, "UPDATE OR REPLACE id_map SET new_id = ?3 WHERE old_id = ?1 AND new_id = ?2");
    for (const auto& [o, n] : chained) {
      up.bind(1, o).bind(2, n).bind(3, as_i64(primary[as_u64(n)]->new_id)).step();
      up.reset();
    }
  }
  Stmt map(db, "INSERT OR REPLACE INTO id_map(old_id, new_id, share) VALUES(?1, ?2, ?3)");
  for (const auto& m : plan.map) {
    map.bind(1, as_i64(m.old_id)).bind(2, as_i64(m.new_id)).bind_double(3, m.share).step();
    map.reset();
  }
  // A current id is never also an old one.
  db.exec("DELETE FROM id_map WHERE old_id IN (SELECT cluster_id FROM clusters)");
  write_contract(db, plan.contract, plan.digest);
  append_meta(db, "migrations", json::parse(plan.report), 20);
  tx.commit();
  clusters_.store(static_cast<int64_t>(plan.clusters.size()), std::memory_order_relaxed);
}

std::vector<IdMapping> SqliteCatalog::migrated(uint64_t old_id) {
  std::lock_guard lock(reader_mu_);
  std::vector<IdMapping> out;
  Stmt q(*reader_, "SELECT new_id, share FROM id_map WHERE old_id = ?1 ORDER BY share DESC, new_id");
  q.bind(1, as_i64(old_id));
  while (q.step()) out.push_back({old_id, as_u64(q.col_int(0)), q.col_double(1)});
  return out;
}

std::vector<std::string> SqliteCatalog::curation_log() {
  std::lock_guard lock(curation_mu_);
  std::vector<std::string> out;
  Stmt q(*curation_db_, "SELECT seq, action FROM curation ORDER BY seq");
  while (q.step()) {
    if (q.col_int(0) != static_cast<int64_t>(out.size()) + 1)
      throw sqlite::Error("catalog: the curation log misses action " + std::to_string(out.size() + 1), SQLITE_CORRUPT);
    out.push_back(q.col_text(1));
  }
  return out;
}

int64_t SqliteCatalog::curation_size() {
  std::lock_guard lock(curation_mu_);
  Stmt q(*curation_db_, "SELECT count(*) FROM curation");
  q.step();
  return q.col_int(0);
}

bool SqliteCatalog::append_curation(int64_t expected, const std::string& text) {
  std::lock_guard lock(curation_mu_);
  sqlite::Transaction tx(*curation_db_);  // immediate: the count and the insert see one log
  int64_t have = 0;
  {
    Stmt n(*curation_db_, "SELECT count(*) FROM curation");
    n.step();
    have = n.col_int(0);
  }
  if (have != expected) return false;
  {
    Stmt ins(*curation_db_, "INSERT INTO curation(seq, action) VALUES(?1, ?2)");
    ins.bind(1, expected + 1).bind(2, text);
    ins.step();
  }
  tx.commit();
  return true;
}

void SqliteCatalog::flush() {
  if (gone_) return;
  if (std::string gone = files_gone(); !gone.empty()) {
    // What is written now would vanish with the unlinked files: refused
    // until a restart opens a catalog where the data dir is.
    gone_ = true;
    set_unavailable(gone + " while running: restart to open a new catalog, or restore the data dir");
    return;
  }
  if (!failing_.load(std::memory_order_relaxed)) return;
  try {
    tx_->begin();
    try {
      Stmt probe(*writer_, "INSERT OR REPLACE INTO meta(key, value) VALUES('write_probe_ms', ?1)");
      probe.bind(1, now_ms());
      probe.step();
      tx_->commit();
    } catch (...) {
      tx_->rollback();
      throw;
    }
    set_unavailable({});
  } catch (const sqlite::Error& e) {
    if (const std::string fault = sqlite::storage_fault(e.code); !fault.empty()) set_unavailable(fault + ": " + e.what());
  }
}

void SqliteCatalog::mark_alerted(const std::vector<uint64_t>& ids) {
  if (ids.empty()) return;
  Stmt u(*writer_, "UPDATE clusters SET alert_pending = 0 WHERE cluster_id = ?1");
  tx_->begin();
  try {
    for (uint64_t id : ids) {
      u.reset();
      u.bind(1, as_i64(id));
      u.step();
    }
    tx_->commit();
  } catch (...) {
    tx_->rollback();
    throw;
  }
}

std::vector<PendingNewCluster> SqliteCatalog::pending_new_clusters() {
  std::vector<PendingNewCluster> out;
  Stmt q(*writer_,
         "SELECT c.cluster_id, c.template, c.first_seen_ms, e.text, e.labels FROM clusters c"
         " LEFT JOIN examples e ON e.cluster_id = c.cluster_id AND e.seq = 0 WHERE c.alert_pending = 1");
  while (q.step()) {
    PendingNewCluster p;
    p.cluster_id = static_cast<uint64_t>(q.col_int(0));
    p.template_text = q.col_text(1);
    p.first_seen_ms = q.col_int(2);
    p.example = q.col_text(3);
    json labels = json::parse(q.col_text(4), nullptr, false);
    if (labels.is_object())
      for (auto it = labels.begin(); it != labels.end(); ++it)
        if (it.value().is_string()) p.labels.emplace_back(it.key(), it.value().get<std::string>());
    out.push_back(std::move(p));
  }
  return out;
}

ClusterPage SqliteCatalog::list(const ClusterQuery& query) {
  const std::string& q = query.text;
  const auto& label = query.label;
  const char* order = query.sort == ClusterSort::kLastSeen    ? " ORDER BY last_seen_ms DESC, cluster_id"
                      : query.sort == ClusterSort::kFirstSeen ? " ORDER BY first_seen_ms DESC, cluster_id"
                                                             : " ORDER BY count DESC, cluster_id";
  // instr(lower(...)) instead of LIKE: no wildcard escaping to get wrong.
  std::string where = q.empty() ? "" : " WHERE instr(lower(template), lower(?3)) > 0";
  const std::string label_sql =
      " EXISTS (SELECT 1 FROM examples e, json_each(e.labels) j WHERE e.cluster_id = clusters.cluster_id"
      " AND j.key = ?4 AND j.value = ?5)";
  if (!label.first.empty()) where += (where.empty() ? " WHERE" : " AND") + label_sql;
  std::lock_guard lock(reader_mu_);
  ClusterPage out;
  sqlite::Transaction tx(*reader_, /*immediate=*/false);
  const std::string sql = "SELECT cluster_id, template_id, template, count, first_seen_ms, last_seen_ms FROM clusters" +
                          where + order + " LIMIT ?1 OFFSET ?2";
  Stmt s(*reader_, sql.c_str());
  s.bind(1, query.limit).bind(2, query.offset);
  if (!q.empty()) s.bind(3, q);
  if (!label.first.empty()) s.bind(4, label.first).bind(5, label.second);
  while (s.step()) out.rows.push_back(cluster_row(s));
  // The same WHERE (numbered parameters may leave gaps).
  const std::string count_sql = "SELECT count(*) FROM clusters" + where;
  Stmt t(*reader_, count_sql.c_str());
  if (!q.empty()) t.bind(3, q);
  if (!label.first.empty()) t.bind(4, label.first).bind(5, label.second);
  t.step();
  out.total = t.col_int(0);
  tx.commit();
  return out;
}

std::vector<uint64_t> SqliteCatalog::with_label(const std::string& key, const std::string& value) {
  std::lock_guard lock(reader_mu_);
  std::vector<uint64_t> out;
  sqlite::Transaction tx(*reader_, /*immediate=*/false);
  Stmt s(*reader_,
         "SELECT DISTINCT e.cluster_id FROM examples e, json_each(e.labels) j WHERE j.key = ?1 AND j.value = ?2");
  s.bind(1, key).bind(2, value);
  while (s.step()) out.push_back(static_cast<uint64_t>(s.col_int(0)));
  tx.commit();
  return out;
}

std::vector<ClusterRow> SqliteCatalog::rows(const std::vector<uint64_t>& ids) {
  std::lock_guard lock(reader_mu_);
  std::vector<ClusterRow> out;
  sqlite::Transaction tx(*reader_, /*immediate=*/false);
  Stmt s(*reader_,
         "SELECT cluster_id, template_id, template, count, first_seen_ms, last_seen_ms FROM clusters"
         " WHERE cluster_id = ?1");
  for (uint64_t id : ids) {
    s.reset();
    s.bind(1, as_i64(id));
    if (s.step()) out.push_back(cluster_row(s));
  }
  tx.commit();
  return out;
}

std::optional<ClusterDetail> SqliteCatalog::get(uint64_t cluster_id) {
  std::lock_guard lock(reader_mu_);
  sqlite::Transaction tx(*reader_, /*immediate=*/false);
  std::optional<ClusterDetail> out;
  Stmt q(*reader_,
         "SELECT cluster_id, template_id, template, count, first_seen_ms, last_seen_ms FROM clusters"
         " WHERE cluster_id = ?1");
  q.bind(1, as_i64(cluster_id));
  if (q.step()) {
    out.emplace();
    out->row = cluster_row(q);
    Stmt e(*reader_, "SELECT text, labels, ts_ms FROM examples WHERE cluster_id = ?1 ORDER BY seq");
    e.bind(1, as_i64(cluster_id));
    while (e.step()) out->examples.push_back({e.col_text(0), e.col_text(1), e.col_int(2)});
  }
  tx.commit();
  return out;
}

void SqliteCatalog::checkpoint() {
  sqlite3_wal_checkpoint_v2(writer_->get(), nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
}

}  // namespace logsift
