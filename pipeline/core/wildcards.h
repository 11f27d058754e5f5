// The wildcard of templates and its canonical form: what the pipeline prints
// for a variable and how two templates that differ only in how many adjacent
// variables they show are made equal. The encoder's input text and the GA/PA
// scorer both use it, so it sits below both.
#pragma once

#include <string>
#include <string_view>

namespace logsift {

inline constexpr std::string_view kWildcard = "<*>";

// Replaces every run of `<*>` tokens separated only by nothing or whitespace
// with a single `<*>` ("<*> <*>", "<*><*>" -> "<*>"). Other text, including
// whitespace elsewhere, is unchanged.
std::string collapse_wildcards(std::string_view tmpl);

}  // namespace logsift
