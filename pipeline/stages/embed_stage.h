// The embed stage and the cluster-id cache it shares with the LSH stage.
#pragma once

#include <memory>
#include <mutex>

#include "config/config.h"
#include "models/sentence_encoder.h"
#include "pipeline/core/cache.h"
#include "pipeline/core/stage.h"

namespace logsift {

// template_id -> cluster_id, bounded: two generations, the older dropped
// when the newer fills, so hot templates stay and memory stays flat. Written
// by the LSH stage, read by the embed stage (the one shared structure in the
// pipeline; a mutex, never held during model work).
class ClusterIdCache {
 public:
  explicit ClusterIdCache(size_t capacity) : cache_(capacity) {}
  bool get(uint64_t template_id, uint64_t* cluster_id);
  void put(uint64_t template_id, uint64_t cluster_id);
 private:
  std::mutex mu_;
  GenerationalCache<uint64_t, uint64_t> cache_;
};

// Embeds each distinct uncached template of a micro-batch in one call.
class EmbedStage final : public BatchingStage {
 public:
  EmbedStage(const Config& c, std::unique_ptr<models::SentenceEncoder> encoder, ClusterIdCache* cache);
  const models::SentenceEncoder& encoder() const { return *encoder_; }
 protected:
  void process_group(std::vector<Batch*>& group) override;
 private:
  std::unique_ptr<models::SentenceEncoder> encoder_;
  ClusterIdCache* cache_;
  int torch_threads_;
  bool threads_set_ = false;
  bool canonicalize_ = true;  // encode canonical_template(template), see encoder_text.h
  uint64_t lsh_seed_ = 0;     // wordless templates: id = seeded hash of the shape
};

}  // namespace logsift
