"""What a plan is asked for: the precision target, the search's effort and the labelling costs.

:class:`PlanSettings` is the one settings object of :func:`planner.sizing.plan.make_plan`, for a
pair and for several annotators; every default is defined here once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from planner.operations.budget import SECONDS_PER_ITEM
from planner.renamed import renamed_field
from planner.sizing.search import DEFAULT_METHOD, SearchSettings
from planner.sizing.team_cost import TeamPricing
from planner.statistics.alpha_variance import LINEARISED_LEVELS
from planner.statistics.intervals import KAPPA_METHODS, PSA_METHODS
from planner.validation import RULES, check, check_choice, check_instance

#: the metrics of a pair's plan ("both": PSA and Cohen's kappa); several annotators take
#: one of :data:`planner.sizing.study_intervals.RATER_METRICS`
PAIR_METRICS = ("psa", "kappa", "both")

#: PSA methods the plan under pilot uncertainty supports (every outcome narrow from some U on)
UNCERTAINTY_METHODS = ("wilson", "clopper-pearson", "jeffreys")


@renamed_field("n_reps", "replicates")
@dataclass(frozen=True)
class PlanSettings:
    """The precision target, the search's effort and the labelling costs.

    Defaults: half-width 0.08 at 95 % confidence with assurance 0.5 (the median study
    reaches the width), both metrics' recommended intervals (Wilson-for-J for PSA, the
    score interval for Cohen's kappa), 4,000 replicate studies per evaluated size, two annotators
    at 90 s per item and no adjudication. With ``team`` (a named team) each person's seconds
    and rate bill the budget (:func:`~planner.sizing.team_cost.priced_budget`).

    The same settings plan a study of several annotators (a
    :class:`~planner.sizing.annotator_model.RatersModel` or
    :class:`~planner.sizing.common_prevalence_model.CommonPrevalenceModel`): ``metric`` is then
    one of ``fleiss``, ``alpha``, ``psa``, ``conger`` or ``kappa`` (mean pairwise Cohen's
    kappa), with ``level`` (alpha's distance: nominal, ordinal, interval) and ``per_item`` (each
    item labelled by ``per_item`` of the model's annotators, drawn at random; ``None``: by all
    of them). The
    default metric is PSA for every kind of study; with three or more categories PSA is
    undefined and the metric must be named (``fleiss`` or ``alpha``). ``psa_method``,
    ``kappa_method`` and ``annotators_per_item`` are the pair's (several annotators: the
    interval is the metric's linearised one, the labels per item are the model's annotators or
    ``per_item``); ``level`` and ``per_item`` are several annotators' only. ``team`` bills
    either kind of study person by person; its pricing is built for the study's labels per
    item (:func:`planner.sizing.team_cost.team_pricing`).

    Every value is checked on construction by its rule in
    :data:`planner.validation.RULES` (``width`` in [0.001, 1): below 0.001 a study would
    need millions of union positives and the search's arithmetic loses precision);
    :class:`~planner.errors.InvalidInput` names the parameter.
    """

    # the search's defaults, and the labelling's (planner.operations.budget), defined there once
    width: float = SearchSettings.width
    confidence_level: float = SearchSettings.confidence_level
    assurance: float = SearchSettings.assurance
    metric: str = SearchSettings.metric
    psa_method: str = DEFAULT_METHOD["psa"]
    kappa_method: str = DEFAULT_METHOD["kappa"]
    replicates: int = SearchSettings.PAIR_REPS
    max_items: int = SearchSettings.max_items
    annotators_per_item: int = 2
    seconds_per_item: float = SECONDS_PER_ITEM
    adjudication_seconds: float = 0.0
    hourly_rate: float | None = None
    #: a named team's price of an item (:class:`~planner.sizing.team_cost.TeamPricing`):
    #: each person's seconds and rate bill the budget instead of the single rate
    team: TeamPricing | None = None
    level: str = "nominal"
    per_item: int | None = None

    def __post_init__(self) -> None:
        # every value by the rule it obeys wherever it comes from (planner.validation), in
        # parameter names; the CLI names the flags
        for name in (
            "width",
            "confidence_level",
            "assurance",
            "replicates",
            "max_items",
            "annotators_per_item",
            "seconds_per_item",
            "adjudication_seconds",
        ):
            object.__setattr__(self, name, check(name, getattr(self, name), RULES[name]))
        if self.hourly_rate is not None:
            rate = check("hourly_rate", self.hourly_rate, RULES["hourly_rate"])
            object.__setattr__(self, "hourly_rate", rate)
        if not isinstance(self.metric, str) or self.metric not in PAIR_METRICS:
            from planner.sizing.study_intervals import RATER_METRICS

            check_choice("metric", self.metric, tuple(dict.fromkeys(PAIR_METRICS + RATER_METRICS)))
        check_choice("level", self.level, LINEARISED_LEVELS)
        if self.per_item is not None:
            per_item = check("per_item", self.per_item, RULES["per_item"])
            object.__setattr__(self, "per_item", per_item)
        check_choice("psa_method", self.psa_method, PSA_METHODS)
        check_choice("kappa_method", self.kappa_method, KAPPA_METHODS)
        if self.team is not None:
            check_instance("team", self.team, TeamPricing, "a TeamPricing (team_pricing)")

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics to size, in report order."""
        return ("psa", "kappa") if self.metric == "both" else (self.metric,)

    def search_settings(self, metric: str, *, several: bool = False) -> SearchSettings:
        """The sample-size search these settings ask for ``metric``.

        A pair's search uses the pair's interval method for the metric (``psa_method`` or
        ``kappa_method``); several annotators' (``several=True``) has one interval per metric
        and takes ``level`` and ``per_item`` instead.

        >>> PlanSettings(width=0.05).search_settings("kappa").method
        'score'
        """
        search = SearchSettings(
            metric=metric,
            width=self.width,
            confidence_level=self.confidence_level,
            assurance=self.assurance,
            method=None if several else self._pair_method(metric),
            replicates=self.replicates,
            max_items=self.max_items,
        )
        return replace(search, level=self.level, per_item=self.per_item) if several else search

    def _pair_method(self, metric: str) -> str:
        return self.psa_method if metric == "psa" else self.kappa_method
