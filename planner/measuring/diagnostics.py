"""Where the disagreements are: per annotator, per pair, per group, contested items."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.data.cell_values import id_order
from planner.data.labels import Ratings
from planner.errors import InvalidInput
from planner.statistics import agreement as ag
from planner.statistics import multirater as mr
from planner.statistics.intervals import psa_conditional_interval


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


def item_label_counts(ratings: Ratings) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per rating, how many ratings of its item give its label; per row, its distinct labels.

    One sort of the ratings, so memory stays linear in them for any number of categories
    (the dense ``(rows, K)`` counts of :meth:`Ratings.counts` need ``rows x K`` cells).
    """
    k = max(1, ratings.n_categories)
    key = ratings.item_index.astype(np.int64) * k + ratings.label_index
    unique, inverse, count = np.unique(key, return_inverse=True, return_counts=True)
    distinct = np.bincount(unique // k, minlength=ratings.n_rows)
    return count[inverse.ravel()], distinct


def contested_mask(ratings: Ratings) -> NDArray[np.bool_]:
    """``(rows,)`` whether a row has two or more ratings that differ."""
    _, distinct = item_label_counts(ratings)
    return (ratings.ratings_per_item() >= 2) & (distinct > 1)


def diagnose(
    ratings: Ratings,
    pos: int | None,
    by: str | None,
    confidence_level: float,
    *,
    pair_kappas: bool = True,
) -> dict[str, Any]:
    """Contested items; per annotator: items rated, agreement with the others, positive
    rate, flags alone and misses alone; per pair: observed agreement, kappa, PSA and who
    flags alone; per group of the ``by`` column: PSA (Wilson interval with two
    annotators) and observed agreement.

    Works from the sparse ratings (one pass over the ratings per quantity), so a crowd of
    thousands of annotators costs the same as two, and memory stays linear in the ratings
    for any number of categories. ``pair_kappas=False`` leaves out the per-pair ``K x K``
    tables (and their kappa and PSA): each pair then has its items and observed agreement.
    """
    same, distinct = item_label_counts(ratings)
    per_item = ratings.ratings_per_item()
    contested = (per_item >= 2) & (distinct > 1)
    w_item = np.ones(ratings.n_rows) if ratings.weights is None else ratings.weights.astype(float)
    out: dict[str, Any] = {"contested_items": int(round(w_item[contested].sum()))}
    out["per_annotator"] = _per_annotator(ratings, same, per_item, w_item, pos)
    if ratings.n_annotators > 20:
        out["per_pair"] = []
    else:
        out["per_pair"] = _per_pair(ratings, pos) if pair_kappas else _per_pair_agreement(ratings)
    if by is not None:
        out["by"] = {"column": by, "groups": _per_group(ratings, pos, by, confidence_level)}
    return out


def _per_pair_agreement(ratings: Ratings) -> list[dict[str, Any]]:
    """Per pair of annotators who share items: the items and observed agreement, without
    the ``K x K`` table."""
    pairs = []
    m = ratings.n_annotators
    for i in range(m):
        a = ratings.annotator_labels(i)
        for j in range(i + 1, m):
            b = ratings.annotator_labels(j)
            both = (a >= 0) & (b >= 0)
            w = np.ones(ratings.n_rows) if ratings.weights is None else ratings.weights
            n = float(w[both].sum())
            if n == 0:
                continue
            pairs.append(
                {
                    "annotators": [ratings.annotators[i], ratings.annotators[j]],
                    "items": int(round(n)),
                    "observed_agreement": float(w[both] @ (a[both] == b[both]) / n),
                }
            )
    return pairs


def _per_pair(ratings: Ratings, pos: int | None) -> list[dict[str, Any]]:
    """Per pair of annotators who share items: observed agreement, kappa, and with a
    positive label the joint positives, who flags alone, and PSA."""
    pairs = []
    m = ratings.n_annotators
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
    return pairs


def _per_group(
    ratings: Ratings, pos: int | None, by: str, confidence_level: float
) -> list[dict[str, Any]]:
    """Per value of the ``by`` column: items, PSA (with its Wilson interval when there are
    two annotators) and observed agreement; from sparse count patterns, so memory stays
    linear in the ratings for any number of categories."""
    if by not in ratings.groups:
        raise InvalidInput(
            f"by must be a column that was read ({', '.join(ratings.groups) or 'none'}), "
            f"got {by!r}",
            parameter="by",
        )
    groups = ratings.groups[by]
    per_item = ratings.ratings_per_item()
    if pos is not None:  # (rows, 2): ratings in the positive category, and the others
        positives = np.bincount(
            ratings.item_index, weights=ratings.label_index == pos, minlength=ratings.n_rows
        )
        binary = np.stack([positives, per_item - positives], axis=1)
    table_by = []
    for value in _unique_in_order(groups):
        mask = groups == value
        w = None if ratings.weights is None else ratings.weights[mask]
        entry = {"group": plain_value(value), "items": int(mask.sum() if w is None else w.sum())}
        if pos is not None:
            entry.update(_group_psa(binary[mask], w, 0, ratings.n_annotators, confidence_level))
        patterns = ratings.select_items(mask).count_patterns()
        entry["observed_agreement"] = scalar(mr.pairwise_agreement_patterns(patterns))
        table_by.append(entry)
    return table_by


def _group_psa(
    sub: NDArray, w: NDArray | None, pos: int, n_annotators: int, confidence_level: float
) -> dict[str, Any]:
    """One group's PSA from its count rows ``sub`` (weights ``w``), with the conditional
    Wilson interval when there are two annotators."""
    sub_w = sub if w is None else sub * w[:, None]  # counts summed over items
    y = (sub_w[:, pos] * (sub[:, pos] - 1)).sum()
    x = (sub_w[:, pos] * (sub.sum(1) - 1)).sum()
    entry: dict[str, Any] = {"psa": float(y / x) if x > 0 else float("nan")}
    if n_annotators == 2:
        ones = np.ones(len(sub), dtype=np.int64) if w is None else w
        a_g = int(ones[sub[:, pos] == 2].sum())
        u_g = int(ones[(sub[:, pos] >= 1) & (sub.sum(1) == 2)].sum())
        ci = psa_conditional_interval(a_g, u_g, confidence_level)
        entry.update(
            {
                "joint_positives": a_g,
                "union_positives": u_g,
                "ci_low": scalar(ci.low),
                "ci_high": scalar(ci.high),
            }
        )
    return entry


def _unique_in_order(values: NDArray) -> list[Any]:
    seen: dict[Any, None] = {}
    for v in values.tolist():
        seen.setdefault(v, None)
    return list(seen)


def _per_annotator(
    ratings: Ratings, same_label: NDArray, per_item: NDArray, w_item: NDArray, pos: int | None
) -> dict[str, dict[str, Any]]:
    """Per-annotator diagnostics, each a weighted ``bincount`` over the ratings;
    ``same_label`` is, per rating, how many ratings of its item give its label."""
    item, ann, label = ratings.item_index, ratings.annotator_index, ratings.label_index
    m = ratings.n_annotators
    w = w_item[item]
    mine = per_item[item] >= 2  # ratings of items someone else rated too

    def total(values: NDArray) -> NDArray[np.float64]:
        return np.bincount(ann, weights=values, minlength=m).astype(float)

    rated = total(w)
    same = same_label - 1  # other annotators who gave this item the same label
    agree = total(w * same * mine)
    pairs = total(w * (per_item[item] - 1) * mine)
    has_pairs = total(w * mine) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(has_pairs, agree / np.where(pairs > 0, pairs, 1), np.nan)
    if pos is not None:
        is_pos = label == pos
        positives = np.bincount(item, weights=is_pos, minlength=ratings.n_rows)
        others_pos = positives[item] - is_pos
        positive_rate = ratings.positive_rates(pos)
        flags = total(w * (mine & is_pos & (others_pos == 0)))
        misses = total(w * (mine & ~is_pos & (others_pos == per_item[item] - 1)))
    out = {}
    for j, name in enumerate(ratings.annotators):
        entry: dict[str, Any] = {
            "items_rated": int(round(rated[j])),
            "agreement_with_others": float(agreement[j]),
        }
        if pos is not None:
            entry["positive_rate"] = float(positive_rate[j])
            entry["flags_alone"] = int(round(flags[j]))
            entry["misses_alone"] = int(round(misses[j]))
        out[name] = entry
    return out


CONTESTED_LIMIT = 1_000_000  # rows of a contested-items file, at most
WIDE_CONTESTED_ANNOTATORS = 50  # above this many annotators the file is long


def _file_order(ratings: Ratings, rows: NDArray[np.int64]) -> NDArray[np.int64]:
    """The contested rows in the order both engines write them: the wide layout's in file
    order, the long layout's by item id (as numbers for integer ids, else as text)."""
    if ratings.input.get("layout") != "long" or rows.size == 0:
        return rows
    return rows[id_order(ratings.items[rows])]


def contested_rows(ratings: Ratings) -> tuple[list[str], list[list[Any]]]:
    """Header and rows of the items whose ratings differ.

    With at most ``WIDE_CONTESTED_ANNOTATORS`` annotators one row per item (item id, each
    annotator's label, empty where none); with more, one row per rating (item, annotator,
    label), so the file stays linear in the ratings. A row standing for many identical
    items (``--counts``) is written once per item; more than ``CONTESTED_LIMIT`` rows are
    refused.
    """
    contested = contested_mask(ratings)
    rows_idx = _file_order(ratings, np.flatnonzero(contested))
    w = np.ones(ratings.n_rows, dtype=np.int64) if ratings.weights is None else ratings.weights
    n_rows = int(w[rows_idx].sum())
    if n_rows > CONTESTED_LIMIT:
        raise InvalidInput(
            f"contested would write {n_rows:,} contested items, more than the limit of "
            f"{CONTESTED_LIMIT:,}; leave it out for data this large",
            parameter="contested",
        )
    mine = contested[ratings.item_index]
    item, ann = ratings.item_index[mine], ratings.annotator_index[mine]
    label = ratings.categories[ratings.label_index[mine]]
    wide = ratings.n_annotators <= WIDE_CONTESTED_ANNOTATORS
    header = ["item", *ratings.annotators] if wide else ["item", "annotator", "label"]
    out: list[list[Any]] = []
    start = np.searchsorted(item, rows_idx, side="left")  # the ratings are sorted by item
    stop = np.searchsorted(item, rows_idx, side="right")
    for r, lo, hi in zip(rows_idx.tolist(), start.tolist(), stop.tolist(), strict=True):
        if wide:
            labels: list[Any] = [""] * ratings.n_annotators
            for j, value in zip(ann[lo:hi].tolist(), label[lo:hi], strict=True):
                labels[j] = plain_value(value)
            lines = [labels]
        else:
            lines = [
                [ratings.annotators[j], plain_value(v)]
                for j, v in zip(ann[lo:hi].tolist(), label[lo:hi], strict=True)
            ]
        first = plain_value(ratings.items[r])
        for k in range(int(w[r])):
            item_id = first if ratings.weights is None else first + k
            out.extend([item_id, *line] for line in lines)
    return header, out
