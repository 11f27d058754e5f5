// The template stage: renders each record's template (variables as "<*>") and
// its stable template_id. Runs after the denoiser.
#pragma once

#include "config/config.h"
#include "pipeline/core/stage.h"

namespace logsift {

class TemplateStage final : public Stage {
 public:
  explicit TemplateStage(const Config& c) : Stage("template", c.mailbox_capacity) {}
 protected:
  void process(Batch& b) override;
};

}  // namespace logsift
