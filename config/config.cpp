#include "config/config.h"

#include "config/cidr.h"
#include "config/redis_url.h"
#include "config/versions.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>
#include <re2/re2.h>

extern "C" const char* logsift_default_config_text();  // generated from logsift.jsonc

namespace logsift {
namespace {

using json = nlohmann::json;

// One descriptor per key: how to set it from JSON, how to print it.
struct KeyDesc {
  const char* name;
  std::function<void(Config&, const json&)> set;
  std::function<json(const Config&)> get;
};

template <typename T>
T checked_number(const std::string& key, const json& v) {
  if (!v.is_number_integer() && !v.is_number_unsigned())
    throw ConfigError(key, "expected an integer, got " + v.dump());
  if constexpr (std::is_same_v<T, uint64_t>) {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.get<int64_t>() < 0) throw ConfigError(key, "must not be negative");
    return static_cast<uint64_t>(v.get<int64_t>());
  } else {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max()))
      throw ConfigError(key, "out of range: " + v.dump());
    int64_t x = v.get<int64_t>();
    if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max())
      throw ConfigError(key, "out of range: " + v.dump());
    return static_cast<T>(x);
  }
}

#define LS_INT(field)                                                                  \
  KeyDesc{#field, [](Config& c, const json& v) { c.field = checked_number<decltype(c.field)>(#field, v); }, \
          [](const Config& c) { return json(c.field); }}
