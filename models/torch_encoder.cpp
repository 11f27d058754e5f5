// The TorchScript sentence encoder: WordPiece ids -> a user's (or the
// shipped) BERT-family model -> pooled, L2-normalised rows. The contract a
// model must follow is in models/sentence_encoder.h. In the loadable module only.
#include <algorithm>
#include <cmath>
#include <random>
#include <filesystem>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <torch/script.h>

#include "models/torch_side.h"
#include "models/log_encoder_native.h"
#include "models/torch_params.h"
#include "models/sentence_encoder.h"
#include "models/wordpiece.h"

namespace logsift::models {
namespace {

// Rows per forward pass. Templates are sorted by length first, so smaller
// micro-batches carry less padding: on 256 mixed loghub templates, one 256-row
// pass ran at 3.9k templates/s and 64-row passes at 12k (measured from Python
// on a width-96 draft of log-encoder-v1, one thread; 32 rows: 11.5k, 16: 10.8k).
constexpr size_t kMaxBatchRows = 64;

class TorchScriptEncoder final : public SentenceEncoder {
 public:
  TorchScriptEncoder(torch::jit::Module m, WordPieceTokenizer tokenizer, std::string version, std::string source,
                     bool native)
      : module_(std::move(m)), tokenizer_(std::move(tokenizer)), version_(std::move(version)), source_(std::move(source)) {
    module_.eval();
    // Warm-up, and the output width: a short row and a row of max_len ids, so
    // a model that cannot take max_len positions fails here, not on traffic.
    std::string long_text;
    for (int i = 0; i < tokenizer_.options().max_len; ++i) long_text += "warm up ";
    std::vector<std::vector<int64_t>> rows = {tokenizer_.encode("warm up"), tokenizer_.encode(long_text)};
    torch::Tensor y = forward_rows({&rows[0], &rows[1]});
    dim_ = static_cast<int>(y.size(1));
    if (dim_ <= 0) throw error("forward returned rows of width 0");
    if (native) not_native_ = try_native();
  }

  int dim() const override { return dim_; }
  std::string version() const override { return version_; }
  EncoderDescription describe() const override {
    return {"torchscript", source_, tokenizer_.options().max_len, static_cast<int64_t>(tokenizer_.vocab_size()),
            runtime_label(native_ != nullptr, not_native_)};
  }

  void encode(std::span<const std::string_view> templates, std::span<float> out) override {
    const size_t n = templates.size(), d = static_cast<size_t>(dim_);
    if (out.size() < n * d) throw error("encode: output buffer too small");
    if (n == 0) return;
    ids_.resize(std::max(ids_.size(), n));
    for (size_t i = 0; i < n; ++i) tokenizer_.encode(templates[i], &ids_[i]);
    if (native_) {
      std::vector<float> z(d);
      for (size_t i = 0; i < n; ++i) {
        native_->codes(ids_[i], z.data());
        for (float& v : z) v = v >= 0.0f ? 1.0f : -1.0f;  // forward(): sign(codes)
        normalize_into(z.data(), out.subspan(i * d, d));
      }
      return;
    }
    // Similar lengths share a micro-batch, so little of it is padding.
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ids_[a].size() < ids_[b].size(); });
    std::vector<const std::vector<int64_t>*> rows;
    for (size_t begin = 0; begin < n; begin += kMaxBatchRows) {
      const size_t end = std::min(n, begin + kMaxBatchRows);
      rows.clear();
      for (size_t k = begin; k < end; ++k) rows.push_back(&ids_[order[k]]);
      torch::Tensor y = forward_rows(rows);
      if (y.size(1) != dim_)
        throw error("forward returned width " + std::to_string(y.size(1)) + ", the warm-up returned " +
                    std::to_string(dim_));
      const float* src = y.data_ptr<float>();
      for (size_t k = begin; k < end; ++k)
        normalize_into(src + (k - begin) * d, out.subspan(order[k] * d, d));
    }
  }

 private:
  std::runtime_error error(const std::string& what) const {
    return std::runtime_error("encoder model '" + source_ + "': " + what);
  }

