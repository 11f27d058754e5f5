#!/bin/bash
# Leave-one-dataset-out with BOTH models held out: GA/PA of `logsift eval` per
# loghub set, scored by the denoiser and the encoder that never saw it.
# DIR holds each fold's models:
#   holdout-SET.pt      denoiser  (models/training/denoiser/loo_eval.py --folds SET --save-dir DIR)
#   enc-holdout-SET.pt  encoder   (models/training/encoder/train.py --holdout SET
#                                  --denoiser-model DIR/holdout-SET.pt --out DIR/enc-holdout-SET.pt)
# Two runs per set: the fold's denoiser with the shipped encoder (denoiser-LOO,
# the table of models/README.md) and both fold models (both-LOO). One JSON line
# per run, then a markdown table and the mean over the folds found; folds
# without both files are listed as missing. CONTROL=ENC.pt adds a column: the
# fold's denoiser with ENC, the same encoder recipe trained on all nine sets
# (train.py without --holdout), which isolates the cost of holding the encoder out.
#   models/training/encoder/loo_both.sh DIR > loo_both.txt
set -e
BIN=${LOGSIFT_BIN:-build/logsift}
SRC=$(realpath "${LOGHUB:-../shared/data/loghub-2k}")
OUT=${OUT:-/tmp/loo_both}; MODELS=${1:?usage: loo_both.sh LOO_MODEL_DIR}; mkdir -p $OUT
SETS=${SETS:-Android Apache BGL HDFS Hadoop Mac OpenSSH Spark Zookeeper}
: > $OUT/runs.txt
missing=""
for S in $SETS; do
  if [ ! -f $MODELS/holdout-$S.pt ] || [ ! -f $MODELS/enc-holdout-$S.pt ]; then missing="$missing $S"; continue; fi
  D=$OUT/$S; mkdir -p $D; ln -sfn $SRC/$S $D/$S
  /usr/bin/python3 -c "import json,sys;m=json.load(open('$SRC/datasets.json'));json.dump({'$S':m['$S']},open('$D/datasets.json','w'))"
  J=$($BIN eval $D --json --denoiser-model $MODELS/holdout-$S.pt)
  echo "$S den $J" | tee -a $OUT/runs.txt
  J=$($BIN eval $D --json --denoiser-model $MODELS/holdout-$S.pt --encoder-model $MODELS/enc-holdout-$S.pt)
  echo "$S both $J" | tee -a $OUT/runs.txt
  if [ -n "$CONTROL" ]; then
    J=$($BIN eval $D --json --denoiser-model $MODELS/holdout-$S.pt --encoder-model $CONTROL)
    echo "$S ctl $J" | tee -a $OUT/runs.txt
  fi
done
/usr/bin/python3 - "$OUT/runs.txt" "$missing" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    s, mode, j = line.split(" ", 2)
    rows.setdefault(s, {})[mode] = json.loads(j)["datasets"][s]
cols = [("den", "ga"), ("both", "ga"), ("both", "ga_template"), ("both", "pa")]
head = ["denoiser-LOO GA", "both-LOO GA", "both-LOO GA(tmpl)", "both-LOO PA"]
if all("ctl" in r for r in rows.values()) and rows:
    cols.append(("ctl", "ga"))
    head.append("denoiser-LOO GA, encoder retrained on all 9")
print("| set | " + " | ".join(head) + " |")
print("|" + " --- |" * (len(head) + 1))
sums = [0.0] * len(cols)
for s, r in rows.items():
    v = [r[m][k] for m, k in cols]
    sums = [a + b for a, b in zip(sums, v)]
    print(f"| {s} | " + " | ".join(f"{x:.4f}" for x in v) + " |")
if rows:
    print(f"| **mean ({len(rows)} folds)** | " + " | ".join(f"{x / len(rows):.4f}" for x in sums) + " |")
if sys.argv[2].strip():
    print("missing folds:" + sys.argv[2])
PY