#define LS_STR(field)                                                                  \
  KeyDesc{#field,                                                                      \
          [](Config& c, const json& v) {                                               \
            if (!v.is_string()) throw ConfigError(#field, "expected a string, got " + v.dump()); \
            c.field = v.get<std::string>();                                            \
          },                                                                           \
          [](const Config& c) { return json(c.field); }}
#define LS_BOOL(field)                                                                 \
  KeyDesc{#field,                                                                      \
          [](Config& c, const json& v) {                                               \
            if (!v.is_boolean()) throw ConfigError(#field, "expected true or false, got " + v.dump()); \
            c.field = v.get<bool>();                                                   \
          },                                                                           \
          [](const Config& c) { return json(c.field); }}

#define LS_DOUBLE(field)                                                               \
  KeyDesc{#field,                                                                      \
          [](Config& c, const json& v) {                                               \
            if (!v.is_number()) throw ConfigError(#field, "expected a number, got " + v.dump()); \
            c.field = v.get<double>();                                                 \
          },                                                                           \
          [](const Config& c) { return json(c.field); }}

void set_premask(Config& c, const json& v) {
  if (!v.is_array()) throw ConfigError("premask", "expected an array of {name, regex}");
  std::vector<PremaskPattern> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const json& e = v[i];
    std::string where = "premask[" + std::to_string(i) + "]";
    if (!e.is_object()) throw ConfigError(where, "expected an object");
    for (auto it = e.begin(); it != e.end(); ++it) {
      if (it.key() != "name" && it.key() != "regex" && it.key() != "boundary" && it.key() != "require_digit")
        throw ConfigError(where + "." + it.key(), "unknown field");
    }
    PremaskPattern p;
    if (!e.contains("name") || !e["name"].is_string()) throw ConfigError(where + ".name", "expected a string");
    if (!e.contains("regex") || !e["regex"].is_string()) throw ConfigError(where + ".regex", "expected a string");
    p.name = e["name"].get<std::string>();
    p.regex = e["regex"].get<std::string>();
    if (e.contains("boundary")) {
      if (!e["boundary"].is_boolean()) throw ConfigError(where + ".boundary", "expected true or false");
      p.boundary = e["boundary"].get<bool>();
    }
    if (e.contains("require_digit")) {
      if (!e["require_digit"].is_boolean()) throw ConfigError(where + ".require_digit", "expected true or false");
      p.require_digit = e["require_digit"].get<bool>();
    }
    out.push_back(std::move(p));
  }
  c.premask = std::move(out);
}

// A versioned key (slot_rules, app_layouts): a version name, "off", or (as
// before the versions) a boolean: true is the latest version, false is "off".
// `parse` gives -1 for a name it does not know; `names` lists the accepted
// values for the error.
void set_version_name(std::string* field, const char* key, int (*parse)(std::string_view), std::string_view latest,
                      const char* names, const json& v) {
  if (v.is_boolean()) {
    *field = v.get<bool>() ? std::string(latest) : "off";
    return;
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (parse(s) >= 0) {
      *field = s;
      return;
    }
    if (s == "true" || s == "on" || s == "false") {
      *field = s == "false" ? "off" : std::string(latest);
      return;
    }
  }
  // dump() of a string with invalid UTF-8 throws unless told to replace (found by fuzz_config).
  throw ConfigError(key, std::string("expected ") + names + ", \"off\", true or false, got " +
                             v.dump(-1, ' ', false, json::error_handler_t::replace));
}

void set_app_layouts(Config& c, const json& v) {
  set_version_name(&c.app_layouts, "app_layouts", [](std::string_view n) { return parse_app_layouts(n); },
                   app_layouts_name(kAppLayoutsLatest), "\"layouts-v3\", \"layouts-v2\", \"layouts-v1\"", v);
}

void set_slot_rules(Config& c, const json& v) {
  set_version_name(&c.slot_rules, "slot_rules", [](std::string_view n) { return parse_slot_rules(n); },
                   kSlotRulesVersion, "\"slots-v4\", \"slots-v3\", \"slots-v2\", \"slots-v1\"", v);
}

void set_multiline_rules(Config& c, const json& v) {
  if (!v.is_array()) throw ConfigError("multiline_rules", "expected an array of {label, start | continue}");
  std::vector<MultilineRuleSpec> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const json& e = v[i];
    const std::string where = "multiline_rules[" + std::to_string(i) + "]";
    if (!e.is_object()) throw ConfigError(where, "expected an object");
    MultilineRuleSpec r;
    for (auto it = e.begin(); it != e.end(); ++it) {
      if (!it.value().is_string()) throw ConfigError(where + "." + it.key(), "expected a string");
      const std::string s = it.value().get<std::string>();
      if (it.key() == "label") r.label = s;
      else if (it.key() == "start") r.start = s;
      else if (it.key() == "continue") r.cont = s;
      else throw ConfigError(where + "." + it.key(), "unknown field (label, start, continue)");
    }
    out.push_back(std::move(r));
  }
  c.multiline_rules = std::move(out);
}

json get_multiline_rules(const Config& c) {
  json a = json::array();
  for (const auto& r : c.multiline_rules) {
    json o = {{"label", r.label}};
    if (!r.start.empty()) o["start"] = r.start;
    if (!r.cont.empty()) o["continue"] = r.cont;
    a.push_back(std::move(o));
  }
  return a;
}

json get_premask(const Config& c) {
  json a = json::array();
  for (const auto& p : c.premask)
    a.push_back({{"name", p.name}, {"regex", p.regex}, {"boundary", p.boundary}, {"require_digit", p.require_digit}});
  return a;
}

const std::vector<KeyDesc>& key_table() {
  static const std::vector<KeyDesc> table = {
      LS_STR(http_host), LS_INT(http_port), LS_STR(tcp_host), LS_INT(tcp_port), LS_BOOL(structured_messages), LS_STR(message_keys), LS_BOOL(structured_keep_caller), LS_BOOL(syslog_headers), KeyDesc{"app_layouts", set_app_layouts, [](const Config& c) { return json(c.app_layouts); }}, LS_STR(syslog_host), LS_INT(syslog_port), LS_INT(io_threads),
      LS_STR(multiline), LS_INT(multiline_timeout_ms), LS_INT(multiline_short_timeout_ms), LS_INT(multiline_max_lines),
      LS_INT(multiline_max_bytes), KeyDesc{"multiline_rules", set_multiline_rules, get_multiline_rules},
      LS_STR(data_dir), LS_STR(store), LS_STR(redis_url), LS_STR(redis_key_prefix), LS_INT(redis_timeout_ms),
      LS_STR(redis_tls_ca_file), LS_INT(redis_claim_idle_ms), LS_INT(redis_buffer_bytes), LS_STR(redis_ingest_stream), LS_STR(redis_ingest_group), LS_INT(max_http_connections), LS_INT(max_tcp_connections), LS_INT(max_body_bytes), LS_INT(max_header_bytes),
      LS_INT(max_line_bytes), LS_INT(max_lines_per_request), LS_INT(http_idle_timeout_ms),
      LS_INT(tcp_idle_timeout_ms), LS_BOOL(tcp_replies), LS_INT(tcp_max_inflight_batches), LS_INT(tcp_max_write_queue_bytes),
      LS_INT(max_labels), LS_INT(shutdown_grace_ms), LS_INT(memory_trim_interval_ms), LS_INT(mailbox_capacity), LS_INT(max_inflight_lines),
      LS_INT(analysis_threads), LS_INT(inline_max_lines), LS_INT(batch_max_lines),
      LS_INT(batch_max_delay_us), LS_INT(torch_threads), LS_INT(embedding_dim),
      LS_STR(encoder_model), LS_STR(encoder_vocab), LS_INT(encoder_max_len), LS_STR(encoder_runtime), LS_BOOL(encoder_canonicalize), KeyDesc{"slot_rules", set_slot_rules, [](const Config& c) { return json(c.slot_rules); }},
      LS_STR(denoiser_model), LS_STR(format_bank), LS_INT(format_bank_slot_words), LS_DOUBLE(denoiser_threshold), LS_DOUBLE(denoiser_probe_margin), LS_BOOL(denoiser_digit_shapes), LS_STR(denoiser_runtime),
      LS_INT(denoiser_cache_entries), LS_INT(denoiser_cache_bytes), LS_INT(denoiser_max_forward_tokens),
      LS_INT(line_cache_entries), LS_INT(line_cache_bytes), LS_INT(template_cache_entries),
      LS_INT(template_cache_bytes), LS_INT(lsh_bits),
      LS_INT(lsh_seed), LS_INT(catalog_examples), LS_STR(catalog_sync), LS_STR(series_windows), LS_INT(series_buckets),
      LS_INT(aggregator_max_clusters), LS_INT(alert_cooldown_ms), LS_INT(alert_threshold),
      LS_INT(alert_threshold_window_ms), LS_DOUBLE(alert_spike_factor), LS_INT(alert_spike_min_count),
      LS_INT(alert_spike_window_ms), LS_INT(alert_max_examples), LS_INT(curation_max_metric_series), LS_STR(curation_file), LS_INT(delivery_timeout_ms),
      LS_INT(delivery_first_retry_ms), LS_INT(delivery_max_backoff_ms), LS_INT(delivery_max_attempts),
      LS_INT(delivery_max_age_ms), LS_INT(delivery_concurrency), LS_INT(max_subscriptions),
      LS_INT(max_rules_per_subscription), LS_INT(outbox_retention_ms), LS_STR(alert_external_url), LS_STR(webhook_allow_cidrs), LS_STR(log_level),
      LS_STR(admin_token), LS_STR(ingest_token), LS_STR(read_token),
      LS_STR(tls_cert_file), LS_STR(tls_key_file), LS_STR(tls_client_ca_file), LS_STR(tls_client_auth),
      LS_BOOL(http_tls), LS_BOOL(tcp_tls), LS_STR(http_tls_client_auth), LS_STR(tcp_tls_client_auth),
      LS_STR(syslog_tls_client_auth), LS_STR(syslog_tls_host), LS_INT(syslog_tls_port), LS_INT(tls_handshake_timeout_ms),
      LS_INT(tls_reload_interval_ms), LS_BOOL(allow_plaintext),
      KeyDesc{"premask", set_premask, get_premask},
  };
  return table;
}

const KeyDesc* find_key(const std::string& name) {
  for (const auto& k : key_table())
    if (name == k.name) return &k;
  return nullptr;
}

void require_range(const std::string& key, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    throw ConfigError(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                               std::to_string(v));
}

}  // namespace

