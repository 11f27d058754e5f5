// The HTTP message types the transport and the routes share, the handler a
// session hands each request to, and the one reply the transport writes on
// its own: a JSON error for a request it could not read whole or must refuse
// (over a limit, malformed, over the connection limit).
#pragma once

#include <functional>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/beast/http.hpp>

#include "pipeline/core/metrics.h"

namespace logsift {

namespace http = boost::beast::http;
using HttpRequest = http::request<http::string_body>;
using HttpResponse = http::response<http::string_body>;
using Responder = std::function<void(HttpResponse)>;

// Executor on which the retry timer of a full pipeline runs (the session's strand).
using AnyExecutor = boost::asio::any_io_executor;

// What an HTTP session calls with each request it read: the routes
// (service/api/http_api.h). It must call `respond` exactly once, from any
// thread; the session writes the reply on its own strand.
using HttpHandler = std::function<void(AnyExecutor ex, HttpRequest&& req, Responder respond)>;

HttpResponse make_response(unsigned version, bool keep_alive, http::status status, std::string body,
                           const char* content_type = "application/json");

// A JSON error reply: {"error": message}; counted under `reason`.
HttpResponse error_response(unsigned version, bool keep_alive, http::status status, Reject reason,
                            const std::string& message);

}  // namespace logsift
