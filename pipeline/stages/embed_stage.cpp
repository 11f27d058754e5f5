#include "pipeline/stages/embed_stage.h"

#include <unordered_map>

#include "lsh/lsh.h"
#include "models/torch_runtime.h"
#include "pipeline/core/metrics.h"
#include "pipeline/stages/encoder_text.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {

bool ClusterIdCache::get(uint64_t template_id, uint64_t* cluster_id) {
  std::lock_guard lock(mu_);
  const uint64_t* id = cache_.get(template_id);
  if (id) *cluster_id = *id;
  return id != nullptr;
}

void ClusterIdCache::put(uint64_t template_id, uint64_t cluster_id) {
  std::lock_guard lock(mu_);
  cache_.put(template_id, cluster_id);
}

EmbedStage::EmbedStage(const Config& c, std::unique_ptr<models::SentenceEncoder> encoder, ClusterIdCache* cache)
    : BatchingStage("embed", c.mailbox_capacity, c.batch_max_lines, std::chrono::microseconds(c.batch_max_delay_us)),
      encoder_(std::move(encoder)),
      cache_(cache),
      torch_threads_(c.torch_threads),
      canonicalize_(c.encoder_canonicalize),
      lsh_seed_(c.lsh_seed) {}

void EmbedStage::process_group(std::vector<Batch*>& group) {
  if (!threads_set_) {  // torch thread settings are per thread: set them here
    models::configure_torch_threads(torch_threads_);
    threads_set_ = true;
  }
  const int dim = encoder_->dim();
  for (Batch* b : group) {
    // Distinct uncached templates of this batch, embedded together.
    std::unordered_map<uint64_t, int32_t> row_of;
    std::vector<std::string> inputs;  // what the encoder reads, one per row
    for (auto& r : b->records) {
      if (!r.ok()) continue;
      uint64_t id;
      if (cache_->get(r.template_id, &id)) {
        r.cluster_id = id;
        r.embedding_row = -1;
        metrics().id_cache_hits.inc();
        continue;
      }
      if (auto it = row_of.find(r.template_id); it != row_of.end()) {
        r.embedding_row = it->second;
        continue;
      }
      std::string input = canonicalize_ ? canonical_template(r.template_text) : r.template_text;
      if (!has_word_char(input)) {
        // No word at all ("<*>", "!!!", "<*> - <*>"): nothing for an encoder to
        // read, so the id is a seeded hash of the template's shape instead.
        r.cluster_id = lsh::stable_hash64(input, lsh_seed_ ^ 0x776f72646c657373ull);
        r.embedding_row = -1;
        cache_->put(r.template_id, r.cluster_id);
        continue;
      }
      r.embedding_row = static_cast<int32_t>(inputs.size());
      row_of.emplace(r.template_id, r.embedding_row);
      inputs.push_back(std::move(input));
      metrics().id_cache_misses.inc();
    }
    const std::vector<std::string_view> texts(inputs.begin(), inputs.end());
    b->embedding_dim = dim;
    b->embeddings.assign(texts.size() * static_cast<size_t>(dim), 0.0f);
    if (!texts.empty()) encoder_->encode(texts, b->embeddings);
  }
}

}  // namespace logsift
