#include "pipeline/stages/analyzer.h"

#include <algorithm>
#include <cstring>

#include "lsh/lsh.h"
#include "pipeline/core/metrics.h"
#include "pipeline/stages/denoiser.h"
#include "pipeline/stages/encoder_text.h"
#include "pipeline/stages/format_bank.h"
#include "pipeline/stages/slots.h"

namespace logsift {
namespace {

// Wordless templates ("<*>", "!!!") get a seeded hash of their shape as id.
constexpr uint64_t kWordlessSalt = 0x776f72646c657373ull;

// An entry's cost beyond its key: the template is shared with the template
// cache, so the line cache pays a control block share, not the text.
constexpr size_t kSharedRefBytes = 16;

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

bool line_cacheable(std::string_view text) { return std::memchr(text.data(), 0xFF, text.size()) == nullptr; }

Analyzer::Analyzer(const Config& c, Denoiser* denoiser, const FormatBank* bank)
    : premasker_(c.premask),
      denoiser_(denoiser),
      bank_(bank),
      canonicalize_(c.encoder_canonicalize),
      slot_rules_(std::max(0, parse_slot_rules(c.slot_rules))),
      kept_keys_(slot_rule_kept_keys(c.message_key_list())),
      wordless_seed_(c.lsh_seed ^ kWordlessSalt),
      line_cache_(static_cast<size_t>(c.line_cache_entries), static_cast<size_t>(c.line_cache_bytes)),
      template_cache_(static_cast<size_t>(c.template_cache_entries), static_cast<size_t>(c.template_cache_bytes)) {}

Analyzer::~Analyzer() = default;

AnalyzerStats Analyzer::stats() const {
  return {line_cache_.hits(), line_cache_.misses(), template_cache_.hits(), template_cache_.misses(),
          format_matches_.load(std::memory_order_relaxed)};
}

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
      if (auto t = line_cache_.get(r.line_key)) {
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
    finish_template(r, b);
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

void Analyzer::templates(Batch& b) {
  b.pending &= static_cast<uint8_t>(~kNeedDenoise);
  for (auto& r : b.records) {
    if (!r.ok() || !(r.pending & kNeedDenoise)) continue;
    r.pending &= static_cast<uint8_t>(~kNeedDenoise);
    finish_template(r, b);
  }
}

void Analyzer::finish_template(Record& r, Batch& b) {
  thread_local std::string text;
  std::span<Token> toks(b.tokens.data() + r.tok_begin, r.tok_end - r.tok_begin);
  if (slot_rules_ != kSlotRulesOff) apply_slot_rules(r.text, toks, kept_keys_, slot_rules_);
  render_template_into(r.text, toks, &text);
  if (r.format >= 0) {
    // The format's text after the prefix's; a "<*>" on both sides of the seam is one.
    const size_t seam = text.size();
    bank_->render_into(static_cast<uint32_t>(r.format), &text);
    if (seam >= 3 && text.compare(seam - 3, 3, "<*>") == 0 && text.compare(seam, 3, "<*>") == 0) text.erase(seam, 3);
  }
  const uint64_t tid = lsh::stable_hash64(text);
  const bool cacheable = line_cacheable(r.text);
  if (auto t = template_cache_.get(tid)) {
    metrics().id_cache_hits.inc();
    if (cacheable) line_cache_.put(r.line_key, *t, kSharedRefBytes);
    r.set_template(std::move(*t));
    return;
  }
  std::string canonical = canonicalize_ ? canonical_template(text) : text;
  if (!has_word_char(canonical)) {
    // No word at all ("<*>", "!!!", "<*> - <*>"): nothing for an encoder to
    // read, so the id is a seeded hash of the template's shape instead.
    auto t = std::make_shared<TemplateInfo>(TemplateInfo{text, tid, lsh::stable_hash64(canonical, wordless_seed_)});
    publish(r.line_key, cacheable, t);
    r.set_template(std::move(t));
    return;
  }
  r.new_template = text;
  r.pending |= kNeedEmbed;
  b.pending |= kNeedEmbed;
}

void Analyzer::publish(const Key128& line_key, bool cacheable, const TemplateRef& t) {
  template_cache_.put(t->template_id, t, t->text.size());
  if (cacheable) line_cache_.put(line_key, t, kSharedRefBytes);
}

}  // namespace logsift
