#include "config/redis_url.h"

#include <charconv>
#include <optional>
#include <stdexcept>

#include "pipeline/core/text.h"

namespace logsift::redis {

namespace {

// The URL as errors show it: never the credentials.
std::string without_credentials(std::string_view text) {
  const size_t scheme_end = text.find("://");
  const size_t at = text.rfind('@');
  if (scheme_end == std::string_view::npos || at == std::string_view::npos || at < scheme_end) return std::string(text);
  return std::string(text.substr(0, scheme_end + 3)) + "***@" + std::string(text.substr(at + 1));
}

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  std::string shown = without_credentials(text);
  for (char& c : shown)  // errors end up in logs: no control bytes from the input
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  throw std::invalid_argument("redis url \"" + shown + "\": " + why);
}

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = text::hex_value(s[i + 1]), lo = text::hex_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::optional<int> parse_int(std::string_view s, int lo, int hi) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return std::nullopt;
  return v;
}

}  // namespace

Url parse_url(std::string_view text) {
  Url u;
  std::string_view rest;
  if (text.rfind("redis://", 0) == 0) {
    u.scheme = Url::Scheme::kTcp;
    rest = text.substr(8);
  } else if (text.rfind("rediss://", 0) == 0) {
    u.scheme = Url::Scheme::kTls;
    rest = text.substr(9);
  } else if (text.rfind("unix://", 0) == 0) {
    u.scheme = Url::Scheme::kUnix;
    rest = text.substr(7);
  } else {
    bad(text, "the scheme must be redis://, rediss:// (TLS) or unix://");
  }
  // USER:PASSWORD@ before the host (or before the socket path).
  size_t at = std::string_view::npos;
  if (u.scheme == Url::Scheme::kUnix) {
    if (!rest.empty() && rest[0] != '/') at = rest.find("@/");
  } else {
    at = rest.substr(0, rest.find('/')).rfind('@');
  }
  if (at != std::string_view::npos) {
    std::string_view userinfo = rest.substr(0, at);
    const size_t colon = userinfo.find(':');
    if (colon == std::string_view::npos) bad(text, "credentials must be USER:PASSWORD@ or :PASSWORD@");
    auto user = percent_decode(userinfo.substr(0, colon));
    auto password = percent_decode(userinfo.substr(colon + 1));
    if (!user || !password) bad(text, "bad percent-encoding in the credentials");
    if (password->empty()) bad(text, "the password after ':' is empty");
    u.user = *user;
    u.password = *password;
    rest.remove_prefix(at + 1);
  }
  if (u.scheme == Url::Scheme::kUnix) {
    std::string_view path = rest.substr(0, rest.find('?'));
    if (path.empty() || path[0] != '/') bad(text, "unix:// needs an absolute socket path");
    u.socket_path = std::string(path);
    if (path.size() < rest.size()) {
      std::string_view query = rest.substr(path.size() + 1);
      if (query.rfind("db=", 0) != 0) bad(text, "the only query parameter is db=N");
      auto db = parse_int(query.substr(3), 0, 1 << 30);
      if (!db) bad(text, "db must be a non-negative integer");
      u.db = *db;
    }
    return u;
  }
  const std::string_view authority = rest.substr(0, rest.find('/'));
  std::string_view hostport = authority;
  if (hostport.empty()) bad(text, "no host");
  std::string_view port_text;
  if (hostport[0] == '[') {
    const size_t close = hostport.find(']');
    if (close == std::string_view::npos) bad(text, "unclosed '[' in the host");
    u.host = std::string(hostport.substr(1, close - 1));
    std::string_view after = hostport.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') bad(text, "expected ':PORT' after ']'");
      port_text = after.substr(1);
    }
  } else {
    const size_t colon = hostport.find(':');
    u.host = std::string(hostport.substr(0, colon));
    if (colon != std::string_view::npos) port_text = hostport.substr(colon + 1);
  }
  if (u.host.empty()) bad(text, "no host");
  if (!port_text.empty() || hostport.back() == ':') {
    auto port = parse_int(port_text, 1, 65535);
    if (!port) bad(text, "the port must be 1-65535");
    u.port = *port;
  }
  std::string_view path = rest.substr(authority.size());
  if (!path.empty() && path != "/") {
    auto db = parse_int(path.substr(1), 0, 1 << 30);
    if (!db) bad(text, "the path must be /DB, a non-negative database number");
    u.db = *db;
  }
  return u;
}

std::string Url::redacted() const {
  std::string creds;
  if (!password.empty()) creds = user + ":***@";
  switch (scheme) {
    case Scheme::kUnix: return "unix://" + creds + socket_path + (db > 0 ? "?db=" + std::to_string(db) : "");
    case Scheme::kTls:
    case Scheme::kTcp: {
      const bool v6 = host.find(':') != std::string::npos;
      return std::string(scheme == Scheme::kTls ? "rediss://" : "redis://") + creds + (v6 ? "[" + host + "]" : host) +
             ":" + std::to_string(port) + (db > 0 ? "/" + std::to_string(db) : "");
    }
  }
  return {};
}

}  // namespace logsift::redis
