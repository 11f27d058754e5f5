// The concrete stages. Each owns its state; see stage.h for the threading model.
#pragma once

#include <memory>
#include <mutex>

#include "config/config.h"
#include "lsh/lsh.h"
#include "models/sentence_encoder.h"
#include "pipeline/cache.h"
#include "pipeline/stage.h"
#include "pipeline/tokenizer.h"

namespace logsift {

class Catalog;

// re2 pre-mask + tokenization (keeps delimiters).
class PremaskStage final : public Stage {
 public:
  PremaskStage(const Config& c);
 protected:
  void process(Batch& b) override;
 private:
  Premasker premasker_;
};

// Renders each record's template and its stable template_id. (The trained
// denoiser will run between PremaskStage and this stage.)
class TemplateStage final : public Stage {
 public:
  explicit TemplateStage(const Config& c) : Stage("template", c.mailbox_capacity) {}
 protected:
  void process(Batch& b) override;
};

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

// Embedding -> cluster_id.
class LshStage final : public Stage {
 public:
  LshStage(const Config& c, int dim, ClusterIdCache* cache);
  const lsh::HyperplaneLsh& lsh() const { return lsh_; }
 protected:
  void process(Batch& b) override;
 private:
  lsh::HyperplaneLsh lsh_;
  ClusterIdCache* cache_;
};

// Counts, first/last seen, examples -> catalog, in one transaction per
// micro-batch; sets Record::is_new. Without a catalog it only counts.
class CatalogStage final : public BatchingStage {
 public:
  CatalogStage(const Config& c, Catalog* catalog);
 protected:
  void process_group(std::vector<Batch*>& group) override;
 private:
  Catalog* catalog_;
  int max_examples_;
};

}  // namespace logsift
