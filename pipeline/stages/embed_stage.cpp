#include "pipeline/stages/embed_stage.h"

#include <span>
#include <unordered_map>

#include "models/torch_runtime.h"
#include "pipeline/core/metrics.h"
#include "pipeline/stages/encoder_text.h"
#include "pipeline/stages/template_caches.h"
#include "pipeline/stages/templater.h"

namespace logsift {

EmbedStage::EmbedStage(const Config& c, std::unique_ptr<models::SentenceEncoder> encoder, TemplateCaches* caches)
    : BatchingStage("embed", static_cast<size_t>(c.mailbox_capacity), static_cast<size_t>(c.batch_max_lines),
                    std::chrono::microseconds(c.batch_max_delay_us)),
      encoder_(std::move(encoder)),
      lsh_(encoder_->dim(), c.lsh_bits, c.lsh_seed),
      caches_(caches),
      torch_threads_(c.torch_threads),
      canonicalize_(c.encoder_canonicalize) {}

void EmbedStage::process_group(std::vector<Batch*>& group) {
  if (!threads_set_) {  // torch thread settings are per thread: set them here
    models::configure_torch_threads(torch_threads_);
    threads_set_ = true;
  }
  // Distinct new templates of the whole group, one encoder call.
  struct Row {
    std::string text;
    uint64_t template_id;
    TemplateRef published;  // set once known (the cache, or this call)
  };
  std::vector<Row> rows;
  std::unordered_map<uint64_t, uint32_t> row_of;
  std::vector<std::string> inputs;
  std::vector<uint32_t> input_row;
  for (Batch* b : group)
    for (auto& r : b->records) {
      if (!r.ok() || !(r.pending & kNeedEmbed)) continue;
      const uint64_t tid = lsh::stable_hash64(r.new_template);
      auto [it, fresh] = row_of.emplace(tid, static_cast<uint32_t>(rows.size()));
      if (!fresh) continue;
      Row& row = rows.emplace_back(Row{r.new_template, tid, nullptr});
      if (auto known = caches_->find_template(tid)) {  // embedded since the analysis
        row.published = std::move(*known);
        continue;
      }
      inputs.push_back(canonicalize_ ? canonical_template(row.text) : row.text);
      input_row.push_back(it->second);
    }
  if (!inputs.empty()) {
    const int dim = encoder_->dim();
    const std::vector<std::string_view> texts(inputs.begin(), inputs.end());
    embeddings_.assign(texts.size() * static_cast<size_t>(dim), 0.0f);
    const int64_t t0 = mono_ns();
    encoder_->encode(texts, embeddings_);
    metrics().forward(Model::kEncoder, texts.size(), mono_ns() - t0);
    metrics().id_cache_misses.inc(texts.size());
    for (size_t i = 0; i < texts.size(); ++i) {
      Row& row = rows[input_row[i]];
      const uint64_t id = lsh_.cluster_id(
          std::span<const float>(embeddings_.data() + i * static_cast<size_t>(dim), static_cast<size_t>(dim)));
      row.published = std::make_shared<TemplateInfo>(TemplateInfo{std::move(row.text), row.template_id, id});
    }
  }
  for (Batch* b : group) {
    b->pending &= static_cast<uint8_t>(~kNeedEmbed);
    for (auto& r : b->records) {
      if (!r.ok() || !(r.pending & kNeedEmbed)) continue;
      r.pending &= static_cast<uint8_t>(~kNeedEmbed);
      const TemplateRef& t = rows[row_of.at(lsh::stable_hash64(r.new_template))].published;
      caches_->publish(r.line_key, line_cacheable(r.text), t);
      r.set_template(t);
      r.new_template.clear();
    }
  }
}

}  // namespace logsift
