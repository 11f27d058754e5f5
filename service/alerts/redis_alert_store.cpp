#include "service/alerts/redis_alert_store.h"

#include <random>

#include "lsh/lsh.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "pipeline/core/metrics.h"
#include "pipeline/core/time.h"

namespace logsift {

using json = nlohmann::json;
using redis::Reply;

namespace {

constexpr const char* kGroup = "delivery";

// KEYS: 1 ob:ID, 2 ob:all, 3 ob:st:pending, 4 outbox.
// ARGV: 1 ID, 2 subscription, 3 created ms, 4 payload. 1: added, 0: known.
constexpr const char* kEnqueue = R"lua(
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'sub', ARGV[2], 'status', 'pending', 'attempts', 0, 'last_status', 0,
           'last_error', '', 'created', ARGV[3], 'next', ARGV[3], 'updated', ARGV[3], 'payload', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
redis.call('XADD', KEYS[4], '*', 'id', ARGV[1])
return 1
)lua";

// A pending row ends (delivered or failed) and its stream entry is acked.
// KEYS: 1 ob:ID, 2 ob:st:pending, 3 ob:st:<status>, 4 ob:done, 5 outbox.
// ARGV: 1 ID, 2 status, 3 attempts, 4 last status, 5 last error, 6 now ms,
// 7 stream entry id ('' = none), 8 group.
constexpr const char* kFinish = R"lua(
if redis.call('HGET', KEYS[1], 'status') == 'pending' then
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'attempts', ARGV[3], 'last_status', ARGV[4],
             'last_error', ARGV[5], 'updated', ARGV[6])
  local created = redis.call('HGET', KEYS[1], 'created')
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZADD', KEYS[3], created, ARGV[1])
  redis.call('ZADD', KEYS[4], ARGV[6], ARGV[1])
end
if ARGV[7] ~= '' then
  redis.call('XACK', KEYS[5], ARGV[8], ARGV[7])
  redis.call('XDEL', KEYS[5], ARGV[7])
end
return 1
)lua";

// KEYS: 1 ob:ID. ARGV: 1 attempts, 2 last status, 3 last error, 4 next ms, 5 now ms.
constexpr const char* kReschedule = R"lua(
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 0 end
redis.call('HSET', KEYS[1], 'attempts', ARGV[1], 'last_status', ARGV[2], 'last_error', ARGV[3],
           'next', ARGV[4], 'updated', ARGV[5])
return 1
)lua";

// failed -> pending, sent again. KEYS: 1 ob:ID, 2 ob:st:failed,
// 3 ob:st:pending, 4 ob:done, 5 outbox. ARGV: 1 ID, 2 now ms.
constexpr const char* kRetry = R"lua(
if redis.call('HGET', KEYS[1], 'status') ~= 'failed' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'pending', 'attempts', 0, 'next', ARGV[2], 'updated', ARGV[2])
local created = redis.call('HGET', KEYS[1], 'created')
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], created, ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('XADD', KEYS[5], '*', 'id', ARGV[1])
return 1
)lua";

// Deletes a row if it is (still) finished before ARGV[2], or if it is
// pending for subscription ARGV[3] (ARGV[2] = ''). KEYS: 1 ob:ID, 2 ob:all,
// 3..5 ob:st:pending / delivered / failed, 6 ob:done. ARGV: 1 ID.
constexpr const char* kDrop = R"lua(
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return 0 end
if ARGV[2] ~= '' then
  if st == 'pending' then return 0 end
  if tonumber(redis.call('HGET', KEYS[1], 'updated')) >= tonumber(ARGV[2]) then return 0 end
elseif st ~= 'pending' or redis.call('HGET', KEYS[1], 'sub') ~= ARGV[3] then
  return 0
end
redis.call('DEL', KEYS[1])
for k = 2, 6 do redis.call('ZREM', KEYS[k], ARGV[1]) end
return 1
)lua";

void check(const Reply& r, const char* what) { redis::check_reply(r, "redis alert store", what); }

// HGETALL's flat field/value array -> a row (nullopt: no such hash).
std::optional<OutboxRow> to_row(const std::string& id, const Reply& r) {
  if (r.type != Reply::Type::kArray || r.elements.empty()) return std::nullopt;
  OutboxRow row;
  row.id = id;
  for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
    const std::string& f = r.elements[i].str;
    const std::string& v = r.elements[i + 1].str;
    if (f == "sub") row.subscription_id = v;
    else if (f == "status") row.status = v;
    else if (f == "attempts") row.attempts = static_cast<int>(redis::to_int(v));
    else if (f == "last_status") row.last_status = static_cast<int>(redis::to_int(v));
    else if (f == "last_error") row.last_error = v;
    else if (f == "created") row.created_ms = redis::to_int(v);
    else if (f == "next") row.next_attempt_ms = redis::to_int(v);
    else if (f == "updated") row.updated_ms = redis::to_int(v);
    else if (f == "payload") row.payload = v;
  }
  return row;
}

