"""Where the disagreements are: per annotator, per pair, per group, contested items."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner import agreement as ag
from planner import multirater as mr
from planner.errors import InvalidInput
from planner.intervals import psa_conditional_interval
from planner.labels import Ratings


def scalar(x: Any) -> float:
    """A 0-d array or number as a Python float."""
    return float(np.asarray(x))


def plain_value(value: Any) -> Any:
    """A numpy scalar as the Python value (labels in JSON and tables)."""
    return value.item() if isinstance(value, np.generic) else value


def binary_table(table: NDArray, pos: int) -> NDArray:
    """Collapse ``(..., K, K)`` tables to positive-vs-rest ``(..., 2, 2)``, positive first."""
    t = np.asarray(table)
    a = t[..., pos, pos]
    row = t[..., pos, :].sum(axis=-1)
    col = t[..., :, pos].sum(axis=-1)
    total = t.sum(axis=(-2, -1))
    b, c = row - a, col - a
    d = total - a - b - c
    return np.stack([np.stack([a, b], -1), np.stack([c, d], -1)], -2)


def diagnose(
    ratings: Ratings, counts: NDArray, pos: int | None, by: str | None, confidence_level: float
) -> dict[str, Any]:
    """Contested items; per annotator: items rated, agreement with the others, positive
    rate, flags alone and misses alone; per pair: observed agreement, kappa, PSA and who
    flags alone; per group of the ``by`` column: PSA (Wilson interval with two
    annotators) and observed agreement."""
    codes = ratings.codes
    rated = codes >= 0
    per_item = rated.sum(axis=1)
    pairable = per_item >= 2
    distinct = (counts > 0).sum(axis=1)
    contested = pairable & (distinct > 1)
    out: dict[str, Any] = {"contested_items": int(contested.sum())}
    per_annotator = {}
    for j, name in enumerate(ratings.annotators):
        mine = rated[:, j] & pairable
        own = np.zeros(len(codes), dtype=np.int64)
        own[mine] = 1
        agree_pairs = (counts[np.arange(len(codes)), np.maximum(codes[:, j], 0)] - 1)[mine]
        entry: dict[str, Any] = {
            "items_rated": int(rated[:, j].sum()),
            "agreement_with_others": float(agree_pairs.sum() / (per_item[mine] - 1).sum())
            if mine.any()
            else float("nan"),
        }
        if pos is not None:
            is_pos = codes[:, j] == pos
            others_pos = counts[:, pos] - is_pos
            entry["positive_rate"] = (
                float(is_pos[rated[:, j]].mean()) if rated[:, j].any() else float("nan")
            )
            entry["flags_alone"] = int((mine & is_pos & (others_pos == 0)).sum())
            entry["misses_alone"] = int(
                (mine & ~is_pos & (others_pos == per_item - 1) & (per_item >= 2)).sum()
            )
        per_annotator[name] = entry
    out["per_annotator"] = per_annotator
    pairs = []
    m = ratings.n_annotators
    if m <= 20:
        for i in range(m):
            for j in range(i + 1, m):
                table = ratings.pair_table(i, j)
                n = int(table.sum())
                if n == 0:
                    continue
                entry = {
                    "annotators": [ratings.annotators[i], ratings.annotators[j]],
                    "items": n,
                    "observed_agreement": scalar(ag.observed_agreement(table)),
                    "cohen_kappa": scalar(ag.cohen_kappa(table)),
                }
                if pos is not None:
                    binary = binary_table(table, pos)
                    a, b, c, _ = (int(x) for x in binary.ravel())
                    entry.update(
                        {
                            "joint_positives": a,
                            "first_only": b,
                            "second_only": c,
                            "psa": scalar(ag.positive_agreement(binary)),
                        }
                    )
                pairs.append(entry)
    out["per_pair"] = pairs
    if by is not None:
        if by not in ratings.groups:
            raise InvalidInput(f"--by {by!r} is not a column that was read")
        groups = ratings.groups[by]
        table_by = []
        for value in _unique_in_order(groups):
            mask = groups == value
            sub = counts[mask]
            entry = {"group": plain_value(value), "items": int(mask.sum())}
            if pos is not None:
                y = (sub[:, pos] * (sub[:, pos] - 1)).sum()
                x = (sub[:, pos] * (sub.sum(1) - 1)).sum()
                entry["psa"] = float(y / x) if x > 0 else float("nan")
                if ratings.n_annotators == 2:
                    a_g = int((sub[:, pos] == 2).sum())
                    u_g = int(((sub[:, pos] >= 1) & (sub.sum(1) == 2)).sum())
                    ci = psa_conditional_interval(a_g, u_g, confidence_level)
                    entry.update(
                        {
                            "joint_positives": a_g,
                            "union_positives": u_g,
                            "ci_low": scalar(ci.low),
                            "ci_high": scalar(ci.high),
                        }
                    )
            entry["observed_agreement"] = scalar(mr.pairwise_agreement(sub))
            table_by.append(entry)
        out["by"] = {"column": by, "groups": table_by}
    return out


def _unique_in_order(values: NDArray) -> list[Any]:
    seen: dict[Any, None] = {}
    for v in values.tolist():
        seen.setdefault(v, None)
    return list(seen)


def contested_rows(ratings: Ratings) -> tuple[list[str], list[list[Any]]]:
    """Header and rows (item id, each annotator's label) of the items whose ratings differ."""
    counts = ratings.counts()
    contested = ((ratings.codes >= 0).sum(axis=1) >= 2) & ((counts > 0).sum(axis=1) > 1)
    header = ["item", *ratings.annotators]
    rows = []
    for i in np.flatnonzero(contested):
        labels = [plain_value(ratings.categories[c]) if c >= 0 else "" for c in ratings.codes[i]]
        rows.append([plain_value(ratings.items[i]), *labels])
    return header, rows
