#!/usr/bin/env bash
# logsift vs Drain3 on the same corpus, in one run, one after the other.
#
# Usage: bench/vs_drain3.sh BUILD_DIR [N] [SEED] [FIRST]
#   N      corpus lines (default 1000000): bench/gen_corpus.py N SEED, loghub-style
#          synthetic lines (zipf over templates, fresh variable values per line)
#   FIRST  also run both on the first FIRST lines (default 200000; 0 = skip)
#
# Drain3 0.9.11 comes from ../shared/peers (its README: Debian's
# python3-cachetools and python3-jsonpickle), variant "maskonly" (Drain3's
# defaults plus the masking list of its example drain3.ini: the fair
# comparison, logsift pre-masks too), reading the file inside the timed loop
# (--stream) as `logsift cluster FILE` does. Both write nothing that is timed
# beyond their own output. Prints one RESULT line per run and the ratios.
set -euo pipefail
BUILD=${1:?usage: $0 BUILD_DIR [N] [SEED] [FIRST]}
N=${2:-1000000}
SEED=${3:-42}
FIRST=${4:-200000}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib_vs_drain3.sh
source "$HERE/lib_vs_drain3.sh"  # PY, PEERS, WORK; drain3, run
CORPUS=${CORPUS:-$WORK/corpus.txt}
if [[ ! -s $CORPUS ]]; then
  echo "generating $N lines (seed $SEED)" >&2
  "$PY" "$HERE/gen_corpus.py" "$N" "$SEED" > "$CORPUS"
fi
N=$(wc -l < "$CORPUS")


run "$CORPUS" "$N" "${N}"
if [[ $FIRST -gt 0 && $FIRST -lt $N ]]; then
  head -n "$FIRST" "$CORPUS" > "$WORK/first.txt"
  run "$WORK/first.txt" "$FIRST" "first${FIRST}" "$FIRST"
fi
