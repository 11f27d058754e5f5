// Parsers of what webhook receivers and users hand the client: subscription
// URLs and Retry-After values (fuzzed by tests/fuzz/fuzz_webhook.cpp).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace logsift::webhook {

struct Url {
  std::string scheme;  // "http" | "https" (lowercased)
  std::string host;    // IPv6 literals without the brackets
  std::string port;    // digits; "80" / "443" when the URL has none
  std::string target;  // path and query, starts with '/'; fragment stripped
};

// Accepts only absolute http/https URLs with a host. Rejects userinfo
// ("user@host"), spaces, control and non-ASCII bytes, empty or out-of-range
// ports and malformed IPv6 literals. Strips a "#fragment"; keeps "?query".
std::optional<Url> parse_webhook_url(std::string_view url);

inline constexpr std::chrono::milliseconds kMaxRetryAfter = std::chrono::hours(1);

// Retry-After as delta-seconds or HTTP-date (IMF-fixdate, RFC 850, asctime),
// relative to `now`, clamped to [0, kMaxRetryAfter]. nullopt if unparsable.
std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now);

}  // namespace logsift::webhook
