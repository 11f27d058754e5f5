// The HTTP routes. Handlers never block an io thread: /inferences hands its
// batch to the pipeline and replies from the batch's completion callback.
#pragma once

#include <exception>
#include <functional>
#include <string_view>

#include <boost/beast/http.hpp>

#include "pipeline/core/metrics.h"
#include "service/net/server_context.h"

namespace logsift {

namespace http = boost::beast::http;
using HttpRequest = http::request<http::string_body>;
using HttpResponse = http::response<http::string_body>;
using Responder = std::function<void(HttpResponse)>;

// Executor on which the retry timer of a full pipeline runs (the session's strand).
using AnyExecutor = boost::asio::any_io_executor;

void handle_http_request(ServerContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond);

// A JSON error reply: {"error": message}; counted under `reason`.
HttpResponse error_response(unsigned version, bool keep_alive, http::status status, Reject reason,
                            const std::string& message);

// The reply to an exception a handler let out, logged under `where` ("GET
// /clusters"): 503 with Retry-After when the shared store does not answer
// (the request may succeed later), else 500 and the connection closed.
HttpResponse exception_response(unsigned version, bool keep_alive, std::string_view where, std::exception_ptr e);

}  // namespace logsift
