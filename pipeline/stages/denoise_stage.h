// The denoise stage: the char-CNN scores each pre-masked line's word tokens;
// tokens over the threshold become variables. Micro-batches tokens across
// lines and connections (one forward pass per micro-batch) and caches:
//  - token: the first time a token string is seen, the model scores it in a
//    few fixed probe contexts; if every probe gives the same decision with a
//    clear margin, the token's decision does not depend on context and later
//    costs a lookup only. Otherwise it is marked contextual. Both outcomes
//    are pure functions of the token, so ids never depend on history;
//  - exact: for contextual tokens, the model's whole input (token + context
//    rows) -> probability, so a repeated line costs hash lookups.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "models/token_scorer.h"
#include "pipeline/core/cache.h"
#include "pipeline/core/stage.h"

namespace logsift {

struct Key128 {
  uint64_t a, b;
  bool operator==(const Key128&) const = default;
};
struct Key128Hash {
  size_t operator()(const Key128& k) const { return static_cast<size_t>(k.a ^ (k.b * 0x9E3779B97F4A7C15ull)); }
};

// Reference encoding (models/training/denoiser/model.py encode_line): ids are
// byte+1, 0 = pad, 257 = a pre-masked variable. Only word tokens with
// has_word_char (tokenizer.h) are scored.
// Writes 3 x L ids for word token `words[wi]` of the line.
void denoise_encode(std::string_view line, const std::vector<Token>& tokens, const std::vector<uint32_t>& words,
                    size_t wi, const models::TokenScorerInfo& info, int64_t* out);

struct DenoiseStats {
  uint64_t tokens = 0;            // scored word tokens seen
  uint64_t token_cache_hits = 0;  // decided by the token cache (context-free)
  uint64_t exact_cache_hits = 0;  // contextual, same input seen before
  uint64_t probed_strings = 0;    // new token strings probed
  uint64_t model_rows = 0;        // rows through the model (probes + contextual)
  uint64_t forward_calls = 0;
};

class DenoiseStage final : public BatchingStage {
 public:
  DenoiseStage(const Config& c, std::unique_ptr<models::TokenScorer> scorer);
  const models::TokenScorerInfo& info() const { return scorer_->info(); }
  DenoiseStats stats() const;

 protected:
  void process_group(std::vector<Batch*>& group) override;

 private:
  // Scores the first n rows of ids_ into probs_, in chunks of max_forward_.
  void run_model(size_t n, DenoiseStats* st);
  enum class Decision : uint8_t { kConst, kVar, kContextual };

  std::unique_ptr<models::TokenScorer> scorer_;
  float threshold_;
  float probe_margin_;
  int torch_threads_;
  bool threads_set_ = false;
  size_t max_forward_;
  GenerationalCache<Key128, float, Key128Hash> exact_;  // 128-bit hash of the 3xL input -> p
  GenerationalCache<std::string, Decision> token_;     // token bytes -> decision
  std::vector<int64_t> ids_;  // reused input buffer
  std::vector<float> probs_;
  mutable std::mutex stats_mu_;
  DenoiseStats stats_;
};

}  // namespace logsift