std::optional<Subscription> to_sub(const Reply& r) {
  if (r.type != Reply::Type::kString) return std::nullopt;
  json j = json::parse(r.str, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  Subscription s;
  s.id = j.value("id", "");
  s.url = j.value("url", "");
  s.secret = j.value("secret", "");
  s.format = j.value("format", "logsift");
  s.rules = j.value("rules", json::array());
  s.created_ms = j.value("created_ms", int64_t{0});
  return s;
}

std::vector<std::string> eval(const char* script, std::vector<std::string> keys, std::vector<std::string> args) {
  std::vector<std::string> cmd = {"EVAL", script, std::to_string(keys.size())};
  cmd.insert(cmd.end(), std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end()));
  cmd.insert(cmd.end(), std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
  return cmd;
}

}  // namespace

RedisAlertStore::RedisAlertStore(const redis::Url& url, const redis::Options& options, std::string key_prefix,
                                 int64_t claim_idle_ms, std::string consumer)
    : prefix_(std::move(key_prefix)),
      claim_idle_ms_(claim_idle_ms),
      consumer_(consumer.empty() ? redis::process_name() : std::move(consumer)),
      conn_(url, options) {
  create_group();
  // The first replica on an empty prefix sets the marker; the others find it
  // and remember its epoch.
  adopt_epoch_locked();
  spdlog::info("alerts: redis {} (key prefix \"{}\"), delivery consumer {}", url.redacted(), prefix_, consumer_);
}

RedisAlertStore::~RedisAlertStore() = default;

void RedisAlertStore::create_group() {
  // From id 0: rows enqueued before any group existed are sent too. One
  // that exists already (another replica made it) is fine.
  Reply r = call({{"XGROUP", "CREATE", key("outbox"), kGroup, "0", "MKSTREAM"}}).front();
  if (r.is_error() && r.str.rfind("BUSYGROUP", 0) != 0) check(r, "XGROUP CREATE");
}

std::vector<Reply> RedisAlertStore::call(const std::vector<std::vector<std::string>>& cmds) {
  // Every write here is safe to repeat (the scripts check the row's state
  // first; a claim reads back its owner). redis::Error propagates: the
  // caller logs and tries again later.
  return conn_.pipeline_repeatable(cmds);
}

Reply RedisAlertStore::call1(const std::vector<std::string>& cmd) {
  Reply r = call({cmd}).front();
  check(r, cmd.front().c_str());
  return r;
}

void RedisAlertStore::add_subscription(const Subscription& s) {
  json j = {{"id", s.id},         {"url", s.url},     {"secret", s.secret},
            {"format", s.format}, {"rules", s.rules}, {"created_ms", s.created_ms}};
  std::lock_guard lock(mu_);
  auto r = call({{"HSET", key("subs"), s.id, j.dump()}, {"INCR", key("subs:version")}});  // HSET: same id, same value
  for (auto& x : r) check(x, "add subscription");
  known_subs_[s.id] = j.dump();
}

std::vector<Subscription> RedisAlertStore::subscriptions() {
  Reply r;
  {
    std::lock_guard lock(mu_);
    // A Redis that lost its data has no subscriptions: the copy here must
    // re-seed it, not be replaced by that empty list.
    check_marker_locked(now_ms(), /*force=*/true);
    r = call1({"HVALS", key("subs")});
    known_subs_.clear();
    for (const auto& e : r.elements)
      if (auto s = to_sub(e)) known_subs_[s->id] = e.str;
  }
  std::vector<Subscription> out;
  for (const auto& e : r.elements)
    if (auto s = to_sub(e)) out.push_back(std::move(*s));
  std::sort(out.begin(), out.end(), [](const Subscription& a, const Subscription& b) {
    return std::tie(a.created_ms, a.id) < std::tie(b.created_ms, b.id);
  });
  return out;
}

