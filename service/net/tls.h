// TLS on a listener: the server context (TLS 1.2 and 1.3 only, forward-secret
// AEAD ciphers for 1.2, ALPN http/1.1 on the HTTP listener, client
// certificates none | request | require), its rotation, and the handshake
// failures counted by reason.
//
// Rotation: reload() re-reads the certificate, key and CA files (on SIGHUP,
// and by serve's timer when a file's size, mtime or inode changed). A new
// pair is checked whole (key matches certificate, not expired, the CA file
// parses) before it replaces the old one; a bad pair is refused with an
// error-level log line and logsift_tls_reloads_total{result="error"}, and the
// old pair stays. A connection takes the context current when it is accepted
// and keeps it: open connections finish on the old pair.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/system/error_code.hpp>

namespace boost::asio::ssl {
class context;
}

namespace logsift {

struct Config;

// Why a handshake failed (logsift_tls_handshake_failures_total{reason=...}).
enum class TlsFailure : int {
  kTimeout,                    // not finished within tls_handshake_timeout_ms
  kNotTls,                     // plain text (an HTTP request, a syslog line) sent to a TLS port
  kProtocolVersion,            // the client offered only versions below TLS 1.2
  kNoSharedCipher,
  kNoClientCertificate,        // client_auth "require" and none was sent
  kBadClientCertificate,       // a client certificate that does not verify (wrong CA, expired, ...)
  kClientRejectedCertificate,  // the client refused ours (unknown CA, bad name) with an alert
  kClosed,                     // the peer closed or reset the connection mid-handshake
  kOther,
  kCount
};
std::string_view tls_failure_name(TlsFailure f);
// The reason an OpenSSL / Asio handshake error stands for.
TlsFailure classify_handshake_error(const boost::system::error_code& ec);

struct TlsSettings {
  std::string cert_file, key_file, client_ca_file;
  std::string client_auth = "none";  // none | request | require
  bool alpn_http = false;            // offer ALPN "http/1.1"
};

// One listener's TLS: "http", "tcp" or "syslog" names it in metrics and logs.
class TlsServer {
 public:
  // Loads the files; throws std::runtime_error saying what is wrong with them.
  TlsServer(std::string listener, TlsSettings settings);
  ~TlsServer();

  // The context new connections use.
  std::shared_ptr<boost::asio::ssl::context> context() const;
  // Re-reads the files when they changed since the last load (or always,
  // `force`). True when a new pair is in use; a failed load keeps the old.
  bool reload(bool force);

  const std::string& listener() const { return listener_; }
  const std::string& client_auth() const { return settings_.client_auth; }
  void handshake_done();
  // Counts a failed handshake by reason; logs at most once a second.
  void handshake_failed(const boost::system::error_code& ec, const std::string& peer);

 private:
  struct Stamp {
    int64_t mtime_ns = 0, size = 0, inode = 0;
    bool operator==(const Stamp&) const = default;
  };
  std::vector<Stamp> stamps() const;

  const std::string listener_;
  const TlsSettings settings_;
  mutable std::mutex mu_;
  std::shared_ptr<boost::asio::ssl::context> ctx_;  // under mu_
  std::vector<Stamp> loaded_stamps_;                // under mu_
  std::chrono::steady_clock::time_point last_log_;  // under mu_
  uint64_t unlogged_ = 0;                           // under mu_
};

// The TLS settings of listener "http", "tcp" or "syslog" from the config
// (nullopt-like: empty cert_file when that listener is plain text).
TlsSettings tls_settings_for(const Config& c, std::string_view listener);

// Builds a server context from the files; throws std::runtime_error naming
// the file and what is wrong. `not_after` receives the certificate's expiry
// (seconds since the epoch).
std::shared_ptr<boost::asio::ssl::context> make_tls_server_context(const TlsSettings& s, int64_t* not_after);

// logsift_tls_* for /metrics: handshakes, failures by reason, reloads and the
// certificate's expiry, per listener with TLS on.
std::string tls_prometheus();

}  // namespace logsift
