// service/net/tls.h without sockets: handshakes run in memory (a client SSL
// and a server SSL from TlsServer's context, bytes moved between memory
// BIOs), so the refusal reasons, the rotation and its thread safety (this
// file is in the TSan run: handshakes on several threads while the pair is
// reloaded) are checked exactly.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <gtest/gtest.h>

#include "service/net/tls.h"

namespace logsift {
namespace {

namespace fs = std::filesystem;

// A P-256 key and a self-signed certificate for CN `name`, valid `days`
// (negative: expired), written as PEM to dir/name.{crt,key}.
void write_pair(const fs::path& dir, const std::string& name, long days) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* crt = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(crt), static_cast<long>(std::hash<std::string>{}(name) & 0x7fffffff));
  X509_gmtime_adj(X509_getm_notBefore(crt), days < 0 ? 2 * days * 86400 : -60);
  X509_gmtime_adj(X509_getm_notAfter(crt), days * 86400);
  X509_set_pubkey(crt, key);
  X509_NAME* n = X509_get_subject_name(crt);
  X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(name.c_str()), -1, -1, 0);
  X509_set_issuer_name(crt, n);
  ASSERT_TRUE(X509_sign(crt, key, EVP_sha256()));
  FILE* f = std::fopen((dir / (name + ".key")).c_str(), "w");
  PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
  f = std::fopen((dir / (name + ".crt")).c_str(), "w");
  PEM_write_X509(f, crt);
  std::fclose(f);
  X509_free(crt);
  EVP_PKEY_free(key);
}

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/logsift-tls-unit-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    write_pair(dir_, "alpha", 2);
    write_pair(dir_, "beta", 2);
    write_pair(dir_, "client", 2);
    write_pair(dir_, "expired", -1);
    fs::copy_file(dir_ / "alpha.crt", dir_ / "live.crt");
    fs::copy_file(dir_ / "alpha.key", dir_ / "live.key");
  }
  void TearDown() override { fs::remove_all(dir_); }

  TlsSettings live(const std::string& client_auth = "none") const {
    TlsSettings s;
    s.cert_file = (dir_ / "live.crt").string();
    s.key_file = (dir_ / "live.key").string();
    s.client_ca_file = (dir_ / "client.crt").string();  // self-signed: its own CA
    s.client_auth = client_auth;
    return s;
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

struct Outcome {
  bool ok = false;
  boost::system::error_code server_error;  // as Asio would report it
  std::string peer_cn;                     // CN of the certificate the server showed
};

// A client with the given protocol range and optional certificate against a
// server SSL from `ctx`, bytes moved in memory until both finish or one fails.
Outcome handshake(const std::shared_ptr<boost::asio::ssl::context>& ctx, int max_version = 0,
                  const std::string& cert = "", const std::string& key = "", const std::string& plain = "") {
  SSL_CTX* cctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_set_min_proto_version(cctx, TLS1_VERSION);
  SSL_CTX_set_security_level(cctx, 0);  // let the client offer TLS 1.0/1.1 so the server is what refuses them
  if (max_version) SSL_CTX_set_max_proto_version(cctx, max_version);
  if (!cert.empty()) {
    SSL_CTX_use_certificate_file(cctx, cert.c_str(), SSL_FILETYPE_PEM);
    SSL_CTX_use_PrivateKey_file(cctx, key.c_str(), SSL_FILETYPE_PEM);
  }
  SSL* c = SSL_new(cctx);
  SSL* s = SSL_new(ctx->native_handle());
  BIO* c_in = BIO_new(BIO_s_mem());
  BIO* c_out = BIO_new(BIO_s_mem());
  BIO* s_in = BIO_new(BIO_s_mem());
  BIO* s_out = BIO_new(BIO_s_mem());
  SSL_set_bio(c, c_in, c_out);
  SSL_set_bio(s, s_in, s_out);
  SSL_set_connect_state(c);
  SSL_set_accept_state(s);
  auto move = [](BIO* from, BIO* to) {
    char buf[16384];
    int n;
    while ((n = BIO_read(from, buf, sizeof buf)) > 0) BIO_write(to, buf, n);
  };
  Outcome out;
  if (!plain.empty()) BIO_write(s_in, plain.data(), static_cast<int>(plain.size()));
  bool c_done = !plain.empty(), s_done = false;
  for (int round = 0; round < 20 && !(c_done && s_done); ++round) {
    if (!c_done) {
      const int r = SSL_do_handshake(c);
      if (r == 1) c_done = true;
      else if (SSL_get_error(c, r) != SSL_ERROR_WANT_READ) c_done = true;
      move(c_out, s_in);
    }
    if (!s_done) {
      ERR_clear_error();
      const int r = SSL_do_handshake(s);
      if (r == 1) {
        s_done = true;
        out.ok = true;
      } else if (SSL_get_error(s, r) != SSL_ERROR_WANT_READ) {
        s_done = true;
        out.server_error = boost::system::error_code(static_cast<int>(ERR_peek_last_error()),
                                                     boost::asio::error::get_ssl_category());
      }
      move(s_out, c_in);
    }
  }
  if (out.ok) {
    // TLS 1.3: a client certificate is checked by the server after the
    // client finished; read once so a refusal shows.
    char b;
    ERR_clear_error();
    const int r = SSL_read(s, &b, 1);
    if (r <= 0 && SSL_get_error(s, r) == SSL_ERROR_SSL) {
      out.ok = false;
      out.server_error = boost::system::error_code(static_cast<int>(ERR_peek_last_error()),
                                                   boost::asio::error::get_ssl_category());
    }
  }
  if (X509* peer = SSL_get1_peer_certificate(c)) {
    char cn[256] = {};
    X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn, sizeof cn);
    out.peer_cn = cn;
    X509_free(peer);
  }
  SSL_free(c);
  SSL_free(s);
  SSL_CTX_free(cctx);
  return out;
}

