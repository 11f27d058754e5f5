#include "service/api/auth.h"

#include <cctype>

#include <boost/asio/ip/address.hpp>
#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace logsift::api {
namespace {

std::string sha256(std::string_view s) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(s.data()), s.size(), d);
  return std::string(reinterpret_cast<const char*>(d), sizeof d);
}

bool loopback(const std::string& host) {
  boost::system::error_code ec;
  auto a = boost::asio::ip::make_address(host, ec);
  if (ec) return false;
  if (a.is_v6() && a.to_v6().is_v4_mapped()) return a.to_v6().to_v4().is_loopback();
  return a.is_loopback();
}

}  // namespace

Access route_access(std::string_view path, std::string_view method) {
  if (path == "/healthz" || path == "/readyz" || path == "/metrics" || path == "/info" || path == "/openapi.json" ||
      path == "/" || path == "/index.html" || path.starts_with("/ui/"))
    return Access::kPublic;
  if (path == "/inferences" || path == "/loki/api/v1/push" || path == "/v1/logs" || path == "/_bulk" ||
      path.ends_with("/_bulk") || path == "/_cat/health" || path == "/_cluster/health" || path == "/_license" ||
      path == "/_xpack")
    return Access::kIngest;
  // What a reader sees: clusters, their details, series and suggestions, and
  // the curation log; never subscriptions (webhook URLs) or the outbox.
  if ((method == "GET" || method == "HEAD") &&
      (path == "/clusters" || path.starts_with("/clusters/") || path == "/curation"))
    return Access::kRead;
  return Access::kAdmin;  // anything else, including unknown paths: no probing without a token
}

std::pair<std::string, std::string> split_token_name(std::string_view entry) {
  const size_t colon = entry.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 64 || colon + 1 == entry.size()) return {"", std::string(entry)};
  for (size_t i = 0; i < colon; ++i) {
    const char c = entry[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) return {"", std::string(entry)};
  }
  return {std::string(entry.substr(0, colon)), std::string(entry.substr(colon + 1))};
}

Authenticator::Authenticator(const Config& c) {
  auto add = [this](const std::string& list, Scope scope, const char* kind) {
    int n = 0;
    for (auto entry : split_list(list)) {
      auto [name, token] = split_token_name(entry);
      ++n;
      tokens_.push_back({sha256(token), name.empty() ? std::string(kind) + "-" + std::to_string(n) : name, scope});
    }
    return n > 0;
  };
  admin_ = add(c.admin_token, Scope::kAdmin, "admin");
  ingest_ = add(c.ingest_token, Scope::kIngest, "ingest");
  read_ = add(c.read_token, Scope::kRead, "read");
}

const Authenticator::Token* Authenticator::find(std::string_view authorization) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.size() <= kBearer.size() || authorization.substr(0, kBearer.size()) != kBearer) return nullptr;
  const std::string digest = sha256(authorization.substr(kBearer.size()));
  const Token* found = nullptr;
  for (const auto& t : tokens_)  // every one compared: no early exit
    if (CRYPTO_memcmp(t.digest.data(), digest.data(), digest.size()) == 0 && !found) found = &t;
  return found;
}

std::string Authenticator::name_of(std::string_view authorization) const {
  const Token* t = find(authorization);
  return t ? t->name : "";
}

AuthResult Authenticator::check(Access access, std::string_view authorization) const {
  if (access == Access::kPublic) return {};
  // Not configured: open (without an admin token the service is loopback only).
  const bool guarded = access == Access::kIngest ? ingest_ : admin_;
  const Token* t = find(authorization);
  if (!guarded) return {true, 0, "", t ? t->name : ""};
  if (!authorization.starts_with("Bearer ") || authorization.size() <= 7)
    return {false, 401, "missing bearer token: send 'Authorization: Bearer <token>'", ""};
  if (!t) return {false, 401, "invalid token", ""};
  const bool allowed = t->scope == Scope::kAdmin || (access == Access::kIngest && t->scope == Scope::kIngest) ||
                       (access == Access::kRead && t->scope == Scope::kRead);
  if (!allowed && t->scope == Scope::kRead)
    return {false, 403, "token '" + t->name + "' may read only: this route needs the admin token", t->name};
  if (!allowed) return {false, 403, "token '" + t->name + "' may send lines only: this route needs the admin token", t->name};
  return {true, 0, "", t->name};
}

std::optional<std::string> check_exposure(const Config& c) {
  struct Listening {
    const char* key;
    const std::string& host;
    bool on, tls;
  };
  const Listening listeners[] = {
      {"http_host", c.http_host, true, c.tls_enabled() && c.http_tls},
      {"tcp_host", c.tcp_host, true, c.tls_enabled() && c.tcp_tls},
      {"syslog_host", c.syslog_host, c.syslog_port >= 0, false},
      {"syslog_tls_host", c.syslog_tls_host, c.syslog_tls_port >= 0, true},
  };
  for (const auto& l : listeners) {
    if (!l.on || loopback(l.host)) continue;
    if (c.admin_token.empty())
      return std::string("refusing to listen on ") + l.key + " " + l.host +
             " without admin_token: anyone who can connect could read templates and examples and change "
             "subscriptions. Set admin_token (LOGSIFT_ADMIN_TOKEN) or listen on 127.0.0.1 / ::1";
    if (!l.tls && !c.allow_plaintext)
      return std::string("refusing to listen on ") + l.key + " " + l.host +
             " in plain text: tokens, log lines and clusters would cross the network unencrypted. Give a "
             "certificate (tls_cert_file and tls_key_file, LOGSIFT_TLS_CERT_FILE / LOGSIFT_TLS_KEY_FILE" +
             (std::string_view(l.key) == "syslog_host" ? "; syslog over TLS listens on syslog_tls_port, and "
                                                         "syslog_port -1 turns plain syslog off"
                                                       : "") +
             "), listen on 127.0.0.1 / ::1, or set allow_plaintext (LOGSIFT_ALLOW_PLAINTEXT=true) when a "
             "TLS-terminating proxy or mesh is in front (docs/security.md)";
  }
  return std::nullopt;
}

}  // namespace logsift::api
