#!/usr/bin/env bash
# The cold path: every line a new template (bench/gen_cold.py), so every line
# goes through the denoiser's new-token probes and the encoder.
#
# Usage: bench/cold_path.sh BUILD_DIR [RUNS] [OTHER_BINARY]
#   RUNS          runs per corpus (default 3)
#   OTHER_BINARY  a second logsift (e.g. a worktree of the release before),
#                 run alternately with BUILD_DIR/logsift on the same files
# Corpora: gen_cold.py 20000 1 (dictionary words) and gen_cold.py 20000 1
# --random-letters (every word new). Prints one RESULT line per run: the whole
# process (run_timed.py: start and model load included) and, for binaries that
# report it (`cluster --stats` "run"), the figure after load, with its cores.
# Goal (bench/RESULTS.md, "Cold path"): 20k lines/s on 2 cores.
set -euo pipefail
BUILD=${1:?usage: $0 BUILD_DIR [RUNS] [OTHER_BINARY]}
RUNS=${2:-3}
OTHER=${3:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/logsift-cold.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

"$PY" "$HERE/gen_cold.py" 20000 1 > "$WORK/cold_words.txt"
"$PY" "$HERE/gen_cold.py" 20000 1 --random-letters > "$WORK/cold_random.txt"

one() {  # LABEL BINARY FILE
  local lines res after
  lines=$(wc -l < "$3")
  res=$("$PY" "$HERE/run_timed.py" "$1" "$lines" "$2" cluster "$3" --stats 2>"$WORK/stats.json")
  echo "RESULT $res"
  after=$("$PY" -c '
import json, sys
try:
    r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["run"]
    print("lines_per_s=%d cores=%.2f" % (r["lines_per_s"], r["cores"]))
except (ValueError, KeyError, IndexError):
    pass' "$WORK/stats.json")
  [[ -n $after ]] && echo "RESULT $1-after-load lines=$lines $after"
  return 0
}

for corpus in cold_words cold_random; do
  for ((i = 1; i <= RUNS; i++)); do
    one "logsift-$corpus" "$BUILD/logsift" "$WORK/$corpus.txt"
    [[ -n $OTHER ]] && one "other-$corpus" "$OTHER" "$WORK/$corpus.txt"
  done
done
