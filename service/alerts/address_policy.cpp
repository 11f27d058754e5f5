#include "service/alerts/address_policy.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

namespace logsift::webhook {

namespace ip = boost::asio::ip;

namespace {

using Bytes16 = ip::address_v6::bytes_type;

struct Range4 {
  std::array<uint8_t, 4> net;
  int prefix;
};
struct Range6 {
  std::array<uint8_t, 16> net;
  int prefix;
};

const Range4 kSpecial4[] = {
    {{0, 0, 0, 0}, 8},       {{10, 0, 0, 0}, 8},      {{100, 64, 0, 0}, 10},   {{127, 0, 0, 0}, 8},
    {{169, 254, 0, 0}, 16},  {{172, 16, 0, 0}, 12},   {{192, 0, 0, 0}, 24},    {{192, 0, 2, 0}, 24},
    {{192, 88, 99, 0}, 24},  {{192, 168, 0, 0}, 16},  {{198, 18, 0, 0}, 15},   {{198, 51, 100, 0}, 24},
    {{203, 0, 113, 0}, 24},  {{224, 0, 0, 0}, 4},     {{240, 0, 0, 0}, 4},
};

const Range6 kSpecial6[] = {
    {{0}, 128},                                          // ::
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 128},  // ::1
    {{0xfe, 0x80}, 10},                                  // link-local
    {{0xfe, 0xc0}, 10},                                  // site-local (deprecated)
    {{0xfc}, 7},                                         // unique local
    {{0xff}, 8},                                         // multicast
    {{0x01, 0x00}, 64},                                  // discard
    {{0x20, 0x01, 0x0d, 0xb8}, 32},                      // documentation
    {{0x20, 0x01, 0x00, 0x00}, 32},                      // Teredo
};

bool ieq(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool is_local_interface(const ip::address& a) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return false;
  bool found = false;
  for (ifaddrs* i = list; i && !found; i = i->ifa_next) {
    if (!i->ifa_addr) continue;
    if (i->ifa_addr->sa_family == AF_INET && a.is_v4()) {
      const auto* sin = reinterpret_cast<const sockaddr_in*>(i->ifa_addr);
      found = ntohl(sin->sin_addr.s_addr) == a.to_v4().to_uint();
    } else if (i->ifa_addr->sa_family == AF_INET6 && a.is_v6()) {
      const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(i->ifa_addr);
      const Bytes16 b = a.to_v6().to_bytes();
      found = std::equal(b.begin(), b.end(), sin6->sin6_addr.s6_addr);
    }
  }
  freeifaddrs(list);
  return found;
}

}  // namespace

ip::address effective_address(const ip::address& a) {
  if (!a.is_v6()) return a;
  const ip::address_v6 v6 = a.to_v6();
  const Bytes16 b = v6.to_bytes();
  auto v4_at = [&](int off) { return ip::address(ip::address_v4({b[off], b[off + 1], b[off + 2], b[off + 3]})); };
  if (v6.is_v4_mapped()) return v4_at(12);
  const bool first96_zero = std::all_of(b.begin(), b.begin() + 12, [](uint8_t x) { return x == 0; });
  // ::a.b.c.d (IPv4-compatible, deprecated); :: and ::1 stay IPv6.
  if (first96_zero && !(b[12] == 0 && b[13] == 0 && b[14] == 0 && b[15] <= 1)) return v4_at(12);
  // 64:ff9b::/96 (NAT64 well-known prefix).
  static const uint8_t nat64[12] = {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::equal(b.begin(), b.begin() + 12, nat64)) return v4_at(12);
  // 2002::/16 (6to4): the IPv4 address is bits 16..47.
  if (b[0] == 0x20 && b[1] == 0x02) return v4_at(2);
  return a;
}

std::optional<ip::address> host_literal(std::string_view host) {
  boost::system::error_code ec;
  const std::string h(host);
  const ip::address a = ip::make_address(h, ec);
  if (!ec) return a;
  // inet_aton accepts what getaddrinfo accepts for AF_INET numerics:
  // "127.1", "0x7f000001", "2130706433", "0177.0.0.1".
  in_addr in{};
  if (inet_aton(h.c_str(), &in) != 0) return ip::address(ip::address_v4(ntohl(in.s_addr)));
  return std::nullopt;
}

bool AddressPolicy::special_purpose(const ip::address& raw) {
  const ip::address a = effective_address(raw);
  if (a.is_v4()) {
    const auto b = a.to_v4().to_bytes();
    for (const auto& r : kSpecial4)
      if (prefix_match(b.data(), r.net.data(), r.prefix)) return true;
    return false;
  }
  const auto b = a.to_v6().to_bytes();
  for (const auto& r : kSpecial6)
    if (prefix_match(b.data(), r.net.data(), r.prefix)) return true;
  return false;
}

bool AddressPolicy::own_endpoint(const ip::address& raw, uint16_t port) const {
  if (std::find(own_ports_.begin(), own_ports_.end(), port) == own_ports_.end()) return false;
  const ip::address a = effective_address(raw);
  return a.is_loopback() || a.is_unspecified() || is_local_interface(a) || is_local_interface(raw);
}

bool AddressPolicy::allowed(const ip::address& raw, uint16_t port) const {
  if (own_endpoint(raw, port)) return false;
  if (!special_purpose(raw)) return true;
  const ip::address a = effective_address(raw);
  for (const auto& c : allow_)
    if (c.contains(a) || c.contains(raw)) return true;
  return false;
}

std::string AddressPolicy::check_host(std::string_view host, uint16_t port) const {
  static const std::string kHint =
      " (private, loopback, link-local and other special-purpose addresses are refused; an operator can allow "
      "ranges with webhook_allow_cidrs)";
  if (ieq(host, "localhost") || (host.size() > 10 && ieq(host.substr(host.size() - 10), ".localhost")) ||
      ieq(host, "localhost.")) {
    // Judged as the loopback address it stands for.
    if (!allowed(ip::make_address("127.0.0.1"), port)) return "'url' points to localhost" + kHint;
    return "";
  }
  const auto literal = host_literal(host);
  if (!literal) return "";
  if (!allowed(*literal, port)) return "'url' points to an address that is not allowed" + kHint;
  return "";
}

}  // namespace logsift::webhook