std::string normalize_config_key(std::string name) {
  for (auto& ch : name) {
    if (ch == '-') ch = '_';
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return name;
}

const char* Config::default_file_text() { return logsift_default_config_text(); }

Config Config::defaults() {
  static const Config cached = [] {
    Config c;
    c.apply_json(json::parse(logsift_default_config_text(), nullptr, /*allow_exceptions=*/true,
                             /*ignore_comments=*/true));
    c.validate();
    return c;
  }();
  return cached;
}

void Config::apply_json(const json& obj) {
  if (!obj.is_object()) throw ConfigError("<root>", "expected a JSON object");
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const KeyDesc* k = find_key(it.key());
    if (!k) throw ConfigError(it.key(), "unknown key");
    k->set(*this, it.value());
  }
}

void Config::apply_string(const std::string& raw_key, const std::string& value) {
  std::string key = normalize_config_key(raw_key);
  const KeyDesc* k = find_key(key);
  if (!k) throw ConfigError(key, "unknown key");
  json current = k->get(*this);
  json v;
  if (current.is_string()) {
    v = value;
  } else if (current.is_boolean()) {
    if (value == "true" || value == "1" || value == "yes" || value == "on") v = true;
    else if (value == "false" || value == "0" || value == "no" || value == "off") v = false;
    else throw ConfigError(key, "expected true or false, got '" + value + "'");
  } else if (current.is_number_float()) {
    static const RE2 float_re("[-+]?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?");
    if (!RE2::FullMatch(value, float_re)) throw ConfigError(key, "expected a number, got '" + value + "'");
    // std::stod throws out_of_range past DBL_MAX ("7e6519"): found by fuzz_config.
    try {
      v = std::stod(value);
    } catch (const std::exception&) {
      throw ConfigError(key, "out of range: '" + value + "'");
    }
  } else if (current.is_number()) {
    // Strict integer syntax: no trailing junk, no floats.
    static const RE2 int_re("[-+]?[0-9]+");
    if (!RE2::FullMatch(value, int_re)) throw ConfigError(key, "expected an integer, got '" + value + "'");
    try {
      v = value[0] == '-' ? json(std::stoll(value)) : json(std::stoull(value));
    } catch (const std::exception&) {
      throw ConfigError(key, "out of range: '" + value + "'");
    }
  } else {  // arrays/objects: JSON text
    try {
      v = json::parse(value);
    } catch (const std::exception& e) {
      throw ConfigError(key, std::string("expected JSON: ") + e.what());
    }
  }
  k->set(*this, v);
}

