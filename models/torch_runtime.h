// Torch-free facade over libtorch's settings and figures. libtorch itself is
// in the loadable module only (models/torch_backend.h): before a model loads
// it, these are no-ops and zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace logsift::models {

struct RuntimeInfo {
  std::string torch_version;
  int intra_op_threads = 0;
};

// Sets intra-op threads for the calling thread's torch work and 1 inter-op
// thread. The first call also installs the caching CPU allocator (blocks of
// 64 KiB and more are reused across forwards; at most 128 MiB kept free).
void configure_torch_threads(int intra_op_threads);

struct TorchAllocatorStats {
  size_t cached_bytes = 0;  // free blocks kept for reuse
  uint64_t hits = 0;        // large allocations served from the cache
  uint64_t misses = 0;      // large allocations that went to the system
};
TorchAllocatorStats torch_allocator_stats();

// A model's runtime as /info reports it: "native", or "torchscript" with why
// the native pass was not taken when one was asked for.
inline std::string runtime_label(bool native, const std::string& not_native) {
  if (native) return "native";
  return not_native.empty() ? "torchscript" : "torchscript (not native: " + not_native + ")";
}
// torch_version "not loaded" while no model has needed libtorch.
RuntimeInfo runtime_info();

}  // namespace logsift::models
