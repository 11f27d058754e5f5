// Typed configuration with documented defaults (config/logsift.jsonc, embedded
// at build time), overridable by a file, LOGSIFT_* env vars and --flags.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pipeline/core/time.h"  // parse_duration_ms

namespace logsift {

// The comma-separated list values of the config (tokens, CIDRs, message
// keys): items with surrounding blanks (space, tab) trimmed, empty items
// dropped. Views into `list`.
inline std::vector<std::string_view> split_list(std::string_view list) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string_view::npos) return out;
    list.remove_prefix(comma + 1);
  }
}

struct PremaskPattern {
  std::string name;
  std::string regex;
  bool boundary = true;        // match may not touch an ASCII alnum on either side
  bool require_digit = false;  // match must contain a digit (keeps words like "deadbeef"-free hex)
};

// A user's rule for their own multi-line format (multiline_rules;
// pipeline/ingest/multiline.h): for lines whose event head carries label
// `label` ("KEY=VALUE"; "" = every line), either `start` (an RE2 pattern: a
// matching line begins an event, any other continues it) or `cont` (a
// matching line continues the open event).
struct MultilineRuleSpec {
  std::string label;
  std::string start;
  std::string cont;
};

struct Config {
  std::string http_host;
  int http_port = 0;
  std::string tcp_host;
  int tcp_port = 0;
  bool structured_messages = true;
  std::string message_keys;  // comma-separated
  bool structured_keep_caller = false;
  bool syslog_headers = true;  // pipeline/ingest/structured.h: a text line's syslog header -> labels
  std::string app_layouts = "layouts-v3";  // pipeline/ingest/structured.h: "layouts-v3" | "layouts-v2" | "layouts-v1" | "off"
  // message_keys split (split_list). Inline: the parsers' fuzz targets link
  // the envelope without config.cpp.
  std::vector<std::string> message_key_list() const {
    std::vector<std::string> out;
    for (auto k : split_list(message_keys)) out.emplace_back(k);
    return out;
  }
  std::string syslog_host;
  int syslog_port = 0;  // -1: no syslog listener
  // Multi-line events (pipeline/ingest/multiline.h): "auto" joins the lines
  // of a stack trace that a line input receives one by one; "off" takes
  // every line alone.
  std::string multiline = "auto";
  bool multiline_enabled() const { return multiline != "off"; }
  int multiline_timeout_ms = 1000;       // quiet time after which an open event that announced a trace ends
  int multiline_short_timeout_ms = 20;   // the same for an event whose head announced nothing
  int64_t multiline_max_lines = 2000;    // an event's lines at most (then it is cut, counted, still clustered)
  int64_t multiline_max_bytes = 1048576; // an event's bytes at most
  std::vector<MultilineRuleSpec> multiline_rules;
  int io_threads = 0;
  std::string data_dir;
  // Where clusters, counts and examples live: "sqlite" (embedded, under
  // data_dir) or "redis" (one catalog shared by replicas, at redis_url;
  // pipeline/store/redis_catalog.h).
  std::string store;
  std::string redis_url;  // may carry a password: to_json() prints it without
  std::string redis_key_prefix;
  int redis_timeout_ms = 0;
  std::string redis_tls_ca_file;
  // store redis: alerts held by a replica that stopped refreshing them for
  // this long are taken over by another (service/alerts/redis_alert_store.h).
  int64_t redis_claim_idle_ms = 0;
  // store redis: catalog writes held in memory while Redis is unreachable,
  // at most about this many bytes; then lines are refused with 503. 0: no
  // buffer (a write fails at once).
  int64_t redis_buffer_bytes = 0;
  // Queue ingest: a Redis Stream (at redis_url) whose entries' "line" field
  // each replica consumes through the group redis_ingest_group; "" = off
  // (service/net/redis_queue.h).
  std::string redis_ingest_stream;
  std::string redis_ingest_group;

  int max_http_connections = 0;
  int max_tcp_connections = 0;
  int64_t max_body_bytes = 0;
  int max_header_bytes = 0;
  int max_line_bytes = 0;
  int max_lines_per_request = 0;
  int http_idle_timeout_ms = 0;
  int tcp_idle_timeout_ms = 0;
  bool tcp_replies = true;
  int tcp_max_inflight_batches = 0;
  int64_t tcp_max_write_queue_bytes = 0;
  int max_labels = 0;
  int shutdown_grace_ms = 0;
  int memory_trim_interval_ms = 0;

  int mailbox_capacity = 0;    // batches in the pipeline at once (admission)
  int max_inflight_lines = 0;  // lines in the pipeline at once (admission)
  int analysis_threads = 0;
  int inline_max_lines = 0;
  int batch_max_lines = 0;
  int batch_max_delay_us = 0;
  int torch_threads = 0;
  int embedding_dim = 0;
  std::string encoder_model;  // "builtin" | "hashed" | TorchScript file (models/sentence_encoder.h)
  std::string encoder_vocab;  // "" = vocab.txt inside the model archive
  int encoder_max_len = 0;    // 0 = the model's own
  std::string encoder_runtime;  // "native" (the shipped log-encoder architecture computed without libtorch) or "torchscript"
  std::string slot_rules = "slots-v4";  // pipeline/stages/slots.h: "slots-v4" | "slots-v3" | "slots-v2" | "slots-v1" | "off"
  bool encoder_canonicalize = true;  // encoder sees canonical_template() (pipeline/stages/encoder_text.h)
  std::string denoiser_model;
  std::string format_bank;  // "" = none; a bank file (pipeline/stages/format_bank.h)
  int format_bank_slot_words = 3;
  double denoiser_threshold = 0;
  double denoiser_probe_margin = 0;
  std::string denoiser_runtime;  // "native" (the shipped char-CNN architecture computed without libtorch) or "torchscript"
  bool denoiser_digit_shapes = false;  // token decisions of words with digits made on, and cached by, their digit shape
  int denoiser_cache_entries = 0;
  int64_t denoiser_cache_bytes = 0;
  int line_cache_entries = 0;
  int64_t line_cache_bytes = 0;
  int template_cache_entries = 0;
  int64_t template_cache_bytes = 0;
  int denoiser_max_forward_tokens = 0;

