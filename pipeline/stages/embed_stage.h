// The embed stage: one thread embeds every template no cache knows yet, for
// every batch queued (adaptive batching: one encoder call for the distinct
// new templates of all of them), hashes each embedding to its cluster id
// (LSH, fused here: a pure function of the vector) and files the template in
// the shared TemplateCaches (template_caches.h) for the lines that come
// after. Only lines with a new template come here.
#pragma once

#include <memory>

#include "config/config.h"
#include "lsh/lsh.h"
#include "models/sentence_encoder.h"
#include "pipeline/core/stage.h"

namespace logsift {

class TemplateCaches;

class EmbedStage final : public BatchingStage {
 public:
  EmbedStage(const Config& c, std::unique_ptr<models::SentenceEncoder> encoder, TemplateCaches* caches);
  const models::SentenceEncoder& encoder() const { return *encoder_; }
  const lsh::HyperplaneLsh& lsh() const { return lsh_; }

 protected:
  void process_group(std::vector<Batch*>& group) override;

 private:
  std::unique_ptr<models::SentenceEncoder> encoder_;
  lsh::HyperplaneLsh lsh_;
  TemplateCaches* caches_;
  int torch_threads_;
  bool threads_set_ = false;
  bool canonicalize_ = true;  // encode canonical_template(template), see encoder_text.h
  std::vector<float> embeddings_;
};

}  // namespace logsift
