// liblogsift_torch.so's entry point (models/torch_backend.h), and the check
// that a weights file is exactly its TorchScript source.
#include <cstring>
#include <sstream>

#include <torch/script.h>

#include "models/torch_backend.h"
#include "models/torch_params.h"
#include "models/torch_side.h"

namespace logsift::models::torch_side {

std::string check_weights(std::string_view torchscript, const WeightsFile& weights, const std::string& origin) {
  if (sha256_hex(torchscript) != weights.source_sha256)
    return "the weights file names another TorchScript file (source_sha256 differs): write it again with "
           "models/training/weights_file.py";
  WeightsFile m;
  try {
    std::istringstream in{std::string(torchscript)};
    m = module_weights(torch::jit::load(in, torch::kCPU));
  } catch (const c10::Error& e) {
    return std::string("cannot load ") + origin + " as TorchScript: " + e.what_without_backtrace();
  }
  if (m.tensors.size() != weights.tensors.size()) return "the tensors differ in number";
  for (const auto& [name, t] : m.tensors) {
    auto it = weights.tensors.find(name);
    if (it == weights.tensors.end()) return "the weights file has no tensor " + name;
    const WeightsTensor& w = it->second;
    if (w.shape != t.shape || w.f32.size() != t.f32.size() || w.u8 != t.u8 ||
        (!t.f32.empty() && std::memcmp(w.f32.data(), t.f32.data(), t.f32.size() * sizeof(float)) != 0))
      return "tensor " + name + " differs";
  }
  for (const auto& [key, value] : m.attributes.items())
    if (!weights.attributes.contains(key) || weights.attributes[key] != value)
      return "attribute " + key + " differs (" + value.dump() + " in the module)";
  for (const auto& [key, value] : weights.attributes.items())
    if (!m.attributes.contains(key)) return "attribute " + key + " is not the module's";
  // The native pass built from the module must agree with its forward: the
  // loaders compare them on check rows and say why when they do not.
  const bool encoder = weights.architecture == "log-encoder";
  std::string runtime;
  if (encoder) {
    EncoderOptions o;
    o.model = origin;
    runtime = load_encoder(o, torchscript)->describe().runtime;
  } else {
    runtime = load_scorer(origin, torchscript, true)->runtime();
  }
  if (runtime != "native") return "the module's native pass is not taken: " + runtime;
  return {};
}

}  // namespace logsift::models::torch_side

extern "C" const logsift::models::TorchBackend* logsift_torch_backend() {
  namespace ts = logsift::models::torch_side;
  static const logsift::models::TorchBackend backend{
      logsift::models::kTorchBackendAbi, ts::load_scorer, ts::load_encoder, ts::runtime_info,
      ts::configure_threads,           ts::allocator_stats, ts::check_weights};
  return &backend;
}
