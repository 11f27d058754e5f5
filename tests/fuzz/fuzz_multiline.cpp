// The multi-line assembler and the trace identity on any sequence of lines:
// the input's lines fed one by one, in reads of sizes the input chooses (an
// open event waits across reads, as on a TCP connection), with small bounds
// so cuts happen. Invariants: every line is answered by exactly one record,
// in order; no record stands for more lines than multiline_max_lines or
// holds more bytes than multiline_max_bytes (plus its line ends); the
// identity of every record's text is computed without a fault, and is the
// same for the same text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "pipeline/core/record.h"
#include "pipeline/ingest/multiline.h"
#include "pipeline/stages/tokenizer.h"
#include "pipeline/stages/trace.h"
#include "tests/fuzz/fuzz_lines.h"

namespace {

const logsift::Config& config() {
  static const logsift::Config c = [] {
    logsift::Config c = logsift::Config::defaults();
    c.max_line_bytes = 512;
    c.multiline_max_lines = 8;
    c.multiline_max_bytes = 512;
    return c;
  }();
  return c;
}

const logsift::Premasker& premask() {
  static const logsift::Premasker p(config().premask);
  return p;
}

// The invariant that failed, by line, in the crash report.
#define check(ok)                                                          \
  do {                                                                     \
    if (!(ok)) {                                                           \
      std::fprintf(stderr, "fuzz_multiline: %s failed (line %d)\n", #ok, __LINE__); \
      std::abort();                                                        \
    }                                                                      \
  } while (0)

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> lines = logsift_fuzz::split_lines(in);
  const logsift::Config& c = config();
  logsift::EventAssembler events(c);
  std::deque<logsift::Batch> batches;  // each read's batch, kept to check its records
  size_t pos = 0, answered = 0;
  while (pos < lines.size()) {
    // Lines per read from the input itself: 1..8.
    const size_t n = 1 + (lines[pos].empty() ? 0 : static_cast<unsigned char>(lines[pos][0]) % 8);
    logsift::Batch& b = batches.emplace_back();
    for (size_t k = 0; k < n && pos < lines.size(); ++k, ++pos) events.add_line(b.keep(lines[pos]), 0, b);
    if (pos == lines.size()) events.flush(b);
    events.detach();
    check(events.open_bytes() <= static_cast<size_t>(c.multiline_max_bytes) + 8 * 512);
  }
  for (const auto& b : batches)
    for (const auto& r : b.records) {
      check(r.lines >= 1 && r.lines <= static_cast<uint32_t>(c.multiline_max_lines));
      answered += r.lines;
      if (!r.ok()) continue;
      check(r.text.size() <= static_cast<size_t>(c.multiline_max_bytes) + 2 * static_cast<size_t>(c.max_line_bytes));
      const logsift::TraceIdentity a = logsift::trace_identity(r.text, premask());
      const logsift::TraceIdentity again = logsift::trace_identity(std::string(r.text), premask());
      check(a.fingerprint == again.fingerprint && a.summary == again.summary && a.trace == again.trace);
    }
  check(answered == lines.size());
  return 0;
}
