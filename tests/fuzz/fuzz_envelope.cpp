// The envelope of what clients send, by the first byte:
//   0: a TCP byte stream cut into random read sizes (LineFramer, with a small
//      max_line_bytes so over-long lines and lines cut across reads both
//      happen), then record_from_line and apply_structured on every line;
//   1: a POST /inferences NDJSON body; 2: a POST /inferences JSON body.
// Invariants: every line the framer hands out is within the bound (+1 for a
// '\r'), has no '\n', and its record's text points into storage the batch
// owns or is a rejection; a line read with the SAX parser gives the text,
// labels and error the tree reading gives (the ids depend on it).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config/config.h"
#include "pipeline/core/line_framer.h"
#include "pipeline/ingest/envelope.h"

namespace {

const logsift::Config& config() {
  static const logsift::Config c = [] {
    logsift::Config c = logsift::Config::defaults();
    c.max_line_bytes = 512;
    c.max_lines_per_request = 64;
    return c;
  }();
  return c;
}

void same_as_tree(std::string_view line, const logsift::Config& c) {
  logsift::Batch batch;
  logsift::Record fast, tree;
  auto a = logsift::record_from_envelope(line, c, batch, &fast);
  auto b = logsift::record_from_envelope_tree(line, c, batch, &tree);
  if (a.has_value() != b.has_value() || fast.text != tree.text || fast.labels != tree.labels) __builtin_trap();
  if (a && (a->reason != b->reason || a->message != b->message)) __builtin_trap();
}

void stream(std::string_view in) {
  const logsift::Config& c = config();
  logsift::LineFramer framer(static_cast<size_t>(c.max_line_bytes));
  size_t pos = 0, step = 1;
  while (pos < in.size()) {
    // Read sizes from the input itself: 1..64 bytes.
    step = 1 + (static_cast<unsigned char>(in[pos]) % 64);
    logsift::Batch batch;
    std::string_view chunk = batch.adopt(std::string(in.substr(pos, step)));
    pos += step;
    framer.feed(
        chunk,
        [&](std::string_view line, bool in_chunk) {
          if (line.size() > static_cast<size_t>(c.max_line_bytes) + 1) __builtin_trap();
          if (line.find('\n') != std::string_view::npos) __builtin_trap();
          same_as_tree(line, c);
          logsift::Record& r = batch.records.emplace_back();
          if (auto e = logsift::record_from_line(in_chunk ? line : batch.keep(line), c, batch, &r))
            logsift::reject_record(r, *e);
          else
            logsift::apply_structured(r, c, batch);
        },
        [&] { logsift::reject_record(batch.records.emplace_back(), {logsift::Reject::kLineTooLong, "long"}); });
  }
  if (auto last = framer.finish()) {
    if (last->size() > static_cast<size_t>(c.max_line_bytes) + 1) __builtin_trap();
    logsift::Batch batch;
    logsift::Record& r = batch.records.emplace_back();
    if (auto e = logsift::record_from_line(batch.keep(*last), c, batch, &r)) logsift::reject_record(r, *e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      stream(in);
      break;
    case 1: {
      logsift::Batch batch;
      auto e = logsift::batch_from_ndjson(in, config(), 0, batch);
      if (!e && batch.records.empty()) __builtin_trap();
      if (batch.records.size() > static_cast<size_t>(config().max_lines_per_request)) __builtin_trap();
      break;
    }
    default: {
      logsift::Batch batch;
      bool is_list = false;
      auto e = logsift::batch_from_json(in, config(), 0, batch, &is_list);
      if (!e && batch.records.empty()) __builtin_trap();
      break;
    }
  }
  return 0;
}
