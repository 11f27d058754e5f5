// The denoiser: the char-CNN scores each pre-masked line's word tokens;
// tokens over the threshold become variables. Its decisions are cached so a
// repeated token costs a lookup:
//  - token: the first time a token string is seen, the model decides whether
//    its decision depends on context. A model with the bounded-context
//    contract (token_logit + context_bound, models/token_scorer.h) answers
//    from ONE token-only row: |token_logit - logit(threshold)| > bound means
//    no context can move it across the threshold. Any other model is scored
//    in 12 fixed probe contexts: all on one side with a margin means context-
//    free. Otherwise the token is "contextual". Every outcome is a pure
//    function of the token, so ids never depend on history;
//  - exact: for contextual tokens, the model's whole input (token + context
//    rows) -> probability, so a repeated line costs hash lookups.
// Both caches are shared: any thread decides from them (decide_cached, the
// analysis), and the denoise stage's thread runs the model for the rest
// (decide).
//
// Decisions never feed back into context rows: every row is encoded from the
// pre-masked tokens alone (as in training), so nothing depends on the order
// tokens are decided in. A decision is recorded in Token::mark.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "models/token_scorer.h"
#include "pipeline/core/cache.h"
#include "pipeline/core/hash.h"
#include "pipeline/core/record.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {

// Reference encoding (models/training/denoiser/model.py encode_line): ids are
// byte+1, 0 = pad, 257 = a pre-masked variable. Only word tokens with
// has_word_char (tokenizer.h) are scored. Writes 3 x L ids for word token
// `words[wi]` of the line (`words`: indices of the word tokens).
void denoise_encode(std::string_view line, std::span<const Token> tokens, std::span<const uint32_t> words, size_t wi,
                    const models::TokenScorerInfo& info, int64_t* out);

struct DenoiseStats {
  uint64_t tokens = 0;            // scored word tokens seen
  uint64_t token_cache_hits = 0;  // decided by the token cache (context-free)
  uint64_t exact_cache_hits = 0;  // contextual, same input seen before
  uint64_t probed_strings = 0;    // new token strings decided for the token cache
  uint64_t model_rows = 0;        // rows through the model (probes / token rows + contextual)
  uint64_t forward_calls = 0;
};

// One line handed to the model step: its text and its tokens (marks updated in place).
struct DenoiseLine {
  std::string_view text;
  std::span<Token> tokens;
};

class Denoiser {
 public:
  Denoiser(const Config& c, std::unique_ptr<models::TokenScorer> scorer);
  const models::TokenScorerInfo& info() const { return scorer_->info(); }
  // "token_logit" (one row per new token string) or "probes"; with
  // "+digit-shapes" when words with digits are decided by their shape.
  std::string context_test() const {
    return std::string(bounded_ ? "token_logit" : "probes") + (digit_shapes_ ? "+digit-shapes" : "");
  }
  // "native" or "torchscript" (models/token_scorer.h).
  std::string runtime() const { return scorer_->runtime(); }

  // Any thread: decides the line's scored word tokens from the caches;
  // returns false if some stay kMarkUndecided (they need decide()). Counts
  // into *stats; the caller hands the batch's sum to record().
  bool decide_cached(std::string_view line, std::span<Token> tokens, DenoiseStats* stats);
  void record(const DenoiseStats& st);

  // The denoise stage's thread only: decides every undecided token of these
  // lines with the model and fills the caches. Lines are taken in slices of
  // at most kSliceTokens undecided tokens (one forward per step per slice):
  // the model input is ~10 KB per unknown token, and a caller may hand over
  // every line in flight (a flood of new templates once grew the process by
  // gigabytes); decisions carry across slices through the caches. Throws
  // std::runtime_error on a model error.
  static constexpr size_t kSliceTokens = 1024;
  void decide(std::span<DenoiseLine> lines);

  DenoiseStats stats() const;
  size_t cache_bytes() const { return token_.bytes() + exact_.bytes(); }
  void cache_usage(std::vector<CacheUsage>* out) const {
    out->push_back(token_.usage("denoise_token"));
    out->push_back(exact_.usage("denoise_exact"));
  }

 private:
  enum class Decision : uint8_t { kConst, kVar, kContextual };
  void decide_slice(std::span<DenoiseLine> lines);
  void run_model(size_t n, DenoiseStats* st);
  void run_token_logits(size_t n, DenoiseStats* st);
  void run_probes(size_t n, DenoiseStats* st);  // n token rows in ids_ -> n x kNumProbes in probs_
  template <typename Fn>
  void split_rows(size_t m, Fn&& fn);

  std::unique_ptr<models::TokenScorer> scorer_;
  float threshold_;
  float probe_margin_;
  // Words with ASCII digits are probed and cached by their shape (each digit
  // as '0'): a counter or an id inside a word (conn274, mx5, v3) is one
  // token-cache entry and one probe, not one per value. Still a pure
  // function of the token, so ids never depend on history.
  bool digit_shapes_ = false;
  // The token cache's key for `text`: itself, or its digit shape in *buf.
  std::string_view token_key(std::string_view text, std::string* buf) const;
  bool bounded_ = false;       // the model has token_logit + context_bound
  bool probe_native_ = false;  // the scorer scores a token row in all probe contexts at once
  float threshold_logit_ = 0;  // log(t / (1 - t))
  float bound_ = 0;            // context_bound plus a float-rounding allowance
  int torch_threads_;
  bool threads_set_ = false;
  size_t max_forward_;
  ConcurrentCache<std::string, Decision, StringHash> token_;  // token bytes -> decision
  ConcurrentCache<Key128, float, Key128Hash> exact_;          // 128-bit hash of the 3xL input -> p
  // The rows the model thread scored lately, direct-mapped by key (model
  // thread only; the values are the exact cache's, a pure function of the key).
  struct RecentRow {
    Key128 key;
    float p = 0;
    bool used = false;
  };
  static constexpr size_t kRecentRows = size_t{1} << 16;
  std::vector<RecentRow> recent_ = std::vector<RecentRow>(kRecentRows);
  std::vector<int64_t> ids_;  // reused model input (model thread)
  std::vector<float> probs_;
  mutable std::mutex stats_mu_;
  DenoiseStats stats_;
};

}  // namespace logsift
