#include "pipeline/stages/premask_stage.h"

namespace logsift {

PremaskStage::PremaskStage(const Config& c) : Stage("premask", c.mailbox_capacity), premasker_(c.premask) {}

void PremaskStage::process(Batch& b) {
  for (auto& r : b.records) {
    if (!r.ok()) continue;
    tokenize(r.text, premasker_.find(r.text), &r.tokens);
  }
}

}  // namespace logsift
