#pragma once
// Implementation of submit_with_backoff (a template: needs the executor type).

#include <chrono>
#include <functional>
#include <memory>

#include <boost/asio/steady_timer.hpp>

namespace logsift {

namespace detail {
template <typename Executor>
struct SubmitRetry : std::enable_shared_from_this<SubmitRetry<Executor>> {
  SubmitRetry(Executor ex, Pipeline* p, std::unique_ptr<Batch> b, std::chrono::milliseconds give_up,
              std::function<void(std::unique_ptr<Batch>)> on_overload)
      : timer(ex), pipeline(p), batch(std::move(b)),
        deadline(std::chrono::steady_clock::now() + give_up), overload(std::move(on_overload)) {}

  void attempt() {
    if (pipeline->try_submit(batch)) return;
    if (std::chrono::steady_clock::now() >= deadline) {
      overload(std::move(batch));
      return;
    }
    delay = std::min(delay * 2, std::chrono::milliseconds(50));
    timer.expires_after(delay);
    timer.async_wait([self = this->shared_from_this()](const boost::system::error_code&) { self->attempt(); });
  }

  boost::asio::steady_timer timer;
  Pipeline* pipeline;
  std::unique_ptr<Batch> batch;
  std::chrono::steady_clock::time_point deadline;
  std::function<void(std::unique_ptr<Batch>)> overload;
  std::chrono::milliseconds delay{1};
};
}  // namespace detail

template <typename Executor>
void submit_with_backoff(Executor ex, Pipeline* pipeline, std::unique_ptr<Batch> batch,
                         std::chrono::milliseconds give_up,
                         std::function<void(std::unique_ptr<Batch>)> on_overload) {
  if (pipeline->try_submit(batch)) return;
  std::make_shared<detail::SubmitRetry<Executor>>(ex, pipeline, std::move(batch), give_up, std::move(on_overload))
      ->attempt();
}

}  // namespace logsift
