// The shared counts of store: redis (pipeline/store/redis_windows.h): the
// "d" field of an entry in P counts, written by another replica, decoded by
// RedisWindows::decode. Invariants: decode never throws and never crashes on
// any input; every delta it returns has a count that fits and is kept as
// given; encoding what it returned and decoding that again gives the same
// deltas (nothing invented, nothing lost in a round trip).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "pipeline/store/redis_windows.h"

using logsift::CountDelta;
using logsift::RedisWindows;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);
  const auto first = RedisWindows::decode(in);
  const auto again = RedisWindows::decode(RedisWindows::encode(first));
  if (again.size() != first.size()) std::abort();
  for (size_t i = 0; i < first.size(); ++i) {
    const CountDelta& a = first[i];
    const CountDelta& b = again[i];
    if (a.cluster_id != b.cluster_id || a.ts_ms != b.ts_ms || a.count != b.count ||
        a.template_text != b.template_text || a.labels != b.labels)
      std::abort();
  }
  return 0;
}
