#include "pipeline/stages.h"

#include <unordered_map>

#include "models/torch_runtime.h"
#include "pipeline/catalog.h"
#include "pipeline/encoder_text.h"
#include "pipeline/metrics.h"
#include "pipeline/tokenizer.h"

namespace logsift {

PremaskStage::PremaskStage(const Config& c) : Stage("premask", c.mailbox_capacity), premasker_(c.premask) {}

void PremaskStage::process(Batch& b) {
  for (auto& r : b.records) {
    if (!r.ok()) continue;
    tokenize(r.text, premasker_.find(r.text), &r.tokens);
  }
}

void TemplateStage::process(Batch& b) {
  for (auto& r : b.records) {
    if (!r.ok()) continue;
    r.template_text = render_template(r.text, r.tokens);
    r.template_id = lsh::stable_hash64(r.template_text);
  }
}

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

LshStage::LshStage(const Config& c, int dim, ClusterIdCache* cache)
    : Stage("lsh", c.mailbox_capacity), lsh_(dim, c.lsh_bits, c.lsh_seed), cache_(cache) {}

void LshStage::process(Batch& b) {
  const size_t dim = static_cast<size_t>(b.embedding_dim);
  std::vector<uint64_t> row_ids(dim ? b.embeddings.size() / dim : 0);
  for (size_t row = 0; row < row_ids.size(); ++row)
    row_ids[row] = lsh_.cluster_id(std::span<const float>(b.embeddings.data() + row * dim, dim));
  for (auto& r : b.records) {
    if (!r.ok() || r.embedding_row < 0) continue;
    r.cluster_id = row_ids[static_cast<size_t>(r.embedding_row)];
    cache_->put(r.template_id, r.cluster_id);
  }
  b.embeddings.clear();
  b.embeddings.shrink_to_fit();
}

CatalogStage::CatalogStage(const Config& c, Catalog* catalog)
    : BatchingStage("catalog", c.mailbox_capacity, c.batch_max_lines * 4,
                    std::chrono::microseconds(c.batch_max_delay_us)),
      catalog_(catalog),
      max_examples_(c.catalog_examples) {}

void CatalogStage::process_group(std::vector<Batch*>& group) {
  size_t clustered = 0;
  for (Batch* b : group)
    for (auto& r : b->records) clustered += r.ok();
  metrics().lines_clustered.inc(clustered);
  if (!catalog_) return;

  // Aggregate the group per cluster: one upsert per distinct cluster.
  std::vector<ClusterUpdate> updates;
  std::unordered_map<uint64_t, size_t> index;
  std::vector<std::pair<Record*, size_t>> firsts;  // first record of each cluster in the group
  for (Batch* b : group) {
    for (auto& r : b->records) {
      if (!r.ok()) continue;
      auto [it, inserted] = index.emplace(r.cluster_id, updates.size());
      if (inserted) {
        ClusterUpdate u;
        u.cluster_id = r.cluster_id;
        u.template_id = r.template_id;
        u.template_text = r.template_text;
        u.first_ms = r.received_ms;
        updates.push_back(std::move(u));
        firsts.emplace_back(&r, it->second);
      }
      ClusterUpdate& u = updates[it->second];
      u.count += 1;
      u.last_ms = std::max(u.last_ms, r.received_ms);
      if (static_cast<int>(u.examples.size()) < max_examples_) u.examples.emplace_back(r.text, r.labels);
    }
  }
  std::vector<bool> fresh;
  try {
    fresh = catalog_->apply(updates);
  } catch (const std::exception&) {
    metrics().catalog_errors.inc();
    throw;  // the loop marks the records failed: the caller is told, nothing is silently lost
  }
  for (auto& [rec, idx] : firsts) {
    rec->is_new = fresh[idx];
    if (fresh[idx]) metrics().new_clusters.inc();
  }
}

}  // namespace logsift
