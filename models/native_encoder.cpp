// Loading a sentence encoder: the shipped log-encoder architecture runs
// natively from its weights file (no libtorch); any other TorchScript module
// goes to the libtorch module (models/torch_backend.h). Torch-free.
#include <cmath>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "models/builtin_models.h"
#include "models/log_encoder_native.h"
#include "models/sentence_encoder.h"
#include "models/torch_backend.h"
#include "models/weights_file.h"
#include "models/wordpiece.h"

namespace logsift::models {
namespace {

class NativeEncoder final : public SentenceEncoder {
 public:
  NativeEncoder(std::unique_ptr<LogEncoderNative> native, WordPieceTokenizer tokenizer, std::string version,
                std::string source)
      : native_(std::move(native)), tokenizer_(std::move(tokenizer)), version_(std::move(version)),
        source_(std::move(source)) {}

  int dim() const override { return native_->bits(); }
  std::string version() const override { return version_; }
  EncoderDescription describe() const override {
    // "torchscript": the model's format, which the id contract names; the
    // runtime says which code computes it.
    return {"torchscript", source_, tokenizer_.options().max_len, static_cast<int64_t>(tokenizer_.vocab_size()),
            "native"};
  }

  void encode(std::span<const std::string_view> templates, std::span<float> out) override {
    const size_t n = templates.size(), d = static_cast<size_t>(dim());
    if (out.size() < n * d) throw std::runtime_error("encoder model '" + source_ + "': encode: output buffer too small");
    ids_.resize(std::max(ids_.size(), n));
    std::vector<float> z(d);
    for (size_t i = 0; i < n; ++i) {
      tokenizer_.encode(templates[i], &ids_[i]);
      native_->codes(ids_[i], z.data());
      // forward(): sign(codes), then L2-normalised as any encoder's rows.
      double norm = 0;
      for (float& v : z) {
        v = v >= 0.0f ? 1.0f : -1.0f;
        norm += static_cast<double>(v) * v;
      }
      const double inv = 1.0 / std::sqrt(norm);
      for (size_t k = 0; k < d; ++k) out[i * d + k] = static_cast<float>(z[k] * inv);
    }
  }

 private:
  std::unique_ptr<LogEncoderNative> native_;
  WordPieceTokenizer tokenizer_;
  std::string version_, source_;
  std::vector<std::vector<int64_t>> ids_;  // per-call scratch, reused
};

std::unique_ptr<SentenceEncoder> native_encoder(const WeightsFile& f, const EncoderOptions& options) {
  const std::string& source = options.model;
  auto error = [&](const std::string& what) { return std::runtime_error("encoder model '" + source + "': " + what); };
  if (f.architecture != "log-encoder") throw error("the weights file holds a " + f.architecture + ", not a log encoder");
  const auto& a = f.attributes;
  std::string version = "unversioned:" + source;
  WordPieceOptions wp;
  try {
    version = a.value("version", version);
    wp.max_len = a.value("max_len", 128);
    wp.lower_case = a.value("do_lower_case", wp.lower_case);
    wp.wildcard_token = a.value("wildcard_token", wp.wildcard_token);
  } catch (const nlohmann::json::exception& e) {
    throw error(std::string("bad attribute: ") + e.what());
  }
  const auto vocab = f.files.find("vocab.txt");
  WordPieceTokenizer tokenizer =
      encoder_tokenizer(source, wp, options.max_len, options.vocab_path,
                        vocab == f.files.end() ? std::string_view() : std::string_view(vocab->second),
                        "the weights file has no vocab.txt");
  LogEncoderWeights w;
  std::string why;
  if (!log_encoder_weights(f, &w, &why)) throw error(why);
  if (w.vocab != static_cast<int>(tokenizer.vocab_size())) throw error("the vocab's size differs from the embedding's");
  std::unique_ptr<LogEncoderNative> nat;
  try {
    nat = std::make_unique<LogEncoderNative>(std::move(w));
  } catch (const std::exception& e) {
    throw error(e.what());
  }
  return std::make_unique<NativeEncoder>(std::move(nat), std::move(tokenizer), std::move(version), source);
}

}  // namespace

std::unique_ptr<SentenceEncoder> load_torchscript_encoder(const EncoderOptions& options) {
  const std::string& source = options.model;
  auto error = [&](const std::string& what) { return std::runtime_error("encoder model '" + source + "': " + what); };
  if (source == "builtin") {
    if (builtin_encoder().empty())
      throw error("this build has no built-in encoder (CMake LOGSIFT_ENCODER_FILE, default models/encoder-v1.pt, was "
                  "missing when it was built); use \"hashed\" or the path of a TorchScript file");
    if (options.native && !builtin_encoder_weights().empty())
      return native_encoder(parse_weights(builtin_encoder_weights(), "builtin"), options);
    return torch_backend().load_encoder(options, builtin_encoder());
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(source, ec)) throw error("no such file");
  auto bytes = read_model_file(source);
  if (!bytes) throw error("cannot read the file");
  if (options.native) {
    std::optional<WeightsFile> w;
    try {
      w = native_weights_for(source, *bytes);
    } catch (const std::runtime_error& e) {
      throw error(e.what());
    }
    if (w) return native_encoder(*w, options);
  } else if (is_weights_file(*bytes)) {
    throw error("a weights file: runtime \"torchscript\" needs the TorchScript file it was written from");
  }
  return torch_backend().load_encoder(options, {});
}

}  // namespace logsift::models
