# shellcheck shell=bash
# Shared by bench/vs_drain3.sh and bench/vs_drain3_real.sh (source it; not run on its own).
# The caller sets HERE (bench/) and BUILD (logsift's build dir) and sources it after
# `set -euo pipefail`; it sets PY, PEERS (../shared/peers or DRAIN3_PEERS: drain3/ and
# bench_drain3.py) and WORK (a temporary folder removed at exit).

PY=/usr/bin/python3
PEERS=${DRAIN3_PEERS:-$HERE/../../shared/peers}
[[ -d $PEERS/drain3 ]] || { echo "$(basename "$0"): Drain3 not found under $PEERS (set DRAIN3_PEERS)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/logsift-$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$WORK"' EXIT

drain3() {  # FILE [MAX]: Drain3 maskonly over FILE (its first MAX lines), prints its lines/s
  # shellcheck disable=SC2086  # ${2:-} unquoted: no MAX, no argument
  PYTHONPATH="$PEERS/drain3:$PEERS" "$PY" "$PEERS/bench_drain3.py" --stream maskonly "$1" ${2:-} \
    | awk '/^RESULT/ {for (i = 1; i <= NF; i++) if ($i ~ /^lines_per_s=/) {split($i, a, "="); gsub(",", "", a[2]); print a[2]}}'
}
run() {  # FILE LINES LABEL [DRAIN3_MAX]: logsift then Drain3 on FILE, RESULT lines and the RATIOs
  # Two logsift figures: the whole process (start and model load included), and
  # after load (`--stats` "run": what a running service does, and what Drain3's
  # loop times: its imports and setup are outside it).
  local ls d3 warm
  # Its files into the page cache first (as after any earlier start): Drain3's
  # run before this one can evict libtorch's 291 libraries, and reading them
  # back from disk is not what either tool's speed is.
  "$BUILD/logsift" cluster /dev/null > /dev/null
  ls=$("$PY" "$HERE/run_timed.py" "logsift-$3" "$2" "$BUILD/logsift" cluster "$1" --stats 2>"$WORK/stats.json")
  local after
  after=$("$PY" -c 'import json, sys; r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["run"]; print(round(r["lines_per_s"]), "cores=%.2f" % r["cores"])' "$WORK/stats.json")
  warm=${after%% *}
  echo "RESULT $ls"
  echo "RESULT logsift-$3-after-load lines=$2 lines_per_s=$warm ${after#* }"
  d3=$(drain3 "$1" "${4:-}")
  echo "RESULT drain3-$3 lines=$2 lines_per_s=$d3"
  local lps=${ls##*lines_per_s=}; lps=${lps%% *}
  awk -v a="$lps" -v w="$warm" -v b="$d3" -v n="$3" 'BEGIN {
    printf "RATIO %s logsift/drain3 = %.1fx (process start and model load included)\n", n, a / b
    printf "RATIO %s logsift/drain3 = %.1fx (after load, as Drain3 is timed)\n", n, w / b }'
}
