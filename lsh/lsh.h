// Vector -> cluster id (seeded random-hyperplane signature) and text -> template id.
//
// Determinism contract: the same vector, bits and seed give the same id in every
// process and on every machine. The hyperplanes are generated from the seed with
// integer arithmetic only (SplitMix64), and the projection is summed in a fixed
// order per hyperplane with FP contraction disabled (see CMakeLists.txt), so no libm or
// compiler choice can change a bit.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace logsift::lsh {

// Stable 64-bit hash of bytes (FNV-1a with a murmur finalizer), seedable.
uint64_t stable_hash64(std::string_view bytes, uint64_t seed = 0);

// 16 lowercase hex digits; append_id appends them (no allocation: replies).
std::string format_id(uint64_t id);
void append_id(uint64_t id, std::string* out);
// Parses exactly 16 hex digits (either case); false otherwise.
bool parse_id(std::string_view text, uint64_t* out);

class HyperplaneLsh {
 public:
  // bits in [1, 64]; dim > 0.
  HyperplaneLsh(int dim, int bits, uint64_t seed);

  int dim() const { return dim_; }
  int bits() const { return bits_; }
  uint64_t seed() const { return seed_; }

  // Sign signature of `v` (dim floats): bit i = dot(plane_i, v) >= 0.
  uint64_t signature(std::span<const float> v) const;
  // The cluster id: the signature when bits == 64, else the signature mixed
  // with the seed into 64 bits (so ids still spread over the whole space).
  uint64_t cluster_id(std::span<const float> v) const;

 private:
  int dim_;
  int bits_;
  uint64_t seed_;
  std::vector<float> planes_;  // dim_ x bits_ (dimension-major)
};

}  // namespace logsift::lsh
