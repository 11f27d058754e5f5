#include "service/alerts/webhook_signing.h"

#include <openssl/sha.h>

#include <array>
#include <random>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

namespace logsift::webhook {
namespace {

constexpr std::string_view kBase64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kSecretPrefix = "whsec_";
constexpr std::string_view kSignatureVersion = "v1,";

// Reverse table: 0-63 for alphabet characters, -1 otherwise.
constexpr std::array<int8_t, 256> make_base64_table() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (size_t i = 0; i < kBase64Alphabet.size(); ++i) {
    table[static_cast<unsigned char>(kBase64Alphabet[i])] = static_cast<int8_t>(i);
  }
  return table;
}
constexpr auto kBase64Table = make_base64_table();

std::string hmac_sha256(std::string_view key, std::string_view msg_id, int64_t timestamp_s,
                        std::string_view body) {
  std::string content;
  const std::string ts = std::to_string(timestamp_s);
  content.reserve(msg_id.size() + ts.size() + body.size() + 2);
  content.append(msg_id).append(1, '.').append(ts).append(1, '.').append(body);

  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  // HMAC() wants a non-null key pointer even for an empty key on some builds.
  static const unsigned char kEmpty = 0;
  const void* key_ptr = key.empty() ? static_cast<const void*>(&kEmpty) : key.data();
  if (HMAC(EVP_sha256(), key_ptr, static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(content.data()), content.size(), mac,
           &mac_len) == nullptr) {
    return {};
  }
  return std::string(reinterpret_cast<const char*>(mac), mac_len);
}

}  // namespace

std::string base64_encode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= data.size(); i += 3) {
    const uint32_t n = (uint32_t{static_cast<unsigned char>(data[i])} << 16) |
                       (uint32_t{static_cast<unsigned char>(data[i + 1])} << 8) |
                       uint32_t{static_cast<unsigned char>(data[i + 2])};
    out.push_back(kBase64Alphabet[(n >> 18) & 63]);
    out.push_back(kBase64Alphabet[(n >> 12) & 63]);
    out.push_back(kBase64Alphabet[(n >> 6) & 63]);
    out.push_back(kBase64Alphabet[n & 63]);
  }
  const size_t rest = data.size() - i;
  if (rest == 1) {
    const uint32_t n = uint32_t{static_cast<unsigned char>(data[i])} << 16;
    out.push_back(kBase64Alphabet[(n >> 18) & 63]);
    out.push_back(kBase64Alphabet[(n >> 12) & 63]);
    out.append("==");
  } else if (rest == 2) {
    const uint32_t n = (uint32_t{static_cast<unsigned char>(data[i])} << 16) |
                       (uint32_t{static_cast<unsigned char>(data[i + 1])} << 8);
    out.push_back(kBase64Alphabet[(n >> 18) & 63]);
    out.push_back(kBase64Alphabet[(n >> 12) & 63]);
    out.push_back(kBase64Alphabet[(n >> 6) & 63]);
    out.push_back('=');
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++pad;
  const size_t data_chars = text.size() - pad;

  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < data_chars; ++i) {
    const int v = kBase64Table[static_cast<unsigned char>(text[i])];
    if (v < 0) return std::nullopt;  // also catches '=' before the tail
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  // Leftover bits must be zero, otherwise two encodings decode to the same
  // bytes and a signature could be malleated without detection.
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

std::optional<std::string> secret_key(std::string_view secret) {
  if (secret.substr(0, kSecretPrefix.size()) == kSecretPrefix) {
    auto key = base64_decode(secret.substr(kSecretPrefix.size()));
    if (!key || key->empty()) return std::nullopt;
    return key;
  }
  if (secret.empty()) return std::nullopt;
  return std::string(secret);
}

std::string sign(std::string_view secret, std::string_view msg_id, int64_t timestamp_s,
                 std::string_view body) {
  const auto key = secret_key(secret);
  if (!key) return {};
  const std::string mac = hmac_sha256(*key, msg_id, timestamp_s, body);
  if (mac.empty()) return {};
  return std::string(kSignatureVersion) + base64_encode(mac);
}

bool verify(std::string_view secret, std::string_view msg_id, int64_t timestamp_s,
            std::string_view body, std::string_view signature_header) {
  const auto key = secret_key(secret);
  if (!key) return false;
  const std::string expected = hmac_sha256(*key, msg_id, timestamp_s, body);
  if (expected.empty()) return false;

  bool match = false;
  size_t pos = 0;
  while (pos < signature_header.size()) {
    size_t end = signature_header.find(' ', pos);
    if (end == std::string_view::npos) end = signature_header.size();
    const std::string_view entry = signature_header.substr(pos, end - pos);
    pos = end + 1;
    if (entry.substr(0, kSignatureVersion.size()) != kSignatureVersion) continue;
    const auto given = base64_decode(entry.substr(kSignatureVersion.size()));
    if (!given || given->size() != expected.size()) continue;
    // Constant time so response timing does not leak how many bytes matched.
    if (CRYPTO_memcmp(given->data(), expected.data(), expected.size()) == 0) match = true;
  }
  return match;
}

namespace {

template <size_t N>
std::array<unsigned char, N> random_bytes() {
  std::array<unsigned char, N> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    // The OS generator is a sound fallback (getrandom on Linux) and keeps
    // these functions from failing; RAND_bytes only fails when unseeded.
    std::random_device rd;
    for (auto& b : bytes) b = static_cast<unsigned char>(rd());
  }
  return bytes;
}

}  // namespace

std::string random_secret() {
  const auto bytes = random_bytes<24>();
  return std::string(kSecretPrefix) +
         base64_encode(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

namespace {

// prefix + 26 Crockford base32 characters (no i, l, o, u: unambiguous when
// read aloud or typed) from the first 130 bits of `bytes`.
template <size_t N>
std::string base32_id(std::string_view prefix, const std::array<unsigned char, N>& bytes) {
  static_assert(N >= 17);
  static constexpr std::string_view kAlphabet = "0123456789abcdefghjkmnpqrstvwxyz";
  constexpr size_t kChars = 26;  // 130 bits
  std::string out(prefix);
  out.reserve(prefix.size() + kChars);
  uint32_t acc = 0;
  int bits = 0;
  size_t next = 0;
  while (out.size() < prefix.size() + kChars) {
    if (bits < 5) {
      acc = (acc << 8) | bytes[next++];
      bits += 8;
    }
    bits -= 5;
    out.push_back(kAlphabet[(acc >> bits) & 31]);
  }
  return out;
}

}  // namespace

std::string random_id(std::string_view prefix) { return base32_id(prefix, random_bytes<17>()); }

std::string derived_id(std::string_view prefix, std::string_view key) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), digest.data());
  return base32_id(prefix, digest);
}

}  // namespace logsift::webhook
