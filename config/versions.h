// The version tables of the rule sets that are part of the cluster-id
// contract (GET /info): config parses and validates their names, the stages
// and the ingest parsers run the version it chose. Here, below both, so that
// config needs neither a stage nor a parser to know the names.
#pragma once

#include <string_view>

namespace logsift {

// The versions of the application text layouts: part of the cluster-id
// contract (GET /info). layouts-v1: the JVM's. layouts-v2: + Python, Go,
// Kafka, nginx and Apache httpd. layouts-v3: + spdlog, gunicorn, Rust, Ruby,
// PHP's Monolog, Go's log package without a level and zap's console encoder.
inline constexpr int kAppLayoutsOff = 0;
inline constexpr int kAppLayoutsLatest = 3;
constexpr std::string_view app_layouts_name(int version) {
  return version == 1 ? "layouts-v1" : version == 2 ? "layouts-v2" : version == 3 ? "layouts-v3" : "";
}
// The inverse of app_layouts_name plus "off"; -1 for anything else.
constexpr int parse_app_layouts(std::string_view name) {
  if (name == "off") return kAppLayoutsOff;
  for (int v = 1; v <= kAppLayoutsLatest; ++v)
    if (name == app_layouts_name(v)) return v;
  return -1;
}

// The slot rules (pipeline/stages/slots.h): part of the cluster-id contract.
// slots-v1: access, quoted, kv. slots-v2: v1 + errtail. slots-v3: v2 +
// json + backtick + units. slots-v4: v3 + words.
inline constexpr int kSlotRulesOff = 0;
inline constexpr int kSlotRulesLatest = 4;
inline constexpr std::string_view kSlotRulesVersion = "slots-v4";

// "slots-v1" ... "slots-v4" for 1 ... 4, "" for kSlotRulesOff.
constexpr std::string_view slot_rules_name(int version) {
  return version == 1   ? "slots-v1"
         : version == 2 ? "slots-v2"
         : version == 3 ? "slots-v3"
         : version == 4 ? "slots-v4"
                        : "";
}
// The inverse of slot_rules_name plus "off"; -1 for anything else.
constexpr int parse_slot_rules(std::string_view name) {
  if (name == "off") return kSlotRulesOff;
  for (int v = 1; v <= kSlotRulesLatest; ++v)
    if (name == slot_rules_name(v)) return v;
  return -1;
}
static_assert(slot_rules_name(kSlotRulesLatest) == kSlotRulesVersion);

}  // namespace logsift
