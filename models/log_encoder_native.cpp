#include "models/log_encoder_native.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/kernel_attrs.h"

namespace logsift::models {
namespace {

// tanh through one expf: glibc's tanhf goes through expm1f, which was a
// third of the encoder's time. Absolute error ~1e-7, far inside the check's
// 1e-4 on the code logits.
inline float fast_tanh(float x) {
  const float e = std::exp(-2.0f * std::fabs(x));
  const float t = (1.0f - e) / (1.0f + e);
  return x < 0 ? -t : t;
}

// s[j] = sum over o of wt[o][j] * h[o], in order of o for every j (the same
// additions as the generic loop), with the A sums kept in local storage.
template <size_t D, size_t A>
LS_INLINE void att_hidden(const float* wt, const float* h, float* s) {
  float acc[A] = {};
  for (size_t o = 0; o < D; ++o) {
    const float x = h[o];
    const float* col = wt + o * A;
    for (size_t j = 0; j < A; ++j) acc[j] += col[j] * x;
  }
  for (size_t j = 0; j < A; ++j) s[j] = acc[j];
}

void need(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("native encoder: " + what);
}

}  // namespace

LogEncoderNative::LogEncoderNative(LogEncoderWeights w) : w_(std::move(w)) {
  const auto n = [](int a, int b) { return static_cast<size_t>(a) * static_cast<size_t>(b); };
  need(w_.vocab > 0 && w_.d > 0 && w_.bits > 0 && w_.max_pos > 0 && w_.att_dim > 0, "sizes must be > 0");
  need(w_.drop.size() == static_cast<size_t>(w_.vocab) && w_.emb.size() == n(w_.vocab, w_.d), "embedding shapes");
  need(w_.conv_w.size() == n(w_.d, w_.d) * 3 && w_.conv_b.size() == static_cast<size_t>(w_.d), "conv shapes");
  need(w_.pos_start.size() == n(w_.max_pos, w_.att_dim) && w_.pos_end.size() == n(w_.max_pos, w_.att_dim),
       "position embedding shapes");
  need(w_.att_hidden_w.size() == n(w_.att_dim, w_.d) && w_.att_hidden_b.size() == static_cast<size_t>(w_.att_dim) &&
           w_.att_w.size() == static_cast<size_t>(w_.att_dim),
       "attention shapes");
  need(w_.norm_w.size() == static_cast<size_t>(w_.d) && w_.norm_b.size() == static_cast<size_t>(w_.d), "norm shapes");
  need(w_.proj_w.size() == n(w_.bits, w_.d) && w_.proj_b.size() == static_cast<size_t>(w_.bits), "projection shapes");
  const size_t V = static_cast<size_t>(w_.vocab), D = static_cast<size_t>(w_.d);
  // Transposed, so the products run as lanes over the outputs (a dot product
  // as one running sum is a chain of dependent additions: 4x slower here).
  const size_t A = static_cast<size_t>(w_.att_dim), B = static_cast<size_t>(w_.bits);
  att_hidden_t_.resize(D * A);
  for (size_t j = 0; j < A; ++j)
    for (size_t o = 0; o < D; ++o) att_hidden_t_[o * A + j] = w_.att_hidden_w[j * D + o];
  proj_t_.resize(D * B);
  for (size_t k = 0; k < B; ++k)
    for (size_t o = 0; o < D; ++o) proj_t_[o * B + k] = w_.proj_w[k * D + o];
  taps_.assign(V * 3 * D, 0.0f);
  std::vector<float> wt(3 * D * D);  // [tap, in, out]
  for (size_t o = 0; o < D; ++o)
    for (size_t i = 0; i < D; ++i)
      for (size_t k = 0; k < 3; ++k) wt[(k * D + i) * D + o] = w_.conv_w[(o * D + i) * 3 + k];
  for (size_t v = 0; v < V; ++v) {
    const float* e = w_.emb.data() + v * D;
    for (size_t k = 0; k < 3; ++k) {
      float* t = taps_.data() + (v * 3 + k) * D;
      for (size_t i = 0; i < D; ++i) {
        const float x = e[i];
        const float* col = wt.data() + (k * D + i) * D;
        for (size_t o = 0; o < D; ++o) t[o] += col[o] * x;
      }
    }
  }
}

LS_KERNEL void LogEncoderNative::codes(std::span<const int64_t> ids, float* z) const {
  const size_t D = static_cast<size_t>(w_.d), A = static_cast<size_t>(w_.att_dim);
  for (int64_t id : ids)
    if (id < 0 || id >= w_.vocab) throw std::out_of_range("native encoder: id out of range");
  if (ids.empty()) throw std::invalid_argument("native encoder: empty row");
  // Kept ids packed to the left, consecutive [VAR]s as one; a row with none
  // kept keeps its first id (as the module does).
  thread_local std::vector<int32_t> kept;
  kept.clear();
  for (int64_t id : ids) {
    if (w_.drop[static_cast<size_t>(id)]) continue;
    if (id == w_.var_id && !kept.empty() && kept.back() == w_.var_id) continue;
    kept.push_back(static_cast<int32_t>(id));
  }
  if (kept.empty()) kept.push_back(static_cast<int32_t>(ids[0]));
  const size_t n = kept.size();

  thread_local std::vector<float> h, a;
  h.resize(n * D);
  a.resize(n);
  thread_local std::vector<float> s;
  s.resize(A);
  for (size_t t = 0; t < n; ++t) {
    const size_t id = static_cast<size_t>(kept[t]);
    const float* x = w_.emb.data() + id * D;
    // conv (bias + taps of the left, own and right embeddings; zeros beyond
    // the kept tokens), then h = x + relu(conv).
    float* ht = h.data() + t * D;
    for (size_t o = 0; o < D; ++o) ht[o] = w_.conv_b[o];
    if (t > 0) {
      const float* tap = taps_.data() + (static_cast<size_t>(kept[t - 1]) * 3 + 0) * D;
      for (size_t o = 0; o < D; ++o) ht[o] += tap[o];
    }
    {
      const float* tap = taps_.data() + (id * 3 + 1) * D;
      for (size_t o = 0; o < D; ++o) ht[o] += tap[o];
    }
    if (t + 1 < n) {
      const float* tap = taps_.data() + (static_cast<size_t>(kept[t + 1]) * 3 + 2) * D;
      for (size_t o = 0; o < D; ++o) ht[o] += tap[o];
    }
    for (size_t o = 0; o < D; ++o) ht[o] = x[o] + std::max(ht[o], 0.0f);
    // attention score: att(tanh(att_hidden(h) + pos_start[t] + pos_end[n-1-t])).
    const size_t ps = std::min(t, static_cast<size_t>(w_.max_pos - 1));
    const size_t pe = std::min(n - 1 - t, static_cast<size_t>(w_.max_pos - 1));
    if (D == 64 && A == 32) {
      att_hidden<64, 32>(att_hidden_t_.data(), ht, s.data());  // the shipped sizes: sums in registers
    } else {
      std::fill(s.begin(), s.end(), 0.0f);
      for (size_t o = 0; o < D; ++o) {
        const float x_o = ht[o];
        const float* col = att_hidden_t_.data() + o * A;
        for (size_t j = 0; j < A; ++j) s[j] += col[j] * x_o;
      }
    }
    for (size_t j = 0; j < A; ++j) s[j] = fast_tanh(s[j] + w_.att_hidden_b[j] + w_.pos_start[ps * A + j] + w_.pos_end[pe * A + j]);
    float at = w_.att_b;
    for (size_t j = 0; j < A; ++j) at += w_.att_w[j] * s[j];
    a[t] = at;
  }
  // softmax pooling
  float mx = -std::numeric_limits<float>::infinity();
  for (size_t t = 0; t < n; ++t) mx = std::max(mx, a[t]);
  float sum = 0.0f;
  for (size_t t = 0; t < n; ++t) {
    a[t] = std::exp(a[t] - mx);
    sum += a[t];
  }
  thread_local std::vector<float> pooled;
  pooled.assign(D, 0.0f);
  for (size_t t = 0; t < n; ++t) {
    const float wt = a[t] / sum;
    const float* ht = h.data() + t * D;
    for (size_t o = 0; o < D; ++o) pooled[o] += wt * ht[o];
  }
  // LayerNorm, projection
  float mean = 0.0f;
  for (size_t o = 0; o < D; ++o) mean += pooled[o];
  mean /= static_cast<float>(D);
  float var = 0.0f;
  for (size_t o = 0; o < D; ++o) var += (pooled[o] - mean) * (pooled[o] - mean);
  var /= static_cast<float>(D);
  const float inv = 1.0f / std::sqrt(var + w_.norm_eps);
  for (size_t o = 0; o < D; ++o) pooled[o] = (pooled[o] - mean) * inv * w_.norm_w[o] + w_.norm_b[o];
  const size_t B = static_cast<size_t>(w_.bits);
  for (size_t k = 0; k < B; ++k) z[k] = 0.0f;
  for (size_t o = 0; o < D; ++o) {
    const float y = pooled[o];
    const float* col = proj_t_.data() + o * B;
    for (size_t k = 0; k < B; ++k) z[k] += col[k] * y;
  }
  for (size_t k = 0; k < B; ++k) z[k] += w_.proj_b[k];
}

}  // namespace logsift::models
