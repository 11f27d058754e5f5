// Reading a TorchScript module's weights for a native pass
// (models/cnn_denoiser.h, models/log_encoder_native.h). Includes libtorch:
// for models/*.cpp only, like the rest of libtorch (TOOLCHAIN: compile time).
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include <torch/script.h>

namespace logsift::models {

// The module's parameters as contiguous float32 tensors by name, when they
// are exactly `names` (no more, no fewer: another architecture must not be
// read as this one); otherwise empty, with the reason in *why.
inline std::map<std::string, at::Tensor> exact_parameters(const torch::jit::Module& m,
                                                         std::initializer_list<const char*> names,
                                                         const char* architecture, std::string* why) {
  std::map<std::string, at::Tensor> p;
  for (const auto& np : m.named_parameters(true)) p[np.name] = np.value.detach().to(torch::kFloat32).contiguous();
  if (p.size() != names.size()) {
    *why = std::string("not the ") + architecture + " architecture";
    return {};
  }
  for (const char* n : names)
    if (!p.count(n)) {
      *why = std::string("no parameter ") + n;
      return {};
    }
  return p;
}

// A contiguous float32 tensor's values.
inline std::vector<float> to_floats(const at::Tensor& t) {
  return std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
}

}  // namespace logsift::models
