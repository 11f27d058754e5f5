#include "service/net/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <array>
#include <ctime>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "config/config.h"

namespace logsift {

namespace ssl = boost::asio::ssl;

namespace {

// TLS 1.2's forward-secret AEAD suites (Mozilla's "intermediate" list);
// TLS 1.3 keeps OpenSSL's defaults, all of which are.
constexpr const char* kCiphers12 =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

constexpr std::array<std::string_view, static_cast<size_t>(TlsFailure::kCount)> kFailureNames = {
    "timeout", "not_tls", "protocol_version", "no_shared_cipher", "no_client_certificate",
    "bad_client_certificate", "client_rejected_certificate", "closed", "other"};

// Per listener, for /metrics. Fixed: a process has at most these three.
struct ListenerStats {
  std::atomic<bool> enabled{false};
  std::atomic<uint64_t> handshakes{0};
  std::array<std::atomic<uint64_t>, static_cast<size_t>(TlsFailure::kCount)> failures{};
  std::atomic<uint64_t> reloads_ok{0}, reloads_error{0};
  std::atomic<int64_t> not_after{0};
};
constexpr std::array<std::string_view, 3> kListeners = {"http", "tcp", "syslog"};
std::array<ListenerStats, 3> g_stats;

ListenerStats& stats_of(std::string_view listener) {
  for (size_t i = 0; i < kListeners.size(); ++i)
    if (kListeners[i] == listener) return g_stats[i];
  return g_stats[0];
}

std::string openssl_errors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out;
}

int alpn_http11(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned int inlen,
                void*) {
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kHttp11, sizeof kHttp11, in, inlen) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;  // the client offers only h2 or others: no ALPN, HTTP/1.1 regardless
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

int64_t epoch_seconds(const ASN1_TIME* t) {
  std::tm tm{};
  if (ASN1_TIME_to_tm(t, &tm) != 1) return 0;
  return static_cast<int64_t>(timegm(&tm));
}

}  // namespace

std::string_view tls_failure_name(TlsFailure f) { return kFailureNames[static_cast<size_t>(f)]; }

TlsFailure classify_handshake_error(const boost::system::error_code& ec) {
  namespace net = boost::asio;
  if (ec == boost::beast::error::timeout) return TlsFailure::kTimeout;
  if (ec == net::error::eof || ec == net::ssl::error::stream_truncated || ec == net::error::connection_reset ||
      ec == net::error::broken_pipe || ec == net::error::operation_aborted)
    return TlsFailure::kClosed;
  if (ec.category() != net::error::get_ssl_category()) return TlsFailure::kOther;
  const int reason = ERR_GET_REASON(static_cast<unsigned long>(ec.value()));
  switch (reason) {
    case SSL_R_UNSUPPORTED_PROTOCOL:
    case SSL_R_VERSION_TOO_LOW:
    case SSL_R_TLSV1_ALERT_PROTOCOL_VERSION:
      return TlsFailure::kProtocolVersion;
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_HTTP_REQUEST:
    case SSL_R_HTTPS_PROXY_REQUEST:
    case SSL_R_PACKET_LENGTH_TOO_LONG:
      return TlsFailure::kNotTls;
    case SSL_R_NO_SHARED_CIPHER:
      return TlsFailure::kNoSharedCipher;
    case SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE:
      return TlsFailure::kNoClientCertificate;
    case SSL_R_CERTIFICATE_VERIFY_FAILED:
      return TlsFailure::kBadClientCertificate;
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
    case SSL_R_TLSV1_ALERT_DECRYPT_ERROR:
    case SSL_R_TLSV1_UNRECOGNIZED_NAME:
      return TlsFailure::kClientRejectedCertificate;
    default:
      return TlsFailure::kOther;
  }
}

