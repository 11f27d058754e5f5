// redis:// URLs (the redis_url setting): parsed where config validates them,
// apart from the connection (pipeline/store/redis.h), so that config and its
// fuzz target need neither Asio nor hiredis nor the store.
#pragma once

#include <string>
#include <string_view>

namespace logsift::redis {

struct Url {
  enum class Scheme { kTcp, kTls, kUnix };
  Scheme scheme = Scheme::kTcp;
  std::string host = "127.0.0.1";  // kTcp / kTls
  int port = 6379;
  std::string socket_path;  // kUnix
  std::string user;         // ACL user; empty: AUTH with the password only (the "default" user)
  std::string password;     // empty: no AUTH
  int db = 0;               // SELECT after connecting when > 0

  // The URL with the password replaced by "***": what logs and errors show.
  std::string redacted() const;
};

// redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]
// rediss://... (TLS)
// unix://[[USER]:PASSWORD@]/PATH/TO/SOCKET[?db=DB]
// USER and PASSWORD may be percent-encoded; an IPv6 HOST goes in brackets.
// Throws std::invalid_argument saying what is wrong.
Url parse_url(std::string_view text);

}  // namespace logsift::redis
