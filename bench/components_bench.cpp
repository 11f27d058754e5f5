// Per-component costs (Google Benchmark): premask+tokenize per line, template
// render, stand-in encoder per template, LSH per vector.
//   build/components_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cmath>

#include "config/config.h"
#include "lsh/lsh.h"
#include "models/sentence_encoder.h"
#include "pipeline/stages/tokenizer.h"

namespace {

const std::vector<std::string>& lines() {
  static const std::vector<std::string> l = {
      "PacketResponder 1 for block blk_38865049064139660 terminating",
      "com.amazonaws.SdkClientException: Unable to execute HTTP request: a231d9e5-c804-4beb-a5cc-ca0d10868d22",
      "163.137.249.97 - jose [01/May/2023:13:19:12 -0700] \"PATCH /events?sort=index HTTP/1.1\" 200 26",
      "Jul 26 20:36:34 web-06 payments-svc[32636]: Volume vol-6ae340454cac5b68c detached from instance i-610435a1098ae4334",
      "level=warn ts=1551826296.275 caller=host.go:99 msg=\"webhook dispatched\" count=73 latency_ms=0.8",
      "pam_unix(sshd:auth): authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost=173.234.31.186",
  };
  return l;
}

void BM_PremaskTokenize(benchmark::State& st) {
  logsift::Premasker pm(logsift::Config::defaults().premask);
  std::vector<logsift::Token> toks;
  size_t i = 0;
  for (auto _ : st) {
    const auto& line = lines()[i++ % lines().size()];
    logsift::tokenize(line, pm.find(line), &toks);
    benchmark::DoNotOptimize(toks.data());
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_PremaskTokenize);

void BM_HashedEncoder(benchmark::State& st) {
  auto enc = logsift::models::make_hashed_feature_encoder(256);
  std::vector<std::string_view> t = {"Connection from <*> port <*> closed by <*> [preauth]"};
  std::vector<float> out(256);
  for (auto _ : st) {
    enc->encode(t, out);
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_HashedEncoder);

void BM_Lsh(benchmark::State& st) {
  const int dim = static_cast<int>(st.range(0));
  logsift::lsh::HyperplaneLsh l(dim, 64, 1337);
  std::vector<float> v(dim);
  for (int i = 0; i < dim; ++i) v[i] = std::sin(static_cast<float>(i));
  for (auto _ : st) benchmark::DoNotOptimize(l.cluster_id(v));
  st.SetItemsProcessed(st.iterations());
}
BENCHMARK(BM_Lsh)->Arg(128)->Arg(256)->Arg(384);

}  // namespace

BENCHMARK_MAIN();