void Config::apply_env() {
  for (const auto& k : key_table()) {
    std::string env = "LOGSIFT_";
    for (const char* p = k.name; *p; ++p) env += static_cast<char>(std::toupper(static_cast<unsigned char>(*p)));
    if (const char* v = std::getenv(env.c_str())) apply_string(k.name, v);
  }
}

void Config::apply_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("config", "cannot read file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  apply_text(ss.str(), "'" + path + "'");
}

void Config::apply_text(std::string_view text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const std::exception& e) {
    throw ConfigError("config", origin + " is not valid JSON: " + e.what());
  }
  apply_json(j);
}

void Config::validate_tls() const {
  for (const auto& [key, mode] :
       {std::pair<const char*, const std::string*>{"tls_client_auth", &tls_client_auth},
        {"http_tls_client_auth", &http_tls_client_auth}, {"tcp_tls_client_auth", &tcp_tls_client_auth},
        {"syslog_tls_client_auth", &syslog_tls_client_auth}}) {
    const bool may_inherit = std::string_view(key) != "tls_client_auth";
    if (!(*mode == "none" || *mode == "request" || *mode == "require" || (may_inherit && mode->empty())))
      throw ConfigError(key, "must be \"none\", \"request\" or \"require\"" +
                                 std::string(may_inherit ? " (or \"\" for tls_client_auth's)" : ""));
  }
  if (tls_cert_file.empty() != tls_key_file.empty())
    throw ConfigError(tls_cert_file.empty() ? "tls_cert_file" : "tls_key_file",
                      "give both tls_cert_file and tls_key_file (or neither)");
  require_range("syslog_tls_port", syslog_tls_port, -1, 65535);
  if (syslog_tls_port >= 0 && !tls_enabled())
    throw ConfigError("syslog_tls_port", "needs tls_cert_file and tls_key_file");
  if (syslog_tls_port >= 0 && syslog_tls_host.empty()) throw ConfigError("syslog_tls_host", "must not be empty");
  for (const char* l : {"http", "tcp", "syslog"}) {
    const bool on = std::string_view(l) == "http" ? http_tls : std::string_view(l) == "tcp" ? tcp_tls : syslog_tls_port >= 0;
    if (tls_enabled() && on && client_auth_for(l) != "none" && tls_client_ca_file.empty())
      throw ConfigError(std::string(l) + "_tls_client_auth",
                        "\"" + client_auth_for(l) + "\" needs tls_client_ca_file (the CA client certificates chain to)");
  }
  require_range("tls_handshake_timeout_ms", tls_handshake_timeout_ms, 100, 600000);
  require_range("tls_reload_interval_ms", tls_reload_interval_ms, 0, 86400000);
}

