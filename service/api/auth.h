// Who may call what. Four kinds of route:
//  - public: health, readiness, metrics, the cluster-id contract (/info), the
//    API description and the dashboard's static files;
//  - ingest: lines in (/inferences and the shippers' push routes), guarded by
//    ingest_token when one is configured (the admin token works there too);
//  - read: what the dashboard and on-call screens read (GET of the cluster
//    list, details, series, suggestions and the curation log), guarded by the
//    admin token, which read_token may also pass;
//  - admin: everything else that changes state or reveals more than cluster
//    ids (subscriptions, the alert outbox and its retries, curation actions),
//    guarded by admin_token when one is configured.
// Each token has a name ("name:token" in the setting, or the setting and its
// position: "admin-1"), which logs and the curation log show, never the token.
// Without an admin token the service refuses to listen beyond loopback
// (check_exposure), so an unguarded route is reachable from this host only.
// Tokens are compared in constant time (SHA-256 of both, then CRYPTO_memcmp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config.h"

namespace logsift::api {

enum class Access { kPublic, kIngest, kRead, kAdmin };

Access route_access(std::string_view path, std::string_view method = "GET");

// The result of a check: allowed (with the name of the token that let the
// request in, or "" when the route needs none), or refused with an HTTP
// status (401: no or an unknown token; 403: a token without that scope) and
// the reason.
struct AuthResult {
  bool ok = true;
  int status = 0;
  std::string reason;
  std::string token_name;
};

class Authenticator {
 public:
  explicit Authenticator(const Config& c);
  bool admin_configured() const { return admin_; }
  AuthResult check(Access access, std::string_view authorization) const;
  // The name of the token in `authorization`, or "" for none or an unknown one.
  std::string name_of(std::string_view authorization) const;

  enum class Scope { kAdmin, kIngest, kRead };
  struct Token {
    std::string digest;  // SHA-256 of the token
    std::string name;
    Scope scope;
  };

 private:
  const Token* find(std::string_view authorization) const;
  std::vector<Token> tokens_;
  bool admin_ = false, ingest_ = false, read_ = false;
};

// "name:token" -> {"name", "token"}; a bare token -> {"", token}. A name is
// 1 to 64 of [A-Za-z0-9_.-].
std::pair<std::string, std::string> split_token_name(std::string_view entry);

// Why the configured listeners may not start, or nullopt: a listener beyond
// loopback needs an admin token, and TLS unless allow_plaintext is set.
std::optional<std::string> check_exposure(const Config& c);

}  // namespace logsift::api
