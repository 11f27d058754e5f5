// logsift cluster: clusters lines from a file or stdin, one JSON result per line, in order.
#include <sys/resource.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "pipeline/ingest/envelope.h"
#include "pipeline/ingest/multiline.h"
#include "pipeline/pipeline.h"
#include "pipeline/reply_json.h"
#include "service/cli/cli.h"

namespace logsift::cli {
namespace {

using nlohmann::json;

double process_cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Reads the input in large chunks (one batch per chunk, lines are views into
// it), clusters on the pipeline's analysis threads and writes the results in
// input order from a writer thread (batches can finish out of order: a batch
// with new templates waits for the models, one of seen lines does not).
int cmd_cluster(const Args& a) {
  std::FILE* in = stdin;
  std::string path = a.positional.empty() ? "-" : a.positional[0];
  if (path != "-") {
    in = std::fopen(path.c_str(), "rb");
    if (!in) {
      std::cerr << "logsift cluster: cannot read " << path << "\n";
      return 2;
    }
  }
  logsift::Pipeline pipeline(a.config, nullptr);
  // After the models are loaded: the figure a running service has, and what
  // a peer's benchmark loop times (its imports and setup excluded).
  const auto started = std::chrono::steady_clock::now();
  const double cpu_at_start = process_cpu_seconds();
  uint64_t lines = 0;

  std::mutex mu;
  std::condition_variable cv;
  std::map<uint64_t, std::unique_ptr<logsift::Batch>> done;  // finished, not yet written
  uint64_t submitted = 0, written = 0;
  bool reading = true;
  // Bounds the batches between reader and writer (a slow early batch must not
  // let later finished ones pile up).
  const uint64_t window = 2 * static_cast<uint64_t>(a.config.mailbox_capacity);

  std::thread writer([&] {
    std::string out;
    std::unique_lock lock(mu);
    while (true) {
      cv.wait(lock, [&] { return done.count(written) || (!reading && written == submitted); });
      if (!done.count(written)) break;
      auto b = std::move(done[written]);
      done.erase(written);
      lock.unlock();
      out.clear();
      for (const auto& r : b->records) logsift::append_line_results(r, false, &out);
      std::fwrite(out.data(), 1, out.size(), stdout);
      b.reset();
      lock.lock();
      ++written;
      cv.notify_all();
    }
  });

  constexpr size_t kChunk = 1 << 19;
  std::string carry;  // a line split across two chunks
  bool eof = false;
  // The file is one source: the lines of a stack trace become one event
  // (pipeline/ingest/multiline.h), and each of them prints the event's result.
  logsift::EventAssembler events(a.config);
  while (!eof) {
    std::string buf(kChunk, '\0');
    size_t n = std::fread(buf.data(), 1, buf.size(), in);
    buf.resize(n);
    eof = n == 0;
    auto batch = std::make_unique<logsift::Batch>();
    std::string_view chunk = batch->adopt(std::move(buf));
    auto add = [&](std::string_view line) {
      ++lines;
      events.add_line(line, 0, *batch);
    };
    while (!chunk.empty()) {
      auto nl = chunk.find('\n');
      if (nl == std::string_view::npos) {
        carry.append(chunk);
        break;
      }
      if (carry.empty()) {
        add(chunk.substr(0, nl));
      } else {
        carry.append(chunk.substr(0, nl));
        add(batch->keep(carry));
        carry.clear();
      }
      chunk.remove_prefix(nl + 1);
    }
    if (eof && !carry.empty()) add(batch->keep(carry));  // a last line without '\n'
    if (eof) events.flush(*batch);
    events.detach();  // the open event waits for the next chunk, out of this one's buffer
    if (batch->records.empty()) continue;
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return submitted - written < window; });
    }
    const uint64_t seq = submitted++;
    batch->on_done = [&, seq](std::unique_ptr<logsift::Batch> b) {
      std::lock_guard lock(mu);
      done[seq] = std::move(b);
      cv.notify_all();
    };
    if (!pipeline.submit(batch)) break;
  }
  if (in != stdin) std::fclose(in);
  pipeline.stop();
  {
    std::lock_guard lock(mu);
    reading = false;
    cv.notify_all();
  }
  writer.join();
  std::fflush(stdout);
  if (a.has("stats")) {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double cpu = process_cpu_seconds() - cpu_at_start;
    auto st = pipeline.stats();
    st["run"] = {{"lines", lines},
                 {"seconds", secs},
                 {"lines_per_s", secs > 0 ? lines / secs : 0.0},
                 {"cpu_seconds", cpu},
                 {"cores", secs > 0 ? cpu / secs : 0.0}};
    std::cerr << st.dump() << "\n";
  }
  return 0;
}

}  // namespace

const Command kCluster = {"cluster", "cluster lines from a file or stdin, one JSON result per line",
    "usage: logsift cluster [FILE|-] [--stats] [--config FILE] [--KEY VALUE]...\n"
                 "\nClusters each input line (a plain line or a JSON envelope) and prints one JSON object\n"
                 "per line, in input order: {\"cluster_id\",\"template_id\",\"template\"} or {\"error\"}.\n"
                 "--stats prints cache and model counters as JSON on stderr at the end, and under \"run\"\n"
                 "the lines, seconds, lines/s, CPU seconds and cores from after the models are loaded to the\n"
                 "last result.\n",
    true, {"json", "stats"}, {}, &cmd_cluster};

}  // namespace logsift::cli
