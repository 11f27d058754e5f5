#include "models/torch_runtime.h"

#include <mutex>

#include <ATen/Parallel.h>
#include <torch/version.h>

namespace logsift::models {

void configure_torch_threads(int intra_op_threads) {
  // Inter-op threads can be set once per process only.
  static std::once_flag once;
  std::call_once(once, [] { at::set_num_interop_threads(1); });
  at::set_num_threads(intra_op_threads);
}

RuntimeInfo runtime_info() {
  RuntimeInfo info;
  info.torch_version = TORCH_VERSION;
  info.intra_op_threads = at::get_num_threads();
  return info;
}

}  // namespace logsift::models
