// RedisWindows::encode / decode: the "d" field of an entry in P counts. In
// a file of its own (no connection, no thread) so the fuzz target
// tests/fuzz/fuzz_counts.cpp links it alone.
#include <algorithm>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "pipeline/store/redis_windows.h"

namespace logsift {

using json = nlohmann::json;

std::string RedisWindows::encode(const std::vector<CountDelta>& deltas) {
  json a = json::array();
  for (const auto& d : deltas) {
    json labels = json::object();
    for (const auto& [k, v] : d.labels) labels[k] = v;
    a.push_back(json::array({lsh::format_id(d.cluster_id), d.ts_ms, d.count, d.template_text, std::move(labels)}));
  }
  return a.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::vector<CountDelta> RedisWindows::decode(const std::string& text) {
  std::vector<CountDelta> out;
  json a = json::parse(text, nullptr, false);
  if (!a.is_array()) return out;
  for (const auto& e : a) {
    if (!e.is_array() || e.size() != 5 || !e[0].is_string() || !e[1].is_number_integer() ||
        !e[2].is_number_unsigned() || !e[3].is_string() || !e[4].is_object())
      continue;
    CountDelta d;
    if (!lsh::parse_id(e[0].get<std::string>(), &d.cluster_id)) continue;
    d.ts_ms = e[1].get<int64_t>();
    d.count = static_cast<uint32_t>(std::min<uint64_t>(e[2].get<uint64_t>(), UINT32_MAX));
    d.template_text = e[3].get<std::string>();
    for (auto it = e[4].begin(); it != e[4].end(); ++it)
      if (it->is_string()) d.labels.emplace_back(it.key(), it->get<std::string>());
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace logsift
