#include "pipeline/stages/analyzer.h"

#include <algorithm>
#include <cstring>

#include "pipeline/core/metrics.h"
#include "pipeline/stages/denoiser.h"
#include "pipeline/stages/format_bank.h"
#include "pipeline/stages/template_caches.h"
#include "pipeline/stages/trace.h"
#include "lsh/lsh.h"

namespace logsift {
namespace {

// A position in the line key (each pre-masked span one byte) -> in the line.
uint32_t key_to_text(uint32_t key_pos, const std::vector<MaskSpan>& spans) {
  uint32_t shrink = 0;
  for (const auto& s : spans) {
    if (s.begin - shrink >= key_pos) break;
    shrink += s.end - s.begin - 1;
  }
  return key_pos + shrink;
}

}  // namespace

Analyzer::Analyzer(const Config& c, Denoiser* denoiser, const FormatBank* bank, TemplateCaches* caches,
                   const Templater* templater)
    : premasker_(c.premask), denoiser_(denoiser), bank_(bank), caches_(caches), templater_(templater) {}

Analyzer::~Analyzer() = default;

void Analyzer::analyze(Batch& b) {
  thread_local std::vector<MaskSpan> spans;
  thread_local std::string key;
  DenoiseStats dstats;
  b.pending = 0;
  b.tokens.clear();
  uint64_t line_hits = 0, format_hits = 0;
  for (auto& r : b.records) {
    if (!r.ok()) continue;
    r.pending = 0;
    r.format = -1;
    if (r.text.find('\n') != std::string_view::npos && !r.trace) {
      // An event with a runtime's stack trace: its id is its fault
      // (pipeline/stages/trace.h). The head statement is analysed as any
      // line; the pipeline then joins it with the trace.
      TraceIdentity t = trace_identity(r.text, premasker_);
      if (t.trace) {
        if (t.head_in_trace) {
          const uint64_t tid = lsh::stable_hash64(t.summary);
          r.set_template(std::make_shared<TemplateInfo>(
              TemplateInfo{std::move(t.summary), tid, event_cluster_id(0, t.fingerprint)}));
          continue;
        }
        auto et = std::make_shared<EventTrace>();
        et->text = r.text;
        et->fingerprint = t.fingerprint;
        et->head_counts = t.head_counts;
        et->summary = std::move(t.summary);
        r.text = r.text.substr(0, r.text.find('\n'));
        r.trace = std::move(et);
        b.traces = true;
      }
    }
    premasker_.find(r.text, &spans);
    const bool cacheable = line_cacheable(r.text);
    if (cacheable) {
      // The pre-masked line: its bytes, each pre-masked span as one 0xFF.
      key.clear();
      uint32_t pos = 0;
      for (const auto& s : spans) {
        key.append(r.text.substr(pos, s.begin - pos));
        key.push_back('\xff');
        pos = s.end;
      }
      key.append(r.text.substr(pos));
      r.line_key = fast_hash128(key);
      if (auto t = caches_->find_line(r.line_key)) {
        r.set_template(std::move(*t));
        ++line_hits;
        continue;
      }
    }
    r.tok_begin = static_cast<uint32_t>(b.tokens.size());
    append_tokens(r.text, spans, &b.tokens);
    r.tok_end = static_cast<uint32_t>(b.tokens.size());
    if (bank_ && cacheable) {
      if (auto m = bank_->match(key)) {
        // The prefix: the tokens before the format's text. A token the
        // format's start cuts through leaves the line to the denoiser.
        const uint32_t at = key_to_text(m->begin, spans);
        uint32_t k = r.tok_begin;
        while (k < r.tok_end && b.tokens[k].end <= at) ++k;
        if (k == r.tok_end || b.tokens[k].begin == at) {
          r.tok_end = k;
          r.format = static_cast<int32_t>(m->format);
          ++format_hits;
        }
      }
    }
    if (denoiser_) {
      std::span<Token> toks(b.tokens.data() + r.tok_begin, r.tok_end - r.tok_begin);
      if (!denoiser_->decide_cached(r.text, toks, &dstats)) {
        r.pending |= kNeedDenoise;
        b.pending |= kNeedDenoise;
        continue;
      }
    }
    templater_->finish(r, b);
  }
  if (denoiser_) denoiser_->record(dstats);
  if (format_hits) {
    format_matches_.fetch_add(format_hits, std::memory_order_relaxed);
    metrics().format_bank_matches.inc(format_hits);
  }
  metrics().lines_analyzed.inc(b.records.size());
  metrics().line_cache_hits.inc(line_hits);
  metrics().id_cache_hits.inc(line_hits);
}

}  // namespace logsift
