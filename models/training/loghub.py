"""What the denoiser's and the encoder's training code share: where the loghub
sets are, the logsift binary that gives the serving tokenizer/pipeline, and
the loghub Grouping Accuracy."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Dict, Hashable, List, Optional, Sequence, Tuple

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# loghub-2k is outside data: a developer keeps it beside the clone (or says where
# with LOGSIFT_LOGHUB); models/training/fetch_loghub.sh fetches it. The shipped
# weights were trained on it; everything else (smoke tests, unit tests) runs on
# the labelled sets the repository holds (REPO_SETS).
DEFAULT_LOGHUB = os.environ.get(
    "LOGSIFT_LOGHUB", os.path.abspath(os.path.join(REPO, "..", "shared", "data", "loghub-2k")))
LOGHUB_SETS = ("Android", "Apache", "BGL", "HDFS", "Hadoop", "Mac", "OpenSSH", "Spark", "Zookeeper")
REPO_SETS = os.path.join(REPO, "models", "tuning")


def have_loghub(root: str = DEFAULT_LOGHUB) -> bool:
    """True when all nine loghub-2k sets are under root."""
    return all(os.path.exists(loghub_csv_path(root, s)) for s in LOGHUB_SETS)


def missing_loghub(root: str = DEFAULT_LOGHUB) -> str:
    """What to tell a user whose check needs loghub-2k and does not find it."""
    return (f"loghub-2k not found at {root}: fetch it with models/training/fetch_loghub.sh DIR "
            "and set LOGSIFT_LOGHUB=DIR (only reproducing the shipped weights needs it)")


def training_sets(root: str) -> List[str]:
    """The labelled sets a trainer reads under root: loghub-2k's nine in their fixed order (the shipped
    weights' recipe), or every system of another set in the datasets.json layout (models/tuning)."""
    if have_loghub(root):
        return list(LOGHUB_SETS)
    if not os.path.exists(os.path.join(root, "datasets.json")):
        raise SystemExit(missing_loghub(root) if os.path.abspath(root) == os.path.abspath(DEFAULT_LOGHUB)
                         else f"{root}: no datasets.json (a labelled set in the loghub layout is needed)")
    return labelled_set_systems(root)


def loghub_csv_path(root: str, name: str) -> str:
    """The structured (labelled) csv of set `name`, from root/datasets.json when present."""
    meta_path = os.path.join(root, "datasets.json")
    if os.path.exists(meta_path):
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
        if name in meta:
            return os.path.join(root, meta[name]["truth"])
    return os.path.join(root, name, f"{name}_2k.log_structured_corrected.csv")


def open_labelled_csv(root: str, name: str):
    """The structured csv of set `name` under root, opened for csv.DictReader; SystemExit saying how to get
    loghub-2k when it is the missing default."""
    path = loghub_csv_path(root, name)
    if not os.path.exists(path):
        if os.path.abspath(root) == os.path.abspath(DEFAULT_LOGHUB):
            raise SystemExit(missing_loghub(root))
        raise SystemExit(f"{path}: not found (set {name} of {root})")
    return open(path, newline="", encoding="utf-8")


def add_real_extra_args(ap, joins: str) -> None:
    """--real-extra DIR / --real-extra-systems A,B, shared by both trainers; `joins` says what the set's
    lines become in that trainer."""
    ap.add_argument("--real-extra", default="", metavar="DIR",
                    help="another labelled set in the datasets.json layout (e.g. models/tuning): " + joins)
    ap.add_argument("--real-extra-systems", default="", metavar="A,B",
                    help="only these systems of --real-extra (default: all of them)")


def labelled_set_systems(root: str, only: str = "") -> List[str]:
    """The systems of a labelled set in the datasets.json layout, sorted; with `only` (comma-separated)
    just those, and SystemExit naming any that the set does not have."""
    with open(os.path.join(root, "datasets.json"), encoding="utf-8") as f:
        meta = json.load(f)
    picked = [x for x in only.split(",") if x]
    unknown = [x for x in picked if x not in meta]
    if unknown:
        raise SystemExit(f"--real-extra-systems: not in {root}/datasets.json: {', '.join(unknown)}")
    return [x for x in sorted(meta) if not picked or x in picked]


def labelled_rows(root: str) -> Dict[str, List[Dict[str, str]]]:
    """Each system's rows (the structured csv as dicts: Content, EventTemplate, ...) of a set in the
    datasets.json layout, in the order datasets.json names them."""
    import csv

    with open(os.path.join(root, "datasets.json"), encoding="utf-8") as f:
        names = list(json.load(f))
    out = {}
    for name in names:
        with open_labelled_csv(root, name) as f:
            out[name] = list(csv.DictReader(f))
    return out


def write_labelled_set(root: str, systems: Dict[str, Sequence[Tuple[str, str]]]) -> None:
    """Write a small set in the datasets.json layout: {system: [(content, template), ...]} (the tests'
    fixture; one EventId per distinct template)."""
    import csv

    meta = {}
    for name, rows in systems.items():
        os.makedirs(os.path.join(root, name), exist_ok=True)
        truth = name + "/" + name + ".log_structured.csv"
        with open(os.path.join(root, truth), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["LineId", "Content", "EventId", "EventTemplate"])
            ids: Dict[str, str] = {}
            for i, (c, t) in enumerate(rows, 1):
                w.writerow([i, c, ids.setdefault(t, "E%d" % (len(ids) + 1)), t])
        meta[name] = {"log": name + "/" + name + ".log", "truth": truth}
    with open(os.path.join(root, "datasets.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f)


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
