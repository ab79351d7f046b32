"""The alternative annotator test on real labels: can an LLM judge replace an annotator?

For each human ``j`` and each item ``j`` labelled together with at least one other human
(and the LLM), the LLM's label and ``j``'s label are each scored against the other humans'
labels (``accuracy``: the share they match; ``neg-rmse``: minus the root mean squared
difference). ``W^f = 1[S_f >= S_h]`` and ``W^h = 1[S_h >= S_f]`` (ties count for both);
``d = W^h - W^f``. A one-sided test of ``H0: mean(d) >= epsilon`` per human (the t-test, or
the Wilcoxon signed-rank test below 30 items), Benjamini-Yekutieli at level ``q`` over the
humans, the winning rate ``omega`` (share of humans rejected; the LLM passes at
``omega >= 0.5``) and the advantage probability ``rho`` (mean of ``rho_f`` over the humans,
for ranking LLMs). Calderon, Reichart & Dror (ACL 2025); their reference code is the
``alt_test`` function of ``alt_test_example.ipynb`` in github.com/nitaytech/AltTest.

Vectorised over items; loops run over LLMs, domains and humans only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.data.labels import Ratings
from planner.errors import InvalidInput
from planner.statistics.alt_test_stats import (
    EPSILON,
    FDR_Q,
    MIN_ITEMS,
    by_rejections,
    by_thresholds,
    difference_test,
)
from planner.validation import (
    RULES,
    check,
    check_choice,
    check_instance,
    check_text,
    check_texts,
    compact_repr,
    shown,
)

SCORINGS = ("accuracy", "neg-rmse")


@dataclass(frozen=True)
class HumanTest:
    """One human's test against one LLM (in one domain).

    Attributes
    ----------
    human, domain
        The human annotator, and the ``by`` value (None without ``by``).
    items
        Items the human labelled together with another human and the LLM.
    llm_score, human_score
        Mean alignment score of the LLM's and the human's labels with the other humans'.
    rho_llm, rho_human
        ``mean W^f`` (the LLM's advantage probability against this human) and ``mean W^h``.
    test
        ``"t"`` (t-test, 30 items or more) or ``"wilcoxon"`` (signed-rank, below 30).
    statistic, p_value
        The test's statistic and one-sided p-value.
    rejected
        Whether Benjamini-Yekutieli rejects ``H0`` (the LLM wins against this human).
    """

    human: str
    domain: str | None
    items: int
    llm_score: float
    human_score: float
    rho_llm: float
    rho_human: float
    test: str
    statistic: float
    p_value: float
    rejected: bool


@dataclass(frozen=True)
class DomainVerdict:
    """The test in one domain (``by`` value): its humans' rejections and the verdict."""

    domain: str
    humans_tested: int
    rejected: int
    omega: float
    rho: float
    passes: bool


@dataclass(frozen=True)
class LLMVerdict:
    """One LLM's alt-test.

    Attributes
    ----------
    llm
        The LLM annotator's name.
    tests
        One per tested (domain x) human.
    skipped
        ``(human, domain, items)`` of humans with fewer than ``min_items`` items.
    omega
        Winning rate: share of the tests rejected (all domains together).
    rho
        Advantage probability: mean ``rho_llm`` over the tests.
    passes
        ``omega >= 0.5``.
    domains
        Per domain, with ``by``; the false discovery rate is controlled over all
        (domain x human) tests together.
    """

    llm: str
    tests: tuple[HumanTest, ...]
    skipped: tuple[tuple[str, str | None, int], ...]
    omega: float
    rho: float
    passes: bool
    domains: tuple[DomainVerdict, ...] = ()

    @property
    def domains_passed(self) -> int:
        return sum(d.passes for d in self.domains)


@dataclass(frozen=True)
class AltTestResult:
    """The alt-test of one or more LLMs, ranked by advantage probability ``rho``."""

    __repr__ = compact_repr  # shapes, not every value

    llms: tuple[LLMVerdict, ...]
    humans: tuple[str, ...]
    scoring: str
    epsilon: float
    q: float
    min_items: int
    by: str | None
    source: str
    notes: tuple[str, ...] = ()


def alt_test(
    ratings: Ratings,
    llms: Sequence[str],
    *,
    scoring: str = "accuracy",
    epsilon: float = EPSILON,
    q: float = FDR_Q,
    min_items: int = MIN_ITEMS,
    by: str | None = None,
) -> AltTestResult:
    """Run the alternative annotator test of each LLM in ``llms`` against the other annotators.

    Parameters
    ----------
    ratings
        The labels; every annotator not in ``llms`` is a human.
    llms
        Names of the LLM annotators (one name, or several).
    scoring
        ``"accuracy"`` (categories) or ``"neg-rmse"`` (numeric labels).
    epsilon
        The margin granted to the LLM, in [0, 1): the authors suggest 0.2 for experts, 0.15
        for skilled annotators, 0.1 for crowd workers.
    q
        False discovery rate of the Benjamini-Yekutieli procedure.
    min_items
        Humans with fewer items (labelled with another human and the LLM) are not tested.
    by
        A grouping column of ``ratings``: one test per (domain x human), FDR over all.

    Returns
    -------
    AltTestResult
        The LLMs ranked by ``rho`` (highest first).

    Raises
    ------
    InvalidInput
        An LLM name not in the file, fewer than two humans, non-numeric labels with
        ``neg-rmse``, or no human with ``min_items`` items.
    """
    check_instance("ratings", ratings, Ratings, "a Ratings (read_labels, ratings_from_matrix, ...)")
    llms = [llms] if isinstance(llms, str) else list(check_texts("llms", llms) or ())
    check_text("by", by, optional=True)
    scoring = check_choice("scoring", scoring, SCORINGS)
    epsilon = check("epsilon", epsilon, RULES["alt_epsilon"])
    q = check("q", q, RULES["fdr_q"])
    min_items = check("min_items", min_items, RULES["alt_min_items"])
    llm_idx = _llm_indices(ratings, llms)
    humans = [i for i in range(ratings.n_annotators) if i not in llm_idx]
    if len(humans) < 2:
        raise InvalidInput(
            f"{ratings.source}: the alt-test needs two or more human annotators besides the "
            f"LLMs, found {len(humans)}"
        )
    domain_of, domains = _domains(ratings, by)
    values = _values(ratings, scoring)
    verdicts = []
    for f in llm_idx:
        verdicts.append(
            _one_llm(ratings, humans, f, values, domain_of, domains, epsilon, q, min_items)
        )
    verdicts.sort(key=lambda v: -v.rho)
    return AltTestResult(
        llms=tuple(verdicts),
        humans=tuple(ratings.annotators[h] for h in humans),
        scoring=scoring,
        epsilon=epsilon,
        q=q,
        min_items=min_items,
        by=by,
        source=ratings.source,
        notes=_notes(verdicts, min_items),
    )


def _notes(verdicts: list[LLMVerdict], min_items: int) -> tuple[str, ...]:
    """What a reader of the verdicts should know: Wilcoxon tests, constant differences, skips."""
    notes = []
    tests = [t for v in verdicts for t in v.tests]
    wilcoxon = sum(t.test == "wilcoxon" for t in tests)
    if wilcoxon:
        notes.append(
            f"{wilcoxon} {'test' if wilcoxon == 1 else 'tests'} on fewer than 30 items used the "
            "Wilcoxon signed-rank test (as the Alt-Test's authors, Calderon, Reichart and Dror "
            "2025, prescribe), which tests the median of d, not its mean, and passes more easily "
            "than the t-test"
        )
    constant = sum(t.test == "t" and not np.isfinite(t.statistic) for t in tests)
    if constant:
        notes.append(
            f"{constant} {'t-test' if constant == 1 else 't-tests'} had the same d on every "
            "item (the statistic is infinite): p = 0 when that value is below epsilon, else 1"
        )
    skipped = sum(len(v.skipped) for v in verdicts)
    if skipped:
        notes.append(
            f"{skipped} human {'test' if skipped == 1 else 'tests'} skipped: fewer than "
            f"min_items ({min_items}) items"
        )
    return tuple(notes)


def _llm_indices(ratings: Ratings, llms: Sequence[str]) -> list[int]:
    names = list(ratings.annotators)
    if isinstance(llms, str):
        llms = [llms]
    if len(llms) == 0:
        raise InvalidInput("llms must name one or more LLM annotators", parameter="llms")
    present = ", ".join(names[:20]) + (", ..." if len(names) > 20 else "")
    out = []
    for name in llms:
        if name not in names:
            raise InvalidInput(
                f"llms: {shown(name)} is not an annotator in {ratings.source} "
                f"(annotators: {present})",
                parameter="llms",
            )
        if names.index(name) in out:
            raise InvalidInput(f"llms names {shown(name)} twice", parameter="llms")
        out.append(names.index(name))
    return out


def _domains(ratings: Ratings, by: str | None) -> tuple[NDArray[np.int64], list[str | None]]:
    """Per row the domain number, and the domains' names (``[None]`` without ``by``)."""
    if by is None:
        return np.zeros(ratings.n_rows, dtype=np.int64), [None]
    if by not in ratings.groups:
        raise InvalidInput(
            f"by: {shown(by)} is not a grouping column read from {ratings.source}",
            parameter="by",
        )
    column = np.asarray(ratings.groups[by])
    names, inverse = np.unique(column.astype(str), return_inverse=True)
    return inverse.ravel().astype(np.int64), [str(v) for v in names]


def _values(ratings: Ratings, scoring: str) -> NDArray[np.float64] | None:
    """The categories as numbers for ``neg-rmse`` (None for ``accuracy``)."""
    if scoring == "accuracy":
        return None
    try:
        return np.asarray([float(v) for v in ratings.categories])
    except (TypeError, ValueError):
        bad = next(v for v in ratings.categories if not _is_number(v))
        raise InvalidInput(
            f"scoring 'neg-rmse' needs numeric labels, found {shown(bad)} in {ratings.source}; "
            "score categories by 'accuracy'",
            parameter="scoring",
        ) from None


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def rating_differences(
    ratings: Ratings,
    humans: NDArray[np.bool_],
    f: int,
    values: NDArray[np.float64] | None,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray, NDArray]:
    """Per human rating where the test applies: its row, annotator, ``d`` and both scores.

    Sparse (linear in the ratings, never items x annotators): an item counts when two or more
    humans and the LLM ``f`` rated it. For a human's rating with label ``l`` of item ``i`` the
    other humans' labels enter only through per-item sums: for ``accuracy`` the number of
    humans giving ``l`` (and the LLM's label) on ``i``, minus the human's own; for
    ``neg-rmse`` the sums of the (centred) values and their squares minus the human's own, so
    that the mean squared difference of a label ``x`` is ``x^2 - 2 x mean(y) + mean(y^2)``.
    Mean squared differences within ``1e-9`` (relative) count as ties.

    Returns
    -------
    row, annotator, d, llm_score, human_score
        ``(n,)`` each.
    """
    item, ann, lab = ratings.item_index, ratings.annotator_index, ratings.label_index
    mine = humans[ann]
    item, ann, lab = item[mine], ann[mine], lab[mine]
    llm = ratings.annotator_labels(f)
    per_item = np.bincount(item, minlength=ratings.n_rows)
    keep = ((per_item >= 2) & (llm >= 0))[item]
    item, ann, lab = item[keep], ann[keep], lab[keep]
    lab_f, n_others = llm[item], per_item[item] - 1
    if values is None:
        k = ratings.n_categories
        key = item.astype(np.int64) * k + lab
        unique, inverse, count = np.unique(key, return_inverse=True, return_counts=True)
        same_h = count[inverse.ravel()] - 1
        key_f = item.astype(np.int64) * k + lab_f
        at = np.minimum(np.searchsorted(unique, key_f), len(unique) - 1)
        same_f = np.where(unique[at] == key_f, count[at], 0) - (lab == lab_f)
        h_ge, f_ge = same_h >= same_f, same_f >= same_h
        s_h, s_f = same_h / n_others, same_f / n_others
    else:
        v = values - values.mean()  # centred: the sums below lose no digits to a large mean
        x, x_f = v[lab], v[lab_f]
        sum_o = np.bincount(item, weights=x, minlength=ratings.n_rows)[item] - x
        sq_o = np.bincount(item, weights=x * x, minlength=ratings.n_rows)[item] - x * x
        msq_h = np.maximum(x * x - 2 * x * sum_o / n_others + sq_o / n_others, 0.0)
        msq_f = np.maximum(x_f * x_f - 2 * x_f * sum_o / n_others + sq_o / n_others, 0.0)
        tol = 1e-9 * (1.0 + np.maximum(msq_h, msq_f))
        h_ge, f_ge = msq_h <= msq_f + tol, msq_f <= msq_h + tol
        s_h, s_f = -np.sqrt(msq_h), -np.sqrt(msq_f)
    d = h_ge.astype(np.int64) - f_ge.astype(np.int64)
    return item, ann.astype(np.int64), d, s_f, s_h


def _one_llm(
    ratings: Ratings,
    humans: list[int],
    f: int,
    values: NDArray[np.float64] | None,
    domain_of: NDArray[np.int64],
    domains: list[str | None],
    epsilon: float,
    q: float,
    min_items: int,
) -> LLMVerdict:
    m = ratings.n_annotators
    is_human = np.zeros(m, dtype=bool)
    is_human[humans] = True
    row, ann, d, s_f, s_h = rating_differences(ratings, is_human, f, values)
    w = None if ratings.weights is None else ratings.weights[row].astype(float)
    group = domain_of[row] * m + ann  # (domain, annotator)
    n_groups = len(domains) * m
    counts = np.bincount(group * 3 + d + 1, weights=w, minlength=n_groups * 3)
    counts = np.round(counts).astype(np.int64).reshape(n_groups, 3)
    items = counts.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_f = (
            np.bincount(group, weights=s_f if w is None else s_f * w, minlength=n_groups) / items
        )
        mean_h = (
            np.bincount(group, weights=s_h if w is None else s_h * w, minlength=n_groups) / items
        )
    tested = np.flatnonzero(is_human[np.arange(n_groups) % m] & (items >= min_items))
    llm = ratings.annotators[f]
    if tested.size == 0 and not np.any(ratings.annotator_index == f):
        raise InvalidInput(
            f"{ratings.source}: the LLM annotator {llm} has no labels (its ratings are all "
            "missing), so it cannot be tested"
        )
    if tested.size == 0:
        raise InvalidInput(
            f"{ratings.source}: no human annotator has {min_items} or more items labelled "
            f"together with another human and {llm} (the most is {int(items.max(initial=0))}); "
            "lower min_items to test with fewer",
            parameter="min_items",
        )
    stat, p, is_t = difference_test(counts[tested], epsilon)
    rejected = by_rejections(p, q)
    tests = tuple(
        HumanTest(
            human=ratings.annotators[g % m],
            domain=domains[g // m],
            items=int(items[g]),
            llm_score=float(mean_f[g]),
            human_score=float(mean_h[g]),
            rho_llm=float(counts[g, :2].sum() / items[g]),
            rho_human=float(counts[g, 1:].sum() / items[g]),
            test="t" if is_t[i] else "wilcoxon",
            statistic=float(stat[i]),
            p_value=float(p[i]),
            rejected=bool(rejected[i]),
        )
        for i, g in enumerate(tested)
    )
    few = np.flatnonzero((items > 0) & (items < min_items))
    skipped = tuple((ratings.annotators[g % m], domains[g // m], int(items[g])) for g in few)
    verdicts: tuple[DomainVerdict, ...] = ()
    if domains != [None]:
        verdicts = tuple(_domain_verdict(tests, str(name)) for name in domains)
    omega = float(rejected.mean())
    return LLMVerdict(
        llm=llm,
        tests=tests,
        skipped=skipped,
        omega=omega,
        rho=float(np.mean([t.rho_llm for t in tests])),
        passes=omega >= 0.5,
        domains=verdicts,
    )


def _domain_verdict(tests: tuple[HumanTest, ...], name: str) -> DomainVerdict:
    mine = [t for t in tests if t.domain == name]
    rejected = sum(t.rejected for t in mine)
    omega = rejected / len(mine) if mine else float("nan")
    return DomainVerdict(
        domain=name,
        humans_tested=len(mine),
        rejected=rejected,
        omega=omega,
        rho=float(np.mean([t.rho_llm for t in mine])) if mine else float("nan"),
        passes=bool(mine) and omega >= 0.5,
    )


__all__ = [
    "SCORINGS",
    "AltTestResult",
    "DomainVerdict",
    "HumanTest",
    "LLMVerdict",
    "rating_differences",
    "alt_test",
    "by_thresholds",
]
