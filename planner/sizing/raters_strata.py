"""Several annotators over traffic strata: the strata, their models and their statistics.

A :class:`RatersStrata` holds each stratum's share of traffic, seconds per item and annotator
model (:func:`planner.sizing.annotator_model.raters_model`: the stratum's prevalence, error
rates, bias and ambiguity over the ``[annotators]`` section's) over two categories, every item
labelled by all ``M`` annotators or by ``k`` of them drawn at random (``per_item``, the
pattern probabilities averaged over the ``C(M, k)`` subsets); a study of a stratum is then
its counts of the ``k + 1`` label patterns (how many of its labels said positive). The
coefficients are specific positive agreement (``psa``, Uebersax) and Fleiss' kappa, as smooth
functions of the means of the item features of
:func:`planner.statistics.stratified.multirater_features`: traffic's value, the residual SDs
the cost-optimal allocation weighs, the weighted analysis of ``agree --stratum-col``
(combined ratio estimator, linearised t interval with Satterthwaite df; logit
scale for PSA, ``log(1 - kappa)`` for Fleiss' kappa) and the pooled single-sample interval.
They are the :class:`~planner.sizing.pattern_strata.PatternStrata` of several annotators:
the designs of :mod:`planner.sizing.strata_designs`, compared by
:func:`planner.sizing.compare.compare_raters_designs`, read them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.sizing.annotator_model import RatersModel, check_per_item, raters_model
from planner.sizing.design import (
    DesignResult,
    StratifiedPatternStudies,
    StratifiedSearch,
    check_strata,
    size_stratified,
    split_items,
    stratified_result,
)
from planner.sizing.model import renamed
from planner.sizing.pattern_strata import FloatArray, Interval, PatternStrata, Statistic
from planner.sizing.plan_settings import PlanSettings
from planner.sizing.study_intervals import expected_half_width, plug_in_items, study_intervals
from planner.statistics.stratified import (
    multirater_coefficient,
    multirater_features,
    weighted_from_pattern_counts,
)

#: the metrics a stratified design of several annotators sizes, as the analysis names them
STRATA_METRICS = {"psa": "psa", "fleiss": "fleiss_kappa"}
#: category 1 of two is the positive label
POSITIVE = 1


@dataclass(frozen=True)
class RatersStrata(PatternStrata):
    """The strata of a scenario of several annotators as the designs use them: the
    :class:`~planner.sizing.pattern_strata.PatternStrata` whose ``(P, 2)`` patterns are the
    count patterns (negatives, positives) of an item's labels, the same in every stratum.

    Attributes
    ----------
    models
        Each stratum's annotator model (same annotators, two categories).
    per_item
        ``k``: each item labelled by ``k`` of the ``M`` annotators, drawn at random; ``None``:
        by all of them.
    """

    models: tuple[RatersModel, ...] = ()
    per_item: int | None = None

    @property
    def n_annotators(self) -> int:
        """``M``, the annotators of the study's pool."""
        return self.models[0].n_annotators

    def check_metric(self, settings: PlanSettings) -> str:
        """psa or fleiss, and the strata's labels per item in ``settings.per_item``."""
        if settings.metric not in STRATA_METRICS:
            raise InvalidInput(
                f"metric {settings.metric} has no population-weighted interval over strata "
                f"for several annotators; give {' or '.join(STRATA_METRICS)}",
                parameter="metric",
                value=settings.metric,
            )
        if settings.per_item != self.per_item:
            raise InvalidInput(
                f"per_item {settings.per_item} differs from the strata's {self.per_item}: give "
                "the same k of M to raters_strata and to the settings",
                parameter="per_item",
            )
        return str(settings.metric)

    def value(self, metric: str, probabilities: FloatArray) -> FloatArray:
        """PSA or Fleiss' kappa of ``(..., P)`` pattern probabilities, ``g(p y)``."""
        return self.coefficient(STRATA_METRICS[metric], probabilities)

    def coefficient(
        self, name: str, probabilities: FloatArray, positive: int = POSITIVE
    ) -> FloatArray:
        """The analysis's coefficient ``name`` (``psa``: Uebersax's specific agreement on
        category ``positive``; ``fleiss_kappa``) of ``(..., P)`` pattern probabilities, as a
        smooth function of the means of the item features ``y``
        (:func:`~planner.statistics.stratified.multirater_features`)."""
        y = multirater_features(self.patterns, positive)
        value, _ = multirater_coefficient(name, 2)(probabilities @ y)
        return np.asarray(value)

    def residual_sds(self, metric: str) -> FloatArray:
        """Each stratum's SD ``S_h`` of the linearised residual ``u = grad g(Y) . y`` at
        traffic's means ``Y``: what the cost-optimal allocation weighs."""
        y = multirater_features(self.patterns, POSITIVE)
        _, grad = multirater_coefficient(STRATA_METRICS[metric], 2)(self.population @ y)
        u = y @ grad
        mean = self.probabilities @ u
        return np.asarray(np.sqrt(np.maximum(self.probabilities @ (u * u) - mean**2, 0.0)))

    def pooled_statistic(self, metric: str, settings: PlanSettings) -> Statistic:
        """``(R, H, P)`` counts -> half-width and estimate of the strata pooled as one
        sample (:func:`~planner.sizing.study_intervals.study_intervals`)."""
        level = settings.confidence_level

        def pooled(counts: NDArray) -> tuple[NDArray, NDArray]:
            ci = study_intervals(metric, self.patterns, counts.sum(axis=1), confidence_level=level)
            return ci.half_width, ci.estimate

        return pooled

    def weighted_interval(self, metric: str, confidence_level: float) -> Interval:
        """``(R, H, P)`` counts -> estimate, low, high of the weighted analysis."""
        name, patterns, shares = STRATA_METRICS[metric], self.patterns, self.shares

        def fit(counts: NDArray) -> tuple[NDArray, NDArray, NDArray]:
            found = weighted_from_pattern_counts(
                name, patterns, counts, shares, confidence_level, POSITIVE
            )
            return found.estimate, found.low, found.high

        return fit

    def plug_in_start(self, probabilities: FloatArray, metric: str, s: PlanSettings) -> int:
        """The plug-in size of one sample with ``probabilities``
        (:func:`~planner.sizing.study_intervals.plug_in_items`)."""
        return plug_in_items(
            metric, self.patterns, probabilities, s.width, confidence_level=s.confidence_level
        )

    def uniform_design(
        self, metric: str, settings: PlanSettings, rng: np.random.Generator
    ) -> DesignResult:
        """One sample of traffic's pattern probabilities, sized by the stratified search
        with one stratum, its interval's coverage simulated on a fresh stream."""
        from planner.sizing.strata_designs import covered

        population = self.population
        start = self.plug_in_start(population, metric, settings)
        search = StratifiedSearch.of(settings, start=start)
        (total,), half_widths, estimates = size_stratified(
            [population], [1.0], self.pooled_statistic(metric, settings), search, rng=rng
        )
        items = split_items(total, self.shares)
        sized = stratified_result("uniform", items, self.union, half_widths, estimates, settings)
        studies = StratifiedPatternStudies([population], settings.replicates, rng.spawn(1)[0])
        ci = study_intervals(
            metric, self.patterns, studies.tables([total])[:, 0],
            confidence_level=settings.confidence_level,
        )  # fmt: skip
        share = covered(ci.low, ci.high, float(self.value(metric, population)))
        return replace(sized, coverage=share[0], coverage_mc_se=share[1])

    def billed(self, settings: PlanSettings) -> PlanSettings:
        """Each item's ``k`` labels (every annotator's, or ``per_item``)."""
        return replace(settings, annotators_per_item=self.labels_per_item)

    def strata_rows(self, sds: FloatArray, options: Any) -> list[dict[str, Any]]:
        """Share, prevalence, seconds, union rate, PSA, Fleiss' kappa, the share of items
        whose labels are not unanimous, and the residual SD; from a pilot read by stratum
        (``options.pilot_counts``), its counts (``prevalence`` is then the pilot's
        positive-label rate)."""
        rows = [
            {
                "name": name,
                "share": float(share),
                "prevalence": float(prevalence),
                "seconds_per_item": float(seconds),
                "union_rate": float(union),
                "psa": float(self.value("psa", p)),
                "kappa": float(self.value("fleiss", p)),
                "contested_rate": float(self.contested(p)),
                "residual_sd": float(sd),
            }
            for name, share, prevalence, seconds, union, p, sd in zip(
                self.names,
                self.shares,
                options.prevalences,
                self.seconds,
                self.union,
                self.probabilities,
                sds,
                strict=True,
            )  # fmt: skip
        ]
        if options.pilot_counts is None:
            return rows
        return [
            {**row, "model_source": "pilot", "pilot_counts": list(counts)}
            for row, counts in zip(rows, options.pilot_counts, strict=True)
        ]

    def per_stratum_rows(self, items: list[int], settings: PlanSettings) -> list[dict[str, Any]]:
        """Each stratum's PSA and the plug-in half-width its enriched items give."""
        return [
            {
                "stratum": name,
                "psa": float(self.value("psa", p)),
                "enriched_items": n,
                "expected_union_positives": float(n * union),
                "approx_half_width": expected_half_width(
                    "psa", self.patterns, p, max(n, 2), confidence_level=settings.confidence_level
                ),
            }
            for name, p, n, union in zip(
                self.names, self.probabilities, items, self.union, strict=True
            )
        ]

    def population_summary(self) -> dict[str, float]:
        """Traffic's union rate, PSA, Fleiss' kappa, negative specific agreement and share
        of items whose labels are not unanimous."""
        population = self.population
        return {
            "union_rate": float(self.union_of(population)),
            "psa": float(self.value("psa", population)),
            "kappa": float(self.value("fleiss", population)),
            "nsa": float(self.coefficient("psa", population, positive=0)),
            "contested_rate": float(self.contested(population)),
        }

    def notes(self) -> list[str]:
        """Who labels an item, and what psa and kappa are here."""
        if self.per_item is None:
            who = f"{self.n_annotators} annotators label every item"
        else:
            who = (
                f"each item is labelled by {self.per_item} of {self.n_annotators} annotators "
                "drawn at random"
            )
        return [f"{who}; psa is Uebersax's specific positive agreement and kappa Fleiss' kappa"]


