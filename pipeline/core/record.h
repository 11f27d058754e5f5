// What flows through the pipeline: a Batch of Records, owned by exactly one
// stage at a time (passed as std::unique_ptr between mailboxes).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/stages/tokenizer.h"

namespace logsift {

// Labels from the envelope (service, level, host, ...), in arrival order.
using Labels = std::vector<std::pair<std::string, std::string>>;

struct Record {
  std::string text;   // the message
  Labels labels;
  std::string error;  // set at ingest: rejected, skipped by every stage, replied as {"error"}
  int64_t received_ms = 0;

  // Filled in by the stages.
  std::vector<Token> tokens;
  std::string template_text;
  uint64_t template_id = 0;
  int32_t embedding_row = -1;  // row in Batch::embeddings; -1 = id came from the cache
  uint64_t cluster_id = 0;
  bool is_new = false;

  bool ok() const { return error.empty(); }
};

struct Batch;
// Called exactly once, on the last stage's thread, when every record of the
// batch has its result (or the pipeline is shutting down: see Batch::aborted).
using BatchCallback = std::function<void(std::unique_ptr<Batch>)>;

struct Batch {
  std::vector<Record> records;
  BatchCallback on_done;
  bool aborted = false;  // the pipeline stopped before finishing it
  // Embeddings of this batch's distinct uncached templates (rows x dim), set by
  // the embed stage, consumed and freed by the LSH stage.
  std::vector<float> embeddings;
  int embedding_dim = 0;
  // Number of records without an error (what the stages will process).
  size_t live() const {
    size_t n = 0;
    for (const auto& r : records) n += r.ok();
    return n;
  }
};

}  // namespace logsift
