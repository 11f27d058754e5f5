#include "service/net/syslog.h"

#include <cstring>

#include "pipeline/core/text.h"

namespace logsift {

namespace {
using text::is_digit;
constexpr size_t kMaxCountDigits = 10;
}  // namespace

// ===========================================================================
// SyslogFramer.

SyslogFramer::SyslogFramer(size_t max_frame_bytes) : max_frame_(max_frame_bytes == 0 ? 1 : max_frame_bytes) {}

void SyslogFramer::feed(std::string_view chunk) {
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  // Bytes being skipped are never stored.
  if (discard_ > 0) {
    size_t n = std::min(discard_, chunk.size());
    discard_ -= n;
    skipped_total_ += n;
    chunk.remove_prefix(n);
  }
  if (discard_to_lf_ && !chunk.empty()) {
    const void* lf = std::memchr(chunk.data(), '\n', chunk.size());
    size_t n = lf ? static_cast<size_t>(static_cast<const char*>(lf) - chunk.data()) + 1 : chunk.size();
    skipped_total_ += n;
    chunk.remove_prefix(n);
    if (lf) discard_to_lf_ = false;
  }
  buf_.append(chunk.data(), chunk.size());
}

void SyslogFramer::finish() { eof_ = true; }

bool SyslogFramer::error(SyslogFrameEvent* ev, std::string msg, size_t skipped) {
  ev->kind = SyslogFrameEvent::Kind::kError;
  ev->frame = {};
  ev->error = std::move(msg);
  ev->skipped = skipped;
  return true;
}

bool SyslogFramer::next(SyslogFrameEvent* ev) {
  for (;;) {
    // Skipping for an earlier error (bytes that arrived in the same chunk).
    if (discard_ > 0) {
      size_t n = std::min(discard_, buf_.size() - pos_);
      pos_ += n;
      discard_ -= n;
      skipped_total_ += n;
      if (discard_ > 0) return false;
    }
    if (discard_to_lf_) {
      std::string_view rest(buf_.data() + pos_, buf_.size() - pos_);
      size_t lf = rest.find('\n');
      size_t n = lf == std::string_view::npos ? rest.size() : lf + 1;
      pos_ += n;
      skipped_total_ += n;
      if (lf == std::string_view::npos) return false;
      discard_to_lf_ = false;
    }
    std::string_view rest(buf_.data() + pos_, buf_.size() - pos_);
    if (rest.empty()) return false;

    if (framing_ == Framing::kUnknown) {
      // Blank lines before the first frame decide nothing.
      size_t k = 0;
      while (k < rest.size() && (rest[k] == '\n' || rest[k] == '\r')) ++k;
      if (k == rest.size()) {
        pos_ += k;
        return false;
      }
      rest.remove_prefix(k);
      pos_ += k;
      if (!is_digit(rest[0])) {
        framing_ = Framing::kLf;
      } else {
        size_t d = 0;
        while (d < rest.size() && d <= kMaxCountDigits && is_digit(rest[d])) ++d;
        if (d < rest.size() && d <= kMaxCountDigits) {
          framing_ = rest[d] == ' ' ? Framing::kOctetCounting : Framing::kLf;
        } else if (d > kMaxCountDigits) {
          framing_ = Framing::kLf;  // a long number: not a count
        } else if (eof_) {
          framing_ = Framing::kLf;
        } else {
          return false;  // only digits so far: wait for the byte after them
        }
      }
    }

    if (framing_ == Framing::kLf) {
      // lf_scan_: bytes of `rest` already searched (a long line arriving in
      // small chunks is scanned once, not once per chunk).
      size_t lf = rest.find('\n', std::min(lf_scan_, rest.size()));
      if (lf == std::string_view::npos) {
        lf_scan_ = rest.size();
        if (rest.size() > max_frame_) {
          size_t n = rest.size();
          pos_ += n;
          lf_scan_ = 0;
          skipped_total_ += n;
          discard_to_lf_ = !eof_;
          return error(ev,
                       "syslog frame over max_frame_bytes " + std::to_string(max_frame_) + " (no LF after " +
                           std::to_string(n) + " bytes); skipping to the next LF",
                       n);
        }
        if (!eof_) return false;
        pos_ += rest.size();
        lf_scan_ = 0;
        std::string_view line = rest;
        while (!line.empty() && (line.back() == '\r' || line.back() == '\0')) line.remove_suffix(1);
        if (line.empty()) return false;
        ev->kind = SyslogFrameEvent::Kind::kFrame;
        ev->frame = line;
        ev->error.clear();
        ev->skipped = 0;
        return true;
      }
      std::string_view line = rest.substr(0, lf);
      pos_ += lf + 1;
      lf_scan_ = 0;
      if (line.size() > max_frame_) {
        skipped_total_ += lf + 1;
        return error(ev,
                     "syslog frame of " + std::to_string(line.size()) + " bytes over max_frame_bytes " +
                         std::to_string(max_frame_),
                     lf + 1);
      }
      while (!line.empty() && (line.back() == '\r' || line.back() == '\0')) line.remove_suffix(1);
      if (line.empty()) continue;  // blank line
      ev->kind = SyslogFrameEvent::Kind::kFrame;
      ev->frame = line;
      ev->error.clear();
      ev->skipped = 0;
      return true;
    }

    // Octet counting. Separators some senders put between frames.
    size_t k = 0;
    while (k < rest.size() && (rest[k] == '\n' || rest[k] == '\r' || rest[k] == '\0')) ++k;
    if (k) {
      pos_ += k;
      continue;
    }
    size_t d = 0;
    while (d < rest.size() && d <= kMaxCountDigits && is_digit(rest[d])) ++d;
    bool complete_header = d < rest.size() && d <= kMaxCountDigits;
    if (!complete_header && d == rest.size() && d <= kMaxCountDigits && !eof_) return false;  // need more
    if (d == 0 || !complete_header || rest[d] != ' ' || rest[0] == '0') {
      std::string shown;
      for (size_t i = 0; i < rest.size() && i < 16; ++i) {
        unsigned char c = static_cast<unsigned char>(rest[i]);
        shown += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
      }
      // Skip to the next LF (this call's bytes; the rest as they come).
      size_t lf = rest.find('\n');
      size_t n = lf == std::string_view::npos ? rest.size() : lf + 1;
      pos_ += n;
      skipped_total_ += n;
      discard_to_lf_ = lf == std::string_view::npos && !eof_;
      return error(ev,
                   "malformed octet count at \"" + shown +
                       "\" (expected 1-10 digits, no leading zero, then a "
                       "space); skipping to the next LF",
                   n);
    }
    uint64_t count = 0;
    for (size_t i = 0; i < d; ++i) count = count * 10 + static_cast<uint64_t>(rest[i] - '0');
    size_t header = d + 1;
    if (count > max_frame_) {
      pos_ += header;
      skipped_total_ += header;
      discard_ = static_cast<size_t>(count);
      std::string msg = "syslog frame of " + std::to_string(count) + " bytes (octet count) over max_frame_bytes " +
                        std::to_string(max_frame_) + "; skipping it";
      return error(ev, std::move(msg), static_cast<size_t>(count));
    }
    if (rest.size() - header < count) {
      if (!eof_) return false;
      size_t n = rest.size();
      pos_ += n;
      skipped_total_ += n;
      return error(ev,
                   "connection closed inside a frame: octet count " + std::to_string(count) + ", got " +
                       std::to_string(n - header) + " bytes",
                   n);
    }
    std::string_view frame = rest.substr(header, static_cast<size_t>(count));
    pos_ += header + static_cast<size_t>(count);
    ev->kind = SyslogFrameEvent::Kind::kFrame;
    ev->frame = frame;
    ev->error.clear();
    ev->skipped = 0;
    return true;
  }
}

}  // namespace logsift