def stratum_raters_models(
    strata: Any,
    count: int,
    defaults: dict[str, Any],
    key: Callable[[str, int], str],
    prefix: Callable[[int], str],
) -> list[RatersModel]:
    """One model of ``count`` annotators per stratum: its prevalence, and its error rates,
    bias and ambiguity over ``defaults`` (the ``[annotators]`` section's).

    An infeasible stratum is one error: ``prefix(i)``, the stratum's name, and every model
    parameter the message mentions as ``key(name, i)`` names it (``strata[2].error_rate``
    for the stratum's own value, ``annotators.error_rate`` for the default it took;
    :func:`planner.sizing.model.renamed`).
    """
    models = []
    for i, s in enumerate(strata, start=1):
        own = {"error_rate": s.error_rate, "bias": s.bias, "ambiguity": s.ambiguity}
        values: dict[str, Any] = {
            k: v if v is not None else defaults.get(k) for k, v in own.items()
        }
        bias = values["bias"] if values["bias"] is not None else 0.0
        try:
            models.append(
                raters_model(
                    s.prevalence, count, error_rate=values["error_rate"], bias=bias,
                    ambiguity=values["ambiguity"] or 0.0,
                )
            )  # fmt: skip
        except InvalidInput as exc:
            raise renamed(exc, _key_of(key, i), f"{prefix(i)}stratum {s.name!r}: ") from None
    return models


