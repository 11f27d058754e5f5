#include "lsh/lsh.h"

#include <stdexcept>

namespace logsift::lsh {
namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

// An approximately Gaussian value from integer arithmetic only: the sum of four
// uniform 16-bit draws (Irwin-Hall), centred. Exact in float on every machine,
// and isotropic enough for sign-random-projection.
float irwin_hall(uint64_t& state) {
  uint64_t r = splitmix64(state);
  int64_t s = 0;
  for (int i = 0; i < 4; ++i) s += static_cast<int64_t>((r >> (16 * i)) & 0xFFFF);
  return static_cast<float>(s - 2 * 65535) / 65536.0f;  // |value| < 2, 2^-16 steps: exact
}

}  // namespace

uint64_t stable_hash64(std::string_view bytes, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ull ^ fmix64(seed);
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return fmix64(h ^ bytes.size());
}

void append_id(uint64_t id, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  char buf[16];
  for (int i = 15; i >= 0; --i) {
    buf[i] = kDigits[id & 0xF];
    id >>= 4;
  }
  out->append(buf, 16);
}

std::string format_id(uint64_t id) {
  std::string s;
  s.reserve(16);
  append_id(id, &s);
  return s;
}

bool parse_id(std::string_view text, uint64_t* out) {
  if (text.size() != 16) return false;
  uint64_t v = 0;
  for (char c : text) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  *out = v;
  return true;
}

HyperplaneLsh::HyperplaneLsh(int dim, int bits, uint64_t seed) : dim_(dim), bits_(bits), seed_(seed) {
  if (dim <= 0) throw std::invalid_argument("lsh: dim must be positive");
  if (bits < 1 || bits > 64) throw std::invalid_argument("lsh: bits must be in [1, 64]");
  // Plane b, coordinate i is the (b * dim + i)-th draw of the seeded stream;
  // stored at [i * bits + b] (see signature()).
  planes_.resize(static_cast<size_t>(bits) * dim);
  uint64_t state = seed;
  for (int b = 0; b < bits; ++b)
    for (int i = 0; i < dim; ++i) planes_[static_cast<size_t>(i) * bits + b] = irwin_hall(state);
}

uint64_t HyperplaneLsh::signature(std::span<const float> v) const {
  if (static_cast<int>(v.size()) != dim_) throw std::invalid_argument("lsh: vector has the wrong dimension");
  // planes_ is stored dimension-major (dim_ x bits_), so the inner loop runs
  // across hyperplanes: acc[b] is still a plain sequential sum over i in a
  // fixed order (bit-exact whatever the vector width the compiler picks,
  // with contraction off), but the loop vectorizes without reassociation.
  float acc[64] = {};
  for (int i = 0; i < dim_; ++i) {
    const float x = v[i];
    const float* p = planes_.data() + static_cast<size_t>(i) * bits_;
    for (int b = 0; b < bits_; ++b) acc[b] += p[b] * x;
  }
  uint64_t sig = 0;
  for (int b = 0; b < bits_; ++b)
    if (acc[b] >= 0.0f) sig |= (uint64_t{1} << b);
  return sig;
}

uint64_t HyperplaneLsh::cluster_id(std::span<const float> v) const {
  uint64_t sig = signature(v);
  if (bits_ == 64) return sig;
  return fmix64(sig ^ fmix64(seed_ ^ static_cast<uint64_t>(bits_)));
}

}  // namespace logsift::lsh
