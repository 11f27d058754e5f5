#!/bin/bash
# GA/PA of `logsift eval` per held-out loghub set: re2-only, shipped, and its
# leave-one-out model (from loo_eval.py --save-dir DIR). One JSON line per run,
# then the table of models/README.md:
#   models/training/denoiser/loo_pipeline_eval.sh DIR > loo_pipeline.txt
set -e
BIN=${LOGSIFT_BIN:-build/logsift}
SRC=$(realpath "${LOGHUB:-../shared/data/loghub-2k}")
OUT=${OUT:-/tmp/loo_pipeline}; MODELS=${1:?usage: loo_pipeline_eval.sh LOO_MODEL_DIR}; mkdir -p $OUT
: > $OUT/runs.txt
for S in Android Apache BGL HDFS Hadoop Mac OpenSSH Spark Zookeeper; do
  D=$OUT/$S; mkdir -p $D; ln -sfn $SRC/$S $D/$S
  /usr/bin/python3 -c "import json,sys;m=json.load(open('$SRC/datasets.json'));json.dump({'$S':m['$S']},open('$D/datasets.json','w'))"
  for mode in none builtin loo; do
    case $mode in none) M=none;; builtin) M=builtin;; loo) M=$MODELS/holdout-$S.pt;; esac
    J=$($BIN eval $D --json --denoiser-model $M)
    echo "$S $mode $J" | tee -a $OUT/runs.txt
  done
done
/usr/bin/python3 - "$OUT/runs.txt" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    s, mode, j = line.split(" ", 2)
    rows.setdefault(s, {})[mode] = json.loads(j)["datasets"][s]
cols = [("none", "ga"), ("none", "pa"), ("builtin", "ga"), ("builtin", "pa"),
        ("loo", "ga"), ("loo", "pa"), ("loo", "ga_template")]
print("| set | re2-only GA | re2-only PA | shipped GA | shipped PA | LOO GA | LOO PA | LOO GA(tmpl) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
sums = [0.0] * len(cols)
for s, r in rows.items():
    v = [r[m][k] for m, k in cols]
    sums = [a + b for a, b in zip(sums, v)]
    print(f"| {s} | " + " | ".join(f"{x:.4f}" for x in v) + " |")
print("| **mean** | " + " | ".join(f"{x / len(rows):.4f}" for x in sums) + " |")
PY
