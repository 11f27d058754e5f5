# common helpers for generators. Scratch dir and raw output dir.
set -u
W=${LOGSIFT_WORK_DIR:-/tmp/validation-work}
RAW=${LOGSIFT_RAW_DIR:-$W/raw}
mkdir -p "$W" "$RAW"
PY=/usr/bin/python3
GEN=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
waitport() { for i in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.2; done; echo "port $1 never opened" >&2; return 1; }
stoppid() { local p=$1; kill "$p" 2>/dev/null; for i in $(seq 1 50); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.2; done; kill -9 "$p" 2>/dev/null; }
