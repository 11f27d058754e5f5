#include "pipeline/contract.h"

#include <nlohmann/json.hpp>

#include "lsh/lsh.h"
#include "pipeline/core/hash.h"

namespace logsift {

using json = nlohmann::json;

namespace {

json or_null(int64_t v) { return v > 0 ? json(v) : json(nullptr); }
json or_null(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

json IdContract::encoder_json() const {
  return {{"version", encoder.version},
          {"dim", encoder.dim},
          {"kind", encoder.kind},
          {"max_len", or_null(encoder.max_len)},
          {"vocab_size", or_null(encoder.vocab_size)},
          {"canonicalize", encoder.canonicalize}};
}

json IdContract::denoiser_json() const {
  if (!denoiser) return nullptr;
  return {{"version", denoiser->version},
          {"threshold", denoiser->threshold},
          {"context", denoiser->context},
          {"max_len", denoiser->max_len},
          {"context_test", denoiser->context_test}};
}

json IdContract::lsh_json() const { return {{"method", lsh.method}, {"bits", lsh.bits}, {"seed", lsh.seed}}; }

json IdContract::format_bank_json() const {
  if (!format_bank) return nullptr;
  return {{"version", format_bank->version}, {"digest", format_bank->digest}, {"slot_words", format_bank->slot_words}};
}

json IdContract::structured_json() const {
  return {{"enabled", structured.enabled},
          {"message_keys", structured.message_keys},
          {"keep_caller", structured.keep_caller},
          {"syslog_headers", structured.syslog_headers},
          {"app_layouts", or_null(structured.app_layouts)}};
}

json IdContract::events_json() const {
  return {{"version", events.version}, {"max_lines", events.max_lines}, {"max_bytes", events.max_bytes}};
}

json IdContract::to_json() const {
  return {{"encoder", encoder_json()},
          {"denoiser", denoiser_json()},
          {"lsh", lsh_json()},
          {"premask", premask},
          {"slot_rules", or_null(slot_rules)},
          {"format_bank", format_bank_json()},
          {"structured", structured_json()},
          {"events", events_json()}};
}

std::string IdContract::digest() const { return lsh::format_id(fast_hash64(to_json().dump())); }

}  // namespace logsift
