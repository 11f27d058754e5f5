// The service: io_context pool, the HTTP and TCP listeners, the pipeline and
// the catalog, and a clean shutdown on SIGINT/SIGTERM (stop accepting, finish
// what was accepted, flush the catalog, exit 0).
#pragma once

#include "config/config.h"

namespace logsift {

// Runs until a signal; returns the process exit code.
int run_server(const Config& config);

}  // namespace logsift
