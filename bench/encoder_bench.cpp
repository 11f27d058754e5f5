// Sentence-encoder throughput (goal: >= 20k templates/s on one core
// at batch 256) for the shipped log-encoder-v1, at batch 1, 32 and 256, one
// thread, native pass and TorchScript forward; plus canonical_template.
//   build/encoder_bench --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "models/sentence_encoder.h"
#include "models/torch_runtime.h"
#include "pipeline/stages/encoder_text.h"

namespace {

// Templates as the denoiser emits them (short and long, with wildcards).
const std::vector<std::string>& templates() {
  static const std::vector<std::string> t = [] {
    std::vector<std::string> base = {
        "PacketResponder <*> for block <*> terminating",
        "com.amazonaws.SdkClientException: Unable to execute HTTP request: <*>: Temporary failure in name resolution",
        "Failed password for invalid user <*> from <*> port <*> ssh2",
        "pam_unix(sshd:auth): authentication failure; logname= uid=<*> euid=<*> tty=ssh ruser= rhost=<*> user=root",
        "<*> INFO <*> --- [<*>] c.c.f.Channel : Email to <*> queued",
        "BLOCK* NameSystem.addStoredBlock: blockMap updated: <*> is added to <*> size <*>",
        "Caused by: java.net.ConnectException: Connection refused (Connection refused)",
        "level=warn ts=<*> caller=host.go:<*> msg=\"webhook dispatched\" count=<*> latency_ms=<*>",
        "Volume <*> detached from instance <*>",
        "Received disconnect from <*>: <*>: Bye Bye [preauth]",
        "Starting backup of volume <*>",
        "<*> - <*> [<*>] \"GET <*> HTTP/1.1\" <*> <*> \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\"",
    };
    std::vector<std::string> out;
    for (int i = 0; i < 256; ++i) out.push_back(base[i % base.size()] + (i >= 12 ? " v" + std::to_string(i) : ""));
    return out;
  }();
  return t;
}

// range(0): batch; range(1): 1 = the native pass (the default), 0 = the
// module's TorchScript forward (encoder_runtime: torchscript).
void BM_EncoderBuiltin(benchmark::State& st) {
  logsift::models::configure_torch_threads(1);
  static auto native = logsift::models::load_torchscript_encoder({"builtin", "", 0, true});
  static auto torch = logsift::models::load_torchscript_encoder({"builtin", "", 0, false});
  auto& enc = st.range(1) ? native : torch;
  const size_t batch = static_cast<size_t>(st.range(0));
  std::vector<std::string> canon;
  for (size_t i = 0; i < batch; ++i) canon.push_back(logsift::canonical_template(templates()[i % templates().size()]));
  std::vector<std::string_view> views(canon.begin(), canon.end());
  std::vector<float> out(batch * static_cast<size_t>(enc->dim()));
  for (auto _ : st) {
    enc->encode(views, out);
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * batch));
  st.counters["templates_per_s"] =
      benchmark::Counter(static_cast<double>(st.iterations() * batch), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EncoderBuiltin)->ArgsProduct({{1, 32, 256}, {1, 0}})->ArgNames({"batch", "native"})->UseRealTime();

void BM_CanonicalTemplate(benchmark::State& st) {
  size_t i = 0;
  for (auto _ : st) {
    auto s = logsift::canonical_template(templates()[i++ % templates().size()]);
    benchmark::DoNotOptimize(s.data());
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_CanonicalTemplate);

}  // namespace

BENCHMARK_MAIN();
