#include "pipeline/pipeline.h"

#include <future>

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "models/torch_runtime.h"
#include "pipeline/catalog.h"
#include "pipeline/metrics.h"
#include "pipeline/stages.h"

namespace logsift {

struct Pipeline::Impl {
  Config config;
  ClusterIdCache id_cache{1 << 18};
  std::unique_ptr<PremaskStage> premask;
  std::unique_ptr<TemplateStage> templ;
  std::unique_ptr<EmbedStage> embed;
  std::unique_ptr<LshStage> lsh;
  std::unique_ptr<CatalogStage> catalog;
  std::vector<Stage*> chain;
  std::string encoder_version;
  int encoder_dim = 0;
  bool stopped = false;
  std::mutex stop_mu;
};

Pipeline::Pipeline(const Config& config, Catalog* catalog) : impl_(new Impl) {
  auto& s = *impl_;
  s.config = config;
  auto encoder = models::make_hashed_feature_encoder(config.embedding_dim);
  s.encoder_version = encoder->version();
  s.encoder_dim = encoder->dim();
  s.premask = std::make_unique<PremaskStage>(config);
  s.templ = std::make_unique<TemplateStage>(config);
  s.embed = std::make_unique<EmbedStage>(config, std::move(encoder), &s.id_cache);
  s.lsh = std::make_unique<LshStage>(config, s.encoder_dim, &s.id_cache);
  s.catalog = std::make_unique<CatalogStage>(config, catalog);
  s.chain = {s.premask.get(), s.templ.get(), s.embed.get(), s.lsh.get(), s.catalog.get()};
  for (size_t i = 0; i + 1 < s.chain.size(); ++i) s.chain[i]->set_next(s.chain[i + 1]);
  for (Stage* st : s.chain) st->start();
}

Pipeline::~Pipeline() { stop(); }

void Pipeline::stop() {
  std::lock_guard lock(impl_->stop_mu);
  if (impl_->stopped) return;
  impl_->stopped = true;
  for (Stage* st : impl_->chain) st->stop();  // in order: each drains into the next
}

bool Pipeline::try_submit(std::unique_ptr<Batch>& b) {
  size_t live = b->live();
  if (!impl_->premask->try_push(b)) return false;
  metrics().lines_total.inc(live);
  return true;
}

bool Pipeline::submit(std::unique_ptr<Batch>& b) {
  size_t live = b->live();
  if (!impl_->premask->push(b)) return false;
  metrics().lines_total.inc(live);
  return true;
}

std::vector<Record> Pipeline::run(std::vector<std::string> texts) {
  auto b = std::make_unique<Batch>();
  int64_t t = now_ms();
  b->records.resize(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    b->records[i].text = std::move(texts[i]);
    b->records[i].received_ms = t;
  }
  std::promise<std::unique_ptr<Batch>> done;
  auto fut = done.get_future();
  b->on_done = [&done](std::unique_ptr<Batch> out) { done.set_value(std::move(out)); };
  if (!submit(b)) throw std::runtime_error("pipeline is stopped");
  auto out = fut.get();
  if (out->aborted) throw std::runtime_error("pipeline stopped before the batch finished");
  return std::move(out->records);
}

nlohmann::json Pipeline::info() const {
  const auto& s = *impl_;
  auto rt = models::runtime_info();
  return {{"encoder", {{"version", s.encoder_version}, {"dim", s.encoder_dim}}},
          {"denoiser", nullptr},
          {"lsh", {{"method", "random-hyperplane"}, {"bits", s.lsh->lsh().bits()}, {"seed", s.lsh->lsh().seed()}}},
          {"premask_patterns", s.config.premask.size()},
          {"torch", {{"version", rt.torch_version}}},
          {"batching", {{"max_lines", s.config.batch_max_lines}, {"max_delay_us", s.config.batch_max_delay_us}}}};
}

nlohmann::json record_result_json(const Record& r, bool with_new) {
  if (!r.ok()) return {{"error", r.error}};
  nlohmann::json j = {{"cluster_id", lsh::format_id(r.cluster_id)},
                      {"template_id", lsh::format_id(r.template_id)},
                      {"template", r.template_text}};
  if (with_new) j["new"] = r.is_new;
  return j;
}

}  // namespace logsift
