#include "pipeline/stages/templater.h"

#include <algorithm>
#include <string>

#include "lsh/lsh.h"
#include "pipeline/core/metrics.h"
#include "pipeline/stages/encoder_text.h"
#include "pipeline/stages/format_bank.h"
#include "pipeline/stages/slots.h"
#include "pipeline/stages/template_caches.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {
namespace {

// Wordless templates ("<*>", "!!!") get a seeded hash of their shape as id.
constexpr uint64_t kWordlessSalt = 0x776f72646c657373ull;

}  // namespace

Templater::Templater(const Config& c, const FormatBank* bank, TemplateCaches* caches)
    : bank_(bank),
      caches_(caches),
      canonicalize_(c.encoder_canonicalize),
      slot_rules_(std::max(0, parse_slot_rules(c.slot_rules))),
      kept_keys_(slot_rule_kept_keys(c.message_key_list())),
      wordless_seed_(c.lsh_seed ^ kWordlessSalt) {}

void Templater::finish_denoised(Batch& b) const {
  b.pending &= static_cast<uint8_t>(~kNeedDenoise);
  for (auto& r : b.records) {
    if (!r.ok() || !(r.pending & kNeedDenoise)) continue;
    r.pending &= static_cast<uint8_t>(~kNeedDenoise);
    finish(r, b);
  }
}

void Templater::finish(Record& r, Batch& b) const {
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
  if (auto t = caches_->find_template(tid)) {
    metrics().id_cache_hits.inc();
    if (cacheable) caches_->add_line(r.line_key, *t);
    r.set_template(std::move(*t));
    return;
  }
  std::string canonical = canonicalize_ ? canonical_template(text) : text;
  if (!has_word_char(canonical)) {
    // No word at all ("<*>", "!!!", "<*> - <*>"): nothing for an encoder to
    // read, so the id is a seeded hash of the template's shape instead.
    auto t = std::make_shared<TemplateInfo>(TemplateInfo{text, tid, lsh::stable_hash64(canonical, wordless_seed_)});
    caches_->publish(r.line_key, cacheable, t);
    r.set_template(std::move(t));
    return;
  }
  r.new_template = text;
  r.pending |= kNeedEmbed;
  b.pending |= kNeedEmbed;
}

}  // namespace logsift
