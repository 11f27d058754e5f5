// redis_url (config, LOGSIFT_REDIS_URL, --redis-url): config/redis_url.h's
// parse_url on the whole input. Invariants: it returns or throws
// std::invalid_argument, nothing else; a parsed URL has a host and a port in
// 1..65535 (TCP/TLS) or an absolute socket path (unix) and a non-negative db;
// an error about a URL with credentials shows them cut ("***@"); redacted()
// shows USER:***@ in place of the credentials and parses again to the same
// place.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "config/redis_url.h"

using logsift::redis::Url;

namespace {
bool plain(const std::string& s) {
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  Url u;
  try {
    u = logsift::redis::parse_url(in);
  } catch (const std::invalid_argument& e) {
    const size_t scheme_end = in.find("://"), at = in.rfind('@');
    if (scheme_end != std::string_view::npos && at != std::string_view::npos && at > scheme_end &&
        std::string_view(e.what()).find("***@") == std::string_view::npos)
      __builtin_trap();
    return 0;
  }
  if (u.db < 0) __builtin_trap();
  if (u.scheme == Url::Scheme::kUnix) {
    if (u.socket_path.empty() || u.socket_path.front() != '/') __builtin_trap();
  } else {
    if (u.host.empty() || u.port < 1 || u.port > 65535) __builtin_trap();
  }
  const std::string shown = u.redacted();
  if (!u.password.empty()) {  // right after the scheme: USER:***@, the password itself nowhere there
    const size_t start = shown.find("://") + 3;
    if (shown.compare(start, u.user.size() + 5, u.user + ":***@") != 0) __builtin_trap();
  }
  // The redacted form names the same place. Hosts, paths and users with
  // characters the URL grammar reads differently need not round-trip.
  if (!plain(u.user) || u.host.find_first_of("@/?[]") != std::string::npos ||
      u.socket_path.find_first_of("@?") != std::string::npos)
    return 0;
  Url again;
  try {
    again = logsift::redis::parse_url(shown);
  } catch (const std::invalid_argument&) {
    __builtin_trap();
  }
  if (again.scheme != u.scheme || again.db != u.db || again.user != u.user) __builtin_trap();
  if (u.scheme == Url::Scheme::kUnix ? again.socket_path != u.socket_path
                                     : (again.host != u.host || again.port != u.port))
    __builtin_trap();
  return 0;
}
