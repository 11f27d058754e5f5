// Helpers shared by the unit tests.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace logsift::test {

// The message of the std::runtime_error that `f` throws, or "<no error>".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace logsift::test
