// The pre-mask stage: re2 patterns mask what is certainly variable, and the
// line is tokenized keeping its delimiters (see tokenizer.h).
#pragma once

#include "config/config.h"
#include "pipeline/core/stage.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {

class PremaskStage final : public Stage {
 public:
  explicit PremaskStage(const Config& c);
 protected:
  void process(Batch& b) override;
 private:
  Premasker premasker_;
};

}  // namespace logsift
