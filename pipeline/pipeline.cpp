#include "pipeline/pipeline.h"

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "lsh/lsh.h"
#include "models/torch_runtime.h"
#include "pipeline/core/hash.h"
#include "pipeline/core/mailbox.h"
#include "pipeline/core/metrics.h"
#include "pipeline/core/thread_name.h"
#include "pipeline/core/time.h"
#include "pipeline/stages/analyzer.h"
#include "pipeline/stages/format_bank.h"
#include "pipeline/stages/denoise_stage.h"
#include "pipeline/stages/denoiser.h"
#include "pipeline/stages/embed_stage.h"
#include "pipeline/stages/slots.h"
#include "pipeline/stages/state_stage.h"
#include "pipeline/stages/template_caches.h"
#include "pipeline/stages/templater.h"
#include "pipeline/stages/trace.h"
#include "pipeline/store/cluster_store.h"
#include "pipeline/store/sqlite.h"

namespace logsift {
namespace {

// encoder_model: "hashed" (baseline, no model), "builtin" or a TorchScript file. A model
// that cannot be loaded is a configuration error naming encoder_model.
std::unique_ptr<models::SentenceEncoder> make_encoder(const Config& c) {
  if (c.encoder_model == "hashed") return models::make_hashed_feature_encoder(c.embedding_dim);
  try {
    return models::load_torchscript_encoder({c.encoder_model, c.encoder_vocab, c.encoder_max_len, c.encoder_runtime == "native"});
  } catch (const std::runtime_error& e) {
    throw ConfigError("encoder_model", e.what());
  }
}

}  // namespace

struct Pipeline::Impl {
  Config config;
  std::unique_ptr<Denoiser> denoiser;  // null when denoiser_model = "none"
  std::unique_ptr<FormatBank> bank;    // null when format_bank = ""
  std::unique_ptr<TemplateCaches> caches;  // shared by analysis, denoise and embed
  std::unique_ptr<Templater> templater;
  std::unique_ptr<Analyzer> analyzer;
  std::unique_ptr<DenoiseStage> denoise;
  std::unique_ptr<EmbedStage> embed;
  std::unique_ptr<StateStage> state;  // only with a catalog
  models::EncoderDescription encoder_description;
  std::string encoder_version;
  int encoder_dim = 0;

  // Large batches wait here for an analysis thread.
  Mailbox<std::unique_ptr<Batch>> work;
  std::vector<std::thread> workers;

  // Admission: what is in flight, bounded.
  std::mutex mu;
  std::condition_variable room;
  size_t inflight_batches = 0, inflight_lines = 0;
  bool stopping = false, stopped = false;

  explicit Impl(const Config& c) : config(c), work(static_cast<size_t>(c.mailbox_capacity)) {}

  bool admit(const Batch& b, bool wait) {
    const size_t lines = b.records.size();
    std::unique_lock lock(mu);
    auto full = [&] {
      // One batch is always admitted, however large, or it could never be.
      return inflight_batches > 0 && (inflight_batches >= static_cast<size_t>(config.mailbox_capacity) ||
                                      inflight_lines + lines > static_cast<size_t>(config.max_inflight_lines));
    };
    if (wait) room.wait(lock, [&] { return stopping || !full(); });
    if (stopping || full()) return false;
    ++inflight_batches;
    inflight_lines += lines;
    metrics().inflight_batches.set(static_cast<int64_t>(inflight_batches));
    metrics().inflight_lines.set(static_cast<int64_t>(inflight_lines));
    return true;
  }

  void analyze(Batch& b) {
    const int64_t t0 = mono_ns();
    try {
      analyzer->analyze(b);
      metrics().time(StageTimer::kAnalysis, mono_ns() - t0);
    } catch (const std::exception& e) {
      spdlog::error("analysis: {}", e.what());
      for (auto& r : b.records)
        if (r.ok()) r.fail(RecordFailure::kInternal, std::string("internal error in analysis: ") + e.what());
      b.pending = 0;
      metrics().stage_errors.inc();
    }
  }

  // The events whose head statement is now clustered: each gets its own
  // template (the head's, then the exception lines) and id (the head's id
  // and the trace's fingerprint: pipeline/stages/trace.h), and its whole
  // text back.
  static void finish_traces(Batch& b) {
    for (auto& r : b.records) {
      if (!r.trace) continue;
      const EventTrace& t = *r.trace;
      if (r.ok() && r.tmpl) {
        std::string text = r.tmpl->text + t.summary;
        const uint64_t tid = lsh::stable_hash64(text);
        r.set_template(std::make_shared<TemplateInfo>(
            TemplateInfo{std::move(text), tid, event_cluster_id(t.head_counts ? r.tmpl->cluster_id : 0, t.fingerprint)}));
      }
      r.text = t.text;
      r.trace.reset();
    }
    b.traces = false;
  }

