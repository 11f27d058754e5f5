#pragma once
// A synchronous Redis connection for the shared store.
//
// hiredis does the protocol: commands are formatted by redisFormatCommandArgv
// and replies parsed by its redisReader, so no RESP is written here. The bytes
// travel over Boost.Asio (TCP, TLS through OpenSSL, or a unix socket): Debian
// 12's hiredis is 0.14, which has no TLS of its own, and one transport keeps
// every operation under the same timeout.
//
// Not thread-safe: one owner (a store's writer thread, say) per Connection.

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "config/redis_url.h"
#include "pipeline/store/store_error.h"

namespace logsift::redis {

// One reply, copied out of hiredis's reply tree.
struct Reply {
  enum class Type { kNil, kInteger, kString, kStatus, kError, kArray };
  Type type = Type::kNil;
  int64_t integer = 0;
  std::string str;  // kString, kStatus, kError
  std::vector<Reply> elements;

  bool is_error() const { return type == Type::kError; }
  bool is_nil() const { return type == Type::kNil; }
};

// The connection failed, broke or timed out. A command in flight may or may
// not have run. The connection is closed; the next call connects again.
class Error : public StoreError {
 public:
  explicit Error(const std::string& what)
      : StoreError(what, Status::unavailable("store unavailable: redis unreachable")) {}
};

struct Options {
  std::chrono::milliseconds timeout{2000};  // each connect / round trip
  std::string tls_ca_file;                  // rediss://: CA bundle; empty: the system's
};

// An error reply as an exception: std::runtime_error("<who>: <what>: <the
// error>"). The stores expect no error reply (a wrong type, a script error):
// one fails the whole call.
void check_reply(const Reply& r, std::string_view who, std::string_view what);
// An error reply that means Redis cannot serve now and refused the command
// (LOADING, BUSY, MASTERDOWN, READONLY, TRYAGAIN, CLUSTERDOWN, OOM,
// NOREPLICAS, EXECABORT): the store is unavailable, not broken.
bool transient_error(std::string_view error);
// A reply's decimal text as a number; 0 when it is not one.
int64_t to_int(std::string_view text);

// A name for this process among the replicas sharing a Redis (consumer
// names in consumer groups, the origin of shared counts):
// "<hostname>:<pid>:<8 random hex digits>", the same for the whole process.
const std::string& process_name();

class Connection {
 public:
  Connection(Url url, Options options);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Sends every command in one write and reads all their replies: one round
  // trip (pipelining). A Redis error reply is a Reply of type kError, not an
  // exception; a connection failure or timeout throws Error.
  std::vector<Reply> pipeline(const std::vector<std::vector<std::string>>& commands);
  // pipeline() for commands that are safe to run twice: a connection that was
  // already open when the call began (one left from before a Redis restart)
  // gets one more try on a fresh connection before Error is thrown.
  std::vector<Reply> pipeline_repeatable(const std::vector<std::vector<std::string>>& commands);
  Reply command(const std::vector<std::string>& args);

  bool connected() const;
  void close();
  const Url& url() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace logsift::redis