std::optional<Subscription> RedisAlertStore::subscription(const std::string& id) {
  std::lock_guard lock(mu_);
  auto s = to_sub(call1({"HGET", key("subs"), id}));
  // One this replica knows but Redis does not: deleted by another replica,
  // or Redis lost its data and the loss is not re-seeded yet. Checked now,
  // not at the next pump, so that delivery never dead-letters the alerts of
  // a subscription that is only missing for a moment.
  if (!s && known_subs_.count(id)) {
    check_marker_locked(now_ms(), /*force=*/true);
    s = to_sub(call1({"HGET", key("subs"), id}));
  }
  return s;
}

bool RedisAlertStore::delete_subscription(const std::string& id) {
  std::lock_guard lock(mu_);
  auto r = call({{"HDEL", key("subs"), id}, {"INCR", key("subs:version")}, {"ZRANGE", key("ob:st:pending"), "0", "-1"}});
  for (auto& x : r) check(x, "delete subscription");
  known_subs_.erase(id);
  if (r[0].integer == 0) return false;
  // Its pending rows go with it (their stream entries, if still unread, are
  // acked when read: the row is gone).
  std::vector<std::vector<std::string>> cmds;
  for (const auto& e : r[2].elements)
    cmds.push_back(eval(kDrop,
                        {row_key(e.str), key("ob:all"), key("ob:st:pending"), key("ob:st:delivered"),
                         key("ob:st:failed"), key("ob:done")},
                        {e.str, "", id}));
  if (!cmds.empty())
    for (auto& x : call(cmds)) check(x, "drop pending rows");
  return true;
}

int64_t RedisAlertStore::subscription_count() {
  std::lock_guard lock(mu_);
  return call1({"HLEN", key("subs")}).integer;
}

int64_t RedisAlertStore::subscriptions_version() {
  std::lock_guard lock(mu_);
  Reply r = call1({"GET", key("subs:version")});
  return r.is_nil() ? 0 : redis::to_int(r.str);
}

void RedisAlertStore::enqueue(const std::vector<OutboxRow>& rows) {
  if (rows.empty()) return;
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(rows.size());
  for (const auto& r : rows)
    cmds.push_back(eval(kEnqueue, {row_key(r.id), key("ob:all"), key("ob:st:pending"), key("outbox")},
                        {r.id, r.subscription_id, std::to_string(r.created_ms), r.payload}));
  std::lock_guard lock(mu_);
  for (auto& x : call(cmds)) check(x, "enqueue");
}

void RedisAlertStore::adopt_epoch_locked() {
  // A fresh epoch, set only where none is: every replica adopts the one
  // that won.
  std::random_device rd;
  const std::string mine = lsh::format_id((static_cast<uint64_t>(rd()) << 32) | rd()) + ":" + redis::process_name();
  auto r = call({{"SET", key("deployment"), mine, "NX"}, {"GET", key("deployment")}});
  check(r[0], "SET deployment");
  check(r[1], "GET deployment");
  epoch_ = r[1].is_nil() ? mine : r[1].str;
}

void RedisAlertStore::check_marker_locked(int64_t now_ms, bool force) {
  if (!force && now_ms < next_marker_check_ms_) return;
  next_marker_check_ms_ = now_ms + 1000;
  // Gone: this replica is the first to see the loss. Another epoch: another
  // replica saw it first and re-seeded what it held; this one has lost the
  // same data, and holds subscriptions and alerts of its own to re-seed.
  const Reply marker = call1({"GET", key("deployment")});
  if (!marker.is_nil() && marker.str == epoch_) return;
  const bool first = marker.is_nil();
  {
    std::lock_guard f(fault_mu_);
    if (fault_.empty()) {
      metrics().redis_data_lost.inc();
      spdlog::error("alerts: the marker {} is {}: Redis lost its data (restarted without persistence, flushed, or "
                    "failed over to an empty replica). The catalog's clusters and counts, the subscriptions and the "
                    "pending alerts stored there are gone; re-seeding {} subscriptions and {} alerts held here",
                    key("deployment"), first ? "gone" : "of another epoch (a replica re-seeded it)",
                    known_subs_.size(), owned_.size());
    }
    fault_ = "redis lost its data; re-seeding subscriptions and alerts";
  }
  reseed_locked();
  std::lock_guard f(fault_mu_);
  fault_.clear();
  spdlog::warn("alerts: re-seeded redis: {} subscriptions, {} pending alerts, the delivery group", known_subs_.size(),
               owned_.size());
}