  // Where a batch goes next: only where it still has work.
  void dispatch(std::unique_ptr<Batch> b) {
    // The stages' mailboxes hold every admitted batch (mailbox_capacity), so
    // these pushes never wait; they fail only after stop(), which is after
    // every admitted batch completed.
    if (b->pending & kNeedDenoise) {
      if (denoise && denoise->push(b)) return metrics().denoise_queue.set(static_cast<int64_t>(denoise->queued()));
    } else if (b->pending & kNeedEmbed) {
      if (embed->push(b)) return metrics().embed_queue.set(static_cast<int64_t>(embed->queued()));
    } else {
      if (b->traces) finish_traces(*b);
      if (!state) return complete(std::move(b));
      if (state->push(b)) return metrics().state_queue.set(static_cast<int64_t>(state->queued()));
    }
    b->aborted = true;
    complete(std::move(b));
  }

  void complete(std::unique_ptr<Batch> b) {
    const size_t lines = b->records.size();
    metrics().time(StageTimer::kBatch, mono_ns() - b->admitted_ns);
    if (!state) {
      size_t ok = 0;
      for (const auto& r : b->records) ok += r.ok();
      metrics().lines_clustered.inc(ok);
    }
    if (b->on_done) {
      auto cb = std::move(b->on_done);
      try {
        cb(std::move(b));
      } catch (const std::exception& e) {
        spdlog::error("batch callback: {}", e.what());
      }
    }
    {
      std::lock_guard lock(mu);
      --inflight_batches;
      inflight_lines -= lines;
      metrics().inflight_batches.set(static_cast<int64_t>(inflight_batches));
      metrics().inflight_lines.set(static_cast<int64_t>(inflight_lines));
    }
    room.notify_all();
  }

  void route(std::unique_ptr<Batch> b) {
    b->admitted_ns = mono_ns();
    metrics().lines_total.inc(b->live());
    if (b->records.size() <= static_cast<size_t>(config.inline_max_lines)) {
      analyze(*b);  // run to completion on the caller's thread
      return dispatch(std::move(b));
    }
    if (!work.push(b)) {
      b->aborted = true;
      return complete(std::move(b));
    }
    metrics().analysis_queue.set(static_cast<int64_t>(work.size()));
  }

