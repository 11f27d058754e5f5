// Syslog over TCP: framing (RFC 6587) and message parsing (RFC 5424 and the
// RFC 3164 forms real senders produce). Pure: no sockets, no logging.
//
// Framing (SyslogFramer): per connection, from its first bytes: digits then a
// space ("123 <34>1 ...") is octet counting, the count being the bytes after
// the space; anything else is LF framing (one message per line, CR LF and
// blank lines tolerated). The choice holds for the connection. Bounded: a
// frame over max_frame_bytes is an error event naming how many bytes are
// skipped, and the framer resynchronises by itself (octet counting: skips
// exactly the counted bytes; LF: skips to the next LF). A malformed count
// (non-digits, leading zero, zero, more than 10 digits) is an error too and
// the framer skips to the next LF (rsyslog and syslog-ng end their octet-
// counted frames with an LF, so the next frame starts there).
//
//
// Parsing (parse_syslog, SyslogMessage): pipeline/ingest/syslog_message.h, where
// structured-line extraction (pipeline/ingest/structured.h) uses it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/record.h"
#include "pipeline/ingest/syslog_message.h"

namespace logsift {

// ---------------------------------------------------------------------------
// Framing.

struct SyslogFrameEvent {
  enum class Kind { kFrame, kError };
  Kind kind = Kind::kFrame;
  // kFrame: one message without its framing (an LF frame without the LF and a
  // trailing CR). A view into the framer: valid until the next feed().
  std::string_view frame;
  // kError: what went wrong, and how many bytes the framer skipped (or is
  // skipping) for it.
  std::string error;
  size_t skipped = 0;
};

class SyslogFramer {
 public:
  enum class Framing { kUnknown, kOctetCounting, kLf };

  explicit SyslogFramer(size_t max_frame_bytes = 65536 + 2048);

  // Appends bytes from the connection (any chunking).
  void feed(std::string_view chunk);
  // The connection ended: an unterminated LF line becomes the last frame, a
  // partial octet-counted frame an error.
  void finish();
  // The next frame or error; false when more bytes are needed.
  bool next(SyslogFrameEvent* ev);

  Framing framing() const { return framing_; }
  // Bytes held, waiting for the rest of a frame (at most max_frame_bytes plus
  // the last chunk).
  size_t buffered() const { return buf_.size() - pos_; }
  // All bytes skipped for errors so far.
  size_t skipped_total() const { return skipped_total_; }

 private:
  bool error(SyslogFrameEvent* ev, std::string msg, size_t skipped);

  size_t max_frame_;
  std::string buf_;
  size_t pos_ = 0;
  Framing framing_ = Framing::kUnknown;
  size_t discard_ = 0;          // octet counting: bytes still to skip
  bool discard_to_lf_ = false;  // skipping to the next LF
  size_t lf_scan_ = 0;          // LF framing: bytes after pos_ known to hold no LF
  bool eof_ = false;
  size_t skipped_total_ = 0;
};

}  // namespace logsift
