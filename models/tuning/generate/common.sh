# The tuning set's generators use the validation set's helpers with their own scratch and raw dirs.
export LOGSIFT_WORK_DIR=${LOGSIFT_WORK_DIR:-/tmp/tuning-work}
export LOGSIFT_RAW_DIR=${LOGSIFT_RAW_DIR:-$LOGSIFT_WORK_DIR/raw}
export LOGSIFT_LABEL_SET=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$(dirname "${BASH_SOURCE[0]}")/../../validation/generate/common.sh"
