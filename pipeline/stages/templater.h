// From a line's decided tokens to its template: the slot rules, the rendered
// template (with a format bank's text after its prefix), the template id, and
// then the template cache: a known template finishes the line; a template
// without a word gets a seeded hash of its shape as cluster id; any other
// new template is marked for the embed stage (kNeedEmbed).
//
// Used by the analysis for the lines it decided from the caches and by the
// denoise stage for the lines it decided with the model; immutable after
// construction and safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"
#include "pipeline/core/record.h"

namespace logsift {

class FormatBank;
class TemplateCaches;

// What a record still needs (Record::pending, Batch::pending).
enum : uint8_t { kNeedDenoise = 1, kNeedEmbed = 2 };

class Templater {
 public:
  // bank may be null (no format_bank); bank and caches outlive the templater.
  Templater(const Config& c, const FormatBank* bank, TemplateCaches* caches);

  // The template of `r`, whose tokens (in b.tokens) are all decided.
  void finish(Record& r, Batch& b) const;
  // finish() for every record of `b` still marked kNeedDenoise, after the
  // denoise stage decided their tokens; clears the mark.
  void finish_denoised(Batch& b) const;

 private:
  const FormatBank* bank_;
  TemplateCaches* caches_;
  bool canonicalize_;
  int slot_rules_;                      // kSlotRulesOff or a version (config/versions.h)
  std::vector<std::string> kept_keys_;  // their values are not slots (slots.h)
  uint64_t wordless_seed_;
};

}  // namespace logsift
