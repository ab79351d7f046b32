"""A pair of annotators over traffic strata: each stratum's four ordered cells.

:class:`PairStrata` is the pair's :class:`~planner.sizing.pattern_strata.PatternStrata`: its
patterns are the cells both flag, only A flags, only B flags and neither flags
(``p_a, p_b, p_c, p_d``), kept in that order because Cohen's kappa and the pair's intervals
need it. Its coefficients are PSA ``2 p_a / (2 p_a + p_b + p_c)`` and Cohen's kappa
(:func:`planner.sizing.design.metric_value`); its uniform design is the pair's own plan of
traffic (:func:`planner.sizing.plan.size_metric`, exact where an exact answer exists), and
its weighted analysis the one ``agree --stratum-col`` reports for a pair
(:func:`planner.sizing.design.weighted_estimate`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from planner.data.scenario import Scenario
from planner.errors import InvalidInput
from planner.sizing.design import (
    DESCRIBES,
    DesignResult,
    check_strata,
    metric_value,
    residual_sd,
    split_items,
    weighted_estimate,
)
from planner.sizing.model import PairModel, as_cells, pair_from_annotators, renamed
from planner.sizing.pattern_strata import FloatArray, Interval, PatternStrata, Statistic
from planner.sizing.search import analytic_items
from planner.statistics.intervals import kappa_interval, normal_quantile, psa_interval

if TYPE_CHECKING:
    from planner.sizing.plan_settings import PlanSettings

#: the four ordered cells as count patterns (negatives, positives): both, A only, B only,
#: neither
PAIR_PATTERNS = np.array([[0, 2], [1, 1], [1, 1], [2, 0]], dtype=np.int64)


def stratum_models(scenario: Scenario) -> list[PairModel]:
    """One annotator-pair model per stratum, stratum overrides over ``[model]``.

    An infeasible stratum is an error naming the scenario's keys: ``s.toml:
    strata[2].error_rate ...`` for a stratum's own value, ``model.bias`` for the default.
    """
    base = scenario.model
    models = []
    for i, s in enumerate(scenario.strata, start=1):
        own = {  # the keys this stratum sets itself
            "prevalence": s.prevalence,
            "error_rate": s.error_rate,
            "bias": s.bias,
            "ambiguity": s.ambiguity,
        }
        try:
            models.append(
                pair_from_annotators(
                    s.prevalence,
                    s.error_rate or base.get("error_rate"),
                    s.bias or base.get("bias", 0.0),
                    s.ambiguity if s.ambiguity is not None else base.get("ambiguity", 0.0),
                )
            )
        except InvalidInput as exc:

            def key(k: str, i: int = i, own: dict[str, Any] = own) -> str:
                return f"strata[{i}].{k}" if own.get(k) is not None else f"model.{k}"

            raise renamed(exc, key, f"{scenario.path}: stratum {s.name!r}: ") from None
    return models


def design_metric(settings: PlanSettings) -> str:
    """The metric a pair's designs size: psa or kappa (``both`` is refused)."""
    if settings.metric == "both":
        raise InvalidInput(
            "metric both is not supported for design comparisons; pick psa or kappa",
            parameter="metric",
        )
    return str(settings.metric)


def find_start(model: PairModel, metric: str, width: float, confidence_level: float) -> float:
    """Delta-method starting size of a pooled design."""
    value = analytic_items(model, metric, width, confidence_level)
    return value if math.isfinite(value) and value > 0 else 100.0


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _as_tables(counts: np.ndarray) -> np.ndarray:
    """``(..., 4)`` cell counts as ``(..., 2, 2)`` tables (positive first)."""
    return counts.reshape(*counts.shape[:-1], 2, 2)


