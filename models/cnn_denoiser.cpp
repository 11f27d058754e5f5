#include "models/cnn_denoiser.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/kernel_attrs.h"

namespace logsift::models {
namespace {

constexpr int kMaxChannels = 256;

void need(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("native denoiser: " + what);
}

// One width-K convolution over one-hot ids as the sum of K per-offset rows of
// `table` ('same' padding with the pad id 0, as model.py's OneHotConv).
// Writes channels floats for position pos of `row`.
LS_INLINE void conv_at(const int64_t* row, int len, int pos, int width, int vocab, int channels,
                    const float* table, float* out) {
  const int p = width / 2;
  for (int k = 0; k < width; ++k) {
    const int j = pos + k - p;
    const int64_t id = j >= 0 && j < len ? row[j] : 0;
    const float* t = table + (static_cast<size_t>(k) * static_cast<size_t>(vocab) + static_cast<size_t>(id)) *
                                 static_cast<size_t>(channels);
    if (k == 0) {
      for (int c = 0; c < channels; ++c) out[c] = t[c];
    } else {
      for (int c = 0; c < channels; ++c) out[c] += t[c];
    }
  }
}

// Whether every id in position pos's window is the pad id.
LS_INLINE bool all_pad(const int64_t* row, int len, int pos, int width) {
  const int p = width / 2;
  for (int k = 0; k < width; ++k) {
    const int j = pos + k - p;
    if (j >= 0 && j < len && row[j] != 0) return false;
  }
  return true;
}

}  // namespace

CnnDenoiser::CnnDenoiser(CnnDenoiserWeights w) : w_(std::move(w)) {
  const auto sz = [](int a, int b) { return static_cast<size_t>(a) * static_cast<size_t>(b); };
  need(w_.vocab > 0 && w_.max_len > 0, "vocab and max_len must be > 0");
  need(w_.tok_channels <= kMaxChannels && w_.ctx_channels <= kMaxChannels, "at most 256 channels");
  need(w_.tok_width > 0 && w_.tok_channels > 0 && w_.tok_table.size() == sz(w_.tok_width * w_.vocab, w_.tok_channels) &&
           w_.tok_bias.size() == static_cast<size_t>(w_.tok_channels),
       "token conv shapes");
  need(w_.ctx_width > 0 && w_.ctx_channels > 0 && w_.ctx_table.size() == sz(w_.ctx_width * w_.vocab, w_.ctx_channels) &&
           w_.ctx_bias.size() == static_cast<size_t>(w_.ctx_channels),
       "context conv shapes");
  need(w_.hidden > 0 && w_.fc1_w.size() == static_cast<size_t>(w_.hidden) * feat_dim() &&
           w_.fc1_b.size() == static_cast<size_t>(w_.hidden) && w_.fc2_w.size() == static_cast<size_t>(w_.hidden),
       "fc1/fc2 shapes");
  const size_t H = static_cast<size_t>(w_.hidden), D = feat_dim();
  fc1_t_.resize(D * H);
  for (size_t j = 0; j < H; ++j)
    for (size_t i = 0; i < D; ++i) fc1_t_[i * H + j] = w_.fc1_w[j * D + i];
  const int64_t pad[1] = {0};
  tok_pad_.resize(static_cast<size_t>(w_.tok_channels));
  conv_at(pad, 0, 0, w_.tok_width, w_.vocab, w_.tok_channels, w_.tok_table.data(), tok_pad_.data());
  ctx_pad_.resize(static_cast<size_t>(w_.ctx_channels));
  conv_at(pad, 0, 0, w_.ctx_width, w_.vocab, w_.ctx_channels, w_.ctx_table.data(), ctx_pad_.data());
}

void CnnDenoiser::check_ids(const int64_t* row, size_t len) const {
  for (size_t i = 0; i < len; ++i)
    if (row[i] < 0 || row[i] >= w_.vocab) throw std::out_of_range("native denoiser: id out of range");
}

namespace {

// One conv over a row, max-pooled over all positions (pre-bias) into mx[C];
// with `sum`, also summed over the non-pad positions, whose count it returns.
// An all-pad window's output is the same vector (`pad`), so it is taken once.
LS_INLINE int conv_pool(const int64_t* row, int L, int width, int vocab, int C, const float* table, const float* pad,
                        float* mx, float* sum) {
  // A local buffer (channels <= 256, checked at construction): the compiler
  // then knows it aliases neither the table nor the outputs.
  float h[kMaxChannels];
  bool have_max = false, pad_done = false;
  int n = 0;
  for (int pos = 0; pos < L; ++pos) {
    const bool masked = row[pos] != 0;  // a non-pad position is never in an all-pad window
    n += masked;
    const float* hv;
    if (all_pad(row, L, pos, width)) {
      if (pad_done) continue;
      hv = pad;
      pad_done = true;
    } else {
      conv_at(row, L, pos, width, vocab, C, table, h);
      hv = h;
    }
    if (!have_max) {
      std::copy(hv, hv + C, mx);
      have_max = true;
    } else {
      for (int c = 0; c < C; ++c) mx[c] = std::max(mx[c], hv[c]);
    }
    if (sum && masked)
      for (int c = 0; c < C; ++c) sum[c] += hv[c];
  }
  return n;
}

}  // namespace

LS_INLINE void CnnDenoiser::token_features(const int64_t* row, float* f) const {
  const int L = w_.max_len, C = w_.tok_channels;
  float* mx = f;
  float* mean = f + C;
  std::fill(mean, mean + C, 0.0f);
  const int n = conv_pool(row, L, w_.tok_width, w_.vocab, C, w_.tok_table.data(), tok_pad_.data(), mx, mean);
  const float nf = static_cast<float>(std::max(n, 1));
  for (int c = 0; c < C; ++c) {
    mx[c] = std::max(mx[c] + w_.tok_bias[static_cast<size_t>(c)], 0.0f);
    mean[c] = std::max(mean[c] / nf + w_.tok_bias[static_cast<size_t>(c)], 0.0f);
  }
  f[2 * C] = nf / static_cast<float>(L);
}

LS_INLINE void CnnDenoiser::context_features(const int64_t* row, float* f) const {
  const int C = w_.ctx_channels;
  conv_pool(row, w_.max_len, w_.ctx_width, w_.vocab, C, w_.ctx_table.data(), ctx_pad_.data(), f, nullptr);
  for (int c = 0; c < C; ++c) f[c] = std::max(f[c] + w_.ctx_bias[static_cast<size_t>(c)], 0.0f);
}

LS_INLINE void CnnDenoiser::fc1_part(const float* f, size_t lo, size_t hi, float* acc) const {
  const size_t H = static_cast<size_t>(w_.hidden);
  for (size_t i = lo; i < hi; ++i) {
    const float x = f[i - lo];
    if (x == 0.0f) continue;  // ReLU features are often zero
    const float* col = fc1_t_.data() + i * H;
    for (size_t j = 0; j < H; ++j) acc[j] += x * col[j];
  }
}

LS_INLINE float CnnDenoiser::head(const float* pre) const {
  float z = w_.fc2_b;
  for (size_t j = 0; j < static_cast<size_t>(w_.hidden); ++j) z += w_.fc2_w[j] * std::max(pre[j], 0.0f);
  return 1.0f / (1.0f + std::exp(-z));
}

LS_KERNEL void CnnDenoiser::score(std::span<const int64_t> rows, size_t n, std::span<float> out) const {
  const size_t L = static_cast<size_t>(w_.max_len), H = static_cast<size_t>(w_.hidden);
  if (rows.size() != n * 3 * L || out.size() < n) throw std::invalid_argument("native denoiser: bad input size");
  check_ids(rows.data(), rows.size());
  const size_t T = 2 * static_cast<size_t>(w_.tok_channels) + 1, Cc = static_cast<size_t>(w_.ctx_channels);
  std::vector<float> tf(T), cf(Cc), pre(H);
  for (size_t r = 0; r < n; ++r) {
    const int64_t* x = rows.data() + r * 3 * L;
    std::copy(w_.fc1_b.begin(), w_.fc1_b.end(), pre.begin());
    token_features(x + L, tf.data());
    fc1_part(tf.data(), 0, T, pre.data());
    context_features(x, cf.data());
    fc1_part(cf.data(), T, T + Cc, pre.data());
    context_features(x + 2 * L, cf.data());
    fc1_part(cf.data(), T + Cc, T + 2 * Cc, pre.data());
    out[r] = head(pre.data());
  }
}

void CnnDenoiser::set_probe_contexts(std::span<const int64_t> ctx, size_t p) {
  const size_t L = static_cast<size_t>(w_.max_len), H = static_cast<size_t>(w_.hidden);
  if (ctx.size() != p * 2 * L) throw std::invalid_argument("native denoiser: bad probe contexts size");
  check_ids(ctx.data(), ctx.size());
  const size_t T = 2 * static_cast<size_t>(w_.tok_channels) + 1, Cc = static_cast<size_t>(w_.ctx_channels);
  std::vector<float> cf(Cc);
  probe_pre_.assign(p * H, 0.0f);
  for (size_t k = 0; k < p; ++k) {
    float* pre = probe_pre_.data() + k * H;
    std::copy(w_.fc1_b.begin(), w_.fc1_b.end(), pre);
    context_features(ctx.data() + k * 2 * L, cf.data());
    fc1_part(cf.data(), T, T + Cc, pre);
    context_features(ctx.data() + k * 2 * L + L, cf.data());
    fc1_part(cf.data(), T + Cc, T + 2 * Cc, pre);
  }
}

LS_KERNEL void CnnDenoiser::probe_scores(std::span<const int64_t> tok_rows, size_t n, std::span<float> out) const {
  const size_t L = static_cast<size_t>(w_.max_len), H = static_cast<size_t>(w_.hidden), P = probe_count();
  if (P == 0) throw std::logic_error("native denoiser: no probe contexts set");
  if (tok_rows.size() != n * L || out.size() < n * P) throw std::invalid_argument("native denoiser: bad input size");
  check_ids(tok_rows.data(), tok_rows.size());
  const size_t T = 2 * static_cast<size_t>(w_.tok_channels) + 1;
  std::vector<float> tf(T), part(H), pre(H);
  for (size_t r = 0; r < n; ++r) {
    token_features(tok_rows.data() + r * L, tf.data());
    std::fill(part.begin(), part.end(), 0.0f);
    fc1_part(tf.data(), 0, T, part.data());
    for (size_t k = 0; k < P; ++k) {
      const float* pp = probe_pre_.data() + k * H;
      for (size_t j = 0; j < H; ++j) pre[j] = pp[j] + part[j];
      out[r * P + k] = head(pre.data());
    }
  }
}

}  // namespace logsift::models
