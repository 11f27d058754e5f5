#include "service/alerts/webhook_url.h"

#include <algorithm>
#include <charconv>

#include <boost/asio/ip/address_v6.hpp>

#include "pipeline/core/text.h"
#include "pipeline/core/time.h"

namespace logsift::webhook {
namespace {

using text::is_digits;
using text::parse_int;
using text::trim;

namespace asio = boost::asio;

char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool is_host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_';
}

}  // namespace

std::optional<Url> parse_webhook_url(std::string_view url) {
  for (const char c : url) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f) return std::nullopt;
  }
  if (const size_t hash = url.find('#'); hash != std::string_view::npos) url = url.substr(0, hash);

  const size_t sep = url.find("://");
  if (sep == std::string_view::npos) return std::nullopt;
  Url out;
  for (const char c : url.substr(0, sep)) out.scheme.push_back(to_lower(c));
  if (out.scheme != "http" && out.scheme != "https") return std::nullopt;

  const std::string_view rest = url.substr(sep + 3);
  const size_t authority_end = rest.find_first_of("/?");
  const std::string_view authority = rest.substr(0, authority_end);
  const std::string_view target =
      authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  // Credentials in URLs end up in logs; subscribers put them in headers.
  if (authority.find('@') != std::string_view::npos) return std::nullopt;

  std::string_view host;
  std::optional<std::string_view> port;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = authority.substr(1, close - 1);
    boost::system::error_code ec;
    asio::ip::make_address_v6(std::string(host), ec);
    if (ec || host.find('%') != std::string_view::npos) return std::nullopt;
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port = after.substr(1);
    }
  } else {
    const size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    if (host.empty() || !std::all_of(host.begin(), host.end(), is_host_char)) return std::nullopt;
  }
  if (port) {
    int p = 0;
    if (port->size() > 5 || !parse_int(*port, p) || p < 1 || p > 65535) return std::nullopt;
    out.port = std::to_string(p);
  } else {
    out.port = out.scheme == "https" ? "443" : "80";
  }
  out.host = std::string(host);
  if (target.empty()) {
    out.target = "/";
  } else if (target.front() == '?') {
    out.target = "/" + std::string(target);
  } else {
    out.target = std::string(target);
  }
  return out;
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now) {
  using std::chrono::milliseconds;
  value = trim(value);
  if (is_digits(value)) {
    // Anything past the cap is the cap; avoid overflow on absurd values.
    if (value.size() > 9) return kMaxRetryAfter;
    int seconds = 0;
    if (!parse_int(value, seconds)) return std::nullopt;
    return std::min<milliseconds>(std::chrono::seconds(seconds), kMaxRetryAfter);
  }
  const auto when = parse_http_date(value);
  if (!when) return std::nullopt;
  if (*when <= now) return milliseconds(0);  // past: also keeps `when - now` from overflowing
  return std::min<milliseconds>(std::chrono::duration_cast<milliseconds>(*when - now), kMaxRetryAfter);
}

}  // namespace logsift::webhook
