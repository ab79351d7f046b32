"""Who labels which item: k of M annotators per item.

Two policies:

* ``next-free`` (default): whoever is free first takes the next item they have not labelled
  and that still needs a label, so fast people do more and the slowest does not set the pace
  (the simulation in :mod:`planner.operations.team_schedule` carries it out).
* ``balanced``: item ``i``'s ``j``-th label goes to annotator ``(i k + j) mod M`` (round
  robin): everyone gets the same number of labels, whatever their speed.

So that every pair of annotators has items in common (pairwise statistics need them), the
first items of the queue are an *overlap block* assigned in advance (:func:`overlap_block`):
a greedy covering in which each item goes to the ``k`` annotators whose pairs still lack the
most shared items, until every pair shares ``min_shared`` items (at most
``ceil(min_shared M (M - 1) / (k (k - 1)))`` items plus the greedy's slack). The block's
labels are done first, by each annotator in turn.
"""

from __future__ import annotations

import numpy as np


def overlap_block(n_annotators: int, per_item: int, min_shared: int, n_items: int) -> np.ndarray:
    """Items ``(n, per_item)`` of annotator indices so that every pair shares ``min_shared``.

    Greedy: each new item starts with the pair of largest remaining need (lowest indices on
    ties) and adds, one at a time, the annotator whose pairs with those already chosen need
    most. Stops when no pair needs more, or at ``n_items``. With ``per_item == n_annotators``
    every item is shared by every pair, and no block is needed (an empty array).

    >>> block = overlap_block(4, 2, 3, 100)
    >>> len(block), sorted(np.bincount(block.ravel()).tolist())
    (18, [9, 9, 9, 9])
    """
    m, k = n_annotators, per_item
    if min_shared <= 0 or k >= m or k < 2:
        return np.empty((0, k), dtype=np.int64)
    need = np.full((m, m), float(min_shared))
    np.fill_diagonal(need, -np.inf)
    rows: list[list[int]] = []
    while len(rows) < n_items and need.max() > 0:
        first, second = np.unravel_index(np.argmax(need), need.shape)
        chosen = [int(first), int(second)]
        while len(chosen) < k:
            gain = np.clip(need[chosen], 0, None).sum(axis=0)
            gain[chosen] = -1.0
            chosen.append(int(np.argmax(gain)))
        for a in chosen:
            for b in chosen:
                if a != b:
                    need[a, b] -= 1
        rows.append(sorted(chosen))
    return np.array(rows, dtype=np.int64).reshape(-1, k)


def round_robin(n_items: int, per_item: int, n_annotators: int, first: int = 0) -> np.ndarray:
    """Items ``(n_items, per_item)``: label ``j`` of item ``i`` to ``((first + i) k + j) mod M``."""
    flat = (first * per_item + np.arange(n_items * per_item)) % n_annotators
    return flat.reshape(n_items, per_item)


def lists_by_annotator(assigned: np.ndarray, n_annotators: int) -> tuple[np.ndarray, np.ndarray]:
    """Each annotator's items in queue order, padded: ``(items (M, longest), counts (M,))``."""
    items = np.repeat(np.arange(assigned.shape[0]), assigned.shape[1])
    who = assigned.ravel()
    order = np.lexsort((items, who))
    counts = np.bincount(who, minlength=n_annotators)
    longest = max(int(counts.max()) if counts.size else 0, 1)
    table = np.zeros((n_annotators, longest), dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    position = np.arange(who.size) - np.repeat(starts, counts)
    table[who[order], position] = items[order]
    return table, counts


def shared_items(assigned: np.ndarray, n_annotators: int) -> np.ndarray:
    """Items each pair shares, ``(M, M)`` (the diagonal: each annotator's items), from the
    annotators of every item ``(n_items, k)``; rows with a negative index are skipped."""
    m = n_annotators
    out = np.zeros(m * m, dtype=np.int64)
    k = assigned.shape[1]
    for a in range(k):
        for b in range(k):
            left, right = assigned[:, a], assigned[:, b]
            ok = (left >= 0) & (right >= 0)
            out += np.bincount(left[ok] * m + right[ok], minlength=m * m)
    return out.reshape(m, m)
