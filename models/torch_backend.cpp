// Finding and loading liblogsift_torch.so. Torch-free.
#include "models/torch_backend.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace logsift::models {
namespace {

constexpr const char* kModuleName = "liblogsift_torch.so";
std::atomic<const TorchBackend*> g_backend{nullptr};

std::vector<std::string> candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("LOGSIFT_TORCH_MODULE"); env && *env) out.emplace_back(env);
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back((exe.parent_path() / kModuleName).string());
    out.push_back((exe.parent_path().parent_path() / "lib" / "logsift" / kModuleName).string());
  }
  return out;
}

const TorchBackend* load() {
  std::string tried;
  for (const std::string& path : candidates()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += "\n  " + path + ": no such file";
      continue;
    }
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      tried += "\n  " + path + ": " + dlerror();
      continue;
    }
    using Entry = const TorchBackend* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(h, "logsift_torch_backend"));
    const TorchBackend* b = entry ? entry() : nullptr;
    if (!b || b->abi != kTorchBackendAbi) {
      tried += "\n  " + path + ": not this build's libtorch module (entry point or ABI differs)";
      dlclose(h);
      continue;
    }
    return b;  // never closed: objects it made live as long as the process
  }
  throw std::runtime_error(
      "this needs libtorch (a TorchScript model without a native weights file, or runtime \"torchscript\"), and "
      "its module could not be loaded; set LOGSIFT_TORCH_MODULE to liblogsift_torch.so. Tried:" + tried);
}

}  // namespace

const TorchBackend& torch_backend() {
  static std::mutex mu;
  if (const TorchBackend* b = g_backend.load(std::memory_order_acquire)) return *b;
  std::lock_guard<std::mutex> lock(mu);
  if (!g_backend.load(std::memory_order_relaxed)) g_backend.store(load(), std::memory_order_release);
  return *g_backend.load(std::memory_order_relaxed);
}

const TorchBackend* loaded_torch_backend() { return g_backend.load(std::memory_order_acquire); }

void configure_torch_threads(int intra_op_threads) {
  if (const TorchBackend* b = loaded_torch_backend()) b->configure_threads(intra_op_threads);
}

TorchAllocatorStats torch_allocator_stats() {
  const TorchBackend* b = loaded_torch_backend();
  return b ? b->allocator_stats() : TorchAllocatorStats{};
}

RuntimeInfo runtime_info() {
  const TorchBackend* b = loaded_torch_backend();
  return b ? b->runtime_info() : RuntimeInfo{"not loaded", 0};
}

}  // namespace logsift::models
