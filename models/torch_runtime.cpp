#include "models/torch_side.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include <ATen/Parallel.h>
#include <c10/core/CPUAllocator.h>
#include <torch/version.h>

namespace logsift::models {
namespace {

// A caching CPU allocator for libtorch, as PyTorch's CUDA allocator caches
// device memory. A forward allocates the same large activations again and
// again; through glibc those come from the model thread's arena, and once the
// caches living in that arena fill its first 64 MB heap, every forward maps a
// fresh heap for its activations and unmaps it afterwards: measured 1.8-2.5x
// slower cold paths and 3-10x the page faults, flipping with unrelated changes
// (bench/RESULTS.md, "Caching CPU allocator"). Blocks of at least kMinCached bytes are
// kept on free lists by size class (1/8 steps: at most 12.5 % slack) up to
// kMaxCachedBytes free at once; smaller ones are allocated and freed at once.
// Every block carries its size in a header, because libtorch frees raw
// allocations (raw_allocate, used by oneDNN's scratch space) through
// raw_deleter() without the DataPtr context.
class CachingCpuAllocator final : public c10::Allocator {
 public:
  static constexpr size_t kMinCached = 64 << 10;
  static constexpr size_t kMaxCachedBytes = 128 << 20;
  static constexpr size_t kAlign = 64;   // c10's alignment
  static constexpr size_t kHeader = 64;  // holds the size class, keeps data aligned

  c10::DataPtr allocate(size_t n) const override {
    const size_t cls = n < kMinCached ? n : size_class(n);
    void* base = nullptr;
    if (cls >= kMinCached) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.find(cls);
      if (it != free_.end() && !it->second.empty()) {
        base = it->second.back();
        it->second.pop_back();
        cached_bytes_ -= cls;
        ++hits_;
      } else {
        ++misses_;
      }
    }
    if (!base) {
      if (posix_memalign(&base, kAlign, cls + kHeader) != 0) throw std::bad_alloc();
      *static_cast<size_t*>(base) = cls;
    }
    void* data = static_cast<char*>(base) + kHeader;
    return {data, data, &CachingCpuAllocator::release, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &CachingCpuAllocator::release; }

  TorchAllocatorStats stats() const {
    std::lock_guard<std::mutex> lock(mu_);
    return {cached_bytes_, hits_, misses_};
  }

  // Set once, before the first block is handed out; read by every release().
  static std::atomic<CachingCpuAllocator*> instance;

 private:
  static size_t size_class(size_t n) {
    const int top = 63 - __builtin_clzll(n);  // n >= 64 KiB: top >= 16
    const size_t step = size_t{1} << (top - 3);
    return (n + step - 1) & ~(step - 1);
  }

  static void release(void* data) {
    void* base = static_cast<char*>(data) - kHeader;
    const size_t cls = *static_cast<size_t*>(base);
    CachingCpuAllocator* a = instance.load(std::memory_order_acquire);
    if (cls >= kMinCached) {
      std::lock_guard<std::mutex> lock(a->mu_);
      if (a->cached_bytes_ + cls <= kMaxCachedBytes) {
        a->free_[cls].push_back(base);
        a->cached_bytes_ += cls;
        return;
      }
    }
    std::free(base);
  }

  mutable std::mutex mu_;
  mutable std::unordered_map<size_t, std::vector<void*>> free_;
  mutable size_t cached_bytes_ = 0;
  mutable uint64_t hits_ = 0, misses_ = 0;
};

std::atomic<CachingCpuAllocator*> CachingCpuAllocator::instance{nullptr};

}  // namespace

namespace torch_side {

void install_allocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Never destroyed: tensors may be freed during static destruction.
    auto* a = new CachingCpuAllocator();
    CachingCpuAllocator::instance.store(a, std::memory_order_release);
    c10::SetCPUAllocator(a, /*priority=*/1);
  });
}

void configure_threads(int intra_op_threads) {
  install_allocator();
  // Inter-op threads can be set once per process only.
  static std::once_flag once;
  std::call_once(once, [] { at::set_num_interop_threads(1); });
  at::set_num_threads(intra_op_threads);
}

TorchAllocatorStats allocator_stats() {
  install_allocator();
  return CachingCpuAllocator::instance.load(std::memory_order_acquire)->stats();
}

RuntimeInfo runtime_info() {
  RuntimeInfo info;
  info.torch_version = TORCH_VERSION;
  info.intra_op_threads = at::get_num_threads();
  return info;
}

}  // namespace torch_side
}  // namespace logsift::models
