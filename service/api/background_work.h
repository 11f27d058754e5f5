// One slow admin job at a time off the io threads (GET /clusters/mined-bank).
//
// Handlers never block an io thread (service/api/http_api.h). A job that
// reads the whole catalog and mines it runs here instead, on its own thread,
// and answers through its Responder (which posts to the session's strand).
// At most one job runs: try_start() says false while one is running, so a
// client retrying in a loop cannot pile threads up. The destructor joins the
// job, and the server destroys this before the catalog the job reads.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

namespace logsift {

class BackgroundWork {
 public:
  BackgroundWork() = default;
  ~BackgroundWork() { wait(); }
  BackgroundWork(const BackgroundWork&) = delete;
  BackgroundWork& operator=(const BackgroundWork&) = delete;

  // Starts `job` on the worker thread; false (and `job` not run) while the
  // previous job is still running. What `job` returns (may be empty) runs
  // after the slot is free again: a job answers its client there, so a
  // client that asks again as soon as it has its answer is not refused.
  using Then = std::function<void()>;
  bool try_start(std::function<Then()> job) {
    std::lock_guard lock(mu_);
    if (busy_.load()) return false;
    if (thread_.joinable()) thread_.join();  // finished its job, maybe not its answer yet
    busy_ = true;
    thread_ = std::thread([this, job = std::move(job)] {
      Then then;
      try {
        then = job();
      } catch (...) {
        // A job answers its own errors; nothing may escape a thread.
      }
      busy_ = false;
      if (then) {
        try {
          then();
        } catch (...) {
        }
      }
    });
    return true;
  }
  bool busy() const { return busy_.load(); }
  // Waits for the running job, if any (shutdown, before the catalog's last flush).
  void wait() {
    std::lock_guard lock(mu_);
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::mutex mu_;
  std::atomic<bool> busy_{false};
  std::thread thread_;
};

}  // namespace logsift