  void worker() {
    while (auto b = work.pop()) {
      analyze(**b);
      dispatch(std::move(*b));
    }
  }
};

Pipeline::Pipeline(const Config& config, ClusterStore* catalog,
                   std::function<void(std::vector<AlertEvent>&&)> sink, const WriteGate* gate)
    : impl_(new Impl(config)) {
  auto& s = *impl_;
  auto encoder = make_encoder(config);
  s.encoder_version = encoder->version();
  s.encoder_dim = encoder->dim();
  s.encoder_description = encoder->describe();
  if (config.denoiser_model != "none")
    s.denoiser = std::make_unique<Denoiser>(config, models::load_token_scorer(config.denoiser_model, config.denoiser_runtime == "native"));
  if (!config.format_bank.empty()) {
    try {
      s.bank = std::make_unique<FormatBank>(FormatBank::load(config.format_bank, config.format_bank_slot_words));
    } catch (const std::exception& e) {
      throw ConfigError("format_bank", e.what());
    }
    if (s.bank->size() == 0) throw ConfigError("format_bank", config.format_bank + ": no usable format in the file");
  }
  s.caches = std::make_unique<TemplateCaches>(config);
  s.templater = std::make_unique<Templater>(config, s.bank.get(), s.caches.get());
  s.analyzer = std::make_unique<Analyzer>(config, s.denoiser.get(), s.bank.get(), s.caches.get(), s.templater.get());
  if (s.denoiser) s.denoise = std::make_unique<DenoiseStage>(config, s.denoiser.get(), s.templater.get());
  s.embed = std::make_unique<EmbedStage>(config, std::move(encoder), s.caches.get());
  if (catalog) s.state = std::make_unique<StateStage>(config, catalog, gate, std::move(sink));
  auto dispatch = [&s](std::unique_ptr<Batch> b) { s.dispatch(std::move(b)); };
  if (s.denoise) s.denoise->set_timer(StageTimer::kDenoise);
  s.embed->set_timer(StageTimer::kEmbed);
  if (s.denoise) s.denoise->set_sink(dispatch);
  s.embed->set_sink(dispatch);
  if (s.state) s.state->set_sink([&s](std::unique_ptr<Batch> b) { s.complete(std::move(b)); });
  if (s.denoise) s.denoise->start();
  s.embed->start();
  if (s.state) s.state->start();
  for (int i = 0; i < config.analysis_threads; ++i)
    s.workers.emplace_back([&s, i] {
      set_thread_name("ls-analysis-" + std::to_string(i));
      s.worker();
    });
}

Pipeline::~Pipeline() { stop(); }

void Pipeline::stop() {
  auto& s = *impl_;
  {
    std::unique_lock lock(s.mu);
    if (s.stopped) return;
    s.stopping = true;
    s.room.notify_all();
    // Every admitted batch reaches its callback before anything stops.
    s.room.wait(lock, [&] { return s.inflight_batches == 0; });
    s.stopped = true;
  }
  s.work.close();
  for (auto& t : s.workers) t.join();
  if (s.denoise) s.denoise->stop();
  s.embed->stop();
  if (s.state) s.state->stop();
}

bool Pipeline::try_submit(std::unique_ptr<Batch>& b) {
  if (!impl_->admit(*b, /*wait=*/false)) return false;
  impl_->route(std::move(b));
  return true;
}

bool Pipeline::submit(std::unique_ptr<Batch>& b) {
  if (!impl_->admit(*b, /*wait=*/true)) return false;
  impl_->route(std::move(b));
  return true;
}

Results Pipeline::run(std::vector<std::string> texts) {
  auto b = std::make_unique<Batch>();
  int64_t t = now_ms();
  b->records.resize(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    b->records[i].text = b->keep(texts[i]);
    b->records[i].received_ms = t;
  }
  return run(std::move(b));
}

Results Pipeline::run(std::unique_ptr<Batch> b) {
  std::promise<std::unique_ptr<Batch>> done;
  auto fut = done.get_future();
  b->on_done = [&done](std::unique_ptr<Batch> out) { done.set_value(std::move(out)); };
  if (!submit(b)) throw std::runtime_error("pipeline is stopped");
  auto out = fut.get();
  if (out->aborted) throw std::runtime_error("pipeline stopped before the batch finished");
  return Results(std::move(out));
}

IdContract Pipeline::contract() const {
  const auto& s = *impl_;
  const auto& ed = s.encoder_description;
  IdContract c;
  c.encoder = {s.encoder_version, s.encoder_dim, ed.kind, ed.max_len, ed.vocab_size, s.config.encoder_canonicalize};
  if (s.denoiser) {
    const auto& di = s.denoiser->info();
    c.denoiser = IdContract::Denoiser{di.version, s.config.denoiser_threshold, di.context, di.max_len,
                                      s.denoiser->context_test()};
  }
  c.lsh.bits = s.embed->lsh().bits();
  c.lsh.seed = s.embed->lsh().seed();
  nlohmann::json premask = nlohmann::json::array();
  for (const auto& p : s.config.premask) premask.push_back({p.name, p.regex, p.boundary, p.require_digit});
  c.premask = lsh::format_id(fast_hash64(premask.dump()));
  if (s.config.slot_rules != "off") c.slot_rules = s.config.slot_rules;
  if (s.bank) c.format_bank = IdContract::FormatBank{FormatBank::kVersion, s.bank->digest(), s.bank->slot_words()};
  c.structured.enabled = s.config.structured_messages;
  c.structured.message_keys = s.config.message_key_list();
  c.structured.keep_caller = s.config.structured_keep_caller;
  c.structured.syslog_headers = s.config.syslog_headers;
  if (s.config.app_layouts != "off") c.structured.app_layouts = s.config.app_layouts;
  c.events = {kEventsVersion, s.config.multiline_max_lines, s.config.multiline_max_bytes};
  return c;
}

nlohmann::json Pipeline::info() const {
  const auto& s = *impl_;
  const IdContract c = contract();
  const auto& ed = s.encoder_description;
  // The contract's fields, with the diagnostics of kInfoDiagnostics beside them.
  nlohmann::json encoder = c.encoder_json();
  encoder["source"] = ed.source;
  encoder["runtime"] = ed.runtime.empty() ? nlohmann::json(nullptr) : nlohmann::json(ed.runtime);
  nlohmann::json denoiser = c.denoiser_json();
  if (s.denoiser) denoiser["runtime"] = s.denoiser->runtime();
  nlohmann::json bank = c.format_bank_json();
  if (s.bank) {
    bank["formats"] = s.bank->size();
    bank["skipped"] = s.bank->skipped();
  }
  return {{"encoder", std::move(encoder)},
          {"denoiser", std::move(denoiser)},
          {"lsh", c.lsh_json()},
          {"premask_patterns", s.config.premask.size()},
          {"slot_rules", c.slot_rules ? nlohmann::json(*c.slot_rules) : nlohmann::json(nullptr)},
          {"format_bank", std::move(bank)},
          {"structured", c.structured_json()},
          {"events", c.events_json()},
          {"premask_engine", s.analyzer->premasker().all_builtin() ? "builtin finders (RE2-exact)" : "re2"},
          {"torch", {{"version", models::runtime_info().torch_version}}},
          {"batching",
           {{"max_lines", s.config.batch_max_lines},
            {"max_delay_us", s.config.batch_max_delay_us},
            {"analysis_threads", s.config.analysis_threads},
            {"inline_max_lines", s.config.inline_max_lines}}}};
}

void Pipeline::set_alert_rules(std::vector<RuleSpec> rules) {
  if (impl_->state) impl_->state->set_rules(std::move(rules));
}

void Pipeline::set_count_publisher(std::function<void(std::vector<CountDelta>&&)> publisher) {
  if (impl_->state) impl_->state->set_publisher(std::move(publisher));
}

void Pipeline::set_curation(const Curation* curation, std::function<void()> refresh) {
  if (impl_->state) impl_->state->set_curation(curation, std::move(refresh));
}

std::vector<std::pair<uint64_t, uint64_t>> Pipeline::pinned_counts() {
  return impl_->state ? impl_->state->pinned_counts() : std::vector<std::pair<uint64_t, uint64_t>>();
}

void Pipeline::set_after_commit_hook(std::function<void()> hook) {
  if (impl_->state) impl_->state->set_after_commit_hook(std::move(hook));
}

void Pipeline::observe_remote(const std::vector<CountDelta>& deltas) {
  if (impl_->state) impl_->state->observe_remote(deltas);
}

size_t Pipeline::replay_pending_alerts() { return impl_->state->replay_pending(); }

std::vector<std::pair<uint64_t, uint64_t>> Pipeline::window_counts(int64_t window_ms) {
  return impl_->state->window_counts(window_ms);
}

std::optional<nlohmann::json> Pipeline::series(uint64_t cluster_id, int64_t window_ms) {
  if (!impl_->state) return std::nullopt;
  return impl_->state->series(cluster_id, window_ms);
}

nlohmann::json Pipeline::stats() const {
  nlohmann::json j = nlohmann::json::object();
  const auto& s = *impl_;
  if (s.denoiser) {
    auto d = s.denoiser->stats();
    j["denoise"] = {{"tokens", d.tokens},
                    {"token_cache_hits", d.token_cache_hits},
                    {"exact_cache_hits", d.exact_cache_hits},
                    {"probed_strings", d.probed_strings},
                    {"model_rows", d.model_rows},
                    {"forward_calls", d.forward_calls},
                    {"cache_bytes", s.denoiser->cache_bytes()},
                    {"token_cache_hit_rate", d.tokens ? double(d.token_cache_hits) / double(d.tokens) : 0.0},
                    {"cache_hit_rate",
                     d.tokens ? double(d.token_cache_hits + d.exact_cache_hits) / double(d.tokens) : 0.0}};
  }
  const TemplateCaches& c = *s.caches;
  auto rate = [](uint64_t hit, uint64_t miss) { return hit + miss ? double(hit) / double(hit + miss) : 0.0; };
  j["analysis"] = {{"line_cache_hits", c.line_hits()},
                   {"line_cache_hit_rate", rate(c.line_hits(), c.line_misses())},
                   {"template_cache_hits", c.template_hits()},
                   {"template_cache_misses", c.template_misses()},
                   {"format_bank_matches", s.analyzer->format_matches()},
                   {"cache_bytes", c.bytes()}};
  // Where the time went (process-wide counters, seconds summed over calls):
  // what `logsift cluster --stats` shows so a slow run can be explained.
  const Metrics& m = metrics();
  auto timed = [](const Histogram& h) {
    return nlohmann::json{{"calls", h.count()}, {"seconds", double(h.sum_ns.load(std::memory_order_relaxed)) * 1e-9}};
  };
  for (size_t i = 0; i < static_cast<size_t>(Model::kCount); ++i) {
    auto f = timed(m.model_forward_seconds[i]);
    f["rows"] = m.model_batch_rows[i].sum.load(std::memory_order_relaxed);
    j["forward"][std::string(model_name(static_cast<Model>(i)))] = std::move(f);
  }
  for (auto t : {StageTimer::kAnalysis, StageTimer::kDenoise, StageTimer::kEmbed, StageTimer::kState, StageTimer::kCommit})
    j["stage"][std::string(stage_timer_name(t))] = timed(m.stage_seconds[static_cast<size_t>(t)]);
  return j;
}

MemoryUsage Pipeline::memory_usage() const {
  const auto& s = *impl_;
  MemoryUsage u;
  s.caches->usage(&u.caches);
  if (s.denoiser) s.denoiser->cache_usage(&u.caches);
  if (s.state) {
    u.has_aggregator = true;
    u.aggregator_clusters = s.state->tracked_clusters();
    u.aggregator_bytes = s.state->tracked_bytes();
  }
  u.sqlite_heap_bytes = sqlite::heap_bytes();
  return u;
}

}  // namespace logsift
