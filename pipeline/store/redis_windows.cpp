#include "pipeline/store/redis_windows.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "lsh/lsh.h"
#include "pipeline/core/thread_name.h"

namespace logsift {

using json = nlohmann::json;
using redis::Reply;

RedisWindows::RedisWindows(const redis::Url& url, const redis::Options& options, std::string key_prefix,
                           std::string replica, Sink on_remote, size_t max_queued, size_t max_entries)
    : key_(key_prefix + "counts"),
      replica_(std::move(replica)),
      on_remote_(std::move(on_remote)),
      max_queued_(max_queued),
      max_entries_(max_entries),
      conn_(url, options) {
  // Read from Redis's "now": entry ids are Redis's clock, not ours.
  Reply t = conn_.command({"TIME"});
  if (t.is_error() || t.elements.size() < 2) throw std::runtime_error("redis windows: TIME: " + t.str);
  const int64_t ms = std::stoll(t.elements[0].str) * 1000 + std::stoll(t.elements[1].str) / 1000;
  // XREAD returns ids above this one: every entry of the current millisecond
  // (the first would be <ms>-0 itself) is read too.
  last_id_ = std::to_string(ms - 1) + "-18446744073709551615";
}

RedisWindows::~RedisWindows() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void RedisWindows::start() {
  thread_ = std::thread([this] {
    set_thread_name("ls-counts");
    run();
  });
}

void RedisWindows::publish(std::vector<CountDelta>&& deltas) {
  std::lock_guard lock(mu_);
  for (auto& d : deltas) queue_.push_back(std::move(d));
  trim_locked();
}

void RedisWindows::trim_locked() {
  if (queue_.size() <= max_queued_) return;
  const size_t over = queue_.size() - max_queued_;
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(over));
  if (dropped_.fetch_add(over) == 0) spdlog::warn("windows: Redis is behind; dropping the oldest shared counts");
}

bool RedisWindows::send_queued() {
  std::vector<CountDelta> batch;
  {
    std::lock_guard lock(mu_);
    batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
    queue_.clear();
  }
  if (batch.empty()) return true;
  std::vector<std::vector<std::string>> cmds;
  constexpr size_t kPerEntry = 500;
  for (size_t i = 0; i < batch.size(); i += kPerEntry) {
    std::vector<CountDelta> part(batch.begin() + static_cast<std::ptrdiff_t>(i),
                                 batch.begin() + static_cast<std::ptrdiff_t>(std::min(batch.size(), i + kPerEntry)));
    cmds.push_back({"XADD", key_, "MAXLEN", "~", std::to_string(max_entries_), "*", "r", replica_, "d", encode(part)});
  }
  try {
    for (const auto& r : conn_.pipeline(cmds))
      if (r.is_error()) spdlog::error("windows: XADD: {}", r.str);
    return true;
  } catch (const redis::Error&) {
    // Not sent (or not known to be): queue them again, ahead of newer ones.
    std::lock_guard lock(mu_);
    queue_.insert(queue_.begin(), std::make_move_iterator(batch.begin()), std::make_move_iterator(batch.end()));
    trim_locked();
    return false;
  }
}

bool RedisWindows::read_new() {
  Reply r;
  try {
    r = conn_.command({"XREAD", "COUNT", "200", "BLOCK", "50", "STREAMS", key_, last_id_});
  } catch (const redis::Error&) {
    return false;
  }
  if (r.is_error()) {
    spdlog::error("windows: XREAD: {}", r.str);
    return false;
  }
  if (r.type != Reply::Type::kArray) return true;  // nothing new within the block time
  std::vector<CountDelta> remote;
  for (const auto& stream : r.elements) {
    if (stream.elements.size() < 2) continue;
    for (const auto& entry : stream.elements[1].elements) {
      if (entry.elements.size() < 2) continue;
      last_id_ = entry.elements[0].str;
      std::string from, data;
      const auto& f = entry.elements[1].elements;
      for (size_t i = 0; i + 1 < f.size(); i += 2) {
        if (f[i].str == "r") from = f[i + 1].str;
        else if (f[i].str == "d") data = f[i + 1].str;
      }
      if (from == replica_) continue;  // counted here already
      auto d = decode(data);
      remote.insert(remote.end(), std::make_move_iterator(d.begin()), std::make_move_iterator(d.end()));
    }
  }
  if (!remote.empty()) {
    try {
      on_remote_(std::move(remote));
    } catch (const std::exception& e) {  // the alert sink failed: the counts are in the windows
      spdlog::error("windows: other replicas' counts: {}", e.what());
    }
  }
  return true;
}

void RedisWindows::run() {
  bool down = false;
  while (!stop_) {
    const bool ok = send_queued() && read_new();
    if (ok && down) spdlog::info("windows: Redis answers again; shared counts flow");
    if (!ok && !down) spdlog::error("windows: Redis unreachable; shared counts wait (at most {} deltas)", max_queued_);
    down = !ok;
    if (down) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace logsift
