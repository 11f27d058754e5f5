// The HTTP routes. Handlers never block an io thread: /inferences hands its
// batch to the pipeline and replies from the batch's completion callback.
#pragma once

#include <exception>
#include <functional>
#include <string_view>

#include "pipeline/core/metrics.h"
#include "pipeline/core/status.h"
#include "service/api/app_context.h"
#include "service/net/http_message.h"

namespace logsift {

// Routes one request (the HttpHandler the HTTP sessions are given).
void handle_http_request(api::AppContext& ctx, AnyExecutor ex, HttpRequest&& req, Responder respond);

// The one mapping of a failed Status to a reply: kUnavailable is 503 with
// Retry-After and the reason (counted as store_unavailable: the request may
// succeed later), kInternal 500 and the connection closed.
HttpResponse status_response(unsigned version, bool keep_alive, const Status& status);

// The reply to an exception a handler let out, logged under `where` ("GET
// /clusters"): a store's error (pipeline/store/store_error.h) by its status,
// anything else 500.
HttpResponse exception_response(unsigned version, bool keep_alive, std::string_view where, std::exception_ptr e);

}  // namespace logsift