void Config::validate() const {
  require_range("http_port", http_port, 0, 65535);
  require_range("tcp_port", tcp_port, 0, 65535);
  require_range("syslog_port", syslog_port, -1, 65535);
  validate_tls();
  if (catalog_sync != "normal" && catalog_sync != "full")
    throw ConfigError("catalog_sync", "must be \"normal\" or \"full\"");
  if (structured_messages && message_key_list().empty())
    throw ConfigError("message_keys", "must name at least one key when structured_messages is on");
  if (http_host.empty()) throw ConfigError("http_host", "must not be empty");
  if (tcp_host.empty()) throw ConfigError("tcp_host", "must not be empty");
  require_range("io_threads", io_threads, 1, 64);
  if (multiline != "auto" && multiline != "off") throw ConfigError("multiline", "must be \"auto\" or \"off\"");
  require_range("multiline_timeout_ms", multiline_timeout_ms, 1, 600000);
  require_range("multiline_short_timeout_ms", multiline_short_timeout_ms, 1, 600000);
  require_range("multiline_max_lines", multiline_max_lines, 2, 1000000);
  require_range("multiline_max_bytes", multiline_max_bytes, 1024, int64_t{1} << 30);
  for (size_t i = 0; i < multiline_rules.size(); ++i) {
    const auto& r = multiline_rules[i];
    const std::string where = "multiline_rules[" + std::to_string(i) + "]";
    if (r.start.empty() == r.cont.empty()) throw ConfigError(where, "give exactly one of \"start\" and \"continue\"");
    if (!r.label.empty() && (r.label.find('=') == std::string::npos || r.label.front() == '='))
      throw ConfigError(where + ".label", "must be KEY=VALUE, e.g. service=billing");
    const std::string& pattern = r.start.empty() ? r.cont : r.start;
    RE2 re(pattern, RE2::Quiet);
    if (!re.ok()) throw ConfigError(where + (r.start.empty() ? ".continue" : ".start"), "not a valid RE2 pattern: " + re.error());
  }
  if (data_dir.empty()) throw ConfigError("data_dir", "must not be empty");
  if (store != "sqlite" && store != "redis") throw ConfigError("store", "must be \"sqlite\" or \"redis\"");
  if (!redis_ingest_stream.empty()) {
    if (redis_ingest_stream.size() > 256) throw ConfigError("redis_ingest_stream", "at most 256 bytes");
    if (redis_ingest_group.empty() || redis_ingest_group.size() > 256)
      throw ConfigError("redis_ingest_group", "must be a name of 1 to 256 bytes");
    try {
      redis::parse_url(redis_url);
    } catch (const std::invalid_argument& e) {
      throw ConfigError("redis_url", e.what());
    }
  }
  if (store == "redis") {
    try {
      redis::parse_url(redis_url);
    } catch (const std::invalid_argument& e) {
      throw ConfigError("redis_url", e.what());
    }
  }
  if (redis_key_prefix.size() > 256) throw ConfigError("redis_key_prefix", "at most 256 bytes");
  require_range("redis_timeout_ms", redis_timeout_ms, 1, 600000);
  require_range("redis_claim_idle_ms", redis_claim_idle_ms, 1000, 86400000);
  require_range("redis_buffer_bytes", redis_buffer_bytes, 0, int64_t{1} << 40);
  require_range("max_http_connections", max_http_connections, 1, 1000000);
  require_range("max_tcp_connections", max_tcp_connections, 1, 1000000);
  require_range("max_body_bytes", max_body_bytes, 1024, int64_t{1} << 32);
  require_range("max_header_bytes", max_header_bytes, 1024, 1 << 20);
  require_range("max_line_bytes", max_line_bytes, 16, 16 << 20);
  require_range("max_lines_per_request", max_lines_per_request, 1, 1000000);
  require_range("http_idle_timeout_ms", http_idle_timeout_ms, 10, 3600000);
  require_range("tcp_idle_timeout_ms", tcp_idle_timeout_ms, 10, 86400000);
  require_range("tcp_max_inflight_batches", tcp_max_inflight_batches, 1, 1024);
  require_range("tcp_max_write_queue_bytes", tcp_max_write_queue_bytes, 1024, int64_t{1} << 32);
  require_range("max_labels", max_labels, 0, 256);
  require_range("shutdown_grace_ms", shutdown_grace_ms, 0, 600000);
  require_range("memory_trim_interval_ms", memory_trim_interval_ms, 0, 3600000);
  require_range("mailbox_capacity", mailbox_capacity, 1, 1 << 20);
  require_range("max_inflight_lines", max_inflight_lines, 1, 1 << 26);
  require_range("analysis_threads", analysis_threads, 1, 256);
  require_range("inline_max_lines", inline_max_lines, 0, 1 << 20);
  require_range("batch_max_lines", batch_max_lines, 1, 65536);
  require_range("batch_max_delay_us", batch_max_delay_us, 0, 10000000);
  require_range("torch_threads", torch_threads, 1, 64);
  require_range("embedding_dim", embedding_dim, 8, 65536);
  if (encoder_model.empty()) throw ConfigError("encoder_model", "use \"builtin\", \"hashed\" or a TorchScript file path");
  std::error_code ec;
  if (encoder_model != "builtin" && encoder_model != "hashed" && !std::filesystem::is_regular_file(encoder_model, ec))
    throw ConfigError("encoder_model", "no such file '" + encoder_model +
                                           "' (use \"builtin\", \"hashed\" or a TorchScript file path)");
  if (encoder_model == "hashed" && !encoder_vocab.empty())
    throw ConfigError("encoder_vocab", "applies to a TorchScript encoder only (encoder_model is \"hashed\")");
  if (!encoder_vocab.empty() && !std::filesystem::is_regular_file(encoder_vocab, ec))
    throw ConfigError("encoder_vocab", "no such file '" + encoder_vocab + "'");
  if (encoder_max_len != 0) {
    if (encoder_model == "hashed")
      throw ConfigError("encoder_max_len", "applies to a TorchScript encoder only (encoder_model is \"hashed\")");
    require_range("encoder_max_len", encoder_max_len, 2, 8192);
  }
  require_range("lsh_bits", lsh_bits, 1, 64);
  require_range("catalog_examples", catalog_examples, 0, 100);
  if (denoiser_model.empty()) throw ConfigError("denoiser_model", "use \"builtin\", \"none\" or a file path");
  if (!(denoiser_threshold > 0.0 && denoiser_threshold < 1.0))
    throw ConfigError("denoiser_threshold", "must be in (0, 1)");
  if (encoder_runtime != "native" && encoder_runtime != "torchscript")
    throw ConfigError("encoder_runtime", "use \"native\" or \"torchscript\"");
  if (denoiser_runtime != "native" && denoiser_runtime != "torchscript")
    throw ConfigError("denoiser_runtime", "use \"native\" or \"torchscript\"");
  if (!(denoiser_probe_margin >= 0.0 && denoiser_probe_margin < 0.5))
    throw ConfigError("denoiser_probe_margin", "must be in [0, 0.5)");
  require_range("denoiser_cache_entries", denoiser_cache_entries, 16, 100000000);
  require_range("denoiser_cache_bytes", denoiser_cache_bytes, 1 << 16, int64_t{1} << 40);
  require_range("line_cache_entries", line_cache_entries, 16, 100000000);
  require_range("line_cache_bytes", line_cache_bytes, 1 << 16, int64_t{1} << 40);
  require_range("template_cache_entries", template_cache_entries, 16, 100000000);
  require_range("template_cache_bytes", template_cache_bytes, 1 << 16, int64_t{1} << 40);
  require_range("denoiser_max_forward_tokens", denoiser_max_forward_tokens, 1, 65536);
  series_windows_ms();  // throws naming series_windows
  require_range("series_buckets", series_buckets, 1, 3600);
  require_range("aggregator_max_clusters", aggregator_max_clusters, 1, 100000000);
  require_range("alert_cooldown_ms", alert_cooldown_ms, 0, int64_t{30} * 86400000);
  require_range("alert_threshold", alert_threshold, 1, int64_t{1} << 40);
  require_range("alert_threshold_window_ms", alert_threshold_window_ms, 1000, int64_t{30} * 86400000);
  if (!(alert_spike_factor >= 1.0 && alert_spike_factor <= 1e6))
    throw ConfigError("alert_spike_factor", "must be in [1, 1e6]");
  require_range("alert_spike_min_count", alert_spike_min_count, 1, int64_t{1} << 40);
  require_range("alert_spike_window_ms", alert_spike_window_ms, 1000, int64_t{30} * 86400000);
  require_range("alert_max_examples", alert_max_examples, 0, 50);
  require_range("curation_max_metric_series", curation_max_metric_series, 0, 10000);
  require_range("delivery_timeout_ms", delivery_timeout_ms, 10, 600000);
  require_range("delivery_first_retry_ms", delivery_first_retry_ms, 1, 3600000);
  require_range("delivery_max_backoff_ms", delivery_max_backoff_ms, delivery_first_retry_ms, 86400000);
  require_range("delivery_max_attempts", delivery_max_attempts, 1, 1000);
  require_range("delivery_max_age_ms", delivery_max_age_ms, 1000, int64_t{365} * 86400000);
  require_range("delivery_concurrency", delivery_concurrency, 1, 256);
  require_range("max_subscriptions", max_subscriptions, 1, 1000000);
  require_range("max_rules_per_subscription", max_rules_per_subscription, 1, 10000);
  require_range("outbox_retention_ms", outbox_retention_ms, 60000, int64_t{3650} * 86400000);
  try {
    parse_cidr_list(webhook_allow_cidrs);  // the grammar the SSRF guard reads it with
  } catch (const std::invalid_argument& e) {
    throw ConfigError("webhook_allow_cidrs", e.what());
  }
  static const char* levels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
  if (std::find(std::begin(levels), std::end(levels), log_level) == std::end(levels))
    throw ConfigError("log_level", "must be one of trace, debug, info, warn, error, critical, off");
  for (size_t i = 0; i < premask.size(); ++i) {
    std::string where = "premask[" + std::to_string(i) + "]";
    if (premask[i].name.empty()) throw ConfigError(where + ".name", "must not be empty");
    RE2 re(premask[i].regex, RE2::Quiet);
    if (!re.ok()) throw ConfigError(where + ".regex", "invalid RE2 pattern: " + re.error());
    if (RE2::FullMatch("", re)) throw ConfigError(where + ".regex", "must not match the empty string");
  }
}