  // One padded micro-batch -> float32 [B, D], contiguous, not yet normalised.
  torch::Tensor forward_rows(const std::vector<const std::vector<int64_t>*>& rows) {
    const int64_t B = static_cast<int64_t>(rows.size());
    int64_t T = 0;
    for (const auto* r : rows) T = std::max<int64_t>(T, static_cast<int64_t>(r->size()));
    c10::InferenceMode guard;
    torch::Tensor ids = torch::full({B, T}, tokenizer_.pad_id(), torch::kInt64);
    torch::Tensor mask = torch::zeros({B, T}, torch::kInt64);
    int64_t* ip = ids.data_ptr<int64_t>();
    int64_t* mp = mask.data_ptr<int64_t>();
    for (int64_t b = 0; b < B; ++b) {
      const auto& r = *rows[static_cast<size_t>(b)];
      std::copy(r.begin(), r.end(), ip + b * T);
      std::fill(mp + b * T, mp + b * T + static_cast<int64_t>(r.size()), int64_t{1});
    }
    c10::IValue out;
    try {
      out = module_.forward({ids, mask});
    } catch (const c10::Error& e) {
      throw error(std::string("forward failed: ") + e.what_without_backtrace());
    } catch (const std::exception& e) {  // torch::jit::JITException: the TorchScript traceback
      throw error(std::string("forward failed: ") + e.what());
    }
    if (out.isTuple()) {
      const auto& elems = out.toTupleRef().elements();
      if (elems.empty()) throw error("forward returned an empty tuple");
      out = elems[0];
    } else if (out.isList()) {
      auto list = out.toList();
      if (list.empty()) throw error("forward returned an empty list");
      out = list.get(0);
    }
    if (!out.isTensor())
      throw error(std::string("forward must return a float tensor [B,D] or [B,T,D] (or a tuple/list starting "
                              "with one), got ") + out.tagKind());
    torch::Tensor y = out.toTensor();
    if (!y.is_floating_point())
      throw error(std::string("forward output must be a floating-point tensor, got ") + c10::toString(y.scalar_type()));
    std::ostringstream shape;
    shape << y.sizes();
    if (y.dim() == 3) {
      if (y.size(0) != B || y.size(1) != T)
        throw error("forward output " + shape.str() + " does not match the input [" + std::to_string(B) + ", " +
                    std::to_string(T) + "] as [B,T,D]");
    } else if (y.dim() == 2) {
      if (y.size(0) != B)
        throw error("forward output " + shape.str() + " does not have the batch size " + std::to_string(B) +
                    " as [B,D]");
    } else {
      throw error("forward output " + shape.str() + " must be [B,D] (sentence embeddings) or [B,T,D] (token states)");
    }
    try {
      y = y.to(torch::kFloat32);
      if (y.dim() == 3) {
        // Masked mean over real tokens (masked_fill, not a product: NaN/inf in
        // padding positions must not leak into the sum).
        torch::Tensor pad = mask.unsqueeze(-1).eq(0);
        y = y.masked_fill(pad, 0.0).sum(1) / mask.sum(1, /*keepdim=*/true).clamp_min(1).to(torch::kFloat32);
      }
      return y.contiguous();
    } catch (const c10::Error& e) {
      throw error(std::string("pooling the output failed: ") + e.what_without_backtrace());
    }
  }

  void normalize_into(const float* src, std::span<float> dst) const {
    double norm = 0;
    for (size_t i = 0; i < dst.size(); ++i) {
      if (!std::isfinite(src[i])) throw error("forward returned a non-finite value");
      norm += static_cast<double>(src[i]) * src[i];
    }
    const double inv = norm > 0 ? 1.0 / std::sqrt(norm) : 0.0;
    for (size_t i = 0; i < dst.size(); ++i) dst[i] = static_cast<float>(src[i] * inv);
  }

