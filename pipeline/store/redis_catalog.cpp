#include "pipeline/store/redis_catalog.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <map>
#include <cctype>
#include <random>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "lsh/lsh.h"
#include "pipeline/core/metrics.h"
#include "pipeline/core/time.h"

namespace logsift {

using json = nlohmann::json;
using redis::Reply;

namespace {

// One cluster's update, atomic in Redis (see redis_catalog.h for the keys).
// KEYS: 1 c:ID, 2 ex:ID, 3 by_count, 4 by_last, 5 by_first, 6 pending,
// 7 contract:digest, then the label sets of each example in order. ARGV:
// 1 ID, 2 template id, 3 template, 4 count, 5 first ms, 6 last ms, 7 max
// examples, 8 examples, 9 the writer's contract digest ('' = unchecked),
// then per example its JSON and how many label keys it brought. A writer
// under another contract than the store's gets the error "CONTRACT <the
// store's>" and nothing is written.
// Returns the cluster's total count: equal to ARGV[4] when this call created it.
constexpr const char* kApplyScript = R"lua(
if ARGV[9] ~= '' then
  local c = redis.call('GET', KEYS[7])
  if not c and redis.call('ZCARD', KEYS[3]) == 0 then
    redis.call('SET', KEYS[7], ARGV[9])  -- an empty store (a new one, or one that lost its data)
    c = ARGV[9]
  end
  if c ~= ARGV[9] then return redis.error_reply('CONTRACT ' .. tostring(c)) end
end
local n = tonumber(ARGV[4])
local total = redis.call('HINCRBY', KEYS[1], 'n', n)
if total == n then
  redis.call('HSET', KEYS[1], 'tid', ARGV[2], 't', ARGV[3], 'f', ARGV[5], 'l', ARGV[6])
  redis.call('ZADD', KEYS[5], ARGV[5], ARGV[1])
  redis.call('SADD', KEYS[6], ARGV[1])
else
  if tonumber(ARGV[6]) > tonumber(redis.call('HGET', KEYS[1], 'l') or '0') then
    redis.call('HSET', KEYS[1], 'l', ARGV[6])
  end
  local f = redis.call('HGET', KEYS[1], 'f')
  if f and tonumber(ARGV[5]) < tonumber(f) then
    redis.call('HSET', KEYS[1], 'f', ARGV[5])
    redis.call('ZADD', KEYS[5], ARGV[5], ARGV[1])
  end
end
redis.call('ZINCRBY', KEYS[3], n, ARGV[1])
redis.call('ZADD', KEYS[4], 'GT', ARGV[6], ARGV[1])
local have = redis.call('LLEN', KEYS[2])
local max_ex = tonumber(ARGV[7])
local a, k = 10, 8
for e = 1, tonumber(ARGV[8]) do
  local nl = tonumber(ARGV[a + 1])
  if have < max_ex then
    redis.call('RPUSH', KEYS[2], ARGV[a])
    have = have + 1
    for j = 0, nl - 1 do redis.call('SADD', KEYS[k + j], ARGV[1]) end
  end
  a = a + 2
  k = k + nl
end
return total
)lua";

void check(const Reply& r, const char* what) { redis::check_reply(r, "redis catalog", what); }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

RedisCatalog::RedisCatalog(const redis::Url& url, const redis::Options& options, std::string key_prefix,
                           int max_examples, size_t max_buffer_bytes)
    : prefix_(std::move(key_prefix)),
      url_(url),
      options_(options),
      max_examples_(max_examples),
      max_buffer_bytes_(max_buffer_bytes),
      writer_(url, options),
      reader_(url, options) {
  std::random_device rd;
  marker_ = key("applied:" + lsh::format_id((static_cast<uint64_t>(rd()) << 32) | rd()));
  auto loaded = writer_.command({"SCRIPT", "LOAD", kApplyScript});
  check(loaded, "SCRIPT LOAD");
  script_sha_ = loaded.str;
  size();  // reads the count now: the reader connects (and authenticates) at start too
  spdlog::info("catalog: redis {} (key prefix \"{}\"), {} clusters", url.redacted(), prefix_, size_.load());
}

RedisCatalog::~RedisCatalog() = default;

std::string RedisCatalog::health() const {
  if (down_.load()) return "redis unreachable";
  return contract_refused_.load() ? "the store is under another cluster-id contract than this replica's" : "";
}

std::vector<Reply> RedisCatalog::call(redis::Connection& c, const std::vector<std::vector<std::string>>& cmds) const {
  // Reads may go twice (a reader connection left from before a Redis
  // restart fails its first use); writes never: the marker decides what a
  // broken write did.
  try {
    auto r = &c == &reader_ ? c.pipeline_repeatable(cmds) : c.pipeline(cmds);
    // A Redis that answers but cannot serve (loading its data after a
    // restart, a script busy, a read-only replica, out of memory) refused
    // every write of the round trip: the store is unavailable (503, readiness
    // down), as when it does not answer, not an internal error.
    for (const Reply& reply : r)
      if (reply.is_error() && redis::transient_error(reply.str)) {
        c.close();  // the next call starts clean (script, client id)
        throw redis::Error("redis answers " + reply.str.substr(0, 80));
      }
    down_.store(false);
    return r;
  } catch (const redis::Error& e) {
    if (!down_.exchange(true)) spdlog::error("catalog: {}", e.what());
    throw;
  }
}

Status RedisCatalog::send(const std::vector<ClusterUpdate>& updates, std::vector<bool>* created) {
  std::vector<bool>& is_new = *created;
  is_new.assign(updates.size(), false);
  if (updates.empty()) return {};
  const uint64_t seq = ++seq_;
  sent_seq_ = seq;
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(updates.size() + 4);
  // A new connection (the first, or after a failure: maybe a restarted,
  // empty Redis) loads the script first, in the same round trip.
  const bool load = !writer_.connected();
  if (load) {
    cmds.push_back({"SCRIPT", "LOAD", kApplyScript});
    cmds.push_back({"CLIENT", "ID"});
  }
  // One transaction per group: a round trip cut off before EXEC ran changes
  // nothing; the marker tells whether one cut off after it did.
  cmds.push_back({"MULTI"});
  for (const auto& u : updates) {
    const std::string id = lsh::format_id(u.cluster_id);
    std::vector<std::string> keys = {key("c:" + id),    key("ex:" + id),    key("by_count"), key("by_last"),
                                     key("by_first"),   key("pending"),     key("contract:digest")};
    std::vector<std::string> args = {id,
                                     lsh::format_id(u.template_id),
                                     u.template_text,
                                     std::to_string(u.count),
                                     std::to_string(u.first_ms),
                                     std::to_string(u.last_ms),
                                     std::to_string(max_examples_)};
    // Only the examples that can still be kept travel (at most max_examples).
    const size_t n_ex = std::min(u.examples.size(), static_cast<size_t>(std::max(max_examples_, 0)));
    args.push_back(std::to_string(n_ex));
    args.push_back(digest_);
    for (size_t e = 0; e < n_ex; ++e) {
      const auto& [text, labels] = u.examples[e];
      json lj = json::object();
      for (const auto& [k, v] : labels) lj[k] = v;
      args.push_back(json{{"text", text}, {"labels", lj}, {"ts", u.last_ms}}.dump());
      args.push_back(std::to_string(labels.size()));
      for (const auto& [k, v] : labels) keys.push_back(label_key(k, v));
    }
    std::vector<std::string> cmd = {"EVALSHA", script_sha_, std::to_string(keys.size())};
    cmd.insert(cmd.end(), std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end()));
    cmd.insert(cmd.end(), std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
    cmds.push_back(std::move(cmd));
  }
  cmds.push_back({"SET", marker_, std::to_string(seq), "EX", "86400"});
  cmds.push_back({"EXEC"});
  auto all = call(writer_, cmds);
  if (load) {
    check(all.front(), "SCRIPT LOAD");
    writer_client_id_ = all[1].integer;
  }
  const Reply& exec = all.back();
  check(exec, "EXEC");
  if (exec.type != Reply::Type::kArray || exec.elements.size() != updates.size() + 1)
    throw std::runtime_error("redis catalog: EXEC returned no results");
  std::vector<Reply> replies(exec.elements.begin(), exec.elements.end() - 1);
  // A flushed script cache (SCRIPT FLUSH) fails those calls without running
  // them: load it again and send those updates again.
  std::vector<size_t> noscript;
  for (size_t i = 0; i < replies.size(); ++i)
    if (replies[i].is_error() && replies[i].str.rfind("NOSCRIPT", 0) == 0) noscript.push_back(i);
  if (!noscript.empty()) {
    auto loaded = call(writer_, {{"SCRIPT", "LOAD", kApplyScript}}).front();
    check(loaded, "SCRIPT LOAD");
    script_sha_ = loaded.str;
    std::vector<std::vector<std::string>> again;
    for (size_t i : noscript) {
      auto& cmd = cmds[i + (load ? 3 : 1)];
      cmd[1] = script_sha_;
      again.push_back(cmd);
    }
    auto retried = call(writer_, again);
    for (size_t j = 0; j < noscript.size(); ++j) replies[noscript[j]] = std::move(retried[j]);
  }
  for (size_t i = 0; i < replies.size(); ++i) {
    if (replies[i].is_error() && replies[i].str.rfind("CONTRACT", 0) == 0) {
      // Every script of the group checked the same key: none wrote.
      const std::string store = replies[i].str.substr(std::min<size_t>(9, replies[i].str.size()));
      if (!contract_refused_.exchange(true))
        spdlog::error("catalog: the store is under cluster-id contract {}, this replica serves {}: its writes are "
                      "refused (upgrade or roll back this replica)",
                      store, digest_);
      is_new.assign(updates.size(), false);
      return Status::unavailable("store unavailable: the catalog is under cluster-id contract " + store +
                                 ", this replica serves " + digest_ +
                                 ": writes are refused so that ids of two contracts never mix");
    }
    check(replies[i], "apply");
    is_new[i] = replies[i].integer == static_cast<int64_t>(updates[i].count);
  }
  if (contract_refused_.exchange(false)) spdlog::info("catalog: the store's contract is this replica's again");
  return {};
}

Status RedisCatalog::apply(const std::vector<ClusterUpdate>& updates, std::vector<bool>* created) {
  created->assign(updates.size(), false);
  unchecked_ = false;
  if (max_buffer_bytes_ == 0) return apply_unbuffered(updates, created);
  if (settle()) {
    try {
      return send(updates, created);  // refused (another contract): certainly not written, not buffered
    } catch (const std::exception& e) {
      // A broken round trip, or an error reply (a Redis still loading its
      // data answers LOADING): maybe applied, maybe not. settle() asks the
      // marker later.
      spdlog::debug("catalog: {}", e.what());
      uncertain_ = updates;
      uncertain_seq_ = sent_seq_;
      next_try_ns_ = mono_ns() + 200'000'000;
      for (const auto& u : updates) buffered_lines_ += u.count;
      metrics().redis_buffered_lines.set(static_cast<int64_t>(buffered_lines_));
      spdlog::error("catalog: Redis unreachable; buffering writes (at most {} bytes) and retrying",
                    max_buffer_bytes_);
      created->assign(updates.size(), false);
      unchecked_ = true;
      return {};  // the lines are accepted; their catalog write lands later
    }
  }
  Status st = buffer(updates);  // kUnavailable when full
  unchecked_ = st.ok();
  return st;
}

// No buffer: a line is acknowledged only once written, and refused only when
// certainly not written. A group whose round trip broke may have run; it is
// held (the state stage waits, new lines queue and then meet the overload
// limit, readiness is down) until the marker says, for at most kHoldNs.
// Past that it is refused and resolved before the next write; only a write
// that Redis runs after such a hold can count refused lines.
Status RedisCatalog::apply_unbuffered(const std::vector<ClusterUpdate>& updates, std::vector<bool>* created) {
  constexpr int64_t kHoldNs = 30'000'000'000;
  if (uncertain_) {
    std::vector<bool> ignored;
    if (resolve_uncertain(&ignored) < 0) return redis::Error("a previous write's outcome is unknown").status();
  }
  try {
    return send(updates, created);
  } catch (const redis::Error& e) {
    uncertain_ = updates;
    uncertain_seq_ = sent_seq_;
    const int64_t deadline = mono_ns() + kHoldNs;
    for (;;) {
      const int got = resolve_uncertain(created);
      if (got == 1) return {};
      if (got == 0) {
        created->assign(updates.size(), false);
        return e.status();  // certainly not written: refused
      }
      if (mono_ns() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    created->assign(updates.size(), false);
    spdlog::error("catalog: a write's outcome is still unknown after {} s of Redis not answering: its lines are "
                  "refused (if Redis runs it later, they are counted)",
                  kHoldNs / 1'000'000'000);
    return e.status();
  }
}

int RedisCatalog::resolve_uncertain(std::vector<bool>* created) {
  if (!uncertain_) return 0;
  try {
    std::vector<Reply> r;
    {
      // On the reader connection: the writer's may be the one holding the
      // write. Killing that client discards it unless it already ran.
      std::lock_guard lock(reader_mu_);
      std::vector<std::vector<std::string>> cmds;
      if (writer_client_id_ > 0) cmds.push_back({"CLIENT", "KILL", "ID", std::to_string(writer_client_id_)});
      cmds.push_back({"GET", marker_});
      std::vector<std::string> members = {"SMISMEMBER", key("pending")};
      for (const auto& u : *uncertain_) members.push_back(lsh::format_id(u.cluster_id));
      cmds.push_back(std::move(members));
      r = call(reader_, cmds);
    }
    writer_.close();  // its client is gone (or going): the next write reconnects
    writer_client_id_ = 0;
    const Reply& m = r[r.size() - 2];
    check(m, "GET marker");
    const auto& ups = *uncertain_;
    created->assign(ups.size(), false);
    if (m.is_nil() || m.str != std::to_string(uncertain_seq_)) {
      uncertain_.reset();
      return 0;
    }
    const Reply& members = r.back();
    check(members, "SMISMEMBER");
    for (size_t i = 0; i < ups.size() && i < members.elements.size(); ++i) (*created)[i] = members.elements[i].integer == 1;
    uncertain_.reset();
    return 1;
  } catch (const std::exception& e) {
    spdlog::debug("catalog: resolving an uncertain write: {}", e.what());
    return -1;
  }
}

size_t RedisCatalog::update_bytes(const ClusterUpdate& u) {
  size_t n = 96 + u.template_text.size();
  for (const auto& [text, labels] : u.examples) {
    n += 32 + text.size();
    for (const auto& [k, v] : labels) n += 64 + k.size() + v.size();
  }
  return n;
}

void RedisCatalog::merge(ClusterUpdate&& u) {
  auto [it, fresh] = buffer_index_.emplace(u.cluster_id, buffer_.size());
  if (fresh) {
    buffered_bytes_ += update_bytes(u);
    buffer_.push_back(std::move(u));
    return;
  }
  ClusterUpdate& b = buffer_[it->second];
  b.count += u.count;
  b.first_ms = std::min(b.first_ms, u.first_ms);
  b.last_ms = std::max(b.last_ms, u.last_ms);
  for (auto& e : u.examples) {
    if (static_cast<int>(b.examples.size()) >= max_examples_) break;
    buffered_bytes_ += 32 + e.first.size();
    b.examples.push_back(std::move(e));
  }
}

Status RedisCatalog::buffer(const std::vector<ClusterUpdate>& updates) {
  size_t bytes = 0;
  uint64_t lines = 0;
  for (const auto& u : updates) {
    bytes += update_bytes(u);
    lines += u.count;
  }
  if (buffered_bytes_ + bytes > max_buffer_bytes_) {
    metrics().redis_buffer_rejected.inc(lines);
    if (!full_logged_) spdlog::error("catalog: Redis unreachable and the write buffer is full ({} lines, {} bytes): "
                                     "refusing lines with 503 until Redis is back", buffered_lines_, buffered_bytes_);
    full_logged_ = true;
    return Status::unavailable("store unavailable: redis unreachable and the write buffer is full "
                               "(redis_buffer_bytes); retry later");
  }
  for (auto u : updates) merge(std::move(u));
  buffered_lines_ += lines;
  metrics().redis_buffered_lines.set(static_cast<int64_t>(buffered_lines_));
  return {};
}

bool RedisCatalog::settle() {
  if (!uncertain_ && buffer_.empty()) return true;
  // While Redis is away, one try per 200 ms: the lines between are buffered
  // at once instead of each group waiting out a connect or a timeout.
  const int64_t now = mono_ns();
  if (now < next_try_ns_) return false;
  next_try_ns_ = now + 200'000'000;
  try {
    if (uncertain_) {
      // It ran: which of its clusters did it create? Those still in the
      // shared pending set (another replica's are there too: raising theirs
      // again is harmless, their alert ids are derived). It did not: it is
      // written again with the buffer.
      std::vector<ClusterUpdate> group = *uncertain_;
      std::vector<bool> fresh;
      const int got = resolve_uncertain(&fresh);
      if (got < 0) return false;
      if (got == 1) {
        for (size_t i = 0; i < group.size(); ++i)
          if (fresh[i]) created_.push_back(pending_of(group[i]));
      } else {
        for (auto& u : group) merge(std::move(u));
      }
    }
    if (!buffer_.empty()) {
      std::vector<ClusterUpdate> group = std::move(buffer_);
      buffer_.clear();
      buffer_index_.clear();
      buffered_bytes_ = 0;
      try {
        std::vector<bool> fresh;
        if (!send(group, &fresh).ok()) {
          // The store moved to another contract while these waited: they stay
          // buffered (and land if it comes back), never under two contracts.
          for (auto& u : group) merge(std::move(u));
          return false;
        }
        for (size_t i = 0; i < group.size(); ++i)
          if (fresh[i]) created_.push_back(pending_of(group[i]));
      } catch (const std::exception&) {  // as in apply(): the marker decides later
        uncertain_ = std::move(group);
        uncertain_seq_ = sent_seq_;
        return false;
      }
    }
  } catch (const std::exception&) {  // unreachable, or still loading: try again later
    return false;
  }
  spdlog::info("catalog: Redis answers again; {} buffered lines written", buffered_lines_);
  buffered_lines_ = 0;
  full_logged_ = false;
  metrics().redis_buffered_lines.set(0);
  return true;
}

PendingNewCluster RedisCatalog::pending_of(const ClusterUpdate& u) {
  PendingNewCluster p;
  p.cluster_id = u.cluster_id;
  p.template_text = u.template_text;
  p.first_seen_ms = u.first_ms;
  if (!u.examples.empty()) {
    p.example = u.examples.front().first;
    p.labels = u.examples.front().second;
  }
  return p;
}

void RedisCatalog::flush() {
  if (uncertain_ || !buffer_.empty()) settle();
}

std::vector<PendingNewCluster> RedisCatalog::take_created() { return std::exchange(created_, {}); }

void RedisCatalog::mark_alerted(const std::vector<uint64_t>& ids) {
  if (ids.empty()) return;
  std::vector<std::string> cmd = {"SREM", key("pending")};
  for (uint64_t id : ids) cmd.push_back(lsh::format_id(id));
  check(call(writer_, {cmd}).front(), "mark_alerted");
}

std::vector<PendingNewCluster> RedisCatalog::pending_new_clusters() {
  auto members = call(writer_, {{"SMEMBERS", key("pending")}}).front();
  check(members, "pending");
  std::vector<PendingNewCluster> out;
  std::vector<std::vector<std::string>> cmds;
  for (const auto& m : members.elements) {
    cmds.push_back({"HMGET", key("c:" + m.str), "t", "f"});
    cmds.push_back({"LINDEX", key("ex:" + m.str), "0"});
  }
  auto replies = call(writer_, cmds);
  for (size_t i = 0; i < members.elements.size(); ++i) {
    const Reply& row = replies[2 * i];
    const Reply& ex = replies[2 * i + 1];
    check(row, "pending row");
    uint64_t id = 0;
    if (!lsh::parse_id(members.elements[i].str, &id) || row.elements.size() != 2 || row.elements[0].is_nil()) continue;
    PendingNewCluster p;
    p.cluster_id = id;
    p.template_text = row.elements[0].str;
    p.first_seen_ms = redis::to_int(row.elements[1].str);
    json e = json::parse(ex.str, nullptr, false);
    if (e.is_object()) {
      p.example = e.value("text", "");
      if (e.contains("labels") && e["labels"].is_object())
        for (auto it = e["labels"].begin(); it != e["labels"].end(); ++it)
          if (it.value().is_string()) p.labels.emplace_back(it.key(), it.value().get<std::string>());
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<ClusterRow> RedisCatalog::rows_locked(const std::vector<std::string>& ids) {
  std::vector<ClusterRow> out;
  if (ids.empty()) return out;
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(ids.size());
  for (const auto& id : ids) cmds.push_back({"HMGET", key("c:" + id), "tid", "t", "n", "f", "l"});
  auto replies = call(reader_, cmds);
  for (size_t i = 0; i < ids.size(); ++i) {
    const Reply& r = replies[i];
    check(r, "row");
    if (r.elements.size() != 5 || r.elements[1].is_nil()) continue;  // gone, or half-written by a failed script
    ClusterRow row;
    if (!lsh::parse_id(ids[i], &row.cluster_id)) continue;
    lsh::parse_id(r.elements[0].str, &row.template_id);
    row.template_text = r.elements[1].str;
    row.count = static_cast<uint64_t>(redis::to_int(r.elements[2].str));
    row.first_ms = redis::to_int(r.elements[3].str);
    row.last_ms = redis::to_int(r.elements[4].str);
    out.push_back(std::move(row));
  }
  return out;
}

ClusterPage RedisCatalog::list(const ClusterQuery& query) {
  const std::string& q = query.text;
  const auto& label = query.label;
  const int64_t limit = query.limit, offset = query.offset;
  const std::string index = key(query.sort == ClusterSort::kLastSeen    ? "by_last"
                                : query.sort == ClusterSort::kFirstSeen ? "by_first"
                                                                        : "by_count");
  ClusterPage out;
  std::lock_guard lock(reader_mu_);
  if (q.empty() && label.first.empty()) {  // a page of the index itself
    auto r = call(reader_, {{"ZREVRANGE", index, std::to_string(offset), std::to_string(offset + limit - 1)},
                          {"ZCARD", index}});
    check(r[0], "list");
    check(r[1], "list");
    std::vector<std::string> ids;
    for (const auto& m : r[0].elements) ids.push_back(m.str);
    out.rows = rows_locked(ids);
    out.total = r[1].integer;
    return out;
  }
  // Filtered: the candidates in index order, then the filters (a scan, as in
  // SQLite: instr() over every template).
  std::vector<std::pair<double, std::string>> cands;
  if (!label.first.empty()) {
    auto members = call(reader_, {{"SMEMBERS", label_key(label.first, label.second)}}).front();
    check(members, "list by label");
    if (!members.elements.empty()) {
      std::vector<std::string> cmd = {"ZMSCORE", index};
      for (const auto& m : members.elements) cmd.push_back(m.str);
      auto scores = call(reader_, {cmd}).front();
      check(scores, "list by label");
      for (size_t i = 0; i < members.elements.size() && i < scores.elements.size(); ++i)
        if (!scores.elements[i].is_nil())
          cands.emplace_back(std::stod(scores.elements[i].str), members.elements[i].str);
      std::sort(cands.begin(), cands.end(), [](const auto& a, const auto& b) {  // a set has no order
        return a.first != b.first ? a.first > b.first : a.second > b.second;  // as ZREVRANGE orders ties
      });
    }
  } else {  // already in index order
    auto all = call(reader_, {{"ZREVRANGE", index, "0", "-1", "WITHSCORES"}}).front();
    check(all, "list");
    for (size_t i = 0; i + 1 < all.elements.size(); i += 2)
      cands.emplace_back(std::stod(all.elements[i + 1].str), all.elements[i].str);
  }
  std::vector<std::string> matched;
  if (q.empty()) {
    for (auto& c : cands) matched.push_back(std::move(c.second));
  } else {
    const std::string needle = lower(q);
    constexpr size_t kChunk = 1000;
    for (size_t start = 0; start < cands.size(); start += kChunk) {
      std::vector<std::vector<std::string>> cmds;
      const size_t end = std::min(cands.size(), start + kChunk);
      for (size_t i = start; i < end; ++i) cmds.push_back({"HGET", key("c:" + cands[i].second), "t"});
      auto templates = call(reader_, cmds);
      for (size_t i = start; i < end; ++i)
        if (!templates[i - start].is_nil() && lower(templates[i - start].str).find(needle) != std::string::npos)
          matched.push_back(cands[i].second);
    }
  }
  out.total = static_cast<int64_t>(matched.size());
  std::vector<std::string> page;
  for (int64_t i = offset; i < offset + limit && i < static_cast<int64_t>(matched.size()); ++i)
    page.push_back(matched[static_cast<size_t>(i)]);
  out.rows = rows_locked(page);
  return out;
}

std::vector<uint64_t> RedisCatalog::with_label(const std::string& k, const std::string& v) {
  std::lock_guard lock(reader_mu_);
  auto members = call(reader_, {{"SMEMBERS", label_key(k, v)}}).front();
  check(members, "with_label");
  std::vector<uint64_t> out;
  for (const auto& m : members.elements) {
    uint64_t id = 0;
    if (lsh::parse_id(m.str, &id)) out.push_back(id);
  }
  return out;
}

std::vector<ClusterRow> RedisCatalog::rows(const std::vector<uint64_t>& ids) {
  std::vector<std::string> hex;
  hex.reserve(ids.size());
  for (uint64_t id : ids) hex.push_back(lsh::format_id(id));
  std::lock_guard lock(reader_mu_);
  return rows_locked(hex);
}

std::optional<ClusterDetail> RedisCatalog::get(uint64_t cluster_id) {
  const std::string id = lsh::format_id(cluster_id);
  std::lock_guard lock(reader_mu_);
  auto row = rows_locked({id});
  if (row.empty()) return std::nullopt;
  auto ex = call(reader_, {{"LRANGE", key("ex:" + id), "0", "-1"}}).front();
  check(ex, "examples");
  ClusterDetail out;
  out.row = std::move(row.front());
  for (const auto& e : ex.elements) {
    json j = json::parse(e.str, nullptr, false);
    if (!j.is_object()) continue;
    out.examples.push_back({j.value("text", ""), (j.contains("labels") ? j["labels"] : json::object()).dump(),
                            j.value("ts", int64_t{0})});
  }
  return out;
}

int64_t RedisCatalog::size() const {
  std::lock_guard lock(reader_mu_);
  try {
    auto r = call(reader_, {{"ZCARD", key("by_count")}}).front();
    if (!r.is_error()) size_.store(r.integer, std::memory_order_relaxed);
  } catch (const redis::Error&) {
    // logged by call(); the last count stands
  }
  return size_.load(std::memory_order_relaxed);
}

// --- The cluster-id contract and migrations (pipeline/migrate.h) ---

std::string RedisCatalog::stored_digest() {
  std::lock_guard lock(reader_mu_);
  auto r = call(reader_, {{"GET", key("contract:digest")}}).front();
  check(r, "contract");
  return r.is_nil() ? std::string() : r.str;
}

void RedisCatalog::record_contract(const std::string& contract, const std::string& digest) {
  std::lock_guard lock(reader_mu_);
  auto r = call(reader_, {{"SET", key("contract:digest"), digest, "NX"}}).front();
  check(r, "record contract");
  if (r.is_nil()) return;  // another replica recorded one first: startup checks it again at the next start
  const std::string c = json{{"digest", digest}, {"contract", json::parse(contract)}}.dump();
  for (auto& x : call(reader_, {{"SET", key("contract"), c},
                                {"RPUSH", key("contract:history"),
                                 json{{"digest", digest}, {"since", format_time_ms(now_ms())}}.dump()}}))
    check(x, "record contract");
}

ContractHistory RedisCatalog::contract_history() {
  std::lock_guard lock(reader_mu_);
  auto r = call(reader_, {{"LRANGE", key("contract:history"), "0", "-1"}, {"LRANGE", key("migrations"), "0", "-1"}});
  check(r[0], "contract history");
  check(r[1], "contract history");
  ContractHistory out;
  for (const auto& e : r[0].elements) {
    json j = json::parse(e.str, nullptr, false);
    if (j.is_object()) out.contracts.push_back({j.value("digest", std::string()), j.value("since", std::string())});
  }
  for (const auto& e : r[1].elements) {
    json j = json::parse(e.str, nullptr, false);
    if (!j.is_discarded()) out.migrations.push_back(j.dump());
  }
  return out;
}

std::vector<std::string> RedisCatalog::curation_log() {
  std::lock_guard lock(reader_mu_);
  auto r = call(reader_, {{"LRANGE", key("curation"), "0", "-1"}}).front();
  check(r, "curation log");
  std::vector<std::string> out;
  out.reserve(r.elements.size());
  for (auto& e : r.elements) out.push_back(std::move(e.str));
  return out;
}

int64_t RedisCatalog::curation_size() {
  std::lock_guard lock(reader_mu_);
  auto r = call(reader_, {{"LLEN", key("curation")}}).front();
  check(r, "curation log");
  return r.integer;
}

bool RedisCatalog::append_curation(int64_t expected, const std::string& text) {
  // Compare and append in one script: two replicas' edits checked against
  // the same log cannot both be written.
  static constexpr const char* kAppend = R"lua(
if redis.call('LLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[2])
return 1
)lua";
  std::lock_guard lock(reader_mu_);
  auto r = call(reader_, {{"EVAL", kAppend, "1", key("curation"), std::to_string(expected), text}}).front();
  check(r, "curation append");
  return r.integer == 1;
}

bool RedisCatalog::lock_migration(int64_t ttl_ms) {
  static constexpr const char* kTake = R"lua(
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0
)lua";
  std::lock_guard lock(reader_mu_);
  auto r = call(reader_, {{"EVAL", kTake, "1", key("migrate:lock"), redis::process_name(), std::to_string(ttl_ms)}})
               .front();
  check(r, "migration lock");
  return r.integer == 1;
}

void RedisCatalog::unlock_migration() {
  static constexpr const char* kDrop = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
)lua";
  std::lock_guard lock(reader_mu_);
  check(call(reader_, {{"EVAL", kDrop, "1", key("migrate:lock"), redis::process_name()}}).front(), "migration unlock");
}

void RedisCatalog::begin_migration(const std::string& to_digest) {
  // Every replica's writes fail from now on (the apply script's check):
  // what they wrote between read_all() and the commit would be lost.
  std::lock_guard lock(reader_mu_);
  check(call(reader_, {{"SET", key("contract:digest"), "migrating:" + to_digest}}).front(), "begin migration");
}

std::vector<StoredCluster> RedisCatalog::read_all() {
  std::lock_guard lock(reader_mu_);
  auto ids = call(reader_, {{"ZRANGE", key("by_count"), "0", "-1"}, {"SMEMBERS", key("pending")}});
  check(ids[0], "read_all");
  check(ids[1], "read_all");
  std::unordered_map<std::string, bool> pending;
  for (const auto& m : ids[1].elements) pending[m.str] = true;
  std::vector<StoredCluster> out;
  constexpr size_t kChunk = 1000;
  const auto& all = ids[0].elements;
  for (size_t start = 0; start < all.size(); start += kChunk) {
    const size_t end = std::min(all.size(), start + kChunk);
    std::vector<std::vector<std::string>> cmds;
    for (size_t i = start; i < end; ++i) {
      cmds.push_back({"HMGET", key("c:" + all[i].str), "tid", "t", "n", "f", "l"});
      cmds.push_back({"LRANGE", key("ex:" + all[i].str), "0", "-1"});
    }
    auto r = call(reader_, cmds);
    for (size_t i = start; i < end; ++i) {
      const Reply& row = r[2 * (i - start)];
      const Reply& ex = r[2 * (i - start) + 1];
      check(row, "read_all");
      check(ex, "read_all");
      uint64_t id = 0, tid = 0;
      if (!lsh::parse_id(all[i].str, &id) || row.elements.size() != 5 || row.elements[1].is_nil()) continue;
      StoredCluster c;
      c.cluster_id = id;
      lsh::parse_id(row.elements[0].str, &tid);
      c.template_id = tid;
      c.template_text = row.elements[1].str;
      c.count = static_cast<uint64_t>(redis::to_int(row.elements[2].str));
      c.first_ms = redis::to_int(row.elements[3].str);
      c.last_ms = redis::to_int(row.elements[4].str);
      c.alert_pending = pending.count(all[i].str) > 0;
      for (const auto& e : ex.elements) {
        json j = json::parse(e.str, nullptr, false);
        if (!j.is_object()) continue;
        c.examples.push_back({j.value("text", std::string()),
                              (j.contains("labels") && j["labels"].is_object() ? j["labels"] : json::object()).dump(),
                              j.value("ts", int64_t{0})});
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

void RedisCatalog::commit_migration(const MigrationPlan& plan) {
  // Its own connection with a long timeout: one MULTI/EXEC holds the whole
  // new catalog, queued over several round trips; a writer killed before
  // EXEC leaves the old catalog whole (Redis drops a MULTI whose client
  // goes away), and the next replica to take the lock starts over.
  redis::Options slow = options_;
  slow.timeout = std::chrono::milliseconds(std::max<int64_t>(options_.timeout.count(), 120000));
  redis::Connection c(url_, slow);
  auto one = [&](const std::vector<std::string>& cmd, const char* what) {
    Reply r = c.command(cmd);
    check(r, what);
    return r;
  };
  // What the old catalog has: its ids and its label sets.
  Reply old_ids = one({"ZRANGE", key("by_count"), "0", "-1"}, "migration: ids");
  std::vector<std::string> label_keys;
  for (std::string cursor = "0";;) {
    Reply r = one({"SCAN", cursor, "MATCH", key("label:*"), "COUNT", "1000"}, "migration: labels");
    if (r.elements.size() != 2) break;
    for (const auto& k : r.elements[1].elements) label_keys.push_back(k.str);
    cursor = r.elements[0].str;
    if (cursor == "0") break;
  }
  Reply old_map = one({"HGETALL", key("idmap")}, "migration: id map");
  // Chains: an id of an earlier contract that pointed at an id changed now
  // points at what that became (its largest share).
  std::unordered_map<uint64_t, std::pair<uint64_t, double>> primary;
  for (const auto& m : plan.map) {
    auto [it, added] = primary.emplace(m.old_id, std::make_pair(m.new_id, m.share));
    if (!added && m.share > it->second.second) it->second = {m.new_id, m.share};
  }
  std::map<std::string, json> idmap;  // old hex -> [[new hex, share]...]
  for (size_t i = 0; i + 1 < old_map.elements.size(); i += 2) {
    json targets = json::parse(old_map.elements[i + 1].str, nullptr, false);
    if (!targets.is_array()) continue;
    for (auto& t : targets) {
      uint64_t to = 0;
      if (t.is_array() && t.size() == 2 && lsh::parse_id(t[0].get<std::string>(), &to))
        if (auto p = primary.find(to); p != primary.end()) t[0] = lsh::format_id(p->second.first);
    }
    idmap[old_map.elements[i].str] = std::move(targets);
  }
  for (const auto& m : plan.map) {
    json& t = idmap[lsh::format_id(m.old_id)];
    if (!t.is_array() || primary.count(m.old_id)) t = json::array();
  }
  for (const auto& m : plan.map) idmap[lsh::format_id(m.old_id)].push_back({lsh::format_id(m.new_id), m.share});
  for (const auto& n : plan.clusters) idmap.erase(lsh::format_id(n.cluster_id));  // current ids are not old ones

  std::vector<std::vector<std::string>> cmds;
  auto flush_cmds = [&](bool last) {
    if (cmds.empty()) return;
    auto r = c.pipeline(cmds);
    for (size_t i = 0; i < r.size(); ++i)
      if (!(last && i + 1 == r.size())) check(r[i], "migration: queue");
    if (last) {
      const Reply& exec = r.back();
      check(exec, "migration: EXEC");
      if (exec.type != Reply::Type::kArray) throw std::runtime_error("redis catalog: migration EXEC was aborted");
      for (const auto& e : exec.elements) check(e, "migration");
    }
    cmds.clear();
  };
  cmds.push_back({"MULTI"});
  for (const auto& id : old_ids.elements) cmds.push_back({"DEL", key("c:" + id.str), key("ex:" + id.str)});
  for (const auto& k : label_keys) cmds.push_back({"DEL", k});
  cmds.push_back({"DEL", key("by_count"), key("by_last"), key("by_first"), key("pending"), key("idmap")});
  for (const auto& n : plan.clusters) {
    const std::string id = lsh::format_id(n.cluster_id);
    cmds.push_back({"HSET", key("c:" + id), "tid", lsh::format_id(n.template_id), "t", n.template_text, "n",
                    std::to_string(n.count), "f", std::to_string(n.first_ms), "l", std::to_string(n.last_ms)});
    cmds.push_back({"ZADD", key("by_count"), std::to_string(n.count), id});
    cmds.push_back({"ZADD", key("by_last"), std::to_string(n.last_ms), id});
    cmds.push_back({"ZADD", key("by_first"), std::to_string(n.first_ms), id});
    if (n.alert_pending) cmds.push_back({"SADD", key("pending"), id});
    if (!n.examples.empty()) {
      std::vector<std::string> push = {"RPUSH", key("ex:" + id)};
      for (const auto& e : n.examples) {
        json labels = json::parse(e.labels_json, nullptr, false);
        if (!labels.is_object()) labels = json::object();
        push.push_back(json{{"text", e.text}, {"labels", labels}, {"ts", e.ts_ms}}.dump());
        for (auto it = labels.begin(); it != labels.end(); ++it)
          if (it.value().is_string()) cmds.push_back({"SADD", label_key(it.key(), it.value().get<std::string>()), id});
      }
      cmds.push_back(std::move(push));
    }
    if (cmds.size() >= 20000) flush_cmds(false);
  }
  for (const auto& [old, targets] : idmap) {
    cmds.push_back({"HSET", key("idmap"), old, targets.dump()});
    if (cmds.size() >= 20000) flush_cmds(false);
  }
  cmds.push_back({"SET", key("contract:digest"), plan.digest});
  cmds.push_back({"SET", key("contract"), json{{"digest", plan.digest}, {"contract", json::parse(plan.contract)}}.dump()});
  cmds.push_back({"RPUSH", key("contract:history"),
                  json{{"digest", plan.digest}, {"since", format_time_ms(now_ms())}}.dump()});
  cmds.push_back({"RPUSH", key("migrations"), plan.report});
  cmds.push_back({"LTRIM", key("migrations"), "-20", "-1"});
  cmds.push_back({"EXEC"});
  flush_cmds(true);
  size_.store(static_cast<int64_t>(plan.clusters.size()), std::memory_order_relaxed);
}

std::vector<IdMapping> RedisCatalog::migrated(uint64_t old_id) {
  std::lock_guard lock(reader_mu_);
  auto r = call(reader_, {{"HGET", key("idmap"), lsh::format_id(old_id)}}).front();
  check(r, "id map");
  std::vector<IdMapping> out;
  if (r.is_nil()) return out;
  json targets = json::parse(r.str, nullptr, false);
  if (!targets.is_array()) return out;
  for (const auto& t : targets) {
    uint64_t to = 0;
    if (t.is_array() && t.size() == 2 && t[0].is_string() && lsh::parse_id(t[0].get<std::string>(), &to))
      out.push_back({old_id, to, t[1].get<double>()});
  }
  std::sort(out.begin(), out.end(), [](const IdMapping& a, const IdMapping& b) { return a.share > b.share; });
  return out;
}

}  // namespace logsift
