// libFuzzer target: syslog framing (RFC 6587) and parsing (RFC 5424/3164).
// The input is split into chunks at arbitrary points (its first byte seeds
// the chunk size) to exercise frames cut across reads.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "service/net/syslog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 64;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  logsift::SyslogFramer framer(512);
  logsift::SyslogFrameEvent ev;
  logsift::SyslogMessage msg;
  std::string error;
  logsift::SyslogParseOptions opts;
  opts.now_ms = 1795411892000;
  auto drain = [&] {
    while (framer.next(&ev)) {
      if (ev.kind == logsift::SyslogFrameEvent::Kind::kFrame) logsift::parse_syslog(ev.frame, &msg, &error, opts);
    }
  };
  for (size_t off = 0; off < in.size(); off += chunk) {
    framer.feed(in.substr(off, chunk));
    drain();
  }
  framer.finish();
  drain();
  // The whole input as one frame too.
  logsift::parse_syslog(in, &msg, &error, opts);
  return 0;
}
