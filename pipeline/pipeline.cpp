#include "pipeline/pipeline.h"

#include <future>

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "models/torch_runtime.h"
#include "pipeline/stages/aggregator_stage.h"
#include "pipeline/store/catalog.h"
#include "pipeline/stages/denoise_stage.h"
#include "pipeline/core/metrics.h"
#include "pipeline/stages/catalog_stage.h"
#include "pipeline/stages/embed_stage.h"
#include "pipeline/stages/lsh_stage.h"
#include "pipeline/stages/premask_stage.h"
#include "pipeline/stages/template_stage.h"

namespace logsift {
namespace {

// encoder_model: "hashed" (baseline, no model), "builtin" or a TorchScript file. A model
// that cannot be loaded is a configuration error naming encoder_model.
std::unique_ptr<models::SentenceEncoder> make_encoder(const Config& c) {
  if (c.encoder_model == "hashed") return models::make_hashed_feature_encoder(c.embedding_dim);
  try {
    return models::load_torchscript_encoder({c.encoder_model, c.encoder_vocab, c.encoder_max_len});
  } catch (const std::runtime_error& e) {
    throw ConfigError("encoder_model", e.what());
  }
}

}  // namespace

struct Pipeline::Impl {
  Config config;
  ClusterIdCache id_cache{1 << 18};
  std::unique_ptr<PremaskStage> premask;
  std::unique_ptr<DenoiseStage> denoise;  // null when denoiser_model = "none"
  std::unique_ptr<TemplateStage> templ;
  std::unique_ptr<EmbedStage> embed;
  std::unique_ptr<LshStage> lsh;
  std::unique_ptr<CatalogStage> catalog;
  std::unique_ptr<AggregatorStage> aggregator;  // only with a catalog
  std::vector<Stage*> chain;
  std::string encoder_version;
  int encoder_dim = 0;
  models::EncoderDescription encoder_description;
  bool stopped = false;
  std::mutex stop_mu;
};

Pipeline::Pipeline(const Config& config, Catalog* catalog,
                   std::function<void(std::vector<alerts::AlertEvent>&&)> sink)
    : impl_(new Impl) {
  auto& s = *impl_;
  s.config = config;
  auto encoder = make_encoder(config);
  s.encoder_version = encoder->version();
  s.encoder_dim = encoder->dim();
  s.encoder_description = encoder->describe();
  s.premask = std::make_unique<PremaskStage>(config);
  if (config.denoiser_model != "none")
    s.denoise = std::make_unique<DenoiseStage>(config, models::load_token_scorer(config.denoiser_model));
  s.templ = std::make_unique<TemplateStage>(config);
  s.embed = std::make_unique<EmbedStage>(config, std::move(encoder), &s.id_cache);
  s.lsh = std::make_unique<LshStage>(config, s.encoder_dim, &s.id_cache);
  s.catalog = std::make_unique<CatalogStage>(config, catalog);
  if (catalog) s.aggregator = std::make_unique<AggregatorStage>(config, std::move(sink));
  s.chain = {s.premask.get()};
  if (s.denoise) s.chain.push_back(s.denoise.get());
  for (Stage* st : {static_cast<Stage*>(s.templ.get()), static_cast<Stage*>(s.embed.get()),
                    static_cast<Stage*>(s.lsh.get()), static_cast<Stage*>(s.catalog.get())})
    s.chain.push_back(st);
  if (s.aggregator) s.chain.push_back(s.aggregator.get());
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
  return run(std::move(b));
}

std::vector<Record> Pipeline::run(std::unique_ptr<Batch> b) {
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
  const auto& ed = s.encoder_description;
  auto or_null = [](int64_t v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"encoder", {{"version", s.encoder_version},
                       {"dim", s.encoder_dim},
                       {"kind", ed.kind},
                       {"source", ed.source},
                       {"max_len", or_null(ed.max_len)},
                       {"vocab_size", or_null(ed.vocab_size)}}},
          {"denoiser", s.denoise ? nlohmann::json{{"version", s.denoise->info().version},
                                                  {"threshold", s.config.denoiser_threshold},
                                                  {"context", s.denoise->info().context},
                                                  {"max_len", s.denoise->info().max_len}}
                                 : nlohmann::json(nullptr)},
          {"lsh", {{"method", "random-hyperplane"}, {"bits", s.lsh->lsh().bits()}, {"seed", s.lsh->lsh().seed()}}},
          {"premask_patterns", s.config.premask.size()},
          {"torch", {{"version", rt.torch_version}}},
          {"batching", {{"max_lines", s.config.batch_max_lines}, {"max_delay_us", s.config.batch_max_delay_us}}}};
}

void Pipeline::set_alert_rules(std::vector<alerts::RuleSpec> rules) {
  if (impl_->aggregator) impl_->aggregator->set_rules(std::move(rules));
}

std::optional<nlohmann::json> Pipeline::series(uint64_t cluster_id, int64_t window_ms) {
  if (!impl_->aggregator) return std::nullopt;
  return impl_->aggregator->series(cluster_id, window_ms);
}

nlohmann::json Pipeline::stats() const {
  nlohmann::json j = nlohmann::json::object();
  if (impl_->denoise) {
    auto d = impl_->denoise->stats();
    j["denoise"] = {{"tokens", d.tokens},
                    {"token_cache_hits", d.token_cache_hits},
                    {"exact_cache_hits", d.exact_cache_hits},
                    {"probed_strings", d.probed_strings},
                    {"model_rows", d.model_rows},
                    {"forward_calls", d.forward_calls},
                    {"token_cache_hit_rate", d.tokens ? double(d.token_cache_hits) / double(d.tokens) : 0.0},
                    {"cache_hit_rate",
                     d.tokens ? double(d.token_cache_hits + d.exact_cache_hits) / double(d.tokens) : 0.0}};
  }
  return j;
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
