// pipeline/store/redis.h against a real redis-server (Debian's), started here
// on a unix socket or a loopback port and stopped by PID.
#include "pipeline/store/redis.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/pipeline/store/redis_server.h"

namespace logsift::redis {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using logsift::testing::free_port;
using logsift::testing::have_redis;
using logsift::testing::RedisServer;

Url unix_url(const RedisServer& s) { return parse_url("unix://" + s.socket()); }

TEST(RedisUrl, ParsesEachSchemeWithCredentialsPortAndDb) {
  Url a = parse_url("redis://cache.internal:6380/2");
  EXPECT_EQ(a.scheme, Url::Scheme::kTcp);
  EXPECT_EQ(a.host, "cache.internal");
  EXPECT_EQ(a.port, 6380);
  EXPECT_EQ(a.db, 2);
  EXPECT_TRUE(a.password.empty());

  Url b = parse_url("rediss://alice:p%40ss%3Aw0rd@[::1]:7000");
  EXPECT_EQ(b.scheme, Url::Scheme::kTls);
  EXPECT_EQ(b.host, "::1");
  EXPECT_EQ(b.port, 7000);
  EXPECT_EQ(b.user, "alice");
  EXPECT_EQ(b.password, "p@ss:w0rd");
  EXPECT_EQ(b.redacted(), "rediss://alice:***@[::1]:7000");

  Url c = parse_url("redis://:s3cret@10.1.2.3");
  EXPECT_EQ(c.user, "");
  EXPECT_EQ(c.password, "s3cret");
  EXPECT_EQ(c.port, 6379);
  EXPECT_EQ(c.redacted(), "redis://:***@10.1.2.3:6379");

  Url d = parse_url("unix://bob:pw@/run/redis/redis.sock?db=4");
  EXPECT_EQ(d.scheme, Url::Scheme::kUnix);
  EXPECT_EQ(d.socket_path, "/run/redis/redis.sock");
  EXPECT_EQ(d.user, "bob");
  EXPECT_EQ(d.db, 4);
  EXPECT_EQ(parse_url("unix:///tmp/r.sock").socket_path, "/tmp/r.sock");
}

TEST(RedisUrl, RejectsMalformedUrlsWithoutEchoingThePassword) {
  for (const char* bad : {"http://localhost", "redis://", "redis://host:0", "redis://host:70000", "redis://host:x",
                          "redis://host/db1", "redis://nocolon@host", "redis://user:@host", "redis://u:%zz@host",
                          "redis://[::1", "unix://relative.sock", "unix:///s.sock?x=1", "unix:///s.sock?db=-1"}) {
    EXPECT_THROW(parse_url(bad), std::invalid_argument) << bad;
  }
  try {
    parse_url("redis://alice:topsecret@host:99999");
    FAIL() << "accepted a bad port";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).find("topsecret"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("port"), std::string::npos) << e.what();
  }
}

TEST(RedisConnection, PipelinesTenThousandCommandsInOrderOverAUnixSocket) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  RedisServer server({"port 0"});
  Connection c(unix_url(server), {});
  std::vector<std::vector<std::string>> cmds(10000, {"INCR", "counter"});
  auto replies = c.pipeline(cmds);
  ASSERT_EQ(replies.size(), 10000u);
  for (size_t i = 0; i < replies.size(); ++i) {
    ASSERT_EQ(replies[i].type, Reply::Type::kInteger);
    ASSERT_EQ(replies[i].integer, static_cast<int64_t>(i + 1));
  }
  // Binary-safe values, one larger than the read buffer.
  const std::string odd("a\0b\r\nc", 6);
  const std::string big(3 * 1024 * 1024 + 7, 'x');
  auto r = c.pipeline({{"SET", "odd", odd}, {"SET", "big", big}, {"GET", "odd"}, {"GET", "big"}, {"GET", "none"}});
  EXPECT_EQ(r[0].type, Reply::Type::kStatus);
  EXPECT_EQ(r[0].str, "OK");
  EXPECT_EQ(r[2].str, odd);
  EXPECT_EQ(r[3].str, big);
  EXPECT_TRUE(r[4].is_nil());
  auto arr = c.command({"MGET", "odd", "none"});
  ASSERT_EQ(arr.type, Reply::Type::kArray);
  ASSERT_EQ(arr.elements.size(), 2u);
  EXPECT_EQ(arr.elements[0].str, odd);
  EXPECT_TRUE(arr.elements[1].is_nil());
}

TEST(RedisConnection, AnErrorReplyIsAReplyAndTheConnectionGoesOn) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  RedisServer server({"port 0"});
  Connection c(unix_url(server), {});
  auto r = c.pipeline({{"SET", "s", "text"}, {"INCR", "s"}, {"NOSUCHCOMMAND"}, {"PING"}});
  EXPECT_EQ(r[1].type, Reply::Type::kError);
  EXPECT_NE(r[1].str.find("not an integer"), std::string::npos) << r[1].str;
  EXPECT_EQ(r[2].type, Reply::Type::kError);
  EXPECT_EQ(r[3].str, "PONG");
  EXPECT_TRUE(c.connected());
}

