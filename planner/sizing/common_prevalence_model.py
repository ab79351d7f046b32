"""kappaSize's common-prevalence model for several annotators.

The annotators are exchangeable: there is no ground truth and no annotator bias, only class
prevalences ``pi_1..pi_K`` and one intraclass kappa. With two categories every item's labels
follow kappaSize's mixture (with probability kappa all annotators give one label drawn from
the prevalences, otherwise each labels independently; with two annotators this is the
Bloch-Kraemer common-correlation model); with three to five categories they follow the
Dirichlet-multinomial with ``kappa = 1 / (tau + 1)`` (docs/methods/sizing-several-annotators.md
section 11). Both
models have Fleiss' kappa exactly equal to kappa, and the pattern probabilities are those
``planner compat`` simulates kappaSize's answers with
(:func:`planner.sizing.compat_check.common_prevalence_patterns`).

:class:`CommonPrevalenceModel` offers what the multi-rater search needs from a model
(:func:`planner.sizing.study_intervals.pattern_space`): count-pattern probabilities (also for
``k`` of ``M`` annotators per item: any ``k`` exchangeable annotators follow the same model
with ``k`` raters) and ordered-pattern probabilities (a count pattern's probability shared
equally by its orderings).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.sizing.annotator_model import RatersModel, check_pair_shape, check_prevalences
from planner.sizing.model import PairModel, pair_from_ordered
from planner.validation import RULES, check

FloatArray = NDArray[np.float64]
MIXTURE = "kappaSize's binary mixture (all annotators agree with probability kappa)"
DIRICHLET = "Dirichlet-multinomial with intraclass kappa = 1 / (tau + 1)"


@dataclass(frozen=True)
class CommonPrevalenceModel:
    """Exchangeable annotators with class prevalences and one intraclass kappa.

    Attributes
    ----------
    prevalences
        ``(K,)`` class prevalences summing to 1 (binary: category 1 is the positive class).
    kappa
        The intraclass kappa, in (0, 1): Fleiss' kappa of the model.
    annotators
        Annotators per item ``M``.
    """

    prevalences: tuple[float, ...]
    kappa: float
    annotators: int

    @property
    def n_annotators(self) -> int:
        return self.annotators

    @property
    def n_categories(self) -> int:
        return len(self.prevalences)

    @property
    def family(self) -> str:
        """Which of kappaSize's models: the binary mixture or the Dirichlet-multinomial."""
        return MIXTURE if self.n_categories == 2 else DIRICHLET

    def count_patterns(self, per_item: int | None = None) -> tuple[NDArray[np.int64], FloatArray]:
        """Distinct count patterns ``(P, K)`` (categories in order) and their probabilities.

        ``per_item`` ``k < M``: any ``k`` of the exchangeable annotators follow the same model
        with ``k`` raters, so no average over subsets is needed.
        """
        from planner.sizing.compat_check import common_prevalence_patterns

        raters = self.annotators if per_item is None else int(per_item)
        binary = self.n_categories == 2
        props = self.prevalences[1:] if binary else self.prevalences
        rows, probs = common_prevalence_patterns(props, raters, self.kappa)
        if binary:  # (positives, negatives) -> category order (negatives, positives)
            rows = rows[:, ::-1]
        order = np.lexsort(rows.T[::-1])
        return rows[order].astype(np.int64), np.asarray(probs, dtype=float)[order]

    def ordered_probabilities(self) -> FloatArray:
        """``(K,) * M`` array: a count pattern's probability shared by its orderings."""
        rows, probs = self.count_patterns()
        lookup = {tuple(int(x) for x in row): p for row, p in zip(rows, probs, strict=True)}
        k, m = self.n_categories, self.annotators
        out = np.zeros((k,) * m)
        for labels in itertools.product(range(k), repeat=m):
            counts = tuple(labels.count(c) for c in range(k))
            ways = math.factorial(m) / math.prod(math.factorial(c) for c in counts)
            out[labels] = lookup[counts] / ways
        return out

    def pair(self) -> PairModel:
        """Two exchangeable annotators over two categories as the pair model (the
        Bloch-Kraemer common-correlation table, Cohen's kappa equal to ``kappa``)."""
        check_pair_shape(self.n_annotators, self.n_categories)
        return pair_from_ordered(self.ordered_probabilities(), "common-prevalence", self.describe())

    def with_annotators(self, n_annotators: int) -> CommonPrevalenceModel:
        """The same model with ``n_annotators`` annotators per item."""
        return CommonPrevalenceModel(self.prevalences, self.kappa, int(n_annotators))

    def describe(self) -> dict[str, Any]:
        """The model for reports and JSON."""
        return {
            "kind": "common-prevalence",
            "family": self.family,
            "n_annotators": self.annotators,
            "n_categories": self.n_categories,
            "prevalences": list(self.prevalences),
            "kappa": self.kappa,
        }


#: Any model the multi-rater search takes
AnyRatersModel = RatersModel | CommonPrevalenceModel


def common_prevalence_model(
    prevalence: float | ArrayLike,
    n_annotators: int = 3,
    *,
    kappa: float,
    n_categories: int | None = None,
) -> CommonPrevalenceModel:
    """kappaSize's common-prevalence model of ``n_annotators`` exchangeable annotators.

    Parameters
    ----------
    prevalence
        One number (binary: the positive class, category 1) or ``K`` class prevalences
        summing to 1 (kappaSize's ``props``).
    n_annotators
        Annotators per item, 2 to 6 (kappaSize's ``raters``).
    kappa
        The intraclass kappa, in (0, 1) (kappaSize's ``kappa0``).
    n_categories
        ``K``, if given, must match the prevalences.

    Examples
    --------
    Fleiss' kappa of the model is kappa, whatever the number of annotators:

    >>> from planner.sizing.study_intervals import true_value
    >>> m = common_prevalence_model([0.2, 0.5, 0.3], 4, kappa=0.6)
    >>> rows, p = m.count_patterns()
    >>> round(true_value("fleiss", rows, p), 9)
    0.6
    """
    m = check("n_annotators", n_annotators, RULES["n_annotators"])
    prevalences = check_prevalences(prevalence, n_categories)
    k = check("kappa", kappa, RULES["intraclass_kappa"])
    return CommonPrevalenceModel(prevalences, float(k), int(m))
