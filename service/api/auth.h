// Who may call what. Three kinds of route:
//  - public: health, readiness, metrics, the cluster-id contract (/info), the
//    API description and the dashboard's static files;
//  - ingest: lines in (/inferences and the shippers' push routes), guarded by
//    ingest_token when one is configured (the admin token works there too);
//  - admin: everything that changes state or reveals more than cluster ids
//    (subscriptions, the alert outbox and its retries, templates and example
//    lines in /clusters), guarded by admin_token when one is configured.
// Without an admin token the service refuses to listen beyond loopback
// (check_exposure), so an unguarded route is reachable from this host only.
// Tokens are compared in constant time (SHA-256 of both, then CRYPTO_memcmp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"

namespace logsift::api {

enum class Access { kPublic, kIngest, kAdmin };

Access route_access(std::string_view path);

class Authenticator {
 public:
  explicit Authenticator(const Config& c);
  bool admin_configured() const { return !admin_.empty(); }
  // The reason for a 401, or nullopt when `authorization` (the header's value)
  // grants `access`.
  std::optional<std::string> check(Access access, std::string_view authorization) const;

 private:
  std::vector<std::string> admin_, ingest_;  // SHA-256 of each token
};

// Why the configured listeners may not start (a non-loopback address with no
// admin token), or nullopt.
std::optional<std::string> check_exposure(const Config& c);

}  // namespace logsift::api