void RedisAlertStore::reseed_locked() {
  std::vector<std::vector<std::string>> cmds;
  for (const auto& [id, value] : known_subs_) cmds.push_back({"HSETNX", key("subs"), id, value});
  cmds.push_back({"INCR", key("subs:version")});
  for (auto& x : call(cmds)) check(x, "re-seed subscriptions");
  create_group();
  // The alerts this replica held are written again as new pending rows (the
  // same ids, so receivers de-duplicate a second copy) and read back from
  // the stream like any other.
  cmds.clear();
  for (const auto& [id, o] : owned_)
    cmds.push_back(eval(kEnqueue, {row_key(id), key("ob:all"), key("ob:st:pending"), key("outbox")},
                        {id, o.row.subscription_id, std::to_string(o.row.created_ms), o.row.payload}));
  if (!cmds.empty())
    for (auto& x : call(cmds)) check(x, "re-seed alerts");
  owned_.clear();
  adopt_epoch_locked();
}

std::string RedisAlertStore::fault() const {
  std::lock_guard f(fault_mu_);
  return fault_;
}

void RedisAlertStore::claim_locked(int64_t now_ms) {
  check_marker_locked(now_ms, /*force=*/false);
  std::vector<std::pair<std::string, std::string>> taken;  // (entry id, alert id)
  auto take = [&](const Reply& entries) {
    for (const auto& e : entries.elements) {
      if (e.type != Reply::Type::kArray || e.elements.size() < 2) continue;
      const std::string& entry = e.elements[0].str;
      std::string id;
      const auto& fields = e.elements[1].elements;
      for (size_t i = 0; i + 1 < fields.size(); i += 2)
        if (fields[i].str == "id") id = fields[i + 1].str;
      taken.emplace_back(entry, id);
    }
  };
  // Refresh what we hold first, so none of it looks idle to the others.
  if (!owned_.empty() && now_ms >= next_heartbeat_ms_) {
    std::vector<std::string> cmd = {"XCLAIM", key("outbox"), kGroup, consumer_, "0"};
    for (const auto& [id, o] : owned_) cmd.push_back(o.entry);
    cmd.push_back("JUSTID");
    call1(cmd);
    next_heartbeat_ms_ = now_ms + std::max<int64_t>(claim_idle_ms_ / 4, 100);
  }
  const std::vector<std::string> read = {"XREADGROUP", "GROUP", kGroup, consumer_, "COUNT", "256",
                                         "STREAMS", key("outbox"), ">"};
  Reply fresh = call({read}).front();
  if (fresh.is_error() && fresh.str.rfind("NOGROUP", 0) == 0) {
    // The stream or its group is gone: Redis restarted without persistence,
    // was flushed, or failed over to an empty replica. Delivery would stay
    // stuck on this error until a restart; the group is made again (from
    // id 0: whatever was enqueued since is sent).
    spdlog::error("alerts: redis lost the outbox consumer group ({}); recreated it. Pending alerts enqueued before "
                  "the loss are gone with Redis's data",
                  fresh.str);
    create_group();
    fresh = call1(read);
  } else {
    check(fresh, "XREADGROUP");
  }
  if (fresh.type == Reply::Type::kArray)
    for (const auto& stream : fresh.elements)
      if (stream.elements.size() >= 2) take(stream.elements[1]);
  if (now_ms >= next_reclaim_ms_) {
    next_reclaim_ms_ = now_ms + std::max<int64_t>(claim_idle_ms_ / 4, 100);
    Reply r = call1({"XAUTOCLAIM", key("outbox"), kGroup, consumer_, std::to_string(claim_idle_ms_), "0-0", "COUNT",
                     "256"});
    if (r.elements.size() >= 2) {
      const size_t before = taken.size();
      take(r.elements[1]);
      if (taken.size() > before) metrics().alerts_taken_over.inc(taken.size() - before);
      if (taken.size() > before)
        spdlog::warn("alerts: took over {} alerts idle for {} ms (a replica stopped while holding them)",
                     taken.size() - before, claim_idle_ms_);
    }
  }
  if (taken.empty()) return;
  std::vector<std::vector<std::string>> reads;
  for (const auto& [entry, id] : taken) reads.push_back({"HGETALL", row_key(id)});
  auto rows = call(reads);
  std::vector<std::vector<std::string>> acks;
  for (size_t i = 0; i < taken.size(); ++i) {
    const auto& [entry, id] = taken[i];
    auto row = id.empty() ? std::nullopt : to_row(id, rows[i]);
    if (!row || row->status != "pending") {  // deleted with its subscription, or already finished
      acks.push_back({"XACK", key("outbox"), kGroup, entry});
      acks.push_back({"XDEL", key("outbox"), entry});
      continue;
    }
    auto [it, inserted] = owned_.try_emplace(id, Owned{entry, std::move(*row)});
    if (!inserted && it->second.entry != entry) {
      // A second entry for a row already held (a manual retry raced a
      // take-over): one is enough.
      acks.push_back({"XACK", key("outbox"), kGroup, entry});
      acks.push_back({"XDEL", key("outbox"), entry});
    }
  }
  if (!acks.empty()) call(acks);
}

