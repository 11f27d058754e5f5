#include "pipeline/stages/denoise_stage.h"

#include "pipeline/stages/analyzer.h"
#include "pipeline/stages/denoiser.h"

namespace logsift {

DenoiseStage::DenoiseStage(const Config& c, Denoiser* denoiser, Analyzer* analyzer)
    : BatchingStage("denoise", static_cast<size_t>(c.mailbox_capacity), static_cast<size_t>(c.batch_max_lines),
                    std::chrono::microseconds(c.batch_max_delay_us)),
      denoiser_(denoiser),
      analyzer_(analyzer) {}

void DenoiseStage::process_group(std::vector<Batch*>& group) {
  std::vector<DenoiseLine> lines;
  for (Batch* b : group)
    for (auto& r : b->records)
      if (r.ok() && (r.pending & Analyzer::kNeedDenoise))
        lines.push_back({r.text, std::span<Token>(b->tokens.data() + r.tok_begin, r.tok_end - r.tok_begin)});
  // Decide in slices of at most kSliceTokens undecided tokens: the model
  // input of one decide() is ~10 KB per unknown token (12 probe rows), and a
  // group can hold every line in flight (a flood of new templates: hundreds
  // of thousands), which once grew the process by gigabytes. A slice keeps
  // it near 10 MB; the caches carry decisions across slices.
  constexpr size_t kSliceTokens = 1024;
  size_t begin = 0, tokens = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    for (const Token& t : lines[i].tokens) tokens += t.kind == TokenKind::kWord && t.mark == kMarkUndecided;
    if (tokens >= kSliceTokens || i + 1 == lines.size()) {
      denoiser_->decide(std::span<DenoiseLine>(lines.data() + begin, i + 1 - begin));
      begin = i + 1;
      tokens = 0;
    }
  }
  for (Batch* b : group) analyzer_->templates(*b);
}

}  // namespace logsift
