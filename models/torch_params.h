// A TorchScript module's parameters and attributes in the weights-file form
// (models/weights_file.h), so the native passes are built the same way from
// either. Includes libtorch: for the loadable module's translation units only.
#pragma once

#include <string>

#include <torch/script.h>

#include "models/weights_file.h"

namespace logsift::models {

inline WeightsTensor to_weights_tensor(const at::Tensor& t) {
  WeightsTensor w;
  for (int64_t d : t.sizes()) w.shape.push_back(d);
  if (t.scalar_type() == torch::kBool || t.scalar_type() == torch::kUInt8) {
    at::Tensor u = t.to(torch::kUInt8).contiguous();
    w.u8.assign(u.data_ptr<uint8_t>(), u.data_ptr<uint8_t>() + u.numel());
  } else {
    at::Tensor f = t.detach().to(torch::kFloat32).contiguous();
    w.f32.assign(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
  }
  return w;
}

// Every parameter (float32), the encoder's `drop` table (u8), and the
// attributes the native passes read. No source digest.
inline WeightsFile module_weights(const torch::jit::Module& m) {
  WeightsFile f;
  for (const auto& np : m.named_parameters(true)) f.tensors[np.name] = to_weights_tensor(np.value);
  for (const char* name : {"version", "max_len", "head", "tail", "context", "do_lower_case", "wildcard_token", "var_id",
                           "max_pos"}) {
    if (!m.hasattr(name)) continue;
    const c10::IValue v = m.attr(name);
    if (v.isString()) f.attributes[name] = v.toStringRef();
    else if (v.isBool()) f.attributes[name] = v.toBool();
    else if (v.isInt()) f.attributes[name] = v.toInt();
    else if (v.isDouble()) f.attributes[name] = v.toDouble();
  }
  if (m.hasattr("drop") && m.attr("drop").isTensor()) f.tensors["drop"] = to_weights_tensor(m.attr("drop").toTensor());
  if (m.hasattr("norm") && m.attr("norm").isModule()) {
    const torch::jit::Module norm = m.attr("norm").toModule();
    f.attributes["norm_eps"] = norm.hasattr("eps") ? norm.attr("eps").toDouble() : 1e-5;
  }
  return f;
}

}  // namespace logsift::models
