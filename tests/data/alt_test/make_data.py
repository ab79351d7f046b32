"""Rebuild the compact label files of this folder from the authors' repository.

Source: https://github.com/nitaytech/AltTest at commit 18428b1, files
``data/<dataset>/human_annotations.json`` and ``data/<dataset>/llm_annotations.json``.
Each output ``<dataset>.csv.gz`` holds one row per label: item, annotator, role (human or
llm), label -- nothing else of the repository (no prompts, no texts).

Usage: ``python tests/data/alt_test/make_data.py PATH`` where PATH is a checkout of that
repository or its bare git directory.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

COMMIT = "18428b1"
DATASETS = ["wax", "lgbteen", "mtbench", "framing", "cebab_aspects", "summeval",
            "10k_prompts", "cebab_stars", "lesion"]  # fmt: skip


def read(repo: Path, dataset: str, name: str) -> dict:
    if (repo / "data" / dataset / name).is_file():
        return json.loads((repo / "data" / dataset / name).read_text())
    out = subprocess.run(["git", f"--git-dir={repo}", "show", f"{COMMIT}:data/{dataset}/{name}"],
                         capture_output=True, check=True)  # fmt: skip
    return json.loads(out.stdout)


def main(repo: Path) -> None:
    here = Path(__file__).parent
    for dataset in DATASETS:
        rows = []
        for role, name in (("human", "human_annotations.json"), ("llm", "llm_annotations.json")):
            for annotator, labels in read(repo, dataset, name).items():
                rows += [(item, annotator, role, label) for item, label in labels.items()]
        frame = pd.DataFrame(rows, columns=["item", "annotator", "role", "label"])
        frame.to_csv(here / f"{dataset}.csv.gz", index=False)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
