// The state stage's cost a line as a function of its group commit's size:
// the one single-threaded stage of the pipeline, fed groups of G lines of a
// real stream (cluster ids and templates as `logsift cluster` gave them, in
// stream order) against a real SQLite catalog. Each group is one batch
// pushed after the previous finished, so G is exactly the lines per commit;
// the figure is the state thread's CPU time (/proc, its own) per line on a
// second pass (every cluster known, its examples stored: a seen line).
//
// The group grows with the offered load (it is whatever arrived during the
// previous commit), so this says how the stage's ceiling moves as cores are
// added: at N times the load, groups are about N times larger.
//
//   build/logsift cluster real200k.txt > ids.jsonl
//   build/state_group_bench ids.jsonl [G ...]     (default G: 256 1024 4096 16384 65536)
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "lsh/lsh.h"
#include "pipeline/stages/state_stage.h"
#include "pipeline/store/catalog.h"

namespace {

using namespace logsift;

// utime + stime of this process's thread named `name`, in clock ticks.
long thread_ticks(const std::string& name) {
  for (const auto& t : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(t.path() / "comm");
    std::string c;
    std::getline(comm, c);
    if (c != name) continue;
    std::ifstream stat(t.path() / "stat");
    std::string s((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    std::istringstream rest(s.substr(s.rfind(')') + 2));
    std::string f;
    long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> f; ++i) {
      if (i == 14) utime = std::stol(f);
      if (i == 15) stime = std::stol(f);
    }
    return utime + stime;
  }
  return -1;
}

struct Line {
  TemplateRef tmpl;
  std::string text;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: state_group_bench IDS.jsonl [G ...]\n");
    return 2;
  }
  std::vector<Line> lines;
  {
    std::ifstream in(argv[1]);
    std::unordered_map<uint64_t, TemplateRef> templates;
    std::string row;
    while (std::getline(in, row)) {
      auto j = nlohmann::json::parse(row, nullptr, false);
      if (!j.is_object() || !j.contains("cluster_id")) continue;
      uint64_t id = 0;
      if (!lsh::parse_id(j["cluster_id"].get<std::string>(), &id)) continue;
      auto& t = templates[id];
      if (!t) t = std::make_shared<TemplateInfo>(TemplateInfo{j.value("template", ""), id, id});
      lines.push_back({t, j.value("template", "")});
    }
  }
  std::vector<size_t> sizes;
  for (int i = 2; i < argc; ++i) sizes.push_back(std::stoul(argv[i]));
  if (sizes.empty()) sizes = {256, 1024, 4096, 16384, 65536};
  std::printf("# %zu lines of %s\n", lines.size(), argv[1]);
  const Config config = Config::defaults();
  for (size_t g : sizes) {
    const auto dir = std::filesystem::temp_directory_path() / ("logsift-state-bench-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    long ticks = 0, groups = 0;
    {
      SqliteCatalog catalog(dir.string(), config.catalog_examples);
      StateStage state(config, &catalog, nullptr, [](std::vector<AlertEvent>&&) {});
      std::mutex mu;
      std::condition_variable cv;
      size_t done = 0;
      state.set_sink([&](std::unique_ptr<Batch>) {
        std::lock_guard lock(mu);
        ++done;
        cv.notify_all();
      });
      state.start();
      auto pass = [&] {
        for (size_t at = 0; at < lines.size(); at += g) {
          auto b = std::make_unique<Batch>();
          const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch()).count();
          for (size_t i = at; i < std::min(lines.size(), at + g); ++i) {
            Record r;
            r.text = lines[i].text;
            r.received_ms = now;
            r.set_template(lines[i].tmpl);
            b->records.push_back(std::move(r));
          }
          size_t want;
          {
            std::lock_guard lock(mu);
            want = done + 1;
          }
          state.push(b);
          std::unique_lock lock(mu);
          cv.wait(lock, [&] { return done >= want; });
          ++groups;
        }
      };
      pass();  // first sight: clusters created, examples stored
      groups = 0;
      const long t0 = thread_ticks("ls-state");
      pass();
      ticks = thread_ticks("ls-state") - t0;
      state.stop();
    }
    std::filesystem::remove_all(dir);
    const double us = static_cast<double>(ticks) * 1e6 / static_cast<double>(sysconf(_SC_CLK_TCK)) /
                      static_cast<double>(lines.size());
    std::printf("RESULT lines_per_group=%zu groups=%ld state_cpu_us_per_line=%.3f ceiling_lines_per_s=%.0f\n", g,
                groups, us, us > 0 ? 1e6 / us : 0.0);
    std::fflush(stdout);
  }
  return 0;
}
