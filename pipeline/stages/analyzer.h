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
// The caches hold pure functions of their keys, so a line's result never
// depends on which thread analysed it or what came before:
//  - line cache: the pre-masked line (its bytes with every pre-masked span
//    replaced by one marker byte) -> its template. The denoiser and the slot
//    rules see only that much of a line, so the template is a function of it.
//  - template cache: template_id -> {template, cluster id}.
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
#include "pipeline/core/cache.h"
#include "pipeline/core/hash.h"
#include "pipeline/core/record.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {

class Denoiser;
class FormatBank;

struct AnalyzerStats {
  uint64_t line_cache_hits = 0, line_cache_misses = 0;
  uint64_t template_cache_hits = 0, template_cache_misses = 0;
  uint64_t format_matches = 0;  // line-cache misses a format bank format decided
};

class Analyzer {
 public:
  enum : uint8_t { kNeedDenoise = 1, kNeedEmbed = 2 };

  // denoiser may be null (denoiser_model = "none": pre-mask only); so may
  // bank (no format_bank configured). Both outlive the analyzer.
  Analyzer(const Config& c, Denoiser* denoiser, const FormatBank* bank = nullptr);
  ~Analyzer();

  // The pure pass over every live record; sets Record::pending / Batch::pending.
  void analyze(Batch& b);
  // After the denoise stage decided the rest of the tokens: templates and the
  // template cache for the records still marked kNeedDenoise.
  void templates(Batch& b);
  // The template cache, for the embed stage (a template embedded meanwhile).
  std::optional<TemplateRef> find_template(uint64_t template_id) { return template_cache_.get(template_id); }
  // The embed stage publishes a new template with its cluster id.
  void publish(const Key128& line_key, bool line_cacheable, const TemplateRef& t);

  AnalyzerStats stats() const;
  size_t cache_bytes() const { return line_cache_.bytes() + template_cache_.bytes(); }
  void cache_usage(std::vector<CacheUsage>* out) const {
    out->push_back(line_cache_.usage("line"));
    out->push_back(template_cache_.usage("template"));
  }
  const Premasker& premasker() const { return premasker_; }

 private:
  void finish_template(Record& r, Batch& b);

  Premasker premasker_;
  Denoiser* denoiser_;
  const FormatBank* bank_;
  std::atomic<uint64_t> format_matches_{0};
  bool canonicalize_;
  int slot_rules_;  // kSlotRulesOff or a version (pipeline/stages/slots.h)
  std::vector<std::string> kept_keys_;  // their values are not slots (slots.h)
  uint64_t wordless_seed_;
  ConcurrentCache<Key128, TemplateRef, Key128Hash> line_cache_;
  ConcurrentCache<uint64_t, TemplateRef, std::hash<uint64_t>> template_cache_;
};

// Can this line use the line cache? Its key marks pre-masked spans with 0xFF,
// a byte valid UTF-8 never contains; a line that has one (only unvalidated
// input, e.g. a test's raw string) is analysed without the cache.
bool line_cacheable(std::string_view text);

}  // namespace logsift
