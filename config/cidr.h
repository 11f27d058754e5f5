// Network ranges in config values (webhook_allow_cidrs): parsed in one place
// for the config's validation and for the SSRF guard that uses them
// (service/alerts/address_policy.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

namespace logsift {

struct Cidr {
  boost::asio::ip::address network;
  int prefix = 0;  // 0..32 for IPv4, 0..128 for IPv6
  bool contains(const boost::asio::ip::address& a) const;
};

// "10.0.0.0/8", "::1/128", "fd00::/8"; a bare address is a /32 or /128.
// nullopt for anything else (bits set past the prefix are cleared).
std::optional<Cidr> parse_cidr(std::string_view text);

// True when the first `prefix` bits of a and net agree (byte arrays).
bool prefix_match(const uint8_t* a, const uint8_t* net, int prefix);

// A comma-separated list of CIDRs (config split_list); throws
// std::invalid_argument naming the first bad entry.
std::vector<Cidr> parse_cidr_list(std::string_view text);

}  // namespace logsift
