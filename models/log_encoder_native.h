// A native forward pass of the shipped log encoder's architecture
// (models/training/encoder/model.py, class LogEncoder), torch-free.
//
// Why: through libtorch the encoder costs ~25-30 us a template, and on the
// cold path (every line a new template) it is half of the work. Most of that
// is the 64-to-64 width-3 convolution over token embeddings; since its input
// is an embedding, each tap's product with every vocabulary entry is computed
// once at load (vocab x 3 x d floats, 2.8 MB for log-encoder-v1), so a
// position costs three row additions. The rest (attention pooling,
// LayerNorm, projection) is small.
//
// The weights come from the TorchScript file (models/torch_encoder.cpp reads
// them and checks this pass against the module's own codes() before using
// it); the model file stays the single source of truth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace logsift::models {

struct LogEncoderWeights {
  int vocab = 0, d = 0, bits = 0, max_pos = 0, att_dim = 0;
  int64_t var_id = -1;
  std::vector<uint8_t> drop;        // [vocab]: ids the model ignores (punctuation, specials but [VAR])
  std::vector<float> emb;           // [vocab, d]
  std::vector<float> conv_w;        // [d, d, 3] (out, in, tap), 'same' padding
  std::vector<float> conv_b;        // [d]
  std::vector<float> pos_start;     // [max_pos, att_dim]
  std::vector<float> pos_end;       // [max_pos, att_dim]
  std::vector<float> att_hidden_w;  // [att_dim, d]
  std::vector<float> att_hidden_b;  // [att_dim]
  std::vector<float> att_w;         // [att_dim]
  float att_b = 0;
  std::vector<float> norm_w, norm_b;  // [d]
  float norm_eps = 1e-5f;
  std::vector<float> proj_w;  // [bits, d]
  std::vector<float> proj_b;  // [bits]
};

class LogEncoderNative {
 public:
  // Throws std::invalid_argument on inconsistent shapes.
  explicit LogEncoderNative(LogEncoderWeights w);

  int bits() const { return w_.bits; }

  // One template's WordPiece ids (every one attended) -> bits code logits
  // (the module's codes()). Ids outside the vocab throw std::out_of_range.
  // Thread-safe.
  void codes(std::span<const int64_t> ids, float* z) const;

 private:
  LogEncoderWeights w_;
  std::vector<float> taps_;  // [vocab, 3, d]: conv tap k's product with each embedding
  std::vector<float> att_hidden_t_;  // [d, att_dim]
  std::vector<float> proj_t_;        // [d, bits]
};

}  // namespace logsift::models
