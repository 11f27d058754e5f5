// The TLS listeners' server side (service/net/tls.h): the bytes a client
// sends before and during the handshake. A server context is made the way
// `serve` makes it (make_tls_server_context from PEM files, TLS 1.2+, ALPN,
// client certificates none / request / require, picked by the first byte)
// with a key and self-signed certificate generated at start; the rest of the
// input is fed to SSL_accept through memory BIOs in pieces whose sizes come
// from the input. Invariants: no crash or sanitizer report; a failed
// handshake classifies to one of the TlsFailure reasons; nothing is sent
// back before the client's first flight is read whole, beyond what fits in
// a bounded reply.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>

#include "service/net/tls.h"

namespace {

std::shared_ptr<boost::asio::ssl::context> g_ctx[3];  // client_auth none, request, require

// A P-256 key and a self-signed certificate for "localhost", as PEM files
// in a temp dir (make_tls_server_context reads files, as serve does).
void make_contexts() {
  char dir[] = "/tmp/logsift-fuzz-tls-XXXXXX";
  if (!mkdtemp(dir)) std::abort();
  const std::string key_path = std::string(dir) + "/key.pem", crt_path = std::string(dir) + "/crt.pem";
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* crt = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(crt), 1);
  X509_gmtime_adj(X509_getm_notBefore(crt), -60);
  X509_gmtime_adj(X509_getm_notAfter(crt), 86400);
  X509_set_pubkey(crt, key);
  X509_NAME* name = X509_get_subject_name(crt);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(crt, name);
  if (!X509_sign(crt, key, EVP_sha256())) std::abort();
  FILE* f = std::fopen(key_path.c_str(), "w");
  PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
  f = std::fopen(crt_path.c_str(), "w");
  PEM_write_X509(f, crt);
  std::fclose(f);
  X509_free(crt);
  EVP_PKEY_free(key);
  const char* modes[] = {"none", "request", "require"};
  for (int i = 0; i < 3; ++i) {
    logsift::TlsSettings s;
    s.cert_file = crt_path;
    s.key_file = key_path;
    s.client_ca_file = crt_path;  // the self-signed certificate is its own CA
    s.client_auth = modes[i];
    s.alpn_http = i == 0;
    g_ctx[i] = logsift::make_tls_server_context(s, nullptr);
  }
  std::remove(key_path.c_str());
  std::remove(crt_path.c_str());
  rmdir(dir);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  make_contexts();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  SSL* ssl = SSL_new(g_ctx[data[0] % 3]->native_handle());
  const size_t piece = 1 + data[1] % 64 * 64;  // 1 .. 4033 bytes a read, as TCP may cut them
  data += 2;
  size -= 2;
  BIO* in = BIO_new(BIO_s_mem());
  BIO* out = BIO_new(BIO_s_mem());
  SSL_set_bio(ssl, in, out);
  SSL_set_accept_state(ssl);
  int rc = 0;
  size_t fed = 0;
  for (;;) {
    ERR_clear_error();
    rc = SSL_do_handshake(ssl);
    if (rc == 1) break;
    const int err = SSL_get_error(ssl, rc);
    if (err != SSL_ERROR_WANT_READ || fed == size) break;
    const size_t n = std::min(piece, size - fed);
    BIO_write(in, data + fed, static_cast<int>(n));
    fed += n;
  }
  if (rc == 1) {  // a handshake from fuzz bytes: read what follows
    char buf[4096];
    while (SSL_read(ssl, buf, sizeof buf) > 0) {
    }
  } else {
    const unsigned long e = ERR_peek_last_error();
    const boost::system::error_code ec(static_cast<int>(e), boost::asio::error::get_ssl_category());
    const auto why = logsift::classify_handshake_error(e ? ec : boost::system::error_code(boost::asio::error::eof));
    if (static_cast<int>(why) < 0 || why >= logsift::TlsFailure::kCount) std::abort();
    if (logsift::tls_failure_name(why).empty()) std::abort();
  }
  // What the server wrote back stays bounded (a flight of handshake records).
  if (BIO_ctrl_pending(out) > 64 * 1024) std::abort();
  SSL_free(ssl);
  ERR_clear_error();
  return 0;
}
