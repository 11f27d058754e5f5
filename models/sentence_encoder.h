// The torch-free interface of the embedding stage. Implementations: the
// stand-in HashedFeatureEncoder (hashed token features, no training) now, and a
// trained TorchScript encoder later; the pipeline only sees this interface.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace logsift::models {

class SentenceEncoder {
 public:
  virtual ~SentenceEncoder() = default;
  virtual int dim() const = 0;
  // A version string that is part of the cluster-id contract.
  virtual std::string version() const = 0;
  // Embeds n templates into out[n * dim()], each row L2-normalised (or all zero).
  // Called from one stage thread only; implementations need not be thread-safe.
  virtual void encode(std::span<const std::string_view> templates, std::span<float> out) = 0;
};

// STAND-IN (until the trained encoder lands): signed feature hashing of the
// template's lower-cased words and word bigrams; wildcards and punctuation are
// ignored, so case and punctuation differences do not split clusters.
std::unique_ptr<SentenceEncoder> make_hashed_feature_encoder(int dim);

}  // namespace logsift::models
