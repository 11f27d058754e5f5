#pragma once
// Names the calling thread ("ls-state", "ls-io-0", ...) so `top -H`, `ps -L`,
// perf and gdb show which part of logsift a thread is. Linux keeps 15 bytes;
// longer names are cut. A failure only loses the name, so it is ignored.

#include <pthread.h>

#include <string>
#include <string_view>

namespace logsift {

inline void set_thread_name(std::string_view name) {
  std::string n(name.substr(0, 15));
  pthread_setname_np(pthread_self(), n.c_str());
}

}  // namespace logsift