std::vector<OutboxRow> RedisAlertStore::due(int64_t now_ms, size_t limit, size_t per_subscription,
                                            const Sendable& sendable) {
  std::lock_guard lock(mu_);
  claim_locked(now_ms);
  std::vector<const OutboxRow*> ready;
  for (const auto& [id, o] : owned_)
    if (o.row.next_attempt_ms <= now_ms) ready.push_back(&o.row);
  std::sort(ready.begin(), ready.end(), [](const OutboxRow* a, const OutboxRow* b) {
    return std::tie(a->next_attempt_ms, a->id) < std::tie(b->next_attempt_ms, b->id);
  });
  std::map<std::string_view, size_t> offered;  // rows offered per subscription (its oldest due first)
  std::vector<OutboxRow> out;
  for (const auto* r : ready) {
    if (out.size() >= limit) break;
    if (++offered[r->subscription_id] > per_subscription) continue;
    if (sendable(r->id, r->subscription_id)) out.push_back(*r);
  }
  return out;
}

std::optional<int64_t> RedisAlertStore::next_due(size_t /*per_subscription: the rows held here are bounded*/,
                                                 const Sendable& sendable) {
  std::lock_guard lock(mu_);
  std::optional<int64_t> next;
  for (const auto& [id, o] : owned_)
    if (sendable(id, o.row.subscription_id) && (!next || o.row.next_attempt_ms < *next)) next = o.row.next_attempt_ms;
  return next;
}

size_t RedisAlertStore::owned() {
  std::lock_guard lock(mu_);
  return owned_.size();
}

void RedisAlertStore::finish(const std::string& id, const char* status, int attempts, int last_status,
                             const std::string& error, int64_t now_ms) {
  std::lock_guard lock(mu_);
  auto it = owned_.find(id);
  const std::string entry = it == owned_.end() ? std::string() : it->second.entry;
  call1(eval(kFinish,
             {row_key(id), key("ob:st:pending"), key(std::string("ob:st:") + status), key("ob:done"), key("outbox")},
             {id, status, std::to_string(attempts), std::to_string(last_status), error, std::to_string(now_ms), entry,
              kGroup}));
  if (it != owned_.end()) owned_.erase(it);
}

void RedisAlertStore::mark_delivered(const std::string& id, int attempts, int status, int64_t now_ms) {
  finish(id, "delivered", attempts, status, "", now_ms);
}

void RedisAlertStore::mark_failed(const std::string& id, int attempts, int status, const std::string& error,
                                  int64_t now_ms) {
  finish(id, "failed", attempts, status, error, now_ms);
}

void RedisAlertStore::schedule_retry(const std::string& id, int attempts, int status, const std::string& error,
                                     int64_t next_ms, int64_t now_ms) {
  std::lock_guard lock(mu_);
  call1(eval(kReschedule, {row_key(id)},
             {std::to_string(attempts), std::to_string(status), error, std::to_string(next_ms),
              std::to_string(now_ms)}));
  if (auto it = owned_.find(id); it != owned_.end()) {
    OutboxRow& r = it->second.row;
    r.attempts = attempts;
    r.last_status = status;
    r.last_error = error;
    r.next_attempt_ms = next_ms;
    r.updated_ms = now_ms;
  }
}

bool RedisAlertStore::retry(const std::string& id, int64_t now_ms) {
  std::lock_guard lock(mu_);
  return call1(eval(kRetry,
                    {row_key(id), key("ob:st:failed"), key("ob:st:pending"), key("ob:done"), key("outbox")},
                    {id, std::to_string(now_ms)}))
             .integer == 1;
}

std::vector<OutboxRow> RedisAlertStore::rows_locked(const std::vector<std::string>& ids) {
  std::vector<std::vector<std::string>> cmds;
  for (const auto& id : ids) cmds.push_back({"HGETALL", row_key(id)});
  std::vector<OutboxRow> out;
  if (cmds.empty()) return out;
  auto replies = call(cmds);
  for (size_t i = 0; i < ids.size(); ++i)
    if (auto r = to_row(ids[i], replies[i])) out.push_back(std::move(*r));
  return out;
}