std::shared_ptr<ssl::context> make_tls_server_context(const TlsSettings& s, int64_t* not_after) {
  ERR_clear_error();
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* h = ctx->native_handle();
  auto fail = [&](const std::string& what) -> std::runtime_error {
    const std::string detail = openssl_errors();
    return std::runtime_error(what + (detail.empty() ? "" : " (" + detail + ")"));
  };
  SSL_CTX_set_min_proto_version(h, TLS1_2_VERSION);
  SSL_CTX_set_options(h, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_set_cipher_list(h, kCiphers12) != 1) throw fail("no usable TLS 1.2 cipher");
  // Sessions resume (tickets or the cache) across this context's connections.
  static const unsigned char kSidCtx[] = "logsift";
  SSL_CTX_set_session_id_context(h, kSidCtx, sizeof kSidCtx - 1);
  if (SSL_CTX_use_certificate_chain_file(h, s.cert_file.c_str()) != 1)
    throw fail("tls_cert_file '" + s.cert_file + "': not a readable PEM certificate chain");
  if (SSL_CTX_use_PrivateKey_file(h, s.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    throw fail("tls_key_file '" + s.key_file + "': not a readable PEM private key");
  if (SSL_CTX_check_private_key(h) != 1)
    throw fail("tls_key_file '" + s.key_file + "' is not the key of tls_cert_file '" + s.cert_file + "'");
  X509* cert = SSL_CTX_get0_certificate(h);
  if (!cert) throw fail("tls_cert_file '" + s.cert_file + "' holds no certificate");
  if (X509_cmp_current_time(X509_get0_notAfter(cert)) <= 0)
    throw fail("tls_cert_file '" + s.cert_file + "': the certificate has expired");
  if (not_after) *not_after = epoch_seconds(X509_get0_notAfter(cert));
  if (s.client_auth != "none") {
    if (SSL_CTX_load_verify_locations(h, s.client_ca_file.c_str(), nullptr) != 1)
      throw fail("tls_client_ca_file '" + s.client_ca_file + "': not a readable PEM CA file");
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(s.client_ca_file.c_str());
    if (!names) throw fail("tls_client_ca_file '" + s.client_ca_file + "' holds no CA certificate");
    SSL_CTX_set_client_CA_list(h, names);  // what the server asks for; the context owns the list
    SSL_CTX_set_verify(h, SSL_VERIFY_PEER | (s.client_auth == "require" ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0), nullptr);
  }
  if (s.alpn_http) SSL_CTX_set_alpn_select_cb(h, alpn_http11, nullptr);
  return ctx;
}

TlsSettings tls_settings_for(const Config& c, std::string_view listener) {
  TlsSettings s;
  const bool on = listener == "http" ? c.http_tls : listener == "tcp" ? c.tcp_tls : c.syslog_tls_port >= 0;
  if (!c.tls_enabled() || !on) return s;
  s.cert_file = c.tls_cert_file;
  s.key_file = c.tls_key_file;
  s.client_ca_file = c.tls_client_ca_file;
  s.client_auth = c.client_auth_for(listener);
  s.alpn_http = listener == "http";
  return s;
}

TlsServer::TlsServer(std::string listener, TlsSettings settings)
    : listener_(std::move(listener)), settings_(std::move(settings)) {
  int64_t not_after = 0;
  loaded_stamps_ = stamps();
  ctx_ = make_tls_server_context(settings_, &not_after);
  ListenerStats& st = stats_of(listener_);
  st.not_after = not_after;
  st.enabled = true;
}

TlsServer::~TlsServer() = default;

std::shared_ptr<ssl::context> TlsServer::context() const {
  std::lock_guard lock(mu_);
  return ctx_;
}

std::vector<TlsServer::Stamp> TlsServer::stamps() const {
  std::vector<Stamp> out;
  for (const std::string* f : {&settings_.cert_file, &settings_.key_file, &settings_.client_ca_file}) {
    Stamp s;
    struct stat st {};
    if (!f->empty() && ::stat(f->c_str(), &st) == 0)  // stat follows links: a Kubernetes secret's swap shows
      s = {static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, static_cast<int64_t>(st.st_size),
           static_cast<int64_t>(st.st_ino)};
    out.push_back(s);
  }
  return out;
}

bool TlsServer::reload(bool force) {
  const std::vector<Stamp> now = stamps();
  {
    std::lock_guard lock(mu_);
    if (!force && now == loaded_stamps_) return false;
    loaded_stamps_ = now;  // a bad pair is reported once, not at every check
  }
  ListenerStats& st = stats_of(listener_);
  try {
    int64_t not_after = 0;
    auto fresh = make_tls_server_context(settings_, &not_after);
    {
      std::lock_guard lock(mu_);
      ctx_ = std::move(fresh);
    }
    st.not_after = not_after;
    st.reloads_ok.fetch_add(1);
    spdlog::info("tls {}: certificate reloaded from {} (expires {})", listener_, settings_.cert_file, not_after);
    return true;
  } catch (const std::exception& e) {
    st.reloads_error.fetch_add(1);
    spdlog::error("tls {}: new certificate refused, the old one stays in use: {}", listener_, e.what());
    return false;
  }
}

void TlsServer::handshake_done() { stats_of(listener_).handshakes.fetch_add(1, std::memory_order_relaxed); }

void TlsServer::handshake_failed(const boost::system::error_code& ec, const std::string& peer) {
  const TlsFailure why = classify_handshake_error(ec);
  stats_of(listener_).failures[static_cast<size_t>(why)].fetch_add(1, std::memory_order_relaxed);
  uint64_t more = 0;
  {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (now - last_log_ < std::chrono::seconds(1)) {
      ++unlogged_;
      return;
    }
    last_log_ = now;
    more = unlogged_;
    unlogged_ = 0;
  }
  spdlog::warn("tls {}: handshake from {} failed: {} ({}){}", listener_, peer, tls_failure_name(why), ec.message(),
               more ? fmt::format("; {} more failed since the last report", more) : std::string());
}

std::string tls_prometheus() {
  std::string o;
  auto each = [&](auto&& line) {
    for (size_t i = 0; i < kListeners.size(); ++i)
      if (g_stats[i].enabled) line(kListeners[i], g_stats[i]);
  };
  bool any = false;
  each([&](std::string_view, const ListenerStats&) { any = true; });
  if (!any) return o;
  o += "# HELP logsift_tls_handshakes_total TLS handshakes completed.\n# TYPE logsift_tls_handshakes_total counter\n";
  each([&](std::string_view l, const ListenerStats& s) {
    o += fmt::format("logsift_tls_handshakes_total{{listener=\"{}\"}} {}\n", l, s.handshakes.load());
  });
  o += "# HELP logsift_tls_handshake_failures_total TLS handshakes refused or failed, by reason.\n"
       "# TYPE logsift_tls_handshake_failures_total counter\n";
  each([&](std::string_view l, const ListenerStats& s) {
    for (size_t r = 0; r < kFailureNames.size(); ++r)
      o += fmt::format("logsift_tls_handshake_failures_total{{listener=\"{}\",reason=\"{}\"}} {}\n", l,
                       kFailureNames[r], s.failures[r].load());
  });
  o += "# HELP logsift_tls_reloads_total Certificate reloads (SIGHUP or a changed file), by result; on error the old "
       "pair stays.\n# TYPE logsift_tls_reloads_total counter\n";
  each([&](std::string_view l, const ListenerStats& s) {
    o += fmt::format("logsift_tls_reloads_total{{listener=\"{}\",result=\"ok\"}} {}\n", l, s.reloads_ok.load());
    o += fmt::format("logsift_tls_reloads_total{{listener=\"{}\",result=\"error\"}} {}\n", l, s.reloads_error.load());
  });
  o += "# HELP logsift_tls_certificate_expiry_timestamp_seconds When the certificate in use expires.\n"
       "# TYPE logsift_tls_certificate_expiry_timestamp_seconds gauge\n";
  each([&](std::string_view l, const ListenerStats& s) {
    o += fmt::format("logsift_tls_certificate_expiry_timestamp_seconds{{listener=\"{}\"}} {}\n", l, s.not_after.load());
  });
  return o;
}

}  // namespace logsift
