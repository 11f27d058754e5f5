#include "pipeline/core/params.h"

#include <algorithm>

namespace logsift {

namespace {

bool params_of_one(std::string_view tmpl, std::string_view text, std::vector<std::string_view>* out);

// An event's template shows its head statement and only some of its lines
// (the exception lines: pipeline/stages/trace.h): its first line fits the
// text's first line, and each later template line the next text line it fits.
bool params_by_line(std::string_view tmpl, std::string_view text, std::vector<std::string_view>* out) {
  out->clear();
  std::vector<std::string_view> one;
  // The line at *pos, and *pos past it (past the end after the last line).
  auto next_line = [](std::string_view s, size_t* pos) {
    const size_t e = s.find('\n', *pos);
    const std::string_view line = s.substr(*pos, e == std::string_view::npos ? std::string_view::npos : e - *pos);
    *pos = e == std::string_view::npos ? s.size() + 1 : e + 1;
    return line;
  };
  size_t tp = 0, xp = 0;
  bool first = true;
  while (tp <= tmpl.size()) {
    const std::string_view t = next_line(tmpl, &tp);
    bool matched = false;
    while (xp <= text.size()) {
      std::string_view l = next_line(text, &xp);
      if (!first) l.remove_prefix(std::min(l.find_first_not_of(" \t"), l.size()));  // a trace's lines are indented
      if (params_of_one(t, l, &one)) {
        out->insert(out->end(), one.begin(), one.end());
        matched = true;
        break;
      }
      if (first) return false;  // the head statement is the first line
    }
    if (!matched) return false;
    first = false;
  }
  return true;
}

}  // namespace

bool template_params(std::string_view tmpl, std::string_view text, std::vector<std::string_view>* out) {
  const size_t text_nl = text.find('\n');
  if (text_nl != std::string_view::npos && tmpl.find('\n') == std::string_view::npos) {
    // An event whose template is its head statement's alone: the values are the head line's.
    return params_of_one(tmpl, text.substr(0, text_nl), out);
  }
  // A template with fewer lines than its text is a trace's (its frames are
  // not shown): matched line by line, so that no value swallows the frames.
  if (text_nl != std::string_view::npos &&
      std::count(tmpl.begin(), tmpl.end(), '\n') < std::count(text.begin(), text.end(), '\n'))
    return params_by_line(tmpl, text, out);
  return params_of_one(tmpl, text, out);
}

namespace {

bool params_of_one(std::string_view tmpl, std::string_view text, std::vector<std::string_view>* out) {
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

}  // namespace

std::optional<std::vector<std::string_view>> template_params(std::string_view tmpl, std::string_view text) {
  std::vector<std::string_view> params;
  if (!template_params(tmpl, text, &params)) return std::nullopt;
  return params;
}

}  // namespace logsift
