// Fast non-cryptographic hashes (xxHash's XXH3) for the pipeline's cache keys.
// NOT part of the cluster-id contract: template and cluster ids use
// lsh::stable_hash64, which is specified bit for bit (lsh/README.md); these
// keys live and die with one process.
#pragma once

#include <cstdint>
#include <string_view>

#include <xxhash.h>

#include "pipeline/core/record.h"

namespace logsift {

inline uint64_t fast_hash64(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

inline Key128 fast_hash128(std::string_view s) {
  XXH128_hash_t h = XXH3_128bits(s.data(), s.size());
  return {h.low64, h.high64};
}

// Transparent: an unordered map keyed by std::string is searched by
// std::string_view without building a string.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return static_cast<size_t>(fast_hash64(s)); }
};

}  // namespace logsift
