// Helpers shared by the unit tests.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>

#include <gtest/gtest.h>

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

// A scratch directory for the running test, /tmp/<prefix><pid>_<test name>,
// removed if an earlier run left it (the caller removes it after the test).
inline std::filesystem::path scratch_dir(const std::string& prefix) {
  auto dir = std::filesystem::temp_directory_path() /
             (prefix + std::to_string(::getpid()) + "_" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  return dir;
}

// Polls `pred` every `step` until it holds or `timeout` has passed; false on
// timeout. What a test waits for, it waits for with this (never a bare sleep).
inline bool wait_until(const std::function<bool()>& pred,
                       std::chrono::milliseconds timeout = std::chrono::milliseconds(10000),
                       std::chrono::milliseconds step = std::chrono::milliseconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (pred()) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(step, deadline - now));
  }
}

#ifdef LOGSIFT_SOURCE_DIR
// loghub-2k is outside data a developer may keep beside the clone (or name
// with LOGSIFT_LOGHUB); the tests that read it skip with loghub_missing()
// when it is absent, as it is in a lone clone.
inline std::string loghub_dir() {
  const char* env = std::getenv("LOGSIFT_LOGHUB");
  return env && *env ? std::string(env) : std::string(LOGSIFT_SOURCE_DIR "/../shared/data/loghub-2k");
}
inline bool have_loghub() { return std::filesystem::exists(loghub_dir() + "/datasets.json"); }
inline std::string loghub_missing() {
  return "loghub-2k not found at " + loghub_dir() +
         ": optional outside data; fetch it with models/training/fetch_loghub.sh DIR and set LOGSIFT_LOGHUB=DIR";
}
#endif

// Lets `span` of wall-clock time pass. Only where time itself is the evidence
// or the input (a rate measured over a span, lines spread over clock-driven
// windows, a time-based expiry): each caller says why no condition exists
// that it could wait on instead.
inline void let_time_pass(std::chrono::milliseconds span) { std::this_thread::sleep_for(span); }

}  // namespace logsift::test
