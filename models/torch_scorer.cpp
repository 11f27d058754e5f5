// A denoiser as a TorchScript module (libtorch; in the loadable module only).
#include "models/token_scorer.h"
#include "models/torch_side.h"

#include <cmath>
#include <cstring>
#include <random>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/script.h>

#include "models/cnn_denoiser.h"
#include "models/torch_params.h"

namespace logsift::models {
namespace {

class TorchScriptScorer final : public TokenScorer {
 public:
  TorchScriptScorer(torch::jit::Module m, std::string origin, bool native) : module_(std::move(m)) {
    module_.eval();
    auto attr_str = [&](const char* name, std::string def) {
      return module_.hasattr(name) ? module_.attr(name).toStringRef() : def;
    };
    auto attr_int = [&](const char* name, int def) {
      return module_.hasattr(name) ? static_cast<int>(module_.attr(name).toInt()) : def;
    };
    info_.version = attr_str("version", "unversioned:" + origin);
    info_.max_len = attr_int("max_len", 32);
    info_.head = attr_int("head", 24);
    info_.tail = attr_int("tail", 8);
    info_.context = attr_str("context", "span");
    if (info_.max_len <= 0 || info_.head + info_.tail != info_.max_len)
      throw std::runtime_error("denoiser " + origin + ": inconsistent max_len/head/tail");
    if (info_.context != "span" && info_.context != "word")
      throw std::runtime_error("denoiser " + origin + ": unknown context '" + info_.context + "'");
    if (module_.hasattr("context_bound") && module_.find_method("token_logit")) {
      info_.context_bound = module_.attr("context_bound").toDouble();
      if (!(info_.context_bound > 0))
        throw std::runtime_error("denoiser " + origin + ": context_bound must be > 0");
      token_logit_ = true;
    }
    warm_up(origin);
    if (native) not_native_ = try_native();  // any other module keeps its own forward
  }

  const TokenScorerInfo& info() const override { return info_; }
  bool has_token_logit() const override { return token_logit_; }
  std::string runtime() const override { return runtime_label(native_ != nullptr, not_native_); }
  bool can_probe() const override { return native_ != nullptr; }
  bool thread_safe() const override { return native_ != nullptr; }
  void set_probe_contexts(std::span<const int64_t> ctx, size_t p) override {
    if (!native_) TokenScorer::set_probe_contexts(ctx, p);
    native_->set_probe_contexts(ctx, p);
  }
  void probe_scores(std::span<const int64_t> tok_rows, size_t n, std::span<float> out) override {
    if (!native_) TokenScorer::probe_scores(tok_rows, n, out);
    native_->probe_scores(tok_rows, n, out);
  }

  // Switches score() to the native pass when the module is the shipped
  // architecture (exactly its parameters, no token_logit) and both agree on
  // check rows; returns why not otherwise.
  std::string try_native() {
    if (token_logit_) return "the module has token_logit";
    std::string why;
    CnnDenoiserWeights w;
    if (!cnn_denoiser_weights(module_weights(module_), info_.max_len, &w, &why)) return why;
    std::unique_ptr<CnnDenoiser> nat;
    try {
      nat = std::make_unique<CnnDenoiser>(std::move(w));
    } catch (const std::exception& e) {
      return e.what();
    }
    // Check rows: tokens and contexts of every length, bytes and variables.
    const size_t L = static_cast<size_t>(info_.max_len), kRows = 512;
    std::vector<int64_t> ids(kRows * 3 * L, 0);
    std::mt19937 rng(20261128);
    for (size_t r = 0; r < kRows; ++r)
      for (size_t part = 0; part < 3; ++part) {
        const size_t len = rng() % (L + 1);
        for (size_t i = 0; i < len; ++i) {
          const unsigned v = rng() % 100;
          ids[(r * 3 + part) * L + i] = part != 1 && v < 8 ? 257 : v < 70 ? 'a' + 1 + rng() % 26 : 1 + rng() % 256;
        }
      }
    std::vector<float> ref(kRows), got(kRows);
    score(ids, kRows, ref);
    nat->score(ids, kRows, got);
    for (size_t r = 0; r < kRows; ++r)
      if (!(std::fabs(ref[r] - got[r]) <= 1e-5f))
        return "the native pass disagrees with the module's forward (" + std::to_string(got[r]) + " vs " +
               std::to_string(ref[r]) + ")";
    native_ = std::move(nat);
    return {};
  }