  // Switches encode() to the native pass when the module is the shipped
  // log-encoder architecture (exactly its parameters, a codes() method) and
  // both give the same code logits on check rows; returns why not otherwise.
  std::string try_native() {
    if (!module_.find_method("codes")) return "no codes() method";
    std::string why;
    LogEncoderWeights w;
    try {
      if (!log_encoder_weights(module_weights(module_), &w, &why)) return why;
    } catch (const std::exception& e) {
      return e.what();
    }
    if (w.bits != dim_) return "codes width differs from forward's";
    std::unique_ptr<LogEncoderNative> nat;
    try {
      nat = std::make_unique<LogEncoderNative>(std::move(w));
    } catch (const std::exception& e) {
      return e.what();
    }
    // Check rows: templates of several shapes and rows of random ids (with
    // punctuation, [VAR] runs and specials), each compared logit by logit.
    std::vector<std::vector<int64_t>> rows;
    for (const char* t : {"warm up", "Failed password for invalid user <*> from <*> port <*> ssh2",
                          "<*> <*> <*> : <*> , <*>", "...", "", "PacketResponder <*> for block <*> terminating",
                          "Caused by: java.net.ConnectException: Connection refused (Connection refused)"})
      rows.push_back(tokenizer_.encode(t));
    std::mt19937 rng(20261128);
    const int64_t V = static_cast<int64_t>(tokenizer_.vocab_size());
    for (int r = 0; r < 200; ++r) {
      std::vector<int64_t> row(1 + rng() % 40);
      for (auto& id : row) id = static_cast<int64_t>(rng() % static_cast<uint32_t>(V));
      rows.push_back(std::move(row));
    }
    try {
      c10::InferenceMode guard;
      for (const auto& row : rows) {
        const int64_t T = static_cast<int64_t>(row.size());
        torch::Tensor ids = torch::from_blob(const_cast<int64_t*>(row.data()), {1, T}, torch::kInt64).clone();
        torch::Tensor mask = torch::ones({1, T}, torch::kInt64);
        torch::Tensor ref = module_.get_method("codes")({ids, mask}).toTensor().to(torch::kFloat32).contiguous();
        if (ref.numel() != dim_) return "codes() returned another width";
        std::vector<float> got(static_cast<size_t>(dim_));
        nat->codes(row, got.data());
        for (int k = 0; k < dim_; ++k)
          if (!(std::fabs(got[static_cast<size_t>(k)] - ref.data_ptr<float>()[k]) <= 1e-4f))
            return "the native pass disagrees with the module's codes() (" + std::to_string(got[static_cast<size_t>(k)]) +
                   " vs " + std::to_string(ref.data_ptr<float>()[k]) + ")";
      }
    } catch (const std::exception& e) {
      return std::string("check failed: ") + e.what();
    }
    native_ = std::move(nat);
    return {};
  }

  torch::jit::Module module_;
  WordPieceTokenizer tokenizer_;
  std::string version_;
  std::string source_;
  int dim_ = 0;
  std::unique_ptr<LogEncoderNative> native_;
  std::string not_native_;  // why try_native() kept the module's forward
  std::vector<std::vector<int64_t>> ids_;  // per-call scratch, reused
};

}  // namespace

namespace torch_side {

std::unique_ptr<SentenceEncoder> load_encoder(const EncoderOptions& options, std::string_view blob) {
  const std::string& source = options.model;
  auto error = [&](const std::string& what) { return std::runtime_error("encoder model '" + source + "': " + what); };

  torch::jit::ExtraFilesMap extra{{"vocab.txt", ""}};
  if (blob.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(source, ec)) throw error("no such file");
  }
  install_allocator();  // before the first tensor: every block then carries its header
  torch::jit::Module module;
  try {
    if (!blob.empty()) {
      std::istringstream in{std::string(blob)};
      module = torch::jit::load(in, torch::kCPU, extra);
    } else {
      module = torch::jit::load(source, torch::kCPU, extra);
    }
  } catch (const c10::Error& e) {
    throw error(std::string("cannot load as TorchScript: ") + e.what_without_backtrace());
  } catch (const std::exception& e) {
    throw error(std::string("cannot load as TorchScript: ") + e.what());
  }

  auto attr = [&](const char* name, bool (c10::IValue::*is)() const, const char* type) -> std::optional<c10::IValue> {
    if (!module.hasattr(name)) return std::nullopt;
    c10::IValue v = module.attr(name);
    if (!(v.*is)()) throw error(std::string("attribute '") + name + "' must be " + type + ", got " + v.tagKind());
    return v;
  };
  std::string version = "unversioned:" + source;
  if (auto v = attr("version", &c10::IValue::isString, "a str")) version = v->toStringRef();
  WordPieceOptions wp;
  wp.max_len = 128;
  if (auto v = attr("max_len", &c10::IValue::isInt, "an int")) wp.max_len = static_cast<int>(v->toInt());
  if (auto v = attr("do_lower_case", &c10::IValue::isBool, "a bool")) wp.lower_case = v->toBool();
  if (auto v = attr("wildcard_token", &c10::IValue::isString, "a str")) wp.wildcard_token = v->toStringRef();

  WordPieceTokenizer tokenizer = encoder_tokenizer(source, wp, options.max_len, options.vocab_path, extra["vocab.txt"],
                                                  "the archive has no extra file 'vocab.txt'");
  return std::make_unique<TorchScriptEncoder>(std::move(module), std::move(tokenizer), std::move(version), source,
                                              options.native);
}

}  // namespace torch_side
}  // namespace logsift::models
