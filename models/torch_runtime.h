// Torch-free facade over libtorch: the only headers the rest of logsift sees.
// libtorch itself is included in models/*.cpp only (compile time, see TOOLCHAIN).
#pragma once

#include <string>

namespace logsift::models {

struct RuntimeInfo {
  std::string torch_version;
  int intra_op_threads = 0;
};

// Sets intra-op threads for the calling thread's torch work and 1 inter-op thread.
void configure_torch_threads(int intra_op_threads);
RuntimeInfo runtime_info();

}  // namespace logsift::models
