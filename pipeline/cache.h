// A bounded map with generational eviction: when the current generation is
// full it becomes the previous one and the older one is dropped; a hit in the
// previous generation is promoted. Hot keys stay, memory stays flat, no
// per-entry LRU bookkeeping. Not thread-safe: one owner (a stage), or wrap it.
#pragma once

#include <unordered_map>

namespace logsift {

template <typename K, typename V, typename H = std::hash<K>>
class GenerationalCache {
 public:
  explicit GenerationalCache(size_t capacity) : capacity_(capacity) {}

  const V* get(const K& k) {
    if (auto it = current_.find(k); it != current_.end()) return &it->second;
    if (auto it = previous_.find(k); it != previous_.end()) return &put(k, it->second);
    return nullptr;
  }

  const V& put(const K& k, const V& v) {
    if (current_.size() >= capacity_) {
      previous_ = std::move(current_);
      current_ = {};
    }
    return current_.insert_or_assign(k, v).first->second;
  }

  size_t size() const { return current_.size() + previous_.size(); }

 private:
  size_t capacity_;
  std::unordered_map<K, V, H> current_, previous_;
};

}  // namespace logsift
