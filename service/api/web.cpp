// The dashboard (service/web) and Chart.js, embedded at build time
// (cmake/embed.cmake). Public like /healthz: the page holds no data; its API
// calls carry the operator's token.
#include <cstddef>

#include "service/api/routes.h"

extern const unsigned char logsift_web_index_html[];
extern const std::size_t logsift_web_index_html_size;
extern const unsigned char logsift_web_app_js[];
extern const std::size_t logsift_web_app_js_size;
extern const unsigned char logsift_web_app_css[];
extern const std::size_t logsift_web_app_css_size;
extern const unsigned char logsift_web_openapi_json[];
extern const std::size_t logsift_web_openapi_json_size;
extern const unsigned char logsift_web_chart_js[];
extern const std::size_t logsift_web_chart_js_size;

namespace logsift::api {

std::optional<HttpResponse> web_asset(const HttpRequest& req, std::string_view path) {
  const unsigned char* data = nullptr;
  std::size_t size = 0;
  const char* type = nullptr;
  if (path == "/" || path == "/index.html") {
    data = logsift_web_index_html, size = logsift_web_index_html_size, type = "text/html; charset=utf-8";
  } else if (path == "/ui/app.js") {
    data = logsift_web_app_js, size = logsift_web_app_js_size, type = "text/javascript; charset=utf-8";
  } else if (path == "/ui/app.css") {
    data = logsift_web_app_css, size = logsift_web_app_css_size, type = "text/css; charset=utf-8";
  } else if (path == "/openapi.json") {
    data = logsift_web_openapi_json, size = logsift_web_openapi_json_size, type = "application/json";
  } else if (path == "/ui/chart.js") {
    data = logsift_web_chart_js, size = logsift_web_chart_js_size, type = "text/javascript; charset=utf-8";
  } else {
    return std::nullopt;
  }
  HttpResponse res = make_response(req.version(), req.keep_alive(), http::status::ok,
                                   std::string(reinterpret_cast<const char*>(data), size), type);
  res.set(http::field::cache_control, "no-cache");
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Content-Security-Policy",
          "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'");
  return res;
}

}  // namespace logsift::api
