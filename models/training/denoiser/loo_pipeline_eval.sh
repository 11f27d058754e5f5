#!/bin/bash
# GA/PA of `logsift eval` per held-out loghub set: re2-only, shipped, and its
# leave-one-out model (from loo_eval.py --save-dir DIR). One JSON line per run:
#   models/training/denoiser/loo_pipeline_eval.sh DIR > loo_pipeline.txt
set -e
BIN=${LOGSIFT_BIN:-build/logsift}
SRC=$(realpath "${LOGHUB:-../shared/data/loghub-2k}")
OUT=${OUT:-/tmp/loo_pipeline}; MODELS=${1:?usage: loo_pipeline_eval.sh LOO_MODEL_DIR}; mkdir -p $OUT
for S in Android Apache BGL HDFS Hadoop Mac OpenSSH Spark Zookeeper; do
  D=$OUT/$S; mkdir -p $D; ln -sfn $SRC/$S $D/$S
  /usr/bin/python3 -c "import json,sys;m=json.load(open('$SRC/datasets.json'));json.dump({'$S':m['$S']},open('$D/datasets.json','w'))"
  for mode in none builtin loo; do
    case $mode in none) M=none;; builtin) M=builtin;; loo) M=$MODELS/holdout-$S.pt;; esac
    J=$($BIN eval $D --json --denoiser-model $M)
    echo "$S $mode $J"
  done
done
