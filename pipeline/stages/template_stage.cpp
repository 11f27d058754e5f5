#include "pipeline/stages/template_stage.h"

#include "lsh/lsh.h"
#include "pipeline/stages/tokenizer.h"

namespace logsift {

void TemplateStage::process(Batch& b) {
  for (auto& r : b.records) {
    if (!r.ok()) continue;
    r.template_text = render_template(r.text, r.tokens);
    r.template_id = lsh::stable_hash64(r.template_text);
  }
}

}  // namespace logsift
