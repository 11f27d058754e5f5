// logsift config: the effective configuration as JSON.
#include <iostream>

#include <nlohmann/json.hpp>
#include "service/cli/cli.h"

namespace logsift::cli {
namespace {

using nlohmann::json;

int cmd_config(const Args& a) {
  std::cout << a.config.to_json().dump(2) << "\n";
  return 0;
}

}  // namespace

const Command kConfig = {"config", "print the effective configuration as JSON",
    "usage: logsift config [--config FILE] [--KEY VALUE]...\n"
                 "\nPrints the effective configuration (defaults < file < env < flags) as JSON.\n",
    true, {"json", "stats"}, {}, &cmd_config};

}  // namespace logsift::cli
