// The torch-free interface of the denoiser model: any TorchScript module with
// the contract forward(int64 [B, 3, L]) -> float [B] (probability that the
// middle row's token is a variable) plugs in here. See
// models/training/denoiser/model.py for the encoding of the three rows.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace logsift::models {

struct TokenScorerInfo {
  std::string version;         // part of the cluster-id contract
  int max_len = 32;            // L
  int head = 24, tail = 8;     // long tokens keep their first `head` and last `tail` bytes
  std::string context = "span";  // "span": neighbour span rows; "word": neighbour word rows
  // Bounded-context contract (optional): a module with an exported method
  // token_logit(int64 [B, L]) -> float [B] (the token row alone) and a float
  // attribute context_bound > 0 guarantees |logit(forward(x)) -
  // token_logit(x[:, 1])| <= context_bound for every context, so a token far
  // enough from the threshold is decided from one token-only row. 0: none.
  double context_bound = 0;
};

class TokenScorer {
 public:
  virtual ~TokenScorer() = default;
  virtual const TokenScorerInfo& info() const = 0;
  // ids: n * 3 * L int64 (row-major), out: n probabilities. One thread at a
  // time (the denoise stage's), unless thread_safe(). Throws
  // std::runtime_error on a model error.
  virtual void score(std::span<const int64_t> ids, size_t n, std::span<float> out) = 0;
  // The bounded-context contract (info().context_bound > 0).
  virtual bool has_token_logit() const { return false; }
  // ids: n * L int64 (token rows), out: n logits. Same threading as score().
  virtual void token_logits(std::span<const int64_t> ids, size_t n, std::span<float> out);

  // Which code computes score(): "torchscript" (the module's forward) or
  // "native" (models/cnn_denoiser.h, for the shipped architecture, checked
  // against the module's forward at load).
  virtual std::string runtime() const { return "torchscript"; }
  // Whether score() and probe_scores() may run on several threads at once
  // (on disjoint outputs): the native pass may, a TorchScript module not.
  virtual bool thread_safe() const { return false; }
  // Probe scoring (native runtime only): contexts fixed once (p x 2 x L ids:
  // left, right), then each token row (n x L) is scored in all of them
  // (n x p probabilities, as score() on the assembled rows) for the cost of
  // about one row.
  virtual bool can_probe() const { return false; }
  virtual void set_probe_contexts(std::span<const int64_t> ctx, size_t p);
  virtual void probe_scores(std::span<const int64_t> tok_rows, size_t n, std::span<float> out);
};

// Loads a TorchScript file ("builtin" = the model embedded in the binary).
// Reads the module's version/max_len/head/tail/context attributes when present.
// native: score with models/cnn_denoiser.h when the module is the shipped
// architecture and the native pass agrees with its forward on check rows
// (otherwise, and for any other module, the module's forward runs).
// Throws std::runtime_error naming the file on failure.
// "builtin", a TorchScript file, or a weights file. With `native`, the
// shipped architecture runs from its weights file (the file itself, or
// NAME.weights beside NAME.pt naming that file's SHA-256) without libtorch;
// anything else loads the libtorch module.
std::unique_ptr<TokenScorer> load_token_scorer(const std::string& path_or_builtin, bool native = true);


}  // namespace logsift::models