std::optional<OutboxRow> RedisAlertStore::get(const std::string& id) {
  std::lock_guard lock(mu_);
  return to_row(id, call1({"HGETALL", row_key(id)}));
}

std::vector<OutboxRow> RedisAlertStore::list(const std::string& status, int64_t limit, int64_t offset) {
  if (limit <= 0) return {};
  std::lock_guard lock(mu_);
  const std::string index = status.empty() ? key("ob:all") : key("ob:st:" + status);
  Reply r = call1({"ZRANGE", index, std::to_string(offset), std::to_string(offset + limit - 1), "REV"});
  std::vector<std::string> ids;
  for (const auto& e : r.elements) ids.push_back(e.str);
  return rows_locked(ids);
}

int64_t RedisAlertStore::count(const std::string& status) {
  std::lock_guard lock(mu_);
  return call1({"ZCARD", status.empty() ? key("ob:all") : key("ob:st:" + status)}).integer;
}

std::vector<std::pair<std::string, int64_t>> RedisAlertStore::count_by_status() {
  static const char* statuses[] = {"delivered", "failed", "pending"};
  std::vector<std::vector<std::string>> cmds;
  for (const char* s : statuses) cmds.push_back({"ZCARD", key(std::string("ob:st:") + s)});
  std::lock_guard lock(mu_);
  auto r = call(cmds);
  std::vector<std::pair<std::string, int64_t>> out;
  for (size_t i = 0; i < r.size(); ++i) {
    check(r[i], "ZCARD");
    if (r[i].integer > 0) out.emplace_back(statuses[i], r[i].integer);
  }
  return out;
}

std::vector<AlertStore::Backlog> RedisAlertStore::pending_backlog() {
  std::lock_guard lock(mu_);
  // ob:st:pending is scored by creation time: oldest first.
  const Reply ids = call1({"ZRANGE", key("ob:st:pending"), "0", std::to_string(kBacklogRows - 1)});
  std::vector<std::vector<std::string>> cmds;
  for (const auto& e : ids.elements) cmds.push_back({"HMGET", row_key(e.str), "sub", "created"});
  std::map<std::string, Backlog> by;
  if (!cmds.empty())
    for (const auto& r : call(cmds)) {
      if (r.is_error() || r.elements.size() != 2 || r.elements[0].is_nil()) continue;
      Backlog& b = by[r.elements[0].str];
      b.subscription_id = r.elements[0].str;
      const int64_t created = r.elements[1].is_nil() ? 0 : redis::to_int(r.elements[1].str);
      b.oldest_created_ms = b.pending == 0 ? created : std::min(b.oldest_created_ms, created);
      ++b.pending;
    }
  std::vector<Backlog> out;
  for (auto& [id, b] : by) out.push_back(std::move(b));
  return out;
}

bool RedisAlertStore::claim(const std::string& k, int64_t ttl_ms) {
  std::lock_guard lock(mu_);
  // GET: the owner before this call, so a retried SET that had already
  // run (its reply lost) still sees that it won.
  Reply r = call1(
      {"SET", key("claim:" + k), consumer_, "NX", "PX", std::to_string(std::max<int64_t>(ttl_ms, 1)), "GET"});
  return r.is_nil() || r.str == consumer_;
}

int64_t RedisAlertStore::prune(int64_t before_ms) {
  std::lock_guard lock(mu_);
  int64_t dropped = 0;
  std::string below = "(";  // exclusive
  below += std::to_string(before_ms);
  while (true) {
    Reply r = call1({"ZRANGE", key("ob:done"), "-inf", below, "BYSCORE", "LIMIT", "0", "500"});
    if (r.elements.empty()) return dropped;
    std::vector<std::vector<std::string>> cmds;
    for (const auto& e : r.elements)
      cmds.push_back(eval(kDrop,
                          {row_key(e.str), key("ob:all"), key("ob:st:pending"), key("ob:st:delivered"),
                           key("ob:st:failed"), key("ob:done")},
                          {e.str, std::to_string(before_ms), ""}));
    int64_t n = 0;
    for (auto& x : call(cmds)) {
      check(x, "prune");
      n += x.integer;
    }
    dropped += n;
    if (n == 0) {  // rows moved meanwhile (retried): drop them from the index scan
      for (const auto& e : r.elements) call1({"ZREM", key("ob:done"), e.str});
    }
  }
}

}  // namespace logsift
