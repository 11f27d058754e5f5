#!/usr/bin/env bash
# Clustering throughput benchmark for logsift.
#
# Usage: bench/cluster_throughput.sh BUILD_DIR [N] [SEED]
#   BUILD_DIR  directory holding the built `logsift` binary
#   N          corpus size in lines (default 200000)
#   SEED       corpus seed (default 42)
#
# Generates a deterministic synthetic corpus (bench/gen_corpus.py), then runs
# `BUILD_DIR/logsift cluster FILE > /dev/null` twice: a cold pass (first run of
# the binary, page cache for the binary/model files possibly cold) and a warm
# pass.  Results go to stdout, one line per pass:
#   lines=N seconds=S lines_per_sec=R max_rss_kb=K pass=cold
#   lines=N seconds=S lines_per_sec=R max_rss_kb=K pass=warm
# Progress notes go to stderr.  Set VERIFY=1 to also check (untimed) that the
# binary prints exactly one output line per input line.
set -euo pipefail

die() { echo "cluster_throughput: error: $*" >&2; exit 1; }

[[ $# -ge 1 && $# -le 3 ]] || die "usage: $0 BUILD_DIR [N] [SEED]"
BUILD_DIR=$1
N=${2:-200000}
SEED=${3:-42}
[[ $N =~ ^[0-9]+$ && $N -gt 0 ]] || die "N must be a positive integer (got '$N')"
[[ $SEED =~ ^[0-9]+$ ]] || die "SEED must be a non-negative integer (got '$SEED')"

BIN=$BUILD_DIR/logsift
[[ -e $BIN ]] || die "binary not found: $BIN (build logsift first, e.g. cmake --build $BUILD_DIR)"
[[ -f $BIN && -x $BIN ]] || die "not an executable file: $BIN"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3
[[ -x $PY ]] || die "$PY not found (Debian's python3 is required to generate the corpus)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/logsift-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CORPUS=$WORK/corpus.txt

echo "generating corpus: N=$N SEED=$SEED" >&2
gen_start=$(date +%s.%N)
"$PY" "$HERE/gen_corpus.py" "$N" "$SEED" --source synthlog > "$CORPUS"
gen_end=$(date +%s.%N)
got=$(wc -l < "$CORPUS")
[[ $got -eq $N ]] || die "corpus has $got lines, expected $N"
echo "corpus: $(wc -c < "$CORPUS") bytes in $(awk -v a="$gen_start" -v b="$gen_end" 'BEGIN{printf "%.2f", b-a}')s" >&2

# run_once PASS: time one clustering run, print the result line.
# Wall time uses date's monotonic-enough nanosecond clock around the run; max
# RSS comes from GNU time when installed, else from wait4() via python.
run_once() {
  local pass=$1 start end rc rss secs
  if [[ -x /usr/bin/time ]]; then
    start=$(date +%s.%N)
    set +e
    /usr/bin/time -f '%M' -o "$WORK/time.txt" "$BIN" cluster "$CORPUS" > /dev/null 2> "$WORK/stderr.txt"
    rc=$?
    set -e
    end=$(date +%s.%N)
    rss=$(tail -n 1 "$WORK/time.txt" 2>/dev/null || echo na)
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.3f", b-a}')
  else
    set +e
    read -r secs rss rc < <("$PY" - "$BIN" "$CORPUS" "$WORK/stderr.txt" <<'EOF'
import os, subprocess, sys, time
binary, corpus, errfile = sys.argv[1:4]
with open(errfile, "wb") as err:
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "cluster", corpus], stdout=subprocess.DEVNULL, stderr=err)
    _, status, ru = os.wait4(p.pid, 0)
    t1 = time.monotonic()
print("%.3f %d %d" % (t1 - t0, ru.ru_maxrss, os.waitstatus_to_exitcode(status)))
EOF
    )
    set -e
  fi
  if [[ ${rc:-1} -ne 0 ]]; then
    echo "cluster_throughput: '$BIN cluster' failed (exit $rc) on pass=$pass; stderr tail:" >&2
    tail -n 20 "$WORK/stderr.txt" >&2 || true
    exit 1
  fi
  awk -v n="$N" -v s="$secs" -v k="$rss" -v p="$pass" \
    'BEGIN{ r = (s > 0) ? n / s : 0; printf "lines=%d seconds=%.3f lines_per_sec=%.0f max_rss_kb=%s pass=%s\n", n, s, r, k, p }'
}

run_once cold
run_once warm

if [[ ${VERIFY:-0} == 1 ]]; then
  out_lines=$("$BIN" cluster "$CORPUS" 2>/dev/null | wc -l)
  [[ $out_lines -eq $N ]] || die "logsift printed $out_lines lines for $N input lines"
  echo "verify: $out_lines output lines for $N input lines" >&2
fi
