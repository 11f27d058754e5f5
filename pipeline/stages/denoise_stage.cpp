#include "pipeline/stages/denoise_stage.h"

#include "pipeline/stages/denoiser.h"
#include "pipeline/stages/templater.h"

namespace logsift {

DenoiseStage::DenoiseStage(const Config& c, Denoiser* denoiser, const Templater* templater)
    : BatchingStage("denoise", static_cast<size_t>(c.mailbox_capacity), static_cast<size_t>(c.batch_max_lines),
                    std::chrono::microseconds(c.batch_max_delay_us)),
      denoiser_(denoiser),
      templater_(templater) {}

void DenoiseStage::process_group(std::vector<Batch*>& group) {
  std::vector<DenoiseLine> lines;
  for (Batch* b : group)
    for (auto& r : b->records)
      if (r.ok() && (r.pending & kNeedDenoise))
        lines.push_back({r.text, std::span<Token>(b->tokens.data() + r.tok_begin, r.tok_end - r.tok_begin)});
  denoiser_->decide(lines);  // in bounded slices (Denoiser::kSliceTokens)
  for (Batch* b : group) templater_->finish_denoised(*b);
}

}  // namespace logsift
