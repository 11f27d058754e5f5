// libFuzzer target: structured-line extraction (syslog headers, Java layouts, JSON, logfmt,
// klog, text+JSON) and template parameter alignment. The message must be a
// view into the input or into the scratch string.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pipeline/core/params.h"
#include "pipeline/ingest/structured.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  logsift::StructuredOptions opts;
  opts.keep_caller = size % 2 == 0;
  logsift::StructuredLine out;
  std::string scratch;
  opts.syslog_headers = size % 3 != 0;
  opts.app_layouts = static_cast<int>((size / 3) % (logsift::kAppLayoutsLatest + 1));  // off, layouts-v1..latest
  logsift::extract_structured(in, opts, &out, &scratch);
  auto inside = [](std::string_view v, std::string_view of) {
    return v.empty() || (v.data() >= of.data() && v.data() + v.size() <= of.data() + of.size());
  };
  if (!inside(out.message, in) && !inside(out.message, scratch)) __builtin_trap();
  // template_params: the input split at its first NUL into template and text.
  const size_t nul = in.find('\0');
  if (nul != std::string_view::npos) {
    auto p = logsift::template_params(in.substr(0, nul), in.substr(nul + 1));
    if (p)
      for (auto v : *p)
        if (v.data() < in.data() || v.data() + v.size() > in.data() + in.size()) __builtin_trap();
  }
  return 0;
}
