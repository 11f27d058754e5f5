// Splits a byte stream into '\n'-terminated lines across reads, with a bound
// on line length: the TCP listener's line reader (fuzzed by
// tests/fuzz/fuzz_envelope.cpp in random read sizes).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace logsift {

class LineFramer {
 public:
  explicit LineFramer(size_t max_line_bytes) : limit_(max_line_bytes) {}

  // Feeds one read. Every complete line (without its '\n') goes to
  // on_line(line, in_chunk): in_chunk means `line` points into `chunk`;
  // otherwise (a line cut across reads) it points into the framer's own
  // buffer and is valid only during the call. A line longer than
  // max_line_bytes (+1 for a '\r' before the '\n') calls on_too_long() once
  // and the rest of it is skipped. Returns the number of complete lines
  // (over-long ones not counted).
  template <typename OnLine, typename OnTooLong>
  size_t feed(std::string_view chunk, OnLine&& on_line, OnTooLong&& on_too_long) {
    size_t lines = 0;
    while (!chunk.empty()) {
      const size_t nl = chunk.find('\n');
      const bool complete = nl != std::string_view::npos;
      const std::string_view piece = chunk.substr(0, nl);
      chunk.remove_prefix(complete ? nl + 1 : chunk.size());
      if (discarding_) {  // the rest of an over-long line: already reported
        if (complete) discarding_ = false;
        continue;
      }
      if (partial_.size() + piece.size() > limit_ + 1) {
        on_too_long();
        partial_.clear();
        discarding_ = !complete;
        continue;
      }
      if (!complete) {
        partial_.append(piece);
        break;
      }
      ++lines;
      if (partial_.empty()) {
        on_line(piece, true);
      } else {
        partial_.append(piece);
        on_line(std::string_view(partial_), false);
        partial_.clear();
      }
    }
    return lines;
  }

  // At end of stream: an unterminated last line is still a line.
  std::optional<std::string> finish() {
    if (partial_.empty() || discarding_) return std::nullopt;
    std::string last = std::move(partial_);
    partial_.clear();
    return last;
  }

 private:
  size_t limit_;
  std::string partial_;
  bool discarding_ = false;
};

}  // namespace logsift
