// What the HTTP routes reach: the app's services, wired once by `logsift
// serve` (service/cli/serve.cpp) before any listener runs and read-only
// afterwards. The transport (service/net/server_context.h) knows none of
// them: it hands each request to the handler `serve` installed, which routes
// it with this.
#pragma once

#include <string>

#include "config/config.h"
#include "service/net/server_context.h"

namespace logsift {

class AlertRouter;
class AlertStore;
class BackgroundWork;
class Catalog;
class Curation;
class Pipeline;
class WriteGate;

namespace api {

class Authenticator;

struct AppContext {
  explicit AppContext(ServerContext& server) : server(server), config(server.config) {}
  AppContext(const AppContext&) = delete;
  AppContext& operator=(const AppContext&) = delete;

  ServerContext& server;  // readiness and draining
  const Config& config;
  Pipeline* pipeline = nullptr;
  const Authenticator* auth = nullptr;
  Catalog* catalog = nullptr;
  const WriteGate* write_gate = nullptr;  // the migrator's (pipeline/migrate.h)
  AlertRouter* alert_router = nullptr;
  AlertStore* alert_store = nullptr;
  Curation* curation = nullptr;          // merges, names, mutes (pipeline/store/curation.h)
  BackgroundWork* background = nullptr;  // slow admin jobs (service/api/background_work.h)
  std::string contract_digest;           // the cluster-id contract served (pipeline/migrate.h)
};

}  // namespace api
}  // namespace logsift
