// The denoise stage: one thread runs the char-CNN for the tokens the caches
// could not decide during analysis, for every batch queued (adaptive
// batching: one forward per step for all of them), then finishes those
// records' templates with the Templater the analysis uses too (templater.h)
// and hands the batch on. Only lines with an unknown token come here.
#pragma once

#include "config/config.h"
#include "pipeline/core/stage.h"

namespace logsift {

class Denoiser;
class Templater;

class DenoiseStage final : public BatchingStage {
 public:
  DenoiseStage(const Config& c, Denoiser* denoiser, const Templater* templater);

 protected:
  void process_group(std::vector<Batch*>& group) override;

 private:
  Denoiser* denoiser_;
  const Templater* templater_;
};

}  // namespace logsift
