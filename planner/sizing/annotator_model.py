"""The model for M annotators and K categories: from assumptions to label-pattern probabilities.

A :class:`RatersModel` holds the true class prevalences ``pi_t`` (``K`` of them), one
``K x K`` confusion matrix per annotator (row = true class, column = label; rows sum to 1)
and a share ``h`` of ambiguous items. Given the true class the annotators label
independently on clear items; on ambiguous items (the pair model's ambiguity,
:func:`planner.sizing.model.pair_from_annotators`) one shared difficulty ``V ~ U(0, 1)``
decides who errs (annotator ``j`` errs when ``V < e_j(t) = 1 - C_j[t, t]``) and a second
shared ``W ~ U(0, 1)`` picks the wrong label by the inverse of each annotator's error
distribution, so errors coincide. Each annotator's own confusion matrix does not depend on
``h``; only the correlation of errors does.

The model gives the probabilities of the ``K^M`` *ordered* label patterns (who said what)
and of the *count patterns* (how many annotators said each category: the unordered patterns,
at most ``C(M + K - 1, K - 1)`` = 210 for M = 6, K = 5), which is all Fleiss' kappa,
Krippendorff's alpha and Uebersax's specific agreement need. A design where every item gets
``k`` of a pool of ``M`` annotators drawn at random has count-pattern probabilities averaged
over the ``C(M, k)`` subsets (:meth:`RatersModel.count_patterns` with ``per_item``).

Everything here is deterministic; simulation lives in :mod:`planner.sizing.studies`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from planner.errors import InvalidInput
from planner.sizing.label_patterns import count_patterns
from planner.sizing.model import (
    PairModel,
    annotator_rates,
    default_error_rate,
    pair_from_ordered,
)
from planner.validation import RULES, check, check_instance, check_per_annotator, shown

MAX_ANNOTATORS = 6
MAX_CATEGORIES = 5
FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class RatersModel:
    """Label-pattern probabilities of ``M`` annotators over ``K`` categories.

    Attributes
    ----------
    prevalences
        ``(K,)`` true class prevalences, summing to 1.
    confusion
        ``(M, K, K)`` per annotator ``P(label = l | truth = t)`` at ``[j, t, l]``.
    ambiguity
        Share ``h`` of items whose errors share one difficulty.
    assumptions
        The inputs the model was built from, for reports.
    """

    prevalences: tuple[float, ...]
    confusion: tuple[tuple[tuple[float, ...], ...], ...]
    ambiguity: float
    assumptions: dict[str, Any]

    @property
    def n_annotators(self) -> int:
        return len(self.confusion)

    @property
    def n_categories(self) -> int:
        return len(self.prevalences)

    def describe(self) -> dict[str, Any]:
        """The model for reports and JSON: its kind and parameters, as
        :meth:`planner.sizing.common_prevalence_model.CommonPrevalenceModel.describe` gives
        its own."""
        return {
            "kind": "confusion",
            "n_annotators": self.n_annotators,
            "n_categories": self.n_categories,
            "prevalences": list(self.prevalences),
            "confusion": [[list(r) for r in mat] for mat in self.confusion],
            "ambiguity": self.ambiguity,
        }

    def ordered_probabilities(self) -> FloatArray:
        """``(K,) * M`` array: probability that annotator ``j`` says ``l_j`` for every ``j``."""
        pi = np.asarray(self.prevalences)
        c = np.asarray(self.confusion)
        m, k = self.n_annotators, self.n_categories
        out = np.zeros((k,) * m)
        for t in range(k):
            clear = c[0, t]
            for j in range(1, m):
                clear = np.multiply.outer(clear, c[j, t])
            shared = _ambiguous_patterns(c[:, t, :], t) if self.ambiguity > 0 else 0.0
            out += pi[t] * ((1 - self.ambiguity) * clear + self.ambiguity * shared)
        return out

    def count_patterns(self, per_item: int | None = None) -> tuple[NDArray[np.int64], FloatArray]:
        """Distinct count patterns ``(P, K)`` and their probabilities ``(P,)``.

        ``per_item`` ``k < M``: each item is labelled by ``k`` annotators drawn at random
        from the ``M`` (every subset equally likely); default all ``M``.
        """
        return count_patterns(
            lambda subset: self.subset(subset).ordered_probabilities(),
            self.n_annotators,
            self.n_categories,
            per_item,
        )

    def pair(self) -> PairModel:
        """Two annotators over two categories as the pair model (its four cells), for the
        pair's exact PSA search and its kappa intervals.

        Raises
        ------
        InvalidInput
            Unless the model has two annotators and two categories.
        """
        check_pair_shape(self.n_annotators, self.n_categories)
        return pair_from_ordered(self.ordered_probabilities(), "annotators", self.assumptions)

    def subset(self, annotators: tuple[int, ...]) -> RatersModel:
        """The model of some of the annotators only (same prevalences and ambiguity)."""
        return RatersModel(
            self.prevalences,
            tuple(self.confusion[j] for j in annotators),
            self.ambiguity,
            {**self.assumptions, "annotators": list(annotators)},
        )

    def with_annotators(self, n_annotators: int) -> RatersModel:
        """The same kind of team with ``n_annotators`` members (the given ones, cycled)."""
        order = tuple(j % self.n_annotators for j in range(n_annotators))
        return RatersModel(
            self.prevalences,
            tuple(self.confusion[j] for j in order),
            self.ambiguity,
            dict(self.assumptions),
        )


def check_pair_shape(n_annotators: int, n_categories: int) -> None:
    """Refuse a model that is not two annotators over two categories, where a pair is needed."""
    if (n_annotators, n_categories) != (2, 2):
        raise InvalidInput(
            f"a pair is two annotators over two categories; this model has "
            f"{n_annotators} annotators and {n_categories} categories",
            parameter="model",
        )


def check_per_item(per_item: Any, n_annotators: int) -> int:
    """``per_item`` checked: an integer of at least 2 (its rule) and below the pool's
    ``n_annotators`` (``k`` of ``M`` drawn at random per item; ``M`` of ``M`` is every one)."""
    k = int(check("per_item", per_item, RULES["per_item"]))
    if k >= n_annotators:
        raise InvalidInput(
            f"per_item must be less than the {n_annotators} annotators of the pool, got {k}",
            parameter="per_item",
            value=k,
        )
    return k


def _ambiguous_patterns(rows: FloatArray, truth: int) -> FloatArray:
    """Ordered-pattern probabilities on ambiguous items of true class ``truth``.

    ``rows`` ``(M, K)``: each annotator's row of its confusion matrix. ``(V, W)`` is cut into
    rectangles on which every annotator's label is fixed; each adds its area.
    """
    m, k = rows.shape
    err = 1.0 - rows[:, truth]
    v_cuts = np.unique(np.concatenate([[0.0, 1.0], np.clip(err, 0, 1)]))
    wrong = np.delete(rows, truth, axis=1)  # (M, K - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(err[:, None] > 0, wrong / np.where(err > 0, err, 1)[:, None], 0.0)
    cum = np.cumsum(share, axis=1)
    w_cuts = np.unique(np.concatenate([[0.0, 1.0], np.clip(cum.ravel(), 0, 1)]))
    others = [c for c in range(k) if c != truth]
    out = np.zeros((k,) * m)
    for v0, v1 in itertools.pairwise(v_cuts):
        v = (v0 + v1) / 2
        for w0, w1 in itertools.pairwise(w_cuts):
            w = (w0 + w1) / 2
            labels = []
            for j in range(m):
                if v < err[j]:
                    pick = min(int(np.searchsorted(cum[j], w, side="right")), k - 2)
                    labels.append(others[pick])
                else:
                    labels.append(truth)
            out[tuple(labels)] += (v1 - v0) * (w1 - w0)
    return out


# --------------------------------------------------------------------------- building models


_NUMBER_LIST = (list, tuple, np.ndarray)


def _check_class_types(prevalence: Any, n_categories: Any) -> None:
    """The door of :func:`raters_model` for its classes: ``prevalence`` a number or a list,
    ``n_categories`` (when given) a whole number of categories the model takes."""
    if not isinstance(prevalence, int | float | np.number):
        check_instance("prevalence", prevalence, _NUMBER_LIST, "a number or a list of numbers")
    if n_categories is not None:
        check("n_categories", n_categories, RULES["raters_categories"])


def check_prevalences(prevalences: Any, n_categories: int | None) -> tuple[float, ...]:
    """Class prevalences from one number (binary: the positive class is category 1) or K."""
    if isinstance(prevalences, int | float | np.number):
        p = check("prevalence", prevalences, RULES["prevalence"])
        values: tuple[float, ...] = (1.0 - p, p)
    else:
        values = tuple(check("prevalence", v, RULES["prevalence"]) for v in prevalences)
        if len(values) < 2:
            raise InvalidInput(
                "prevalence takes one number (binary) or one per category, got "
                f"{len(values)} values",
                parameter="prevalence",
            )
        if abs(sum(values) - 1.0) > 1e-6:
            raise InvalidInput(
                f"prevalence values must sum to 1, got {', '.join(map(shown, values))} "
                f"(sum {sum(values):.6g})",
                parameter="prevalence",
            )
    if n_categories is not None and n_categories != len(values):
        raise InvalidInput(
            f"n_categories {shown(n_categories)} does not match the {len(values)} class "
            "prevalences the model defines: give one prevalence per category",
            parameter="n_categories",
        )
    if len(values) > MAX_CATEGORIES:
        raise InvalidInput(
            f"prevalence defines {len(values)} categories; the model takes 2 to {MAX_CATEGORIES}",
            parameter="prevalence",
        )
    return values


def _confusion_from_errors(
    prevalences: tuple[float, ...], error: float, bias: float, spread: str, label: str
) -> FloatArray:
    k = len(prevalences)
    if k == 2:
        fnr, fpr = annotator_rates(prevalences[1], error, bias, label=label)
        return np.array([[1 - fpr, fpr], [fnr, 1 - fnr]])
    out = np.zeros((k, k))
    for t in range(k):
        if spread == "adjacent":
            near = [c for c in (t - 1, t + 1) if 0 <= c < k]
        else:
            near = [c for c in range(k) if c != t]
        out[t, t] = 1 - error
        out[t, near] = error / len(near)
    return out


def check_confusion(confusion: ArrayLike, n_annotators: int, n_categories: int) -> FloatArray:
    """``(M, K, K)`` confusion matrices (one ``(K, K)`` for all), rows summing to 1."""
    c = np.asarray(confusion, dtype=float)
    if c.ndim == 2:
        c = np.broadcast_to(c, (n_annotators, *c.shape))
    if c.ndim != 3 or c.shape[1] != c.shape[2]:
        raise InvalidInput(
            f"confusion takes square K x K matrices, got shape {c.shape}", parameter="confusion"
        )
    if c.shape[0] not in (1, n_annotators):
        raise InvalidInput(
            f"confusion takes one matrix for every annotator or one per annotator "
            f"({n_annotators}), got {c.shape[0]}",
            parameter="confusion",
        )
    if c.shape[0] == 1:
        c = np.broadcast_to(c, (n_annotators, *c.shape[1:]))
    if c.shape[1] != n_categories:
        raise InvalidInput(
            f"confusion is {c.shape[1]} x {c.shape[1]} but the model has {n_categories} categories",
            parameter="confusion",
        )
    if not np.all(np.isfinite(c)) or np.any(c < 0) or np.any(c > 1):
        raise InvalidInput("confusion entries must be numbers in [0, 1]", parameter="confusion")
    sums = c.sum(axis=2)
    bad = np.argwhere(np.abs(sums - 1) > 1e-6)
    if bad.size:
        j, t = (int(x) for x in bad[0])
        raise InvalidInput(
            f"confusion row {t + 1} of annotator {j + 1} must sum to 1, got {sums[j, t]:.6g}",
            parameter="confusion",
        )
    return np.array(c)


def raters_model(
    prevalence: float | ArrayLike,
    n_annotators: int = 3,
    *,
    n_categories: int | None = None,
    error_rate: float | ArrayLike | None = None,
    bias: float | ArrayLike = 0.0,
    confusion: ArrayLike | None = None,
    ambiguity: float = 0.0,
    spread: str = "uniform",
) -> RatersModel:
    """A model of ``n_annotators`` annotators labelling items into ``K`` categories.

    Parameters
    ----------
    prevalence
        One number (binary; the prevalence of the positive class, category 1) or ``K``
        class prevalences summing to 1.
    n_annotators
        Annotators per item, 2 to :data:`MAX_ANNOTATORS`.
    n_categories
        ``K``, if given, must match the prevalences.
    error_rate, bias
        Without ``confusion``: each annotator's ``P(label != truth)`` (one value or one per
        annotator). Binary: with the pair model's bias (:func:`annotator_rates`); ``K > 2``:
        the same error on every class, spread over the other classes (``spread="uniform"``)
        or the neighbouring ones (``"adjacent"``, for ordered scales).
    confusion
        ``(K, K)`` for every annotator or ``(M, K, K)``; rows (true class) sum to 1.
    ambiguity
        Share of items on which errors share one difficulty, in [0, 1].

    Examples
    --------
    Two annotators reduce to the pair model (docs/methods/annotator-models.md 6.2 (a)):

    >>> m = raters_model(0.06, 2, error_rate=0.03, ambiguity=0.3)
    >>> from planner.sizing.model import pair_from_annotators
    >>> pair = pair_from_annotators(0.06, 0.03, ambiguity=0.3)
    >>> p = m.ordered_probabilities()
    >>> bool(np.allclose([p[1, 1], p[1, 0], p[0, 1], p[0, 0]], pair.cells))
    True
    """
    m = check("n_annotators", n_annotators, RULES["n_annotators"])
    _check_class_types(prevalence, n_categories)
    prevalences = check_prevalences(prevalence, n_categories)
    k = len(prevalences)
    h = check("ambiguity", ambiguity, RULES["ambiguity"])
    if confusion is not None:
        if error_rate is not None or (bias is not None and np.any(np.asarray(bias) != 0)):
            raise InvalidInput(
                "confusion states every error already: give error_rate and bias, or confusion, "
                "not both",
                parameter="confusion",
            )
        c = check_confusion(confusion, m, k)
        source = "confusion"
    else:
        if error_rate is None:
            error_rate = default_error_rate(min(prevalences)) if k == 2 else 0.1
        errors = check_per_annotator("error_rate", error_rate, m)
        biases = check_per_annotator("bias", bias, m)
        if k > 2 and any(b != 0 for b in biases):
            raise InvalidInput(
                "bias applies to two categories only; give a confusion matrix instead",
                parameter="bias",
            )
        c = np.stack(
            [
                _confusion_from_errors(prevalences, e, b, spread, str(j + 1))
                for j, (e, b) in enumerate(zip(errors, biases, strict=True))
            ]
        )
        source = "error-rates"
    return RatersModel(
        prevalences=prevalences,
        confusion=tuple(tuple(tuple(float(x) for x in row) for row in mat) for mat in c),
        ambiguity=h,
        assumptions={"source": source, "prevalences": list(prevalences), "ambiguity": h},
    )