  void token_logits(std::span<const int64_t> ids, size_t n, std::span<float> out) override {
    if (n == 0) return;
    const int64_t L = info_.max_len;
    if (!token_logit_ || ids.size() != n * static_cast<size_t>(L) || out.size() < n)
      throw std::runtime_error("denoiser: bad token_logit input");
    c10::InferenceMode guard;
    try {
      auto x = torch::from_blob(const_cast<int64_t*>(ids.data()), {static_cast<int64_t>(n), L}, torch::kInt64);
      auto y = module_.get_method("token_logit")({x}).toTensor().to(torch::kFloat32).contiguous();
      if (y.dim() != 1 || y.size(0) != static_cast<int64_t>(n))
        throw std::runtime_error("denoiser: token_logit output shape must be [B]");
      std::memcpy(out.data(), y.data_ptr<float>(), n * sizeof(float));
    } catch (const c10::Error& e) {
      throw std::runtime_error(std::string("denoiser token_logit: ") + e.what_without_backtrace());
    }
  }

  void score(std::span<const int64_t> ids, size_t n, std::span<float> out) override {
    if (n == 0) return;
    if (native_) return native_->score(ids, n, out);
    const int64_t L = info_.max_len;
    if (ids.size() != n * 3 * static_cast<size_t>(L) || out.size() < n)
      throw std::runtime_error("denoiser: bad input size");
    c10::InferenceMode guard;
    try {
      auto x = torch::from_blob(const_cast<int64_t*>(ids.data()), {static_cast<int64_t>(n), 3, L}, torch::kInt64);
      auto y = module_.forward({x}).toTensor().to(torch::kFloat32).contiguous();
      if (y.dim() != 1 || y.size(0) != static_cast<int64_t>(n))
        throw std::runtime_error("denoiser: output shape must be [B]");
      std::memcpy(out.data(), y.data_ptr<float>(), n * sizeof(float));
    } catch (const c10::Error& e) {
      throw std::runtime_error(std::string("denoiser forward: ") + e.what_without_backtrace());
    }
  }

 private:
  // At load, not on the first line of traffic: the first forwards of a
  // TorchScript module run the profiling executor's optimisation passes (slow),
  // and a module that breaks the contract ([B, 3, max_len] int64 -> [B]) fails
  // here with a clear error instead of in the serving path.
  void warm_up(const std::string& origin) {
    constexpr size_t kRows = 32;
    std::vector<int64_t> ids(kRows * 3 * static_cast<size_t>(info_.max_len), 0);
    for (size_t r = 0; r < kRows; ++r) ids[(r * 3 + 1) * info_.max_len] = 'a' + 1 + static_cast<int64_t>(r % 26);
    std::vector<float> out(kRows);
    try {
      const std::span<const int64_t> all(ids);
      for (int rep = 0; rep < 2; ++rep) {
        score(all.first(3 * static_cast<size_t>(info_.max_len)), 1, out);
        score(all, kRows, out);
        if (token_logit_) {
          token_logits(all.first(static_cast<size_t>(info_.max_len)), 1, out);
          token_logits(all.first(kRows * static_cast<size_t>(info_.max_len)), kRows, out);
        }
      }
    } catch (const std::exception& e) {
      throw std::runtime_error("denoiser " + origin + ": warm-up forward failed (contract: int64 [B, 3, max_len] -> float [B]): " +
                               e.what());
    }
  }

  torch::jit::Module module_;
  TokenScorerInfo info_;
  bool token_logit_ = false;
  std::unique_ptr<CnnDenoiser> native_;
  std::string not_native_;  // why try_native() kept the module's forward
};

}  // namespace

namespace torch_side {

std::unique_ptr<TokenScorer> load_scorer(const std::string& path, std::string_view blob, bool native) {
  install_allocator();  // before the first tensor: every block then carries its header
  const std::string origin = blob.empty() ? path : "builtin";
  try {
    if (!blob.empty()) {
      std::istringstream in{std::string(blob)};
      return std::make_unique<TorchScriptScorer>(torch::jit::load(in, torch::kCPU), origin, native);
    }
    return std::make_unique<TorchScriptScorer>(torch::jit::load(path, torch::kCPU), origin, native);
  } catch (const c10::Error& e) {
    throw std::runtime_error("cannot load denoiser model '" + path + "': " + e.what_without_backtrace());
  }
}

}  // namespace torch_side
}  // namespace logsift::models
