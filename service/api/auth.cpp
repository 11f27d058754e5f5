#include "service/api/auth.h"

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

std::vector<std::string> digests(const std::string& list) {
  std::vector<std::string> out;
  for (auto t : split_list(list)) out.push_back(sha256(t));
  return out;
}

bool matches(const std::vector<std::string>& allowed, const std::string& digest) {
  bool ok = false;
  for (const auto& a : allowed) ok |= CRYPTO_memcmp(a.data(), digest.data(), a.size()) == 0;  // no early exit
  return ok;
}

bool loopback(const std::string& host) {
  boost::system::error_code ec;
  auto a = boost::asio::ip::make_address(host, ec);
  if (ec) return false;
  if (a.is_v6() && a.to_v6().is_v4_mapped()) return a.to_v6().to_v4().is_loopback();
  return a.is_loopback();
}

}  // namespace

Access route_access(std::string_view path) {
  if (path == "/healthz" || path == "/readyz" || path == "/metrics" || path == "/info" || path == "/openapi.json" ||
      path == "/" || path == "/index.html" || path.starts_with("/ui/"))
    return Access::kPublic;
  if (path == "/inferences" || path == "/loki/api/v1/push" || path == "/v1/logs" || path == "/_bulk" ||
      path.ends_with("/_bulk") || path == "/_cat/health" || path == "/_cluster/health" || path == "/_license" ||
      path == "/_xpack")
    return Access::kIngest;
  return Access::kAdmin;  // anything else, including unknown paths: no probing without a token
}

Authenticator::Authenticator(const Config& c) : admin_(digests(c.admin_token)), ingest_(digests(c.ingest_token)) {}

std::optional<std::string> Authenticator::check(Access access, std::string_view authorization) const {
  if (access == Access::kPublic) return std::nullopt;
  const auto& primary = access == Access::kAdmin ? admin_ : ingest_;
  if (primary.empty()) return std::nullopt;  // not configured: open (admin: loopback only)
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.size() <= kBearer.size() || authorization.substr(0, kBearer.size()) != kBearer)
    return std::string("missing bearer token: send 'Authorization: Bearer <token>'");
  const std::string digest = sha256(authorization.substr(kBearer.size()));
  if (matches(primary, digest) || (access == Access::kIngest && matches(admin_, digest))) return std::nullopt;
  return std::string("invalid token");
}

std::optional<std::string> check_exposure(const Config& c) {
  if (!c.admin_token.empty()) return std::nullopt;
  for (const auto& [key, host] : {std::pair<const char*, const std::string&>{"http_host", c.http_host},
                                  std::pair<const char*, const std::string&>{"tcp_host", c.tcp_host},
                                  std::pair<const char*, const std::string&>{"syslog_host", c.syslog_host}}) {
    if (key == std::string_view("syslog_host") && c.syslog_port < 0) continue;
    if (!loopback(host))
      return std::string("refusing to listen on ") + key + " " + host +
             " without admin_token: anyone who can connect could read templates and examples and change "
             "subscriptions. Set admin_token (LOGSIFT_ADMIN_TOKEN) or listen on 127.0.0.1 / ::1";
  }
  return std::nullopt;
}

}  // namespace logsift::api
