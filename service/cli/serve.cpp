// logsift serve: the service.
#include "service/net/server.h"
#include "service/cli/cli.h"

namespace logsift::cli {
namespace {

using nlohmann::json;

int cmd_serve(const Args& a) { return run_server(a.config); }

}  // namespace

const Command kServe = {"serve", "run the service (HTTP API + TCP ingest)",
    "usage: logsift serve [--config FILE] [--http-port N] [--tcp-port N] [--data-dir DIR] [--KEY VALUE]...\n"
                 "\nRuns the HTTP API (POST /inferences, GET /clusters, /clusters/{id}, /info, /metrics,\n"
                 "/healthz, /readyz) and the newline-delimited TCP ingest. Port 0 picks a free port; the\n"
                 "bound addresses are logged as `listening http=HOST:PORT tcp=HOST:PORT`. SIGINT/SIGTERM\n"
                 "stop accepting, finish accepted work, flush the catalog and exit 0.\n",
    true, {"json", "stats"}, {}, &cmd_serve};

}  // namespace logsift::cli
