// The HTTP routes. Handlers never block an io thread: /inferences hands its
// batch to the pipeline and replies from the batch's completion callback.
#pragma once

#include <exception>
#include <functional>
#include <string_view>

#include "pipeline/core/metrics.h"
#include "service/net/http_message.h"
#include "service/net/server_context.h"

namespace logsift {

// Routes one request (the HttpHandler the HTTP sessions are given).
void handle_http_request(ServerContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond);

// The reply to an exception a handler let out, logged under `where` ("GET
// /clusters"): 503 with Retry-After when the shared store does not answer
// (the request may succeed later), else 500 and the connection closed.
HttpResponse exception_response(unsigned version, bool keep_alive, std::string_view where, std::exception_ptr e);

}  // namespace logsift
