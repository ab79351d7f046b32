"""The Alt-Test's planning model: the humans' and the LLM's error rates over the categories.

Every item has a true category drawn from the prevalences; each annotator (the ``M`` humans
and the LLM) gives the true label with probability ``1 - error``, else a random draw over the
``K`` categories (uniform, or from the prevalences: ``error_draw="prior"``, the authors'
generator). The label pattern of an item (``K^(M+1)`` cells) fixes every human's
``d = W^h - W^f``, so the test depends on an item only through its vector
``(d_1, ..., d_M)``: :func:`difference_classes` gives those vectors and their probabilities,
all the search (:mod:`planner.sizing.alt_test_plan`) needs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.sizing.alt_test_settings import ERROR_DRAW, HUMAN_ERROR, LLM_ERROR
from planner.statistics.alt_test_stats import alignment_differences
from planner.validation import RULES, Rule, check, check_choice, check_instance, shown

PATTERN_LIMIT = 2_000_000  # label patterns K^(M+1) enumerated at most
ERROR_DRAWS = ("uniform", "prior")


@dataclass(frozen=True)
class AltTestModel:
    """The planning model: humans' and the LLM's error rates, categories and prevalences."""

    human_error: tuple[float, ...]
    llm_error: float
    prevalences: tuple[float, ...]
    error_draw: str = ERROR_DRAW

    @property
    def n_humans(self) -> int:
        return len(self.human_error)

    @property
    def n_categories(self) -> int:
        return len(self.prevalences)

    def describe(self) -> str:
        """The model in words."""
        k = self.n_categories
        prev = (
            "equally likely"
            if np.allclose(self.prevalences, 1 / k)
            else "with prevalences " + ", ".join(f"{p:g}" for p in self.prevalences)
        )
        errs = sorted(set(self.human_error))
        human = f"{errs[0]:g}" if len(errs) == 1 else ", ".join(f"{e:g}" for e in self.human_error)
        draw = (
            f"a uniform draw over the {k} categories"
            if self.error_draw == "uniform"
            else ("a draw from the category prevalences")
        )
        return (
            f"{self.n_humans} humans and one LLM label every item; {k} categories {prev}; each "
            f"annotator gives the true label with probability 1 - error, else {draw} "
            f"(human error {human}, LLM error {self.llm_error:g})"
        )


def alt_test_model(
    *,
    humans: int | None = None,
    categories: int | None = None,
    human_error: float | Sequence[float] = HUMAN_ERROR,
    llm_error: float = LLM_ERROR,
    prevalences: Sequence[float] | None = None,
    error_draw: str = ERROR_DRAW,
) -> AltTestModel:
    """Check and build an :class:`AltTestModel`.

    Parameters
    ----------
    humans
        Human annotators ``M`` (default 3, or the length of a sequence ``human_error``;
        given with such a sequence, the two must agree).
    categories
        Categories ``K`` (default 2, or the length of ``prevalences``; given with them, the
        two must agree).
    human_error
        One error rate for every human, or one per human, in [0, 1].
    llm_error
        The LLM's error rate, in [0, 1].
    prevalences
        Category prevalences (default equal); they must sum to 1.
    error_draw
        ``"uniform"`` (an error is a uniform draw over the categories) or ``"prior"`` (a draw
        from the prevalences, as the authors' simulation).
    """
    error_draw = check_choice("error_draw", error_draw, ERROR_DRAWS)
    _check_model_types(humans, categories, human_error, prevalences)
    if isinstance(human_error, int | float | np.number):
        m = check("humans", 3 if humans is None else humans, RULES["n_humans"])
        errors = (check("human_error", human_error, RULES["annotator_error"]),) * m
    else:
        errors = tuple(check("human_error", e, RULES["annotator_error"]) for e in human_error)
        _list_length("human_error", errors, "humans", RULES["n_humans"])
        _same_count("humans", humans, "human_error", len(errors))
    llm = check("llm_error", llm_error, RULES["annotator_error"])
    if prevalences is None:
        k = check("categories", 2 if categories is None else categories, RULES["n_categories"])
        prev = (1.0 / k,) * k
    else:
        prev = tuple(check("prevalences", p, RULES["prevalence"]) for p in prevalences)
        _list_length("prevalences", prev, "categories", RULES["n_categories"])
        _same_count("categories", categories, "prevalences", len(prev))
        if not math.isclose(sum(prev), 1.0, abs_tol=1e-9):
            raise InvalidInput(
                f"prevalences must sum to 1, got {sum(prev):g}", parameter="prevalences"
            )
    cells = len(prev) ** (len(errors) + 1)
    if cells > PATTERN_LIMIT:
        raise InvalidInput(
            f"humans {len(errors)} with {len(prev)} categories give {len(prev)}^"
            f"{len(errors) + 1} = {cells:,} label patterns, over the limit of "
            f"{PATTERN_LIMIT:,}; plan with fewer humans or categories",
            parameter="humans",
        )
    return AltTestModel(errors, llm, prev, error_draw)


_NUMBER_LIST = (list, tuple, np.ndarray)


def _check_model_types(humans: Any, categories: Any, human_error: Any, prevalences: Any) -> None:
    """The door of :func:`alt_test_model`: counts given are whole numbers in their range,
    and the lists are lists (a bare number for ``prevalences`` is refused)."""
    if humans is not None:
        check("humans", humans, RULES["n_humans"])
    if categories is not None:
        check("categories", categories, RULES["n_categories"])
    if not isinstance(human_error, int | float | np.number):
        check_instance("human_error", human_error, _NUMBER_LIST, "a number or a list of numbers")
    if prevalences is not None:
        check_instance("prevalences", prevalences, _NUMBER_LIST, "a list of numbers")


def _list_length(name: str, values: tuple[float, ...], counts: str, rule: Rule) -> None:
    """A list that sets a count (one error rate per human) has a length the count allows."""
    assert rule.test is not None  # the count rules all test
    if not rule.test(len(values)):
        raise InvalidInput(
            f"{name} must list one value per {counts[:-1]}, {counts} being {rule.allowed}; "
            f"got {len(values)} values",
            parameter=name,
        )


def _same_count(name: str, count: int | None, listed: str, length: int) -> None:
    """An explicit ``count`` agrees with the length of the list it counts (never silently
    overridden by it)."""
    if count is not None and count != length:
        raise InvalidInput(
            f"{name} is {shown(count)} but {listed} lists {length} values: give one of "
            "them, or make them agree",
            parameter=name,
        )


def difference_classes(
    model: AltTestModel, scoring_values: NDArray[np.float64] | None = None
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The distinct per-item difference vectors and their probabilities under ``model``.

    Returns
    -------
    d, probability
        ``(C, M)`` the values of ``d_j`` (-1, 0, 1) of each class, and ``(C,)`` their
        probabilities (summing to 1; classes of probability 0 left out).
    """
    k, m = model.n_categories, model.n_humans
    prev = np.asarray(model.prevalences)
    draw = prev if model.error_draw == "prior" else np.full(k, 1.0 / k)
    joint = prev
    for err in (*model.human_error, model.llm_error):  # (truth, y_1, ..., y_a)
        confusion = (1 - err) * np.eye(k) + err * draw[None, :]
        joint = joint[..., None] * confusion.reshape((k,) + (1,) * (joint.ndim - 1) + (k,))
    prob = joint.sum(axis=0).ravel()
    pattern = np.stack(np.unravel_index(np.arange(prob.size), (k,) * (m + 1)), axis=1)
    key = np.zeros(prob.size, dtype=np.int64)
    d_all = np.empty((prob.size, m), dtype=np.int64)
    for j in range(m):
        d_j, _, _ = alignment_differences(pattern[:, :m], pattern[:, m], j, scoring_values)
        d_all[:, j] = d_j
        key += (d_j + 1) * 3**j
    classes, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    p = np.bincount(inverse.ravel(), weights=prob, minlength=len(classes))
    keep = p > 0
    return d_all[first[keep]], p[keep] / p[keep].sum()
