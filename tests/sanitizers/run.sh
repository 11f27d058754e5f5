#!/usr/bin/env bash
# The sanitizer runs of the test suite (docker/setup.sh test runs both after
# the release suite):
#   asan  ASan + UBSan build of the server and the unit tests (leak checking
#         on): every unit test, and every integration test of the release
#         build run against the sanitized server (LOGSIFT_TEST_BINARY).
#   tsan  ThreadSanitizer build of the pipeline/mailbox, delivery and shared
#         store tests (concurrency_tests: tests/pipeline/pipeline_test.cpp,
#         tests/service/alerts/{delivery,webhook_client,redis_alert_store}_test.cpp,
#         tests/pipeline/store/redis_windows_test.cpp).
# Every sanitizer report goes to a file (log_path) as well as failing its
# process; the run fails if any report was written, even by a process whose
# exit status no test looks at, and prints them.
#
# Usage: tests/sanitizers/run.sh asan|tsan|all
#   needs the release build (LOGSIFT_BUILD_DIR, default build/) for asan.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
what="${1:-all}"
release="${LOGSIFT_BUILD_DIR:-$root/build}"
asan_dir="${LOGSIFT_ASAN_BUILD_DIR:-$root/build-asan}"
tsan_dir="${LOGSIFT_TSAN_BUILD_DIR:-$root/build-tsan}"
jobs="${LOGSIFT_BUILD_JOBS:-2}"
reports="$(mktemp -d /tmp/logsift-sanitizer-reports.XXXXXX)"
mkdir -p "$reports/shown"
status=0
# Wall time of each step (build, unit, integration, per sanitizer), printed at the end.
steps=()
step_start=$SECONDS
step_done() {  # NAME
  steps+=("$1 $((SECONDS - step_start)) s")
  step_start=$SECONDS
}

check_reports() {  # NAME
  if compgen -G "$reports/*san.*" >/dev/null; then
    echo "$1: sanitizer reports:" >&2
    for f in "$reports"/*san.*; do
      echo "=== $f" >&2
      head -c 20000 "$f" >&2
      mv "$f" "$reports/shown/"  # printed once
    done
    status=1
  else
    echo "$1: no sanitizer reports" >&2
  fi
}

run_asan() {
  # Unit tests in gtest shards: a process under ASan takes ~3 s just to load libtorch.
  cmake -S "$root" -B "$asan_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOGSIFT_SANITIZE=address,undefined \
    -DLOGSIFT_UNIT_SHARDS="${LOGSIFT_UNIT_SHARDS:-4}" >/dev/null
  # Discovery runs the test binary at build time: sanitizer options apply there too.
  # intercept_tls_get_addr=0: gcc 12's libasan guesses the size of a dlopen'd
  # library's TLS block from the 16 bytes before it when the block starts at
  # page offset 0x10; under ASan those are its own chunk header, so LSan scans
  # a garbage range at exit and dies ("Tracer caught signal 11", exit 1), in
  # about 1 process of 40 that loaded libtorch. The blocks stay ordinary heap
  # chunks reachable from glibc's dtv, so leak checking is unchanged.
  export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:strict_init_order=1:detect_stack_use_after_return=1:intercept_tls_get_addr=0:log_path=$reports/asan"
  export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan"
  cmake --build "$asan_dir" -j "$jobs" --target logsift unit_tests
  step_done asan-build
  (cd "$asan_dir" && ctest -L unit -j 2 --output-on-failure --timeout 300) || status=1
  step_done asan-unit
  check_reports asan-unit  # now, so a run cut short later still shows them
  [[ -x "$release/integration_tests" ]] || cmake --build "$release" -j "$jobs" --target integration_tests
  (cd "$release" && LOGSIFT_TEST_BINARY="$asan_dir/logsift" LOGSIFT_TEST_SANITIZER=asan \
     ctest -L integration -j 2 --output-on-failure --timeout 300) || status=1
  step_done asan-integration
  check_reports asan
  unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
}

run_tsan() {
  cmake -S "$root" -B "$tsan_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOGSIFT_SANITIZE=thread >/dev/null
  cmake --build "$tsan_dir" -j "$jobs" --target concurrency_tests
  step_done tsan-build
  TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$here/tsan.supp:log_path=$reports/tsan" \
    "$tsan_dir/concurrency_tests" || status=1
  step_done tsan-run
  check_reports tsan
}

case "$what" in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all) run_asan; run_tsan ;;
  *) echo "usage: $0 asan|tsan|all" >&2; exit 2 ;;
esac
rm -rf "$reports"
echo "sanitizers: $(IFS=,; echo "${steps[*]}" | sed 's/,/, /g')" >&2
exit $status
