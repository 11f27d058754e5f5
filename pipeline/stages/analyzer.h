// The analysis: the pure stages of the pipeline, fused into one pass over a
// batch, run to completion on whichever thread holds it (an io thread for a
// small request, an analysis worker otherwise): pre-mask and tokenize, the
// line cache, the denoiser's cached token decisions, the template and its id,
// the template cache (template -> cluster id). A line whose work is all cache
// hits is finished here, with no model, no timer and no other thread. What
// the caches cannot answer is marked for the model stages (Record::pending):
// kNeedDenoise (a token the denoiser must score), then kNeedEmbed (a template
// the encoder has not embedded yet).
//
// The caches are TemplateCaches (template_caches.h), shared with the model
// stages; a template is finished by the Templater (templater.h), shared with
// the denoise stage.
//
// With a format bank (config `format_bank`, format_bank.h), a line-cache miss
// is first matched against the bank, on the line's key (so the result is
// still a function of it). A matching format decides the template from its
// start to the line's end: its literals, each slot "<*>". Only the prefix
// before it (a header the format does not print) goes to the denoiser.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "config/config.h"
#include "pipeline/core/record.h"
#include "pipeline/stages/templater.h"  // kNeedDenoise, kNeedEmbed
#include "pipeline/stages/tokenizer.h"

namespace logsift {

class Denoiser;
class FormatBank;
class TemplateCaches;
class Templater;

class Analyzer {
 public:
  // denoiser may be null (denoiser_model = "none": pre-mask only); so may
  // bank (no format_bank configured). All outlive the analyzer.
  Analyzer(const Config& c, Denoiser* denoiser, const FormatBank* bank, TemplateCaches* caches,
           const Templater* templater);
  ~Analyzer();

  // The pure pass over every live record; sets Record::pending / Batch::pending.
  void analyze(Batch& b);

  uint64_t format_matches() const { return format_matches_.load(std::memory_order_relaxed); }
  const Premasker& premasker() const { return premasker_; }

 private:
  Premasker premasker_;
  Denoiser* denoiser_;
  const FormatBank* bank_;
  TemplateCaches* caches_;
  const Templater* templater_;
  std::atomic<uint64_t> format_matches_{0};
};

}  // namespace logsift
