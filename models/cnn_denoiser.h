// A native forward pass of the shipped char-CNN denoiser architecture
// (models/training/denoiser/model.py, class Denoiser), torch-free.
//
// Why: libtorch spends ~5 us per row on a model of ~30k multiply-adds, and a
// token the caches do not know is scored in 12 probe contexts. The model is
// separable: its first layer is a sum of a token part (conv features of the
// token row) and a context part (conv features of the left and right rows),
// so with fixed probe contexts the context part is a constant per probe.
// Probing a token then costs one token row plus 12 tiny heads, not 12 rows.
//
// The weights come from the TorchScript file (models/token_scorer.cpp reads
// them and checks this kernel against the module's own forward before using
// it); the model file stays the single source of truth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace logsift::models {

struct CnnDenoiserWeights {
  int vocab = 258;  // ids 0..vocab-1 (0 pad, byte+1, 257 variable)
  int max_len = 32;
  int tok_width = 0, tok_channels = 0;
  std::vector<float> tok_table;  // [tok_width * vocab, tok_channels]
  std::vector<float> tok_bias;   // [tok_channels]
  int ctx_width = 0, ctx_channels = 0;
  std::vector<float> ctx_table;  // [ctx_width * vocab, ctx_channels]
  std::vector<float> ctx_bias;   // [ctx_channels]
  int hidden = 0;
  std::vector<float> fc1_w;  // [hidden, 2*tok_channels + 1 + 2*ctx_channels]
  std::vector<float> fc1_b;  // [hidden]
  std::vector<float> fc2_w;  // [hidden]
  float fc2_b = 0;
};

class CnnDenoiser {
 public:
  // Throws std::invalid_argument on inconsistent shapes.
  explicit CnnDenoiser(CnnDenoiserWeights w);

  int max_len() const { return w_.max_len; }

  // rows: n x 3 x max_len ids (left, token, right) -> n probabilities.
  // Ids outside [0, vocab) throw std::out_of_range. Thread-safe.
  void score(std::span<const int64_t> rows, size_t n, std::span<float> out) const;

  // Fixes the probe contexts: p x 2 x max_len ids (left, right row each).
  // Not thread-safe against probe_scores; call once before use.
  void set_probe_contexts(std::span<const int64_t> ctx, size_t p);
  size_t probe_count() const { return probe_pre_.size() / static_cast<size_t>(w_.hidden); }

  // tok_rows: n x max_len token rows -> n x probe_count() probabilities, the
  // same as score() on the token between each probe's context rows.
  void probe_scores(std::span<const int64_t> tok_rows, size_t n, std::span<float> out) const;

 private:
  size_t feat_dim() const { return 2 * static_cast<size_t>(w_.tok_channels) + 1 + 2 * static_cast<size_t>(w_.ctx_channels); }
  void check_ids(const int64_t* row, size_t len) const;
  // 2*tok_channels + 1 features of a token row.
  void token_features(const int64_t* row, float* f) const;
  // ctx_channels features of a context row.
  void context_features(const int64_t* row, float* f) const;
  // acc[hidden] += fc1 columns [lo, hi) . f[0, hi - lo)
  void fc1_part(const float* f, size_t lo, size_t hi, float* acc) const;
  float head(const float* pre) const;  // relu, fc2, sigmoid

  CnnDenoiserWeights w_;
  std::vector<float> fc1_t_;      // fc1 transposed: [feat_dim, hidden]
  std::vector<float> tok_pad_;    // the token conv's output at an all-pad window
  std::vector<float> ctx_pad_;    // the same for the context conv
  std::vector<float> probe_pre_;  // per probe: fc1 bias + context part, [p, hidden]
};

}  // namespace logsift::models