def _key_of(key: Callable[[str, int], str], i: int) -> Callable[[str], str]:
    """How stratum ``i``'s error names a model parameter."""
    return lambda name: key(name, i)


def raters_strata(
    names: list[str],
    shares: list[float],
    seconds: list[float],
    models: list[RatersModel],
    per_item: int | None = None,
) -> RatersStrata:
    """The strata, checked: two to :data:`~planner.validation.MAX_STRATA`, shares summing to
    1, the same annotators over two categories in every stratum; with ``per_item`` ``k``
    (2 to ``M - 1``), each item labelled by ``k`` of them drawn at random."""
    check_strata(list(models), shares)
    shapes = {(m.n_annotators, m.n_categories) for m in models}
    if len(shapes) != 1 or next(iter(shapes))[1] != 2:
        raise InvalidInput(
            "a stratified design of several annotators takes the same annotators over two "
            "categories in every stratum",
            parameter="strata",
        )
    if per_item is not None:
        check_per_item(per_item, models[0].n_annotators)
    spaces = [m.count_patterns(per_item) for m in models]
    patterns = spaces[0][0]
    if any(not np.array_equal(rows, patterns) for rows, _ in spaces):
        raise InvalidInput("the strata's label patterns differ", parameter="strata")
    return RatersStrata(
        names=tuple(names),
        shares=np.asarray(shares, dtype=float),
        seconds=np.asarray(seconds, dtype=float),
        models=tuple(models),
        patterns=patterns,
        probabilities=np.array([p for _, p in spaces]),
        per_item=per_item,
    )
