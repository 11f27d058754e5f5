#!/usr/bin/env bash
# logsift vs Drain3 on REAL programs' lines, in one run, one after the other.
#
# Usage: bench/vs_drain3_real.sh BUILD_DIR [N] [SEED]
#   N     stream lines (default 1000000): bench/gen_real_stream.py stream N SEED, real raw
#         lines of the 26 programs of models/validation and models/tuning (Zipf over their
#         1,804 events, numbers re-randomised, every word a real value); STREAM=FILE uses
#         FILE instead (N is then its line count)
#   SEED  default 42
# Also runs both on the first-sight file (bench/gen_real_stream.py first-sight: each of the
# 41,709 lines once, all templates new; FIRST_SIGHT=FILE uses FILE instead), then the
# synthetic corpus row, `bench/vs_drain3.sh BUILD_DIR N SEED 0` (SKIP_SYNTHETIC=1 skips it).
# ZIPF=S and SETS=DIR,DIR pass --zipf and --sets to the generator.
#
# Drain3 as in bench/vs_drain3.sh (../shared/peers, variant maskonly, --stream, file read
# inside the timed loop as `logsift cluster FILE` does). Generation is not timed. Prints one
# RESULT line per run and the ratios, in vs_drain3.sh's format; labels real<N> and
# firstsight<LINES>.
set -euo pipefail
BUILD=${1:?usage: $0 BUILD_DIR [N] [SEED]}
N=${2:-1000000}
SEED=${3:-42}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib_vs_drain3.sh
source "$HERE/lib_vs_drain3.sh"  # PY, PEERS, WORK; drain3, run
GEN_OPTS=()
[[ -n ${ZIPF:-} ]] && GEN_OPTS+=(--zipf "$ZIPF")
[[ -n ${SETS:-} ]] && GEN_OPTS+=(--sets "$SETS")
STREAM=${STREAM:-$WORK/real_stream.txt}
if [[ ! -s $STREAM ]]; then
  echo "generating $N real lines (seed $SEED)" >&2
  "$PY" "$HERE/gen_real_stream.py" stream "$N" "$SEED" ${GEN_OPTS[@]+"${GEN_OPTS[@]}"} > "$STREAM"
fi
FIRST_SIGHT=${FIRST_SIGHT:-$WORK/first_sight.txt}
if [[ ! -s $FIRST_SIGHT ]]; then
  "$PY" "$HERE/gen_real_stream.py" first-sight ${SETS:+--sets "$SETS"} > "$FIRST_SIGHT"
fi
N=$(wc -l < "$STREAM")
F=$(wc -l < "$FIRST_SIGHT")


run "$STREAM" "$N" "real${N}"
run "$FIRST_SIGHT" "$F" "firstsight${F}"
if [[ ${SKIP_SYNTHETIC:-0} != 1 ]]; then
  "$HERE/vs_drain3.sh" "$BUILD" "$N" "$SEED" 0
fi
