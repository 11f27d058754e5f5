// The flat weights file of a shipped-architecture model
// (models/training/weights_file.py writes it beside the TorchScript file).
// The native runtimes read it instead of the TorchScript archive, so a process
// that runs the shipped models never loads libtorch. Torch-free.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/cnn_denoiser.h"
#include "models/log_encoder_native.h"

namespace logsift::models {

struct WeightsTensor {
  std::vector<int64_t> shape;
  std::vector<float> f32;    // dtype f32
  std::vector<uint8_t> u8;   // dtype u8
  int64_t numel() const;
  int64_t dim(size_t i) const { return i < shape.size() ? shape[i] : 0; }
};

struct WeightsFile {
  std::string architecture;   // "char-cnn-denoiser" | "log-encoder"
  std::string source_sha256;  // of the TorchScript file it was written from
  nlohmann::json attributes = nlohmann::json::object();
  std::map<std::string, WeightsTensor> tensors;
  std::map<std::string, std::string> files;  // e.g. the encoder's vocab.txt
};

inline constexpr std::string_view kWeightsMagic = "LSWEIGHTS1\n";
inline bool is_weights_file(std::string_view bytes) { return bytes.substr(0, kWeightsMagic.size()) == kWeightsMagic; }

// Throws std::runtime_error naming `origin` on a malformed or damaged file
// (bad magic, header, bounds, dtype, or data digest).
WeightsFile parse_weights(std::string_view bytes, const std::string& origin);

// The file beside a TorchScript model: "dir/name.pt" -> "dir/name.weights".
std::string weights_path_for(const std::string& torchscript_path);

std::string sha256_hex(std::string_view bytes);

// The file's bytes, or nullopt when it cannot be read.
std::optional<std::string> read_model_file(const std::string& path);
// The weights a native runtime can use for the model file at `path` (its
// bytes given): the file itself when it is a weights file, or a current
// weights file beside it (naming this file's SHA-256); nullopt otherwise.
// Throws std::runtime_error on a damaged weights file.
std::optional<WeightsFile> native_weights_for(const std::string& path, const std::string& bytes);

// The shipped architectures' weights, from a weights file (or from a
// TorchScript module's parameters put in the same form). Empty optional-like
// result: returns false with the reason in *why.
bool cnn_denoiser_weights(const WeightsFile& f, int max_len, CnnDenoiserWeights* out, std::string* why);
bool log_encoder_weights(const WeightsFile& f, LogEncoderWeights* out, std::string* why);

}  // namespace logsift::models
