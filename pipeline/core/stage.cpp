#include "pipeline/core/stage.h"

#include <spdlog/spdlog.h>

#include "pipeline/core/metrics.h"
#include "pipeline/core/thread_name.h"

namespace logsift {

Stage::Stage(std::string name, size_t mailbox_capacity) : mailbox_(mailbox_capacity), name_(std::move(name)) {}

Stage::~Stage() { stop(); }

void Stage::start() {
  thread_ = std::thread([this] {
    set_thread_name("ls-" + name_);
    run();
  });
}

void Stage::stop() {
  mailbox_.close();
  if (thread_.joinable()) thread_.join();
}

void Stage::run() {
  while (auto b = mailbox_.pop()) process_and_forward(std::move(*b));
}

void Stage::fail_batch(Batch& b, const std::string& why) {
  for (auto& r : b.records)
    if (r.ok()) r.fail(RecordFailure::kInternal, "internal error in " + name_ + " stage: " + why);
  b.pending = 0;
  metrics().stage_errors.inc();
}

void Stage::process_and_forward(std::unique_ptr<Batch> b) {
  try {
    process(*b);
  } catch (const std::exception& e) {
    spdlog::error("stage {}: {}", name_, e.what());
    fail_batch(*b, e.what());
  }
  forward(std::move(b));
}

void Stage::forward(std::unique_ptr<Batch> b) {
  if (sink_) return sink_(std::move(b));
  if (b->on_done) {
    auto cb = std::move(b->on_done);
    cb(std::move(b));
  }
}

BatchingStage::BatchingStage(std::string name, size_t mailbox_capacity, size_t max_lines,
                             std::chrono::microseconds max_delay)
    : Stage(std::move(name), mailbox_capacity), max_lines_(max_lines), max_delay_(max_delay) {}

void BatchingStage::run() {
  using clock = std::chrono::steady_clock;
  std::vector<std::unique_ptr<Batch>> held;
  std::vector<Batch*> group;
  auto next_tick = clock::now() + tick_;
  while (true) {
    auto first = tick_.count() > 0 ? mailbox_.pop_until(next_tick) : mailbox_.pop();
    if (!first) {
      if (mailbox_.closed_and_empty()) break;
      on_tick();  // timed out: nothing queued, a tick is due
      next_tick = clock::now() + tick_;
      continue;
    }
    held.clear();
    size_t lines = (*first)->live();
    held.push_back(std::move(*first));
    // Whatever queued up while the last group ran: no waiting.
    while (lines < max_lines_) {
      auto more = mailbox_.try_pop();
      if (!more) break;
      lines += (*more)->live();
      held.push_back(std::move(*more));
    }
    if (max_delay_.count() > 0 && lines < max_lines_) {
      auto deadline = std::chrono::steady_clock::now() + max_delay_;
      while (lines < max_lines_) {
        auto more = mailbox_.pop_until(deadline);
        if (!more) break;  // timed out, or closed and drained
        lines += (*more)->live();
        held.push_back(std::move(*more));
      }
    }
    group.clear();
    for (auto& b : held) group.push_back(b.get());
    const int64_t t0 = mono_ns();
    try {
      process_group(group);
    } catch (const std::exception& e) {
      spdlog::error("stage {}: {}", name(), e.what());
      for (auto* b : group) fail_batch(*b, e.what());
    }
    if (timer_ != StageTimer::kCount) metrics().time(timer_, mono_ns() - t0);
    if (count_micro_batches_) {
      metrics().micro_batches.inc();
      metrics().micro_batch_lines.inc(lines);
    }
    for (auto& b : held) forward(std::move(b));
    if (tick_.count() > 0 && clock::now() >= next_tick) {
      on_tick();
      next_tick = clock::now() + tick_;
    }
  }
}

}  // namespace logsift
