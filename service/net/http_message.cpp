#include "service/net/http_message.h"

#include <nlohmann/json.hpp>

namespace logsift {

HttpResponse make_response(unsigned version, bool keep_alive, http::status status, std::string body,
                           const char* content_type) {
  HttpResponse res{status, version};
  res.set(http::field::server, "logsift");
  res.set(http::field::content_type, content_type);
  res.keep_alive(keep_alive);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

HttpResponse error_response(unsigned version, bool keep_alive, http::status status, Reject reason,
                            const std::string& message) {
  metrics().reject(reason);
  // Invalid UTF-8 in the message is replaced, never thrown on.
  const auto body = nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return make_response(version, keep_alive, status, body + "\n");
}

}  // namespace logsift
