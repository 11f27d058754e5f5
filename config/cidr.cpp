#include "config/cidr.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>

#include "config/config.h"  // split_list

namespace logsift {

namespace ip = boost::asio::ip;

bool prefix_match(const uint8_t* a, const uint8_t* net, int prefix) {
  const int full = prefix / 8;
  if (!std::equal(a, a + full, net)) return false;
  const int rest = prefix % 8;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xFF << (8 - rest));
  return (a[full] & mask) == (net[full] & mask);
}

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
  for (auto item : split_list(text)) {
    auto c = parse_cidr(item);
    if (!c) throw std::invalid_argument("'" + std::string(item) + "' is not an address or CIDR");
    out.push_back(*c);
  }
  return out;
}

}  // namespace logsift