TEST(RedisConnection, AuthenticatesWithAPasswordOrAnAclUserAndSelectsTheDb) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  const int port = free_port();
  ASSERT_GT(port, 0);
  RedisServer server({"port " + std::to_string(port), "requirepass defaultpw",
                      "user alice on >alicepw ~* &* +@all"});
  const std::string base = "redis://127.0.0.1:" + std::to_string(port);
  {  // No credentials: Redis answers NOAUTH, as a reply.
    Connection anon(parse_url(base), {});
    auto r = anon.command({"GET", "k"});
    EXPECT_TRUE(r.is_error());
    EXPECT_NE(r.str.find("NOAUTH"), std::string::npos) << r.str;
  }
  {  // A wrong password: the connection fails, saying AUTH, never the password.
    Connection wrong(parse_url("redis://alice:not-her-pw@127.0.0.1:" + std::to_string(port)), {});
    try {
      wrong.command({"PING"});
      FAIL() << "a wrong password connected";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("AUTH"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("not-her-pw"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(wrong.connected());
  }
  Connection alice(parse_url("redis://alice:alicepw@127.0.0.1:" + std::to_string(port) + "/3"), {});
  EXPECT_EQ(alice.command({"ACL", "WHOAMI"}).str, "alice");
  EXPECT_EQ(alice.command({"SET", "where", "db3"}).str, "OK");
  Connection def(parse_url("redis://:defaultpw@127.0.0.1:" + std::to_string(port)), {});
  EXPECT_EQ(def.command({"ACL", "WHOAMI"}).str, "default");
  EXPECT_TRUE(def.command({"GET", "where"}).is_nil());  // db 0
  EXPECT_EQ(def.pipeline({{"SELECT", "3"}, {"GET", "where"}})[1].str, "db3");
}

TEST(RedisConnection, ReconnectsAfterTheServerRestarts) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  RedisServer server({"port 0"});
  Connection c(unix_url(server), {std::chrono::milliseconds(1000), ""});
  EXPECT_EQ(c.command({"PING"}).str, "PONG");
  server.stop();
  EXPECT_THROW(c.command({"PING"}), Error);
  EXPECT_FALSE(c.connected());
  EXPECT_THROW(c.command({"PING"}), Error);  // still down: connect fails
  server.start();
  EXPECT_EQ(c.command({"PING"}).str, "PONG");
  EXPECT_TRUE(c.connected());
}

TEST(RedisConnection, AStalledServerTimesOutInsteadOfHanging) {
  if (!have_redis()) GTEST_SKIP() << "redis-server not installed";
  RedisServer server({"port 0"});
  Connection c(unix_url(server), {std::chrono::milliseconds(300), ""});
  EXPECT_EQ(c.command({"PING"}).str, "PONG");
  server.pause();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    c.command({"PING"});
    ADD_FAILURE() << "a stopped server answered";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("timed out"), std::string::npos) << e.what();
  }
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, 250ms);
  EXPECT_LT(waited, 5s);
  server.resume();
  EXPECT_EQ(c.command({"PING"}).str, "PONG");  // a fresh connection
}

TEST(RedisConnection, RedissVerifiesTheServerCertificate) {
  if (!have_redis() || access("/usr/bin/openssl", X_OK) != 0) GTEST_SKIP() << "redis-server or openssl missing";
  const fs::path dir = fs::temp_directory_path() / ("logsift-redis-tls-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string d = dir.string();
  // A CA, and a server certificate for 127.0.0.1 signed by it.
  const std::string gen =
      "cd " + d + " && openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=logsift-test-ca -keyout ca.key "
      "-out ca.pem 2>/dev/null && openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key "
      "-out server.csr 2>/dev/null && printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext && openssl x509 -req "
      "-in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out server.pem 2>/dev/null";
  ASSERT_EQ(std::system(gen.c_str()), 0);
  const int port = free_port();
  ASSERT_GT(port, 0);
  {
    RedisServer server({"port 0", "tls-port " + std::to_string(port), "tls-cert-file " + d + "/server.pem",
                        "tls-key-file " + d + "/server.key", "tls-ca-cert-file " + d + "/ca.pem",
                        "tls-auth-clients no"});
    const Url url = parse_url("rediss://127.0.0.1:" + std::to_string(port));
    Connection trusted(url, {std::chrono::milliseconds(3000), d + "/ca.pem"});
    EXPECT_EQ(trusted.command({"PING"}).str, "PONG") << server.log();
    auto many = trusted.pipeline(std::vector<std::vector<std::string>>(2000, {"INCR", "n"}));
    EXPECT_EQ(many.back().integer, 2000);
    // The system's CAs do not know the test CA: the handshake must fail.
    Connection untrusted(url, {std::chrono::milliseconds(3000), ""});
    try {
      untrusted.command({"PING"});
      ADD_FAILURE() << "an unverified certificate was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("TLS handshake"), std::string::npos) << e.what();
    }
    // Plain text to the TLS port is not a Redis conversation either.
    Connection plain(parse_url("redis://127.0.0.1:" + std::to_string(port)), {std::chrono::milliseconds(1000), ""});
    EXPECT_THROW(plain.command({"PING"}), Error);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace logsift::redis
