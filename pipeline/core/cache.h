// Bounded caches with generational eviction: when the current generation is
// full it becomes the previous one and the older one is dropped; a hit in the
// previous generation is promoted. Hot keys stay, memory stays flat, no
// per-entry LRU bookkeeping.
//
// GenerationalCache: single owner, not thread-safe.
// ConcurrentCache: shared by the pipeline's threads (the analysis workers,
// the io threads that analyse small requests inline, the model stages): N
// shards, each a GenerationalCache pair under its own mutex, bounded in
// entries AND in approximate bytes (keys and values may be strings). Lookups
// are heterogeneous (a std::string_view finds a std::string key) and copy the
// value out under the lock, so no reference outlives it.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace logsift {

template <typename K, typename V, typename H = std::hash<K>, typename Eq = std::equal_to<K>>
class GenerationalCache {
 public:
  explicit GenerationalCache(size_t capacity) : capacity_(capacity) {}

  // The pointer stays valid until the next put() or get() that promotes.
  template <typename Q>
  const V* get(const Q& k) {
    if (auto it = current_.find(k); it != current_.end()) return &it->second;
    if (auto it = previous_.find(k); it != previous_.end()) {
      // Take the entry out before put(): a rotation in put() drops previous_,
      // and with it anything that still pointed into it.
      auto node = previous_.extract(it);
      return &put(std::move(node.key()), std::move(node.mapped()));
    }
    return nullptr;
  }

  const V& put(K k, V v) {
    if (current_.size() >= capacity_) rotate();
    return current_.insert_or_assign(std::move(k), std::move(v)).first->second;
  }

  void rotate() {
    previous_ = std::move(current_);
    current_ = {};
  }

  size_t size() const { return current_.size() + previous_.size(); }
  size_t current_size() const { return current_.size(); }

 private:
  size_t capacity_;
  std::unordered_map<K, V, H, Eq> current_, previous_;
};

// One cache's footprint, for /metrics (logsift_cache_bytes / _entries).
struct CacheUsage {
  const char* name;
  size_t bytes;
  size_t entries;
};

template <typename K, typename V, typename H, typename Eq = std::equal_to<>, size_t kShards = 16>
class ConcurrentCache {
 public:
  // max_entries and max_bytes bound the whole cache (both generations).
  ConcurrentCache(size_t max_entries, size_t max_bytes)
      : per_shard_entries_(std::max<size_t>(1, max_entries / (2 * kShards))),
        per_shard_bytes_(std::max<size_t>(1, max_bytes / (2 * kShards))) {
    for (auto& s : shards_) s = std::make_unique<Shard>(per_shard_entries_ + 1);
  }

  template <typename Q>
  std::optional<V> get(const Q& key) {
    Shard& s = shard(key);
    std::lock_guard lock(s.mu);
    if (const V* v = s.map.get(key)) {
      ++s.hits;
      return *v;
    }
    ++s.misses;
    return std::nullopt;
  }

  // `bytes`: what the entry costs beyond sizeof(K) + sizeof(V) (string contents).
  void put(K key, V value, size_t bytes = 0) {
    Shard& s = shard(key);
    const size_t cost = bytes + sizeof(K) + sizeof(V) + kNodeOverhead;
    std::lock_guard lock(s.mu);
    if (s.map.current_size() >= per_shard_entries_ || s.current_bytes + cost > per_shard_bytes_) {
      s.map.rotate();
      bytes_.fetch_sub(s.previous_bytes, std::memory_order_relaxed);
      s.previous_bytes = s.current_bytes;
      s.current_bytes = 0;
    }
    s.current_bytes += cost;
    bytes_.fetch_add(cost, std::memory_order_relaxed);
    s.map.put(std::move(key), std::move(value));
  }

  size_t bytes() const { return bytes_.load(std::memory_order_relaxed); }
  uint64_t hits() const { return sum(&Shard::hits); }
  uint64_t misses() const { return sum(&Shard::misses); }
  CacheUsage usage(const char* name) const { return {name, bytes(), size()}; }
  size_t size() const {
    size_t n = 0;
    for (auto& s : shards_) {
      std::lock_guard lock(s->mu);
      n += s->map.size();
    }
    return n;
  }

 private:
  // An unordered_map node: next pointer, cached hash, allocator slack.
  static constexpr size_t kNodeOverhead = 32;
  struct Shard {
    explicit Shard(size_t cap) : map(cap) {}
    std::mutex mu;
    GenerationalCache<K, V, H, Eq> map;
    size_t current_bytes = 0, previous_bytes = 0;
    // Counted under the shard's lock: one counter for the whole cache was an
    // atomic every thread's lookups wrote, its cache line moving between cores.
    uint64_t hits = 0, misses = 0;
  };
  uint64_t sum(uint64_t Shard::*counter) const {
    uint64_t n = 0;
    for (auto& s : shards_) {
      std::lock_guard lock(s->mu);
      n += (*s).*counter;
    }
    return n;
  }
  template <typename Q>
  Shard& shard(const Q& key) {
    // The top bits: the map itself uses the low bits of the same hash.
    return *shards_[(static_cast<uint64_t>(H{}(key)) >> 59) % kShards];
  }

  const size_t per_shard_entries_, per_shard_bytes_;
  std::array<std::unique_ptr<Shard>, kShards> shards_;
  std::atomic<size_t> bytes_{0};
};

}  // namespace logsift