  int lsh_bits = 0;
  uint64_t lsh_seed = 0;

  int catalog_examples = 0;
  std::string catalog_sync = "normal";  // SQLite catalog commits: "normal" | "full" (fsynced)

  std::string series_windows;
  int series_buckets = 0;
  int aggregator_max_clusters = 0;
  int64_t alert_cooldown_ms = 0;
  int64_t alert_threshold = 0;
  int64_t alert_threshold_window_ms = 0;
  double alert_spike_factor = 0;
  int64_t alert_spike_min_count = 0;
  int64_t alert_spike_window_ms = 0;
  int alert_max_examples = 0;
  int curation_max_metric_series = 0;  // named clusters pinned as Prometheus series, at most
  std::string curation_file;           // a curation log (GET /curation) applied at start; "" = none

  int delivery_timeout_ms = 0;
  int delivery_first_retry_ms = 0;
  int delivery_max_backoff_ms = 0;
  int delivery_max_attempts = 0;
  int64_t delivery_max_age_ms = 0;
  int delivery_concurrency = 0;
  int max_subscriptions = 0;
  int max_rules_per_subscription = 0;
  int64_t outbox_retention_ms = 0;
  std::string alert_external_url;
  // Special-purpose ranges webhooks may reach anyway (comma-separated CIDRs;
  // service/alerts/address_policy.h has the list of what is refused).
  std::string webhook_allow_cidrs;

  std::string log_level;

  // Bearer tokens (comma-separated, several for rotation). admin_token guards
  // every route that changes state or reveals more than cluster ids; without
  // one the service listens on loopback only. ingest_token, when set, guards
  // the HTTP ingest routes (the admin token is accepted there too).
  std::string admin_token;
  std::string ingest_token;
  // read_token: may read clusters, details, series, suggestions and the
  // curation log (GET), and change nothing. Any token may be "name:token";
  // the name is what logs and the curation log show.
  std::string read_token;
  // Secret keys: to_json() prints whether they are set, never their value.
  // TLS (service/net/tls.h). A certificate and key turn TLS on for the HTTP
  // and TCP listeners (http_tls / tcp_tls turn it off for one) and make the
  // RFC 5425 syslog listener (syslog_tls_port) possible. Client
  // certificates: tls_client_auth "none" | "request" | "require", checked
  // against tls_client_ca_file; "<listener>_tls_client_auth" overrides it
  // ("" = inherit). The files are read again on SIGHUP and when they change.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
  std::string tls_client_auth = "none";
  bool http_tls = true;
  bool tcp_tls = true;
  std::string http_tls_client_auth;
  std::string tcp_tls_client_auth;
  std::string syslog_tls_client_auth;
  std::string syslog_tls_host = "127.0.0.1";
  int syslog_tls_port = -1;  // -1: no TLS syslog listener
  int tls_handshake_timeout_ms = 10000;
  int tls_reload_interval_ms = 5000;  // 0: only on SIGHUP
  // A listener beyond loopback without TLS starts only with this set.
  bool allow_plaintext = false;
  bool tls_enabled() const { return !tls_cert_file.empty(); }
  // The client_auth setting a listener uses ("http", "tcp", "syslog").
  const std::string& client_auth_for(std::string_view listener) const {
    const std::string& own = listener == "http" ? http_tls_client_auth
                             : listener == "tcp" ? tcp_tls_client_auth
                                                 : syslog_tls_client_auth;
    return own.empty() ? tls_client_auth : own;
  }
  static bool is_secret_key(const std::string& key) { return key == "admin_token" || key == "ingest_token" || key == "read_token"; }

  std::vector<PremaskPattern> premask;

  // series_windows parsed ("1m,5m,1h" -> ms); throws ConfigError.
  std::vector<int64_t> series_windows_ms() const;

  // The embedded defaults (config/logsift.jsonc).
  static Config defaults();
  // The embedded defaults file, verbatim (comments included).
  static const char* default_file_text();

  // Overlays a JSON object; unknown keys and bad values throw ConfigError naming the key.
  void apply_json(const nlohmann::json& obj);
  // Overlays one key from a string (env var or flag); the value is parsed by the key's type.
  void apply_string(const std::string& key, const std::string& value);
  // Reads LOGSIFT_<KEY> for every known key from the environment.
  void apply_env();
  // Parses a JSON-with-comments file and applies it.
  void apply_file(const std::string& path);
  // The same for the text of such a file; `origin` names it in errors.
  void apply_text(std::string_view text, const std::string& origin);
  // Throws ConfigError naming the first invalid key.
  void validate() const;
  void validate_tls() const;

  nlohmann::json to_json() const;
  // Names of all keys, in file order (for --help and flag parsing).
  static std::vector<std::string> keys();
  // One-line documentation per key (from the defaults file's comments).
  static std::map<std::string, std::string> key_docs();
};

struct ConfigError : std::runtime_error {
  ConfigError(const std::string& key, const std::string& what)
      : std::runtime_error("config key '" + key + "': " + what), key(key) {}
  std::string key;
};


// "http-port" / "http_port" / "HTTP_PORT" -> "http_port"
std::string normalize_config_key(std::string name);

}  // namespace logsift
