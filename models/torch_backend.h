// libtorch as a loadable module (liblogsift_torch.so): the shipped models run
// natively from their weights files and never need it, so a process loads
// libtorch (291 shared libraries, ~0.4 s and ~150 MB) only when a
// configuration names a TorchScript model without a native runtime, asks for
// runtime "torchscript", or a command checks a weights file against its
// TorchScript source. Torch-free header.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "models/sentence_encoder.h"
#include "models/token_scorer.h"
#include "models/torch_runtime.h"

namespace logsift::models {

struct WeightsFile;

// The module's entry points. `blob`: the TorchScript archive's bytes when the
// caller has them (the built-in models), else empty and `path` is read.
struct TorchBackend {
  int abi = 0;  // kTorchBackendAbi
  std::unique_ptr<TokenScorer> (*load_scorer)(const std::string& path, std::string_view blob, bool native);
  std::unique_ptr<SentenceEncoder> (*load_encoder)(const EncoderOptions& options, std::string_view blob);
  RuntimeInfo (*runtime_info)();
  void (*configure_threads)(int intra_op_threads);
  TorchAllocatorStats (*allocator_stats)();
  // "" when `weights` is exactly `torchscript`'s parameters and attributes
  // (bit for bit), names its SHA-256, and the native pass agrees with the
  // module's forward on check rows; otherwise what differs.
  std::string (*check_weights)(std::string_view torchscript, const WeightsFile& weights, const std::string& origin);
};
inline constexpr int kTorchBackendAbi = 1;

// Loads the module on first use (thread-safe). Looked for at
// $LOGSIFT_TORCH_MODULE, then beside the executable, then in
// ../lib/logsift/ from it. Throws std::runtime_error saying where it looked
// and why it failed.
const TorchBackend& torch_backend();
// The module if some earlier call loaded it, else nullptr (never loads).
const TorchBackend* loaded_torch_backend();

}  // namespace logsift::models

// The module's one exported symbol.
extern "C" const logsift::models::TorchBackend* logsift_torch_backend();
