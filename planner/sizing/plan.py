"""One plan: a study model and a precision target in, sample sizes, budget and checks out.

:func:`make_plan` is the library function behind the ``plan`` command, for a pair and for
several annotators; its answer is one :class:`Plan`. It sizes the study for each requested
metric (:func:`planner.sizing.search.find_sample_size`), lets the larger number of items
decide and turns items into person-hours and cost. A pair's plan adds two model-light answers
for PSA: the worst case over every possible agreement, and the stop rule "label until ``U``
union positives"; several annotators' adds what ``M = 2 .. 6`` annotators per item buy at the
plan's hours (:mod:`planner.sizing.annotators_table`). A plan from a pilot adds the plan
under the pilot's uncertainty, which becomes the recommendation
(:mod:`planner.sizing.plan_under_pilot`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar, overload

import numpy as np

from planner.errors import InvalidInput
from planner.operations.budget import Budget, labelling_hours
from planner.sizing import sampling_rules
from planner.sizing.annotator_model import RatersModel
from planner.sizing.common_prevalence_model import AnyRatersModel, CommonPrevalenceModel
from planner.sizing.exact import EXACT_PSA_METHODS
from planner.sizing.model import PairModel
from planner.sizing.plan_settings import PAIR_METRICS, UNCERTAINTY_METHODS, PlanSettings
from planner.sizing.sampling_rules import StopRule, WorstCase
from planner.sizing.search import SampleSizeResult, coverage_shortfall_note, find_sample_size
from planner.sizing.team_cost import study_budget
from planner.statistics.intervals import KAPPA_ESTIMANDS, coverage_note
from planner.validation import RngLike, check_instance, compact_repr, seed_from

#: ``progress(done, total)``, called as a plan's steps are done
Progress: TypeAlias = Callable[[int, int], None]

if TYPE_CHECKING:  # pilots, precision and uncertainty stay off the headline plan's start path
    from planner.sizing.pilot import Pilot
    from planner.sizing.pilot_latent_class import RatersPilot
    from planner.sizing.precision import Precision, RatersPrecision
    from planner.sizing.uncertainty import PilotUncertainty
    from planner.sizing.uncertainty_kappa import KappaPilotUncertainty
    from planner.sizing.uncertainty_refits import RatersUncertainty

    #: a pair's plan under pilot uncertainty: PSA's or Cohen's kappa's
    Uncertainty: TypeAlias = PilotUncertainty | KappaPilotUncertainty
    #: any study model a plan takes
    StudyModel: TypeAlias = PairModel | RatersModel | CommonPrevalenceModel

#: what a plan holds differs in type with its study: the model, its pilot, the plan under the
#: pilot's uncertainty and the precision of a fixed size (:data:`PairPlan`, :data:`RatersPlan`)
ModelT = TypeVar("ModelT", bound="PairModel | RatersModel | CommonPrevalenceModel")
PilotT = TypeVar("PilotT")
UncertaintyT = TypeVar("UncertaintyT")
PrecisionT = TypeVar("PrecisionT")

__all__ = [
    "PAIR_METRICS",
    "UNCERTAINTY_METHODS",
    "PairPlan",
    "Plan",
    "PlanSettings",
    "PrecisionRow",
    "RatersPlan",
    "Recommendation",
    "make_plan",
]


@dataclass(frozen=True)
class Recommendation:
    """What a plan from a pilot recommends: the items the plan under pilot uncertainty needs.

    ``plug_in_items`` is what the plug-in plan asks for (if the pilot were the truth);
    ``union_positives`` the expected union positives of ``items`` at the pilot's union rate
    (a pair's; ``None`` for several annotators).
    """

    metric: str
    items: int
    union_positives: float | None
    budget: Budget
    plug_in_items: int
    basis: str = (
        "under pilot uncertainty: the smallest n whose hybrid assurance (averaged over the "
        "pilot's posterior) reaches the target"
    )


@dataclass(frozen=True)
class PrecisionRow:
    """One row of several annotators' fixed-hours table: ``annotators`` per item, the items
    the plan's labelling hours buy, those hours and the plug-in half-width."""

    annotators: int
    items: int
    hours: float
    half_width: float


@dataclass(frozen=True)
class Plan(Generic[ModelT, PilotT, UncertaintyT, PrecisionT]):
    """Everything the ``plan`` command reports, for a pair or for several annotators.

    ``results`` and ``budgets`` hold every sized metric's plug-in answer (the model as the
    truth) and its cost: a pair sizes PSA, Cohen's kappa or both; several annotators one
    metric. The metric needing the most items decides (``deciding_metric``). With a pilot and
    a plan under its uncertainty, ``recommended`` holds the uncertainty-aware answer, and
    :attr:`items` and :attr:`budget` are its.

    Attributes
    ----------
    model
        The study model: a pair's :class:`~planner.sizing.model.PairModel`, or several
        annotators' :class:`~planner.sizing.annotator_model.RatersModel` or
        :class:`~planner.sizing.common_prevalence_model.CommonPrevalenceModel`.
    worst_case, stop_rule
        PSA's worst case over every agreement and its stop rule
        (:mod:`planner.sizing.sampling_rules`): a pair's plan that sizes PSA; else ``None``.
    by_annotators
        Several annotators labelling every item: what ``M = 2 .. 6`` annotators per item buy
        at the plan's labelling hours (the team cycled); empty for a pair and for a
        ``k``-of-``M`` design.
    uncertainty, uncertainty_by_metric
        The plan under the pilot's uncertainty of each metric that has one, and the one that
        needs the most items.
    precision, curve
        What a fixed number of items buys, and per metric the assurance against items; or
        ``None`` when not asked.
    pilot
        The pilot file the model came from, or ``None``.
    """

    __repr__ = compact_repr  # shapes, not every value

    model: ModelT
    settings: PlanSettings
    results: dict[str, SampleSizeResult]
    budgets: dict[str, Budget]
    deciding_metric: str
    seed: int
    worst_case: WorstCase | None = None
    stop_rule: StopRule | None = None
    notes: list[str] = field(default_factory=list)
    uncertainty: UncertaintyT | None = None
    uncertainty_by_metric: dict[str, UncertaintyT] = field(default_factory=dict)
    precision: PrecisionT | None = None
    pilot: PilotT | None = None
    curve: dict[str, list[dict[str, float]]] | None = None
    recommended: Recommendation | None = None
    by_annotators: list[PrecisionRow] = field(default_factory=list)

    @property
    def items(self) -> int:
        """Items to label: the uncertainty-aware answer with a pilot, else the largest plug-in
        answer over the sized metrics."""
        if self.recommended is not None:
            return self.recommended.items
        return self.results[self.deciding_metric].items

    @property
    def budget(self) -> Budget:
        """The budget of :attr:`items`."""
        if self.recommended is not None:
            return self.recommended.budget
        return self.budgets[self.deciding_metric]

    @property
    def several(self) -> bool:
        """Whether the plan is several annotators' (a model other than the pair's)."""
        return not isinstance(self.model, PairModel)

    @property
    def sizing(self) -> SampleSizeResult:
        """The deciding metric's plug-in answer (several annotators: the one metric's)."""
        return self.results[self.deciding_metric]

    @property
    def sizing_budget(self) -> Budget:
        """Hours and cost of every label of :attr:`sizing`'s items."""
        return self.budgets[self.deciding_metric]

    @property
    def hours_per_annotator(self) -> float:
        """Labelling hours of each annotator of the study's pool for :attr:`items` (several
        annotators, ``k``-of-``M``: ``items k / M`` items each, on average; a pair: half)."""
        pool = self.model.n_annotators if self.several else self.settings.annotators_per_item
        return self.budget.labelling_hours / pool


if TYPE_CHECKING:
    #: a pair's plan (:func:`make_plan` of a :class:`~planner.sizing.model.PairModel`)
    PairPlan: TypeAlias = Plan[PairModel, Pilot, Uncertainty, Precision]
    #: several annotators' plan (:func:`make_plan` of a RatersModel or CommonPrevalenceModel)
    RatersPlan: TypeAlias = Plan[
        RatersModel | CommonPrevalenceModel, RatersPilot, RatersUncertainty, RatersPrecision
    ]
else:  # one class at run time, for isinstance and for code that imports either name
    PairPlan = RatersPlan = Plan


def interval_label(metric: str, method: str) -> str:
    """``"wilson interval"``; for kappa the method with the quantity it estimates."""
    if metric == "kappa":
        return f"{method} interval for {KAPPA_ESTIMANDS.get(method, 'kappa')}"
    return f"{method} interval"


def size_metric(
    model: PairModel, metric: str, settings: PlanSettings, rng: np.random.Generator
) -> SampleSizeResult:
    """:func:`~planner.sizing.search.find_sample_size` with the target and effort of
    ``settings``."""
    return find_sample_size(model, settings.search_settings(metric), rng=rng)


#: the parameters that describe a model of each source (the CLI names them as flags)
_MODEL_OPTIONS = {
    "annotators": ("error_rate", "bias"),
    "union-rate": ("union_rate", "psa"),
    "pilot-counts": ("pilot_counts",),
}


def _degenerate_model(model: PairModel) -> str | None:
    """One line when an annotator of the model never flags a true positive (or negative).

    Raises
    ------
    InvalidInput
        When the model implies PSA 0 (no item is ever flagged by both): nothing to size.
    """
    named = _MODEL_OPTIONS.get(model.source, ())
    options = " and ".join(named) or "the model's options"
    in_note = " and ".join(f"`{n}`" for n in named) or options  # a note's parameters
    if model.cells[0] <= 0 and model.source != "pilot-counts":
        raise InvalidInput(
            f"the model implies PSA 0 (no item is flagged by both annotators), so there is "
            f"no agreement to measure; check {options}",
            parameters=named,
        )
    for measure in ("sensitivity", "specificity"):
        values = model.assumptions.get(measure) or []
        for name, value in zip("AB", values, strict=False):
            if value <= 1e-12:
                return (
                    f"annotator {name} has {measure} 0 (never labels a true "
                    f"{'positive' if measure == 'sensitivity' else 'negative'} correctly): "
                    f"the plan is for a degenerate pair; check {in_note}"
                )
    return None


def _worst_case(model: PairModel, settings: PlanSettings, budget_for: Any) -> WorstCase:
    """Union positives that reach the width whatever the agreement, and items to get them
    (:func:`planner.sizing.sampling_rules.worst_case`)."""
    return sampling_rules.worst_case(
        model, settings.width, settings.confidence_level, settings.assurance, budget_for
    )


def _budget_function(model: PairModel, settings: PlanSettings) -> Any:
    """Items -> :class:`~planner.operations.budget.Budget` at the settings' costs (a named
    team's, person by person, or the single rate: :func:`study_budget`)."""

    def budget_for(items: float) -> Budget:
        return study_budget(model, settings, items)

    return budget_for


def _stop_rule(
    model: PairModel, settings: PlanSettings, budget_for: Any, notes: list[str]
) -> StopRule:
    """The stop rule "label until ``U`` union positives" for PSA (a note when Wilson stands
    in): :func:`planner.sizing.sampling_rules.stop_rule`."""
    method = settings.psa_method if settings.psa_method in EXACT_PSA_METHODS else "wilson"
    if method != settings.psa_method:
        notes.append(
            f"the stop rule uses the Wilson interval: `psa_method` {settings.psa_method} "
            "has no exact conditional form"
        )
    return sampling_rules.stop_rule(
        model,
        method,
        settings.width,
        settings.confidence_level,
        settings.assurance,
        budget_for,
        priced_by_person=settings.team is not None,
    )


def _size_metrics(
    model: PairModel,
    settings: PlanSettings,
    streams: dict[str, np.random.Generator],
    step: Callable[[int], None],
) -> dict[str, SampleSizeResult]:
    """Each metric's sample size, ``step(done)`` before the first and after each."""
    step(0)
    results: dict[str, SampleSizeResult] = {}
    for done, metric in enumerate(settings.metrics, start=1):
        results[metric] = size_metric(model, metric, settings, streams[metric])
        step(done)
    return results


@overload
def make_plan(
    model: PairModel,
    settings: PlanSettings = ...,
    *,
    rng: RngLike = None,
    pilot_draws: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> PairPlan: ...


@overload
def make_plan(
    model: RatersModel | CommonPrevalenceModel,
    settings: PlanSettings = ...,
    *,
    rng: RngLike = None,
    pilot_draws: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> RatersPlan: ...


def make_plan(
    model: StudyModel,
    settings: PlanSettings = PlanSettings(),  # noqa: B008 (frozen, so one shared default)
    *,
    rng: RngLike = None,
    pilot_draws: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> PairPlan | RatersPlan:
    """Size a study of two or more annotators for ``model`` and ``settings``.

    Parameters
    ----------
    model
        Cell probabilities of the annotator pair (:class:`~planner.sizing.model.PairModel`),
        or a model of several annotators
        (:class:`~planner.sizing.annotator_model.RatersModel`,
        :class:`~planner.sizing.common_prevalence_model.CommonPrevalenceModel`): its one
        ``settings.metric``, its budget (every label, or ``per_item`` labels an item, at the
        single rate or by a named ``team``: :func:`planner.sizing.team_cost.study_budget`)
        and, when every annotator labels every item, the fixed-hours table
        (:func:`planner.sizing.annotators_table.precision_by_annotators`).
    settings
        Target, search effort and labelling costs.
    rng
        Anything :func:`numpy.random.default_rng` takes; its integer seed
        (:func:`planner.validation.seed_from`) is recorded in the plan, and every stream
        is spawned from it. ``None``: fresh entropy.
    pilot_draws
        For a model from pilot counts: posterior draws for the plan under pilot
        uncertainty (:func:`planner.sizing.uncertainty.items_under_uncertainty`); 0 skips it.
        That plan is called with the plan's own seed (``rng=seed``), so the library function
        called with the same seed gives the same answer; it then decides the recommendation
        (``recommended``), the plug-in answer staying in ``results``.
    progress
        Called as ``progress(done, total)``: ``total`` is one step per metric and one for the
        checks (worst case, stop rule, pilot uncertainty); ``progress(0, total)`` first.
        Several annotators: the search's progress.

    Examples
    --------
    A pair's plan may size both metrics; the one needing more items decides:

    >>> from planner.sizing.model import pair_from_annotators
    >>> settings = PlanSettings(metric="both", width=0.1)
    >>> plan = make_plan(pair_from_annotators(0.08), settings, rng=1)
    >>> sorted(plan.results), plan.items == max(r.items for r in plan.results.values())
    (['kappa', 'psa'], True)

    Several annotators' plan sizes its one metric and bills every label:

    >>> from planner.sizing.annotator_model import raters_model
    >>> settings = PlanSettings(metric="fleiss", width=0.1, replicates=200)
    >>> plan = make_plan(raters_model(0.3, 4), settings, rng=1)
    >>> plan.budget.labels == 4 * plan.sizing.items, len(plan.by_annotators)
    (True, 5)
    """
    check_instance("settings", settings, PlanSettings, "a PlanSettings")
    if not isinstance(model, PairModel):
        return _several_annotators_plan(model, settings, seed_from(rng), progress)
    return _pair_plan(model, settings, seed_from(rng), pilot_draws, progress)


def _several_annotators_plan(
    model: AnyRatersModel, settings: PlanSettings, seed: int, progress: Progress | None
) -> RatersPlan:
    """A plan of several annotators: the one metric's search, the budget of every label and,
    when every annotator labels every item, the fixed-hours table at the budget's seconds."""
    what = "a PairModel, RatersModel or CommonPrevalenceModel (raters_model, ...)"
    check_instance("model", model, (RatersModel, CommonPrevalenceModel), what)
    s = settings
    search = s.search_settings(s.metric, several=True)
    sizing = find_sample_size(model, search, rng=seed, progress=progress)
    notes = _several_coverage_notes(sizing)
    table: list[PrecisionRow] = []
    if s.per_item is None:  # every label at the budget's seconds, as the table's rows bill
        from planner.sizing.annotators_table import precision_by_annotators

        hours = labelling_hours([sizing.items], [s.seconds_per_item], model.n_annotators)
        table = precision_by_annotators(model, sizing, hours, s.seconds_per_item)
        if isinstance(model, RatersModel) and len(set(model.confusion)) > 1:
            notes.append("the table at fixed hours cycles the given annotators to reach M")
    return Plan(
        model=model,
        settings=settings,
        results={sizing.metric: sizing},
        budgets={sizing.metric: study_budget(model, settings, sizing.items)},
        deciding_metric=sizing.metric,
        seed=seed,
        notes=notes,
        by_annotators=table,
    )


def _several_coverage_notes(sizing: SampleSizeResult) -> list[str]:
    """A note when several annotators' interval under-covers at the planned size."""
    if not sizing.under_covers:
        return []
    return [
        f"the {sizing.metric} interval under-covers here: {sizing.coverage:.3f} of "
        f"{sizing.replicates} simulated studies held the true value, against "
        f"{sizing.confidence_level:g} nominal; treat the half-width as optimistic"
    ]


def _pair_plan(
    model: PairModel,
    settings: PlanSettings,
    seed: int,
    pilot_draws: int,
    progress: Progress | None,
) -> PairPlan:
    """A pair's plan: each metric's search, the budgets, PSA's worst case and stop rule and,
    for a model from pilot counts, the plan under the pilot's uncertainty."""
    check_pair_settings(settings)
    if model.union_rate <= 0:
        raise InvalidInput("the model implies no union positives: PSA and kappa are undefined")
    degenerate = _degenerate_model(model)
    psa_rng, kappa_rng = np.random.default_rng(seed).spawn(2)
    streams = {"psa": psa_rng, "kappa": kappa_rng}
    step = progress if progress is not None else (lambda done, total: None)
    steps = len(settings.metrics) + 1
    results = _size_metrics(model, settings, streams, lambda done: step(done, steps))
    budget_for = _budget_function(model, settings)
    budgets = {metric: budget_for(res.items) for metric, res in results.items()}
    deciding = max(results, key=lambda m: results[m].items)
    notes = _sizing_notes(model, results, degenerate)
    stop_rule = _stop_rule(model, settings, budget_for, notes) if "psa" in results else None
    by_metric: dict[str, Any] = {}
    recommended = None
    if model.source == "pilot-counts":  # the pilot's counts: the plan under their uncertainty
        from planner.sizing.plan_under_pilot import pilot_counts_uncertainty, recommendation

        by_metric = pilot_counts_uncertainty(model, settings, results, pilot_draws, seed, notes)
        recommended = recommendation(model, results, by_metric, budget_for)
    uncertainty = max(by_metric.values(), key=lambda u: u.items) if by_metric else None
    if recommended is not None:
        deciding = recommended.metric
    step(steps, steps)
    return Plan(
        model=model,
        settings=settings,
        results=results,
        budgets=budgets,
        deciding_metric=deciding,
        worst_case=_worst_case(model, settings, budget_for),
        stop_rule=stop_rule,
        seed=seed,
        notes=notes,
        uncertainty=uncertainty,
        uncertainty_by_metric=by_metric,
        recommended=recommended,
    )


def _sizing_notes(
    model: PairModel, results: dict[str, SampleSizeResult], degenerate: str | None
) -> list[str]:
    """The notes on the model and on each metric's interval at its planned size."""
    notes = [degenerate] if degenerate else []
    if model.cells[0] <= 0:  # a pilot's estimate (a stated model with PSA 0 is refused above)
        notes.append(
            "the pilot has no item both annotators flag (PSA 0): the plug-in plan takes the "
            "annotators to never agree on a positive; the plan under pilot uncertainty does not"
        )
    notes += [
        note
        for res in results.values()
        if (note := coverage_note(res.metric, res.method, res.union_positives)) is not None
    ]
    notes += [note for res in results.values() if (note := coverage_shortfall_note(res))]
    return notes


def check_pair_settings(settings: PlanSettings) -> None:
    """The settings a pair's plan takes: PSA and/or Cohen's kappa, every item by the pair."""
    if settings.metric not in PAIR_METRICS:
        raise InvalidInput(
            f"metric {settings.metric} is for several annotators; a pair's plan sizes "
            f"{', '.join(PAIR_METRICS)}",
            parameter="metric",
        )
    for name, default in (("per_item", None), ("level", "nominal")):
        if getattr(settings, name) != default:
            raise InvalidInput(
                f"{name} is for several annotators; a pair labels every item (PSA and kappa "
                "have no level)",
                parameter=name,
            )
