// Loading a denoiser: the shipped architecture runs natively from its weights
// file (no libtorch); any other TorchScript module goes to the libtorch module
// (models/torch_backend.h). Torch-free.
#include "models/token_scorer.h"

#include <stdexcept>

#include "models/builtin_models.h"
#include "models/cnn_denoiser.h"
#include "models/torch_backend.h"
#include "models/weights_file.h"

namespace logsift::models {
namespace {

class NativeScorer final : public TokenScorer {
 public:
  NativeScorer(const WeightsFile& f, const std::string& origin) {
    auto fail = [&](const std::string& what) { return std::runtime_error("denoiser " + origin + ": " + what); };
    if (f.architecture != "char-cnn-denoiser")
      throw fail("the weights file holds a " + f.architecture + ", not a char-CNN denoiser");
    const auto& a = f.attributes;
    try {
      info_.version = a.value("version", "unversioned:" + origin);
      info_.max_len = a.value("max_len", 32);
      info_.head = a.value("head", 24);
      info_.tail = a.value("tail", 8);
      info_.context = a.value("context", std::string("span"));
    } catch (const nlohmann::json::exception& e) {
      throw fail(std::string("bad attribute: ") + e.what());
    }
    if (info_.max_len <= 0 || info_.head + info_.tail != info_.max_len) throw fail("inconsistent max_len/head/tail");
    if (info_.context != "span" && info_.context != "word") throw fail("unknown context '" + info_.context + "'");
    CnnDenoiserWeights w;
    std::string why;
    if (!cnn_denoiser_weights(f, info_.max_len, &w, &why)) throw fail(why);
    try {
      native_ = std::make_unique<CnnDenoiser>(std::move(w));
    } catch (const std::exception& e) {
      throw fail(e.what());
    }
  }

  const TokenScorerInfo& info() const override { return info_; }
  std::string runtime() const override { return "native"; }
  bool can_probe() const override { return true; }
  bool thread_safe() const override { return true; }
  void score(std::span<const int64_t> ids, size_t n, std::span<float> out) override {
    if (n) native_->score(ids, n, out);
  }
  void set_probe_contexts(std::span<const int64_t> ctx, size_t p) override { native_->set_probe_contexts(ctx, p); }
  void probe_scores(std::span<const int64_t> tok_rows, size_t n, std::span<float> out) override {
    native_->probe_scores(tok_rows, n, out);
  }

 private:
  TokenScorerInfo info_;
  std::unique_ptr<CnnDenoiser> native_;
};

}  // namespace

void TokenScorer::token_logits(std::span<const int64_t>, size_t, std::span<float>) {
  throw std::runtime_error("denoiser: this model has no token_logit");
}
void TokenScorer::set_probe_contexts(std::span<const int64_t>, size_t) {
  throw std::runtime_error("denoiser: probe scoring needs the native runtime");
}
void TokenScorer::probe_scores(std::span<const int64_t>, size_t, std::span<float>) {
  throw std::runtime_error("denoiser: probe scoring needs the native runtime");
}

std::unique_ptr<TokenScorer> load_token_scorer(const std::string& path, bool native) {
  if (path == "builtin") {
    if (native && !builtin_denoiser_weights().empty())
      return std::make_unique<NativeScorer>(parse_weights(builtin_denoiser_weights(), "builtin"), "builtin");
    return torch_backend().load_scorer(path, builtin_denoiser(), native);
  }
  auto bytes = read_model_file(path);
  if (!bytes) throw std::runtime_error("cannot load denoiser model '" + path + "': cannot read the file");
  if (native) {
    std::optional<WeightsFile> w;
    try {
      w = native_weights_for(path, *bytes);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error("cannot load denoiser model '" + path + "': " + e.what());
    }
    if (w) return std::make_unique<NativeScorer>(*w, path);
  } else if (is_weights_file(*bytes)) {
    throw std::runtime_error("denoiser model '" + path +
                             "' is a weights file: runtime \"torchscript\" needs the TorchScript file it was written from");
  }
  return torch_backend().load_scorer(path, {}, native);
}

}  // namespace logsift::models
