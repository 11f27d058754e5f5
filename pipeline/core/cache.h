// A bounded map with generational eviction: when the current generation is
// full it becomes the previous one and the older one is dropped; a hit in the
// previous generation is promoted. Hot keys stay, memory stays flat, no
// per-entry LRU bookkeeping. Not thread-safe: one owner (a stage), or wrap it.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <utility>

namespace logsift {

template <typename K, typename V, typename H = std::hash<K>>
class GenerationalCache {
 public:
  explicit GenerationalCache(size_t capacity) : capacity_(capacity) {}

  // The pointer stays valid until the next put() or get() that promotes.
  const V* get(const K& k) {
    if (auto it = current_.find(k); it != current_.end()) return &it->second;
    if (auto it = previous_.find(k); it != previous_.end()) {
      // Take the value out before put(): a rotation in put() drops previous_,
      // and with it anything that still pointed into it.
      V v = std::move(it->second);
      previous_.erase(it);
      return &put(k, std::move(v));
    }
    return nullptr;
  }

  const V& put(const K& k, V v) {
    if (current_.size() >= capacity_) {
      previous_ = std::move(current_);
      current_ = {};
    }
    return current_.insert_or_assign(k, std::move(v)).first->second;
  }

  size_t size() const { return current_.size() + previous_.size(); }

 private:
  size_t capacity_;
  std::unordered_map<K, V, H> current_, previous_;
};

}  // namespace logsift
