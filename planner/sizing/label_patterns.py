"""Label patterns of ``M`` annotators over ``K`` categories, shared by every study model.

Every model of the package (the pair of :mod:`planner.sizing.model`, the annotators of
:mod:`planner.sizing.annotator_model`, kappaSize's common-prevalence model) states the
probabilities of the ``K^M`` *ordered* label patterns, ``P(annotator j says l_j for every
j)``, as a ``(K,) * M`` array; for a pair with two categories these are its four cells,
``p[1, 1] = both``, ``p[1, 0] = A only``, ``p[0, 1] = B only``, ``p[0, 0] = neither``
(category 1 positive). :func:`count_patterns` turns them into the *count patterns* (how many
annotators said each category) that Fleiss' kappa, Krippendorff's alpha and specific
agreement need, for all ``M`` annotators or ``k`` of them drawn at random per item.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


def ordered_labels(n_categories: int, n_annotators: int) -> NDArray[np.int64]:
    """``(K^M, M)`` every ordered label pattern, in C order of the ``(K,) * M`` array.

    >>> ordered_labels(2, 2).tolist()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    labels = itertools.product(range(n_categories), repeat=n_annotators)
    return np.array(list(labels), dtype=np.int64).reshape(-1, n_annotators)


def count_patterns(
    ordered_of: Callable[[tuple[int, ...]], FloatArray],
    n_annotators: int,
    n_categories: int,
    per_item: int | None = None,
) -> tuple[NDArray[np.int64], FloatArray]:
    """Distinct count patterns ``(P, K)`` (sorted) and their probabilities ``(P,)``.

    ``ordered_of(subset)`` is the ``(K,) * k`` ordered-pattern probabilities of the
    annotators in ``subset``. With ``per_item`` ``k < M`` each item is labelled by ``k``
    annotators drawn at random (every subset equally likely), and the probabilities are
    averaged over the ``C(M, k)`` subsets; default all ``M``.

    >>> p = np.array([[0.80, 0.05], [0.05, 0.10]])  # a pair: neither, B only, A only, both
    >>> rows, probs = count_patterns(lambda s: p, 2, 2)
    >>> rows.tolist(), probs.round(2).tolist()
    ([[0, 2], [1, 1], [2, 0]], [0.1, 0.1, 0.8])
    """
    k_of = n_annotators if per_item is None else int(per_item)
    total: dict[tuple[int, ...], float] = {}
    subsets = list(itertools.combinations(range(n_annotators), k_of))
    labels = ordered_labels(n_categories, k_of)
    counts = np.stack([(labels == c).sum(axis=1) for c in range(n_categories)], 1)
    for subset in subsets:
        probs = np.asarray(ordered_of(subset)).ravel()
        for row, p in zip(map(tuple, counts), probs, strict=True):
            total[row] = total.get(row, 0.0) + p / len(subsets)
    rows = sorted(total)
    return np.array(rows, dtype=np.int64), np.array([total[r] for r in rows])


def contested_share(model: Any, per_item: int | None = None) -> float:
    """``P(the labels of an item do not all agree)``: 1 minus the unanimous count patterns'
    mass, for all ``M`` annotators of ``model`` or ``per_item`` of them drawn at random.

    ``model`` is any study model (``model.count_patterns(per_item)``). These are the items a
    study adjudicates; for a pair they are ``p_b + p_c``.

    >>> from planner.sizing.annotator_model import raters_model
    >>> m = raters_model(0.5, 2, error_rate=0.1)   # two annotators: 2 e (1 - e)
    >>> round(contested_share(m), 6)
    0.18
    """
    patterns, probs = model.count_patterns(per_item)
    labels = patterns.sum(axis=1)
    unanimous = patterns.max(axis=1) == labels
    return float(max(0.0, 1.0 - probs[unanimous].sum()))


def marginal(ordered: FloatArray, subset: tuple[int, ...]) -> FloatArray:
    """The ordered-pattern probabilities of the annotators in ``subset`` (the others summed
    out), axes in the order of ``subset``."""
    ordered = np.asarray(ordered, dtype=float)
    others = tuple(j for j in range(ordered.ndim) if j not in subset)
    kept = sorted(subset)
    out = ordered.sum(axis=others) if others else ordered
    return np.transpose(out, [kept.index(j) for j in subset])


#: a pair's four cells ``(a, b, c, d)`` as ordered label patterns (label of A, label of B;
#: 1 is positive), and as count patterns (negatives, positives): ``a``, ``b + c``, ``d``
PAIR_ORDERED = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=np.int64)
PAIR_COUNTED = np.array([[0, 2], [1, 1], [2, 0]], dtype=np.int64)


def pair_patterns(cells: NDArray, metric: str) -> NDArray:
    """``(..., 4)`` cells ``(a, b, c, d)`` (counts or probabilities) as the pattern columns
    of ``metric``: the four of :data:`PAIR_ORDERED` for Cohen's kappa, ``(a, b + c, d)`` of
    :data:`PAIR_COUNTED` for PSA.

    >>> pair_patterns(np.array([30, 12, 9, 449]), "psa").tolist()
    [30, 21, 449]
    """
    if metric != "psa":
        return cells
    return np.stack([cells[..., 0], cells[..., 1] + cells[..., 2], cells[..., 3]], axis=-1)


def pair_pattern_rows(metric: str) -> NDArray[np.int64]:
    """The patterns :func:`pair_patterns` gives the columns of, for ``metric``."""
    return PAIR_COUNTED if metric == "psa" else PAIR_ORDERED
