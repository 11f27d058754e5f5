// The fuzz targets' input splitter: the lines of a text, '\n'-separated (the
// last line may lack its '\n'; an empty text has none).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace logsift_fuzz {

inline std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    const size_t nl = s.find('\n');
    out.emplace_back(s.substr(0, nl));
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return out;
}

}  // namespace logsift_fuzz
