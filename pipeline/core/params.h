// The values behind a template's variables ("params" in every result).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace logsift {

// What each "<*>" of `tmpl` stood for in `text`, in order: the template's
// literal pieces are matched left to right (the last one at the end), the
// values are what lies between. nullopt when the text does not fit the
// template (it always fits the template the pipeline built from it).
// Linear in the text times the number of literal pieces; never throws.
std::optional<std::vector<std::string_view>> template_params(std::string_view tmpl, std::string_view text);
// The same into *out (cleared first; its capacity is reused on hot paths);
// false when the text does not fit.
bool template_params(std::string_view tmpl, std::string_view text, std::vector<std::string_view>* out);

}  // namespace logsift
