// What users and receivers hand the webhook client: subscription URLs
// (parse_webhook_url) and Retry-After values (parse_retry_after), both from the
// whole input. Invariants: a parsed URL is http(s), has a host without
// spaces or '@', a port in 1..65535 and a target starting with '/'; a
// Retry-After is within [0, kMaxRetryAfter].
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "service/alerts/webhook_url.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  if (auto u = logsift::webhook::parse_webhook_url(in)) {
    if (u->scheme != "http" && u->scheme != "https") __builtin_trap();
    if (u->host.empty() || u->host.find_first_of(" @/") != std::string::npos) __builtin_trap();
    const int port = std::stoi(u->port);
    if (port < 1 || port > 65535) __builtin_trap();
    if (u->target.empty() || u->target.front() != '/') __builtin_trap();
    if (u->target.find('#') != std::string::npos) __builtin_trap();
  }
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1700000000));
  if (auto d = logsift::webhook::parse_retry_after(in, now)) {
    if (d->count() < 0 || *d > logsift::webhook::kMaxRetryAfter) __builtin_trap();
  }
  return 0;
}
