#include "pipeline/core/params.h"

namespace logsift {

bool template_params(std::string_view tmpl, std::string_view text, std::vector<std::string_view>* out) {
  static constexpr std::string_view kVar = "<*>";
  std::vector<std::string_view>& params = *out;
  params.clear();
  size_t t = 0;  // position in text
  size_t p = tmpl.find(kVar);
  // The literal before the first variable is a prefix of the text.
  const std::string_view head = tmpl.substr(0, p);
  if (text.substr(0, head.size()) != head) return false;
  t = head.size();
  while (p != std::string_view::npos) {
    const size_t lit_begin = p + kVar.size();
    const size_t next = tmpl.find(kVar, lit_begin);
    const std::string_view lit = tmpl.substr(lit_begin, next == std::string_view::npos ? tmpl.npos : next - lit_begin);
    size_t at;
    if (next == std::string_view::npos) {
      // The last literal ends the text.
      if (lit.size() > text.size() - t || text.substr(text.size() - lit.size()) != lit) return false;
      at = text.size() - lit.size();
    } else if (lit.empty()) {
      at = t;  // two variables in a row: the first takes nothing
    } else {
      at = text.find(lit, t);
      if (at == std::string_view::npos) return false;
    }
    params.push_back(text.substr(t, at - t));
    t = at + lit.size();
    p = next;
  }
  // A template without variables is the text itself.
  return !(params.empty() && head.size() != text.size());
}

std::optional<std::vector<std::string_view>> template_params(std::string_view tmpl, std::string_view text) {
  std::vector<std::string_view> params;
  if (!template_params(tmpl, text, &params)) return std::nullopt;
  return params;
}

}  // namespace logsift
