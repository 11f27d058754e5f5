// Configuration as users write it, by the first byte:
//   0: a config file's text (JSON with comments) over the defaults, then
//      validate() and the derived values the server computes at start;
//   1: one key from a flag or environment variable: the key chosen by the
//      second byte among Config::keys(), the rest is the value;
//   2: a duration ("250ms", "5m", "1h30m") for parse_duration_ms.
// A bad value must be a ConfigError naming the key, never another exception.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "pipeline/core/time.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      try {
        logsift::Config c = logsift::Config::defaults();
        c.apply_text(in, "fuzz");
        c.validate();
        (void)c.series_windows_ms();
        (void)c.to_json().dump();
      } catch (const logsift::ConfigError&) {
      }
      break;
    case 1: {
      static const auto keys = logsift::Config::keys();
      const std::string& key = keys[static_cast<unsigned char>(in[0]) % keys.size()];
      try {
        logsift::Config c = logsift::Config::defaults();
        c.apply_string(key, std::string(in.substr(1)));
        c.validate();
      } catch (const logsift::ConfigError&) {
      }
      break;
    }
    default:
      if (auto ms = logsift::parse_duration_ms(in); ms && *ms < 0) __builtin_trap();
      break;
  }
  return 0;
}
