#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan + fuzzer coverage on the
# parser sources only: no libtorch) and runs each for SECONDS on its seed
# corpus (tests/fuzz/corpus/<target>, plus tests/data/ingest for the ingest
# target). New inputs go to a scratch copy, not into the repo. A crash fails
# the run and leaves crash-* files in OUT.
#
# Usage: tests/fuzz/run.sh OUT_DIR [SECONDS] [RUNS]
#   SECONDS  per target (default 30); RUNS > 0 caps executions instead.
#   FUZZ_TARGETS="fuzz_a fuzz_b" runs only those (all are built).
#   FUZZ_TIMEOUT seconds one input may take (default 10; a niced long run
#   beside a build needs more: starved of CPU, a fast input still times out).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: $0 OUT_DIR [SECONDS] [RUNS]}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"  # absolute: the targets run inside it
secs="${2:-30}"
runs="${3:-0}"
mkdir -p "$out/gen"
CXX="${FUZZ_CXX:-clang++}"
flags=(-std=c++20 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
       -I"$root" -I"$out/gen" -include utility)
protoc --cpp_out="$out/gen" -I"$root/service/api/proto" "$root/service/api/proto/loki_push.proto" \
  "$root/service/api/proto/otlp_logs.proto"
common=("$root"/pipeline/ingest/*.cpp "$root/pipeline/core/text.cpp" "$root/pipeline/core/time.cpp" "$root/pipeline/core/severity.cpp"
        "$root/pipeline/core/metrics.cpp" "$root/pipeline/core/memory.cpp")
build() {  # NAME SOURCES... -- LIBS...
  local name=$1; shift
  # Rebuilt when run.sh or any parser/pipeline-core/config source is newer than the binary.
  if [[ -x "$out/$name" && -z "${FUZZ_REBUILD:-}" && "$out/$name" -nt "$here/run.sh" ]] &&
     [[ -z "$(find "$root/service/net" "$root/service/api" "$root/service/alerts" "$root/pipeline/core" "$root/pipeline/ingest" "$root/pipeline/stages" "$root/pipeline/store" "$root/pipeline/eval" "$root/config" "$here" \
                -newer "$out/$name" \( -name '*.cpp' -o -name '*.h' -o -name '*.proto' -o -name '*.jsonc' \) -print -quit)" ]]; then
    return 0
  fi
  echo "building $name" >&2
  "$CXX" "${flags[@]}" "$@" -o "$out/$name"
}
# The embedded default config, generated as CMake does (cmake/default_config.cmake).
cmake -DIN="$root/config/logsift.jsonc" -DTEMPLATE="$root/config/default_config.cpp.in" \
  -DOUT="$out/gen/default_config.cpp" -P "$root/cmake/default_config.cmake"
# Without core/time.cpp: the targets that link "${common[@]}" have it there.
config=("$root/config/config.cpp" "$root/config/cidr.cpp" "$root/config/redis_url.cpp" "$out/gen/default_config.cpp")
build fuzz_syslog "$here/fuzz_syslog.cpp" "$root/service/net/syslog.cpp" "${common[@]}" -lre2
build fuzz_structured "$here/fuzz_structured.cpp" "$root/pipeline/core/params.cpp" "${common[@]}" -lre2
build fuzz_ingest "$here/fuzz_ingest.cpp" "$root/service/api/loki.cpp" "$root/service/api/otlp.cpp" \
  "$root/service/api/bulk.cpp" "$out/gen/loki_push.pb.cc" "$out/gen/otlp_logs.pb.cc" "${common[@]}" \
  -lprotobuf -lsnappy -lre2 -lpthread
build fuzz_envelope "$here/fuzz_envelope.cpp" "${common[@]}" "${config[@]}" -lre2
build fuzz_webhook "$here/fuzz_webhook.cpp" "$root/service/alerts/webhook_url.cpp" "$root/pipeline/core/time.cpp" \
  "$root/pipeline/core/text.cpp" -lre2
build fuzz_config "$here/fuzz_config.cpp" "${config[@]}" "$root/pipeline/core/time.cpp" "$root/pipeline/core/text.cpp" -lre2
build fuzz_redis_url "$here/fuzz_redis_url.cpp" "$root/config/redis_url.cpp"
build fuzz_counts "$here/fuzz_counts.cpp" "$root/pipeline/store/redis_windows_codec.cpp" "$root/lsh/lsh.cpp"
build fuzz_eval "$here/fuzz_eval.cpp" "$root/pipeline/eval/eval.cpp" "$root/pipeline/eval/csv.cpp" "$root/pipeline/eval/curate.cpp" \
  "$root/pipeline/stages/suggest.cpp" "$root/pipeline/stages/bank_miner.cpp" "$root/pipeline/stages/format_bank.cpp" "$root/lsh/lsh.cpp" \
  "$root/pipeline/store/curation.cpp" "$root/pipeline/core/time.cpp" "$root/pipeline/core/params.cpp" \
  "$root/pipeline/core/wildcards.cpp" -lre2 -lxxhash
build fuzz_slots "$here/fuzz_slots.cpp" "$root/pipeline/stages/slots.cpp" "$root/pipeline/stages/tokenizer.cpp" \
  "$root/pipeline/stages/premask_lexer.cpp" "${common[@]}" "${config[@]}" -lre2
build fuzz_premask "$here/fuzz_premask.cpp" "$root/pipeline/stages/tokenizer.cpp" "$root/pipeline/stages/premask_lexer.cpp" \
  "${common[@]}" "${config[@]}" -lre2
build fuzz_multiline "$here/fuzz_multiline.cpp" "$root/pipeline/stages/trace.cpp" "$root/pipeline/stages/tokenizer.cpp" \
  "$root/pipeline/stages/premask_lexer.cpp" "$root/lsh/lsh.cpp" "${common[@]}" "${config[@]}" -lre2
build fuzz_tls "$here/fuzz_tls.cpp" "$root/service/net/tls.cpp" "${config[@]}" "$root/pipeline/core/time.cpp" \
  "$root/pipeline/core/text.cpp" -DSPDLOG_FMT_EXTERNAL -DSPDLOG_COMPILED_LIB -lspdlog -lfmt -lssl -lcrypto -lre2
build fuzz_format_bank "$here/fuzz_format_bank.cpp" "$root/pipeline/stages/format_bank.cpp" "$root/lsh/lsh.cpp"
build fuzz_bank_miner "$here/fuzz_bank_miner.cpp" "$root/pipeline/stages/bank_miner.cpp" \
  "$root/pipeline/stages/format_bank.cpp" "$root/lsh/lsh.cpp"

status=0
for t in ${FUZZ_TARGETS:-fuzz_syslog fuzz_structured fuzz_ingest fuzz_envelope fuzz_webhook fuzz_config fuzz_redis_url fuzz_counts fuzz_slots fuzz_eval fuzz_format_bank fuzz_bank_miner fuzz_multiline fuzz_tls fuzz_premask}; do
  work="$out/corpus-$t"
  mkdir -p "$work"
  cp -n "$here/corpus/$t"/* "$work/" 2>/dev/null || true
  if [[ $t == fuzz_ingest ]]; then  # the real clients' bodies, behind each parser's selector byte
    i=0
    for f in "$root"/tests/data/ingest/{loki,otlp,bulk}/*.body; do
      case "$f" in
        *loki*json*) sel='\x00' ;; *loki*) sel='\x01' ;; *otlp-http*) sel='\x02' ;; *otlp*) sel='\x03' ;; *) sel='\x04' ;;
      esac
      { printf "$sel"; cat "$f"; } > "$work/seed-$((i++))"
    done
  fi
  if [[ $t == fuzz_syslog ]]; then
    for f in "$root"/tests/data/ingest/syslog/*.bin; do { printf '\x10'; cat "$f"; } > "$work/seed-$(basename "$f")"; done
  fi
  limit=(-max_total_time="$secs")
  [[ $runs -gt 0 ]] && limit=(-runs="$runs")
  echo "== $t (${limit[*]})" >&2
  if ! (cd "$out" && "./$t" "${limit[@]}" -max_len=65536 -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 "$work" \
        > "$out/$t.log" 2>&1); then
    echo "FUZZ FAILURE in $t: see $out/$t.log and $out/crash-*" >&2
    tail -40 "$out/$t.log" >&2
    status=1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$out/$t.log" | sed "s/^/$t /" >&2 || true
done
exit $status
