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

bool prefix_match(const uint8_t* a, const uint8_t* net, int prefix) {
  const int full = prefix / 8;
  if (!std::equal(a, a + full, net)) return false;
  const int rest = prefix % 8;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xFF << (8 - rest));
  return (a[full] & mask) == (net[full] & mask);
}

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

bool Cidr::contains(const ip::address& a) const {
  if (a.is_v4() != network.is_v4()) return false;
  if (a.is_v4()) {
    const auto x = a.to_v4().to_bytes();
    const auto n = network.to_v4().to_bytes();
    return prefix_match(x.data(), n.data(), prefix);
  }
  const auto x = a.to_v6().to_bytes();
  const auto n = network.to_v6().to_bytes();
  return prefix_match(x.data(), n.data(), prefix);
}

std::optional<Cidr> parse_cidr(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  const size_t slash = text.find('/');
  boost::system::error_code ec;
  const ip::address net = ip::make_address(std::string(text.substr(0, slash)), ec);
  if (ec) return std::nullopt;
  if (net.is_v6() && net.to_v6().scope_id() != 0) return std::nullopt;
  const int max = net.is_v4() ? 32 : 128;
  int prefix = max;
  if (slash != std::string_view::npos) {
    const std::string_view p = text.substr(slash + 1);
    if (p.empty() || p.size() > 3 || !std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    prefix = std::stoi(std::string(p));
    if (prefix > max) return std::nullopt;
  }
  // Clear host bits so contains() compares networks only.
  if (net.is_v4()) {
    auto b = net.to_v4().to_bytes();
    for (int i = 0; i < 4; ++i) {
      const int keep = std::clamp(prefix - 8 * i, 0, 8);
      b[i] &= static_cast<uint8_t>(keep == 0 ? 0 : 0xFF << (8 - keep));
    }
    return Cidr{ip::address_v4(b), prefix};
  }
  auto b = net.to_v6().to_bytes();
  for (int i = 0; i < 16; ++i) {
    const int keep = std::clamp(prefix - 8 * i, 0, 8);
    b[i] &= static_cast<uint8_t>(keep == 0 ? 0 : 0xFF << (8 - keep));
  }
  return Cidr{ip::address_v6(b), prefix};
}

std::vector<Cidr> parse_cidr_list(std::string_view text) {
  std::vector<Cidr> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    const bool blank = std::all_of(item.begin(), item.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
    if (!blank) {
      auto c = parse_cidr(item);
      if (!c) throw std::invalid_argument("'" + std::string(item) + "' is not an address or CIDR");
      out.push_back(*c);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

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
