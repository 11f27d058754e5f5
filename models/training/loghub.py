"""What the denoiser's and the encoder's training code share: where the loghub
sets are, the logsift binary that gives the serving tokenizer/pipeline, and
the loghub Grouping Accuracy."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Hashable, Optional, Sequence

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DEFAULT_LOGHUB = os.environ.get(
    "LOGSIFT_LOGHUB", os.path.abspath(os.path.join(REPO, "..", "shared", "data", "loghub-2k")))
LOGHUB_SETS = ("Android", "Apache", "BGL", "HDFS", "Hadoop", "Mac", "OpenSSH", "Spark", "Zookeeper")


def loghub_csv_path(root: str, name: str) -> str:
    """The structured (labelled) csv of set `name`, from root/datasets.json when present."""
    meta_path = os.path.join(root, "datasets.json")
    if os.path.exists(meta_path):
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
        if name in meta:
            return os.path.join(root, meta[name]["truth"])
    return os.path.join(root, name, f"{name}_2k.log_structured_corrected.csv")


def find_logsift() -> Optional[str]:
    """LOGSIFT_BIN, else the usual build directories of this checkout."""
    cand = [os.environ.get("LOGSIFT_BIN", "")] + [os.path.join(REPO, d, "logsift") for d in ("build", "build-lead")]
    for c in cand:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def grouping_accuracy(pred_groups: Sequence[Hashable], true_groups: Sequence[Hashable]) -> float:
    """loghub GA: a line is correct if its predicted cluster == its true cluster (as sets)."""
    by_pred = defaultdict(list)
    by_true = defaultdict(list)
    for i, (p, t) in enumerate(zip(pred_groups, true_groups)):
        by_pred[p].append(i)
        by_true[t].append(i)
    ok = 0
    for p, members in by_pred.items():
        ts = {true_groups[i] for i in members}
        if len(ts) == 1 and len(by_true[next(iter(ts))]) == len(members):
            ok += len(members)
    return ok / max(1, len(true_groups))