@dataclass(frozen=True)
class PairStrata(PatternStrata):
    """The strata of a pair's scenario as the designs use them (module description).

    Attributes
    ----------
    models
        One annotator-pair model per stratum (:func:`stratum_models`, or a pilot's).
    source
        Where the models come from: the scenario's ``[[strata]]`` or a pilot's counts.
    """

    models: tuple[PairModel, ...] = ()
    source: str = "scenario"

    #: a pair's nested studies keep every size read, as its plans' do
    keep_every_size: ClassVar[bool] = True

    @classmethod
    def of(
        cls, scenario: Scenario, settings: PlanSettings, models: list[PairModel] | None = None
    ) -> PairStrata:
        """The strata of ``scenario``, checked (:func:`~planner.sizing.design.check_strata`);
        ``models``: each stratum's model from a pilot instead of the scenario's."""
        source = "scenario" if models is None else "pilot"
        models = stratum_models(scenario) if models is None else list(models)
        shares = np.array([s.share for s in scenario.strata])
        check_strata(models, shares)
        if len(models) != len(scenario.strata):
            raise InvalidInput(
                f"models gives {len(models)} strata, {scenario.path} has {len(scenario.strata)}",
                parameter="models",
            )
        seconds = np.array(
            [s.seconds_per_item or settings.seconds_per_item for s in scenario.strata]
        )
        names = tuple(s.name for s in scenario.strata)
        cells = np.array([m.cells for m in models])
        return cls(names, shares, seconds, PAIR_PATTERNS, cells, tuple(models), source)

    def mixture(self, weights: FloatArray) -> FloatArray:
        """The cells of the strata pooled at ``weights``, ``sum_h w_h p_h``."""
        return np.asarray((np.asarray(weights)[:, None] * self.probabilities).sum(axis=0))

    def model_of(self, cells: FloatArray, source: str = "strata") -> PairModel:
        """A pair model of ``cells`` (a mixture of the strata)."""
        return PairModel(cells=as_cells(cells), source=source, assumptions={})

    @property
    def population_model(self) -> PairModel:
        """Traffic's pair model: the strata's cells at their shares."""
        return self.model_of(self.population)

    @property
    def pilot_counts(self) -> tuple[tuple[int, ...], ...] | None:
        """Each stratum's pilot counts (a, b, c, d), for strata from a pilot; else None."""
        if self.source != "pilot":
            return None
        return tuple(tuple(m.assumptions["pilot_counts"]) for m in self.models)

    def check_metric(self, settings: PlanSettings) -> str:
        """:func:`design_metric`."""
        return design_metric(settings)

    def value(self, metric: str, probabilities: FloatArray) -> FloatArray:
        """PSA or Cohen's kappa of ``(..., 4)`` cells."""
        return metric_value(metric, probabilities)

    def residual_sds(self, metric: str) -> FloatArray:
        """:func:`~planner.sizing.design.residual_sd` of each stratum at traffic's cells."""
        return residual_sd(metric, self.probabilities, self.population)

    def pooled_statistic(self, metric: str, settings: PlanSettings) -> Statistic:
        """The pooled table's interval by the settings' PSA or kappa method."""

        def pooled(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            tables = _as_tables(counts.sum(axis=1))
            if metric == "psa":
                ci = psa_interval(tables, settings.confidence_level, settings.psa_method)
            else:
                ci = kappa_interval(tables, settings.confidence_level, settings.kappa_method)
            cells = tables.reshape(-1, 4)
            estimate = metric_value(metric, cells / cells.sum(axis=1)[:, None])
            return np.asarray(ci.half_width), estimate

        return pooled

    def weighted_interval(self, metric: str, confidence_level: float) -> Interval:
        """:func:`~planner.sizing.design.weighted_estimate` of the cell counts as tables."""
        shares = self.shares
        return lambda counts: weighted_estimate(
            metric, _as_tables(counts), shares, confidence_level
        )

    def plug_in_start(self, probabilities: FloatArray, metric: str, s: PlanSettings) -> int:
        """The pair's analytic size of one sample of ``probabilities`` (100 if undefined)."""
        model = self.model_of(probabilities, "enriched mixture")
        return int(math.ceil(find_start(model, metric, s.width, s.confidence_level)))

    def uniform_design(
        self, metric: str, settings: PlanSettings, rng: np.random.Generator
    ) -> DesignResult:
        """The pair's plan of traffic, its items split over the strata by share."""
        from planner.sizing.plan import size_metric

        population = self.population_model
        uni = size_metric(population, metric, settings, rng)
        return DesignResult(
            design="uniform",
            describes=DESCRIBES["uniform"],
            # largest remainders: the parts sum to the searched n at any number of strata
            items_per_stratum=split_items(uni.items, self.shares),
            prevalence_slice_items=0,
            union_positives=uni.union_positives,
            half_width_median=uni.half_width_median,
            half_width_at_assurance=uni.half_width_at_assurance,
            assurance=uni.assurance,
            estimate_median=float(metric_value(metric, population.cells)),
            coverage=_finite_or_none(uni.coverage),
            coverage_mc_se=_finite_or_none(uni.coverage_mc_se),
        )

    def billed(self, settings: PlanSettings) -> PlanSettings:
        """The settings' own labels per item (a pair priced with a third reader keeps it)."""
        return settings

    def strata_rows(self, sds: FloatArray, options: Any) -> list[dict[str, Any]]:
        """Share, prevalence (a pilot's strata: their positive-label rate), seconds per
        item, union rate, PSA, kappa and residual SD; a pilot's strata
        (``options.pilot_counts``): its counts."""
        rows = []
        for i, (m, sd) in enumerate(zip(self.models, sds, strict=True)):
            summary = m.summary()
            row = {
                "name": self.names[i],
                "share": float(self.shares[i]),
                "prevalence": options.prevalences[i],
                "seconds_per_item": float(self.seconds[i]),
                **{k: summary[k] for k in ("union_rate", "psa", "kappa")},
                "residual_sd": float(sd),
            }
            if options.pilot_counts is not None:
                row |= {"model_source": "pilot", "pilot_counts": list(options.pilot_counts[i])}
            rows.append(row)
        return rows

    def per_stratum_rows(self, items: list[int], settings: PlanSettings) -> list[dict[str, Any]]:
        """Each stratum's PSA and the delta-method half-width ``z sqrt(f(J) / u)`` of its
        ``u`` expected union positives, ``f(J) = 4 J (1 - J) / (1 + J)^4``."""
        z = normal_quantile(settings.confidence_level)
        rows = []
        for name, m, n_b in zip(self.names, self.models, items, strict=True):
            u = n_b * m.union_rate
            j = m.jaccard
            f = 4 * j * (1 - j) / (1 + j) ** 4
            rows.append(
                {
                    "stratum": name,
                    "psa": m.psa,
                    "enriched_items": n_b,
                    "expected_union_positives": u,
                    "approx_half_width": float(z * math.sqrt(f / u)) if u > 0 else float("nan"),
                }
            )
        return rows

    def population_summary(self) -> dict[str, float]:
        """Traffic's union rate, PSA, Cohen's kappa and negative specific agreement."""
        summary = self.population_model.summary()
        return {k: summary[k] for k in ("union_rate", "psa", "kappa", "nsa")}
