// Webhook payload signing in the Standard Webhooks convention
// (https://www.standardwebhooks.com): the receiver gets the headers
//   webhook-id: <msg_id>   webhook-timestamp: <unix seconds>
//   webhook-signature: v1,<base64 HMAC-SHA256 of "{msg_id}.{timestamp}.{body}">
// and can check them with any Standard Webhooks library. OpenSSL only; every
// function here is pure (or uses only the thread-safe OpenSSL RNG) and may be
// called from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace logsift::webhook {

// RFC 4648 standard alphabet with '=' padding.
std::string base64_encode(std::string_view data);

// Strict inverse of base64_encode: the length must be a multiple of 4, only
// the standard alphabet, '=' only as 1-2 trailing pad characters and unused
// bits zero. No whitespace. nullopt on any violation.
std::optional<std::string> base64_decode(std::string_view text);

// The HMAC key for a subscription secret: "whsec_<base64>" decodes to its
// bytes (the convention's secret format); any other secret is used as raw
// bytes. nullopt for a "whsec_" secret whose base64 is invalid or empty, so
// callers can reject such a secret when the subscription is created.
std::optional<std::string> secret_key(std::string_view secret);

// "v1,<base64 HMAC-SHA256(key, "{msg_id}.{timestamp_s}.{body}")>".
// Returns "" if secret_key(secret) is nullopt (validate secrets up front).
std::string sign(std::string_view secret, std::string_view msg_id, int64_t timestamp_s,
                 std::string_view body);

// True if any space-separated "v1,<sig>" entry of signature_header matches
// (constant-time compare). Entries of other versions are skipped. The caller
// owns the replay check: compare timestamp_s with its clock (the convention
// suggests a 5 minute tolerance).
bool verify(std::string_view secret, std::string_view msg_id, int64_t timestamp_s,
            std::string_view body, std::string_view signature_header);

// A new subscription secret in the convention's format: "whsec_" + base64 of
// 24 random bytes (192 bits; the convention asks for 24-64). Use this, not
// random_id("whsec_"), whose payload is not base64 and would not sign.
std::string random_secret();

// prefix + 26 characters of lowercase Crockford base32 (130 random bits from
// RAND_bytes), e.g. "msg_01hq3k..."; used as alert ids / idempotency keys.
std::string random_id(std::string_view prefix);
// The same shape, derived from `key` (SHA-256): the id of an alert that must
// be raised at most once (a new_cluster alert per subscription, rule and
// cluster), so raising it again after a crash is a no-op in the outbox.
std::string derived_id(std::string_view prefix, std::string_view key);

}  // namespace logsift::webhook
