// Where webhooks may connect (the SSRF guard).
//
// Subscribers type URLs; the service connects to them from inside the
// network. Without a guard a subscription to http://169.254.169.254/ or to an
// internal admin port turns the service into a proxy into that network. The
// policy is applied where it cannot be bypassed: to every address the
// resolver returned, right before connecting to exactly those addresses (no
// second lookup, so DNS rebinding between check and connect is impossible),
// and again to IP literals when a subscription is created, so an obvious
// mistake is a 400 instead of an alert that never arrives.
//
// Denied unless an allow CIDR (config webhook_allow_cidrs) covers the address:
//   IPv4  0/8 10/8 100.64/10 127/8 169.254/16 172.16/12 192.0.0/24 192.0.2/24
//         192.88.99/24 192.168/16 198.18/15 198.51.100/24 203.0.113/24
//         224/4 (multicast) 240/4 (reserved, broadcast)
//   IPv6  :: ::1 fe80::/10 fec0::/10 fc00::/7 ff00::/8 100::/64 2001:db8::/32
//         2001::/32 (Teredo: an IPv4 address in disguise)
//   and IPv6 forms that carry an IPv4 address are judged by that address:
//   ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64),
//   2002:AABB:CCDD::/48 (6to4).
// Always denied, allow list or not: the service's own listening ports on a
// loopback, unspecified or local-interface address (a webhook that posts
// back into the service).
//
// Host names: "localhost" and "*.localhost" are refused at creation (RFC 6761
// reserves them for loopback); every other name is judged by what it resolves
// to at delivery time. IPv4 literals in the forms inet_aton() accepts
// ("0x7f000001", "2130706433", "127.1", "0177.0.0.1") are what the resolver
// turns them into, so they are judged as such.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "config/cidr.h"

namespace logsift::webhook {

// CIDR parsing is shared with the config's validation (config/cidr.h).
using logsift::Cidr;
using logsift::parse_cidr;
using logsift::parse_cidr_list;

// The IPv4 address an IPv6 address carries (mapped, compatible, NAT64,
// 6to4), or the address itself.
boost::asio::ip::address effective_address(const boost::asio::ip::address& a);

// A URL host that is an IP address, in every form the resolver accepts as
// one (IPv6 literals, dotted quads and inet_aton's shorthand and hex/octal
// forms); nullopt for a host name.
std::optional<boost::asio::ip::address> host_literal(std::string_view host);

class AddressPolicy {
 public:
  AddressPolicy() = default;
  explicit AddressPolicy(std::vector<Cidr> allow) : allow_(std::move(allow)) {}

  // Ports the service itself listens on (set once the listeners are bound).
  void set_own_ports(std::vector<uint16_t> ports) { own_ports_ = std::move(ports); }

  // True when a connection to (address, port) may be made.
  bool allowed(const boost::asio::ip::address& a, uint16_t port) const;

  // The check at subscription time: "" when the URL host may be used, else
  // the reason for the 400. Names other than localhost pass (they are judged
  // at connect time).
  std::string check_host(std::string_view host, uint16_t port) const;

  // True for the special-purpose ranges listed above (after
  // effective_address).
  static bool special_purpose(const boost::asio::ip::address& a);

 private:
  bool own_endpoint(const boost::asio::ip::address& a, uint16_t port) const;

  std::vector<Cidr> allow_;
  std::vector<uint16_t> own_ports_;
};

}  // namespace logsift::webhook
