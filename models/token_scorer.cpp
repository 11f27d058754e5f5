// libtorch lives here (and in the other models/*.cpp) only.
#include "models/token_scorer.h"
#include "models/torch_runtime.h"

#include <cstring>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/script.h>

#include "models/builtin_models.h"

namespace logsift::models {
namespace {

class TorchScriptScorer final : public TokenScorer {
 public:
  TorchScriptScorer(torch::jit::Module m, std::string origin) : module_(std::move(m)) {
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
  }

  const TokenScorerInfo& info() const override { return info_; }
  bool has_token_logit() const override { return token_logit_; }

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
};

}  // namespace

void TokenScorer::token_logits(std::span<const int64_t>, size_t, std::span<float>) {
  throw std::runtime_error("denoiser: this model has no token_logit");
}

std::unique_ptr<TokenScorer> load_token_scorer(const std::string& path) {
  install_torch_allocator();  // before the first tensor: every block then carries its header
  try {
    if (path == "builtin") {
      auto blob = builtin_denoiser();
      std::istringstream in(std::string(blob.data(), blob.size()));
      return std::make_unique<TorchScriptScorer>(torch::jit::load(in, torch::kCPU), "builtin");
    }
    return std::make_unique<TorchScriptScorer>(torch::jit::load(path, torch::kCPU), path);
  } catch (const c10::Error& e) {
    throw std::runtime_error("cannot load denoiser model '" + path + "': " + e.what_without_backtrace());
  }
}

}  // namespace logsift::models
