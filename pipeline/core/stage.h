// Actor-style stages: each stage owns its state and one thread, and receives
// batches through a bounded Mailbox. Ownership of a Batch moves with its
// unique_ptr: push() takes it, the stage processes it and hands it to its
// sink (the pipeline's router) or, without one, to Batch::on_done. A stage
// never shares a batch.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/core/mailbox.h"
#include "pipeline/core/metrics.h"
#include "pipeline/core/record.h"

namespace logsift {

using BatchSink = std::function<void(std::unique_ptr<Batch>)>;

class Stage {
 public:
  Stage(std::string name, size_t mailbox_capacity);
  virtual ~Stage();
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;

  const std::string& name() const { return name_; }
  // The histogram that times this stage's work units (kCount: none).
  void set_timer(StageTimer t) { timer_ = t; }
  // Where processed batches go (set once, before start()).
  void set_sink(BatchSink sink) { sink_ = std::move(sink); }

  // Blocking enqueue. On false (stopped) the batch stays in `b`.
  bool push(std::unique_ptr<Batch>& b) { return mailbox_.push(b); }
  // Non-blocking enqueue.
  bool try_push(std::unique_ptr<Batch>& b) { return mailbox_.try_push(b); }

  void start();
  // Closes the mailbox, lets the thread drain it, joins.
  void stop();
  size_t queued() const { return mailbox_.size(); }

 protected:
  // Processes one batch in place. Exceptions are caught by the loop: the
  // batch's live records get an "internal error" and it still moves on.
  virtual void process(Batch& batch) = 0;
  // The thread body; the default pops one batch at a time.
  virtual void run();
  // Runs process() with the exception barrier, then forwards.
  void process_and_forward(std::unique_ptr<Batch> b);
  void forward(std::unique_ptr<Batch> b);
  void fail_batch(Batch& b, const std::string& why);

  Mailbox<std::unique_ptr<Batch>> mailbox_;
  StageTimer timer_ = StageTimer::kCount;

 private:
  std::string name_;
  BatchSink sink_;
  std::thread thread_;
};

// A stage that batches model work adaptively (Triton's dynamic batcher with
// its two knobs): it takes the first queued batch and, at once, whatever else
// is queued, up to max_lines live records, and processes them together. An
// idle stage therefore dispatches a lone batch immediately; batches form only
// while the stage is busy. With max_delay > 0 a group below max_lines waits
// up to max_delay for company (more throughput per forward, more latency).
// The same loop serves the state stage's group commit, with a periodic
// on_tick() on the stage's thread (windows close with no traffic).
class BatchingStage : public Stage {
 public:
  BatchingStage(std::string name, size_t mailbox_capacity, size_t max_lines, std::chrono::microseconds max_delay);

 protected:
  // Exceptions are caught by the loop: the group's live records get an
  // "internal error" and the batches still move on.
  virtual void process_group(std::vector<Batch*>& group) = 0;
  // Called every `every` on the stage's thread, between groups (set before start()).
  void set_tick(std::chrono::milliseconds every) { tick_ = every; }
  virtual void on_tick() {}
  // Model stages count their groups as micro-batches (logsift_micro_batches_total).
  bool count_micro_batches_ = true;
  void process(Batch& b) override {
    std::vector<Batch*> one{&b};
    process_group(one);
  }
  void run() override;

 private:
  size_t max_lines_;
  std::chrono::microseconds max_delay_;
  std::chrono::milliseconds tick_{0};
};

}  // namespace logsift