std::vector<int64_t> Config::series_windows_ms() const {
  std::vector<int64_t> out;
  std::string_view rest = series_windows;
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    auto ms = parse_duration_ms(item);
    if (!ms || *ms < 1000) throw ConfigError("series_windows", "bad window '" + std::string(item) + "' (e.g. 1m,5m,1h)");
    out.push_back(*ms);
    rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
  }
  if (out.empty()) throw ConfigError("series_windows", "needs at least one window");
  return out;
}

json Config::to_json() const {
  json j = json::object();
  for (const auto& k : key_table()) {
    j[k.name] = k.get(*this);
    if (is_secret_key(k.name) && !j[k.name].get<std::string>().empty()) j[k.name] = "<set>";
    if (k.name == std::string_view("redis_url")) {
      try {
        j[k.name] = redis::parse_url(redis_url).redacted();
      } catch (const std::invalid_argument&) {
        if (redis_url.find('@') != std::string::npos) j[k.name] = "<set, invalid>";
      }
    }
  }
  return j;
}

std::vector<std::string> Config::keys() {
  std::vector<std::string> out;
  for (const auto& k : key_table()) out.emplace_back(k.name);
  return out;
}

std::map<std::string, std::string> Config::key_docs() {
  // `"key": value, // doc` lines of the defaults file. A string value is
  // skipped whole, so a "//" inside it ("redis://...") is not the comment.
  std::map<std::string, std::string> docs;
  static const RE2 line_re(R"re(^\s*"([a-z_0-9]+)":\s*(?:"(?:[^"\\]|\\.)*"|[^"/]*?)\s*,?\s*//\s*(.*)$)re");
  std::istringstream in(logsift_default_config_text());
  std::string line, key, doc;
  while (std::getline(in, line))
    if (RE2::FullMatch(line, line_re, &key, &doc)) docs[key] = doc;
  return docs;
}

}  // namespace logsift