TEST_F(TlsTest, HandshakesAndTheReasonEachRefusalIsCountedUnder) {
  TlsServer plain_auth("tcp", live());
  EXPECT_TRUE(handshake(plain_auth.context()).ok);
  EXPECT_TRUE(handshake(plain_auth.context(), TLS1_2_VERSION).ok);
  auto old = handshake(plain_auth.context(), TLS1_1_VERSION);
  EXPECT_FALSE(old.ok);
  EXPECT_EQ(classify_handshake_error(old.server_error), TlsFailure::kProtocolVersion) << old.server_error.message();
  auto text = handshake(plain_auth.context(), 0, "", "", "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_FALSE(text.ok);
  EXPECT_EQ(classify_handshake_error(text.server_error), TlsFailure::kNotTls) << text.server_error.message();

  TlsServer required("tcp", live("require"));
  auto none = handshake(required.context());
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(classify_handshake_error(none.server_error), TlsFailure::kNoClientCertificate)
      << none.server_error.message();
  auto stranger = handshake(required.context(), 0, file("beta.crt"), file("beta.key"));
  EXPECT_FALSE(stranger.ok);
  EXPECT_EQ(classify_handshake_error(stranger.server_error), TlsFailure::kBadClientCertificate)
      << stranger.server_error.message();
  EXPECT_TRUE(handshake(required.context(), 0, file("client.crt"), file("client.key")).ok);

  EXPECT_EQ(classify_handshake_error(boost::asio::error::eof), TlsFailure::kClosed);
  EXPECT_EQ(classify_handshake_error(boost::asio::ssl::error::stream_truncated), TlsFailure::kClosed);
  for (int f = 0; f < static_cast<int>(TlsFailure::kCount); ++f)
    EXPECT_FALSE(tls_failure_name(static_cast<TlsFailure>(f)).empty());
}

TEST_F(TlsTest, ABadPairIsRefusedAtStartAndAtReloadKeepingTheOld) {
  TlsSettings expired = live();
  expired.cert_file = file("expired.crt");
  expired.key_file = file("expired.key");
  EXPECT_THROW(TlsServer("http", expired), std::runtime_error);
  TlsSettings mismatch = live();
  mismatch.key_file = file("beta.key");
  EXPECT_THROW(TlsServer("http", mismatch), std::runtime_error);

  TlsServer server("http", live());
  const auto before = server.context();
  EXPECT_FALSE(server.reload(false)) << "nothing changed on disk";
  fs::copy_file(file("beta.key"), file("live.key"), fs::copy_options::overwrite_existing);  // key without its cert
  EXPECT_FALSE(server.reload(true));
  EXPECT_EQ(server.context(), before);
  EXPECT_EQ(handshake(server.context()).peer_cn, "alpha");
  fs::copy_file(file("beta.crt"), file("live.crt"), fs::copy_options::overwrite_existing);
  EXPECT_TRUE(server.reload(false)) << "the change on disk is seen";
  EXPECT_NE(server.context(), before);
  EXPECT_EQ(handshake(server.context()).peer_cn, "beta");
  EXPECT_EQ(handshake(before).peer_cn, "alpha") << "a connection that began on the old pair keeps it";
  const std::string prom = tls_prometheus();
  EXPECT_NE(prom.find("logsift_tls_reloads_total{listener=\"http\",result=\"error\"}"), std::string::npos) << prom;
}

// Handshakes on three threads while the main thread rotates the pair back
// and forth and failures are counted: every handshake succeeds on one of the
// two pairs (TSan checks the rest).
TEST_F(TlsTest, RotationWhileHandshakingOnSeveralThreads) {
  TlsServer server("syslog", live());
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, bad{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 3; ++t)
    clients.emplace_back([&] {
      while (!stop) {
        const Outcome o = handshake(server.context());
        (o.ok && (o.peer_cn == "alpha" || o.peer_cn == "beta") ? ok : bad)++;
        server.handshake_done();
        server.handshake_failed(boost::asio::error::eof, "127.0.0.1:1");
      }
    });
  for (int i = 0; i < 20; ++i) {
    const std::string next = i % 2 ? "alpha" : "beta";
    fs::copy_file(file(next + ".crt"), file("live.crt.new"), fs::copy_options::overwrite_existing);
    fs::copy_file(file(next + ".key"), file("live.key"), fs::copy_options::overwrite_existing);
    fs::rename(file("live.crt.new"), file("live.crt"));
    EXPECT_TRUE(server.reload(true));
    (void)tls_prometheus();
  }
  stop = true;
  for (auto& t : clients) t.join();
  EXPECT_GT(ok.load(), 0);
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace logsift
