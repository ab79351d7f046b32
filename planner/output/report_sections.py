"""A report's text: one function per section, on a :class:`Plan` or a design :class:`Comparison`.

A section is a list of blocks (``("h2", text)``, ``("p", text)``, ``("table", header, rows)``,
``("figure", file, caption, alt)``, ``("code", text)``), rendered to Markdown and to a
self-contained HTML page by :func:`markdown` and :func:`html_page`. Every number comes from the
result, its schedule or the figures' data (:mod:`planner.output.report_figures`); nothing is
recomputed here but the reading of the decision rule at the typical interval.
"""

from __future__ import annotations

import base64
import html
import platform
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from planner import __version__
from planner.data.scenario import Scenario, shipped_scenarios
from planner.measuring.decision import Decision, decide
from planner.operations.workload import ScheduleResult
from planner.output.report_alt_test import alt_test_section
from planner.output.report_figures import (
    AGREE_COEFFICIENTS,
    ASSURANCE_FILE,
    ReportFigures,
    deciding_metric,
    metric_name,
)
from planner.output.report_schedule import team_section
from planner.output.safe_output import visible
from planner.output.words import adjudication_said
from planner.sizing.compare import Comparison
from planner.sizing.plan import Plan

Block = tuple[Any, ...]
PlanResult = Plan | Comparison


def _fmt(x: float | None, digits: int = 3) -> str:
    return "undefined" if x is None or not np.isfinite(x) else f"{x:,.{digits}f}"


# ------------------------------------------------------------------ the headline


WEIGHTED_METHOD = "linearised, population-weighted"
"""The interval of the weighted design (combined ratio estimator), as the headline names it."""


@dataclass(frozen=True)
class Headline:
    """The recommendation at the top of a report, and the decision rule fixed in advance."""

    design: str | None
    items: int
    labels_per_item: int
    person_hours: float
    cost: float | None
    calendar_days_median: float
    calendar_days_p90: float
    metric: str
    method: str
    confidence_level: float
    not_demonstrated_below: float
    demonstrated_at: float
    thresholds_from: str
    expected: Decision


def headline(result: PlanResult, schedule: ScheduleResult, figures: ReportFigures) -> Headline:
    """Items, hours and calendar days of the scheduled study; the rule fixed in advance.

    The rule's thresholds are the scenario's ``[thresholds]`` (``figures.thresholds``); the
    verdict is the rule read at the assumed value's typical interval.
    """
    metric, method = deciding_metric(result)
    match result:
        case Plan():
            design, items = None, result.items
            budget = result.budget
            hours, cost = budget.person_hours, budget.cost
        case Comparison():
            design, items = "weighted", result.designs["weighted"].items
            hours, cost = result.costs["weighted"].person_hours, result.costs["weighted"].cost
            method = WEIGHTED_METHOD
    thresholds = figures.thresholds
    spread = figures.estimates
    expected = decide(
        metric,
        spread.truth,
        spread.interval_lower,
        spread.interval_upper,
        thresholds.not_demonstrated_below,
        thresholds.demonstrated_at,
    )
    return Headline(
        design=design,
        items=int(items),
        labels_per_item=result.settings.annotators_per_item,
        person_hours=float(hours),
        cost=cost,
        calendar_days_median=schedule.calendar_days_median,
        calendar_days_p90=schedule.calendar_days_p90,
        metric=metric,
        method=method,
        confidence_level=result.settings.confidence_level,
        not_demonstrated_below=thresholds.not_demonstrated_below,
        demonstrated_at=thresholds.demonstrated_at,
        thresholds_from=thresholds.source,
        expected=expected,
    )


def _team(scenario: Scenario, schedule: ScheduleResult) -> str:
    op = schedule.operation
    whose = "the team in the scenario" if scenario.team else "planner schedule's default team"
    return (
        f"{whose} ({op.annotators} annotators, {op.hours_per_day:g} h a day, "
        f"{op.days_per_week} days a week)"
    )


def recommendation_section(
    scenario: Scenario, result: PlanResult, schedule: ScheduleResult, figures: ReportFigures
) -> list[Block]:
    """The headline: what to label, what it costs, how long it takes, how to decide."""
    h = headline(result, schedule, figures)
    settings = result.settings
    how = (
        ""
        if h.design is None
        else f" with the {h.design} design (stratified, re-weighted to traffic)"
    )
    cost = "" if h.cost is None else f", cost {h.cost:,.0f} (hourly rate × person-hours)"
    label = f"{settings.confidence_level:.0%} {metric_name(h.metric)} interval ({h.method})"
    rec = result.recommended if isinstance(result, Plan) else None
    counted = (
        ""
        if rec is None
        else f", counting the pilot's uncertainty ({rec.plug_in_items:,} items if the pilot "
        "were the truth)"
    )
    return [
        ("h2", "Recommendation"),
        (
            "p",
            f"Label {h.items:,} items{how}, {h.labels_per_item} labels each: "
            f"{h.person_hours:,.1f} person-hours{cost}; about "
            f"{calendar_days(h.calendar_days_median)} (90th percentile "
            f"{h.calendar_days_p90:g}) with {_team(scenario, schedule)}. A study of this size "
            f"gives a {label} of half-width at most {settings.width:g} with assurance "
            f"{settings.assurance:g}{counted}.",
        ),
        (
            "p",
            f"Decide in advance ({h.thresholds_from}): when the labels are in, compute the "
            f"{label}; agreement is demonstrated if its lower limit is at least "
            f"{h.demonstrated_at:g}, not demonstrated if its upper limit is below "
            f"{h.not_demonstrated_below:g}, and inconclusive otherwise. At the assumed "
            f"{metric_name(h.metric)} {h.expected.estimate:.3f} the typical interval "
            f"{h.expected.ci_low:.3f} to {h.expected.ci_high:.3f} would read: "
            f"{h.expected.verdict}.",
        ),
        ("code", agree_command(h, scenario)),
        *_stratified_analysis(h),
    ]


def _stratified_analysis(h: Headline) -> list[Block]:
    """What the weighted command reads (a design of strata only)."""
    if h.design is None:
        return []
    return [
        (
            "p",
            "LABELS.csv holds a column STRATUM naming each item's stratum as the scenario's "
            "[[strata]] do; the command weights each stratum by its population share "
            "(planner agree --stratum-col), which is what makes the number describe traffic. "
            "It analyses an enriched sample the same way, its uniform slice's items counted in "
            "their strata.",
        )
    ]


def calendar_days(days: float) -> str:
    """``days`` as "1 calendar day" or "2.5 calendar days"."""
    return f"{days:g} calendar day" + ("" if days == 1 else "s")


def agree_command(h: Headline, scenario: Scenario | None = None) -> str:
    """The ``planner agree`` call that applies the rule fixed in advance to the labels
    (population-weighted by the scenario's strata shares for a design of strata)."""
    flags = (
        f"--not-demonstrated-below {h.not_demonstrated_below:g} "
        f"--demonstrated-at {h.demonstrated_at:g}"
    )
    if h.design is not None and scenario is not None:
        shipped = shipped_scenarios().get(scenario.name)
        source = scenario.name if shipped == Path(scenario.path) else scenario.path
        flags = f"--stratum-col STRATUM --population-shares-from {shlex.quote(source)} " + flags
    if h.metric == "kappa":
        flags += f" --decide-on {AGREE_COEFFICIENTS[h.metric]} --kappa-method {h.method}"
    if h.confidence_level != 0.95:
        flags += f" --confidence {h.confidence_level:g}"
    return f"planner agree LABELS.csv {flags}"


# ------------------------------------------------------------------ what was assumed and planned


def target_section(result: PlanResult, seed: int) -> list[Block]:
    settings = result.settings
    metric, method = deciding_metric(result)
    return [
        (
            "p",
            f"Target: {metric_name(metric)} interval half-width at most {settings.width:g} at "
            f"{settings.confidence_level:.0%} confidence, with assurance {settings.assurance:g} "
            "(the share of studies of the planned size that reach the width). Interval method: "
            f"{method}. Every number and figure below is computed by planner {__version__} from "
            f"the scenario file with seed {seed}.",
        )
    ]


def assumptions_section(plan: Plan) -> list[Block]:
    model = plan.model
    rows = [[k.replace("_", " "), _fmt(v, 4)] for k, v in model.summary().items()]
    rows += [[k.replace("_", " "), str(v)] for k, v in model.assumptions.items()]
    return [("h2", "Assumptions"), ("table", ["quantity", "value"], rows)]


def strata_section(comparison: Comparison) -> list[Block]:
    kappa = "kappa" if comparison.raters is None else "Fleiss' kappa"  # several annotators'
    header = ["stratum", "share", "prevalence", "union rate", "PSA", kappa, "seconds/item"]
    rows = [
        [
            s["name"],
            _fmt(s["share"]),
            _fmt(s["prevalence"]),
            _fmt(s["union_rate"]),
            _fmt(s["psa"]),
            _fmt(s["kappa"]),
            f"{s['seconds_per_item']:g}",
        ]
        for s in comparison.strata
    ]
    pop = comparison.population
    rows.append(
        ["traffic", "1", "", _fmt(pop["union_rate"]), _fmt(pop["psa"]), _fmt(pop["kappa"]), ""]
    )
    blocks: list[Block] = [("h2", "Traffic strata"), ("table", header, rows)]
    if any(s.get("model_source") == "pilot" for s in comparison.strata):
        blocks.append(("p", _pilot_strata_text(comparison)))
    if comparison.raters is not None:
        blocks.append(
            ("p", f"{comparison.raters.n_annotators} annotators label every item; PSA is "
             "Uebersax's specific positive agreement among all of them.")
        )  # fmt: skip
    return blocks


def plan_section(plan: Plan) -> list[Block]:
    settings = plan.settings
    header = [
        "metric",
        "items",
        "union positives",
        "half-width at assurance",
        "typical interval",
        "assurance reached",
        "person-hours",
    ]
    rows = [
        [
            name,
            f"{r.items:,}",
            f"{r.union_positives:,.0f}",
            _fmt(r.half_width_at_assurance, 4),
            f"{r.interval_median[0]:.3f} to {r.interval_median[1]:.3f}",
            f"{r.assurance:.3f} ± {r.assurance_mc_se:.3f}",
            f"{plan.budgets[name].person_hours:,.1f}",
        ]
        for name, r in plan.results.items()
    ]
    wc, sr = plan.worst_case, plan.stop_rule
    text = "" if wc is None else (
        f"Whatever the true agreement, {wc.union_positives_wilson_every_outcome} union "
        f"positives give a Wilson half-width of at most {settings.width:g} for every outcome "
        f"(delta method: {wc.union_positives_delta}); "
        f"{wc.items_at_model_union_rate:,} items reach that many with probability at least "
        f"{wc.items_probability:g} ({wc.person_hours:,.1f} person-hours)."
    )  # fmt: skip
    if sr:
        text += (
            f" Stop rule: label until {sr.union_positives} union positives; expected "
            f"{sr.expected_items:,.0f} items, 90th percentile {sr.items_p90:,}."
        )
    blocks: list[Block] = [("h2", "Plan"), ("table", header, rows), ("p", text)]
    if plan.recommended is not None:  # the table's items take the pilot as the truth
        blocks.append(("p", recommended_text(plan)))
    budget = plan.budget
    if budget.cost is not None:
        blocks.append(
            (
                "p",
                f"Budget: {budget.person_hours:,.1f} person-hours, cost {budget.cost:,.0f} "
                "(hourly rate × person-hours).",
            )
        )
    return blocks


def recommended_text(plan: Plan) -> str:
    """Why a plan from a pilot recommends more (or fewer) items than its table's."""
    rec = plan.recommended
    assert rec is not None  # called only for a plan from a pilot
    u = plan.uncertainty_by_metric[rec.metric]
    return (
        f"The table's items hold if the pilot were the truth. Counting the pilot's "
        f"uncertainty, {rec.items:,} items (± {u.items_mc_se:.1f} Monte Carlo SE) reach the "
        f"width with hybrid assurance {u.hybrid_assurance:.3f} (target "
        f"{plan.settings.assurance:g}); the recommendation is this number. The plug-in "
        f"{rec.plug_in_items:,} items reach it with probability "
        f"{u.plug_in_hybrid_assurance:.2f}."
    )


def _design_rows(comparison: Comparison, metric: str) -> list[list[str]]:
    designs, costs = comparison.designs, comparison.costs
    names = list(designs)
    rows = [
        [f"items: {s['name']}", *(f"{designs[n].items_per_stratum[i]:,}" for n in names)]
        for i, s in enumerate(comparison.strata)
    ]
    rows += [
        [
            "items: uniform prevalence slice",
            *(f"{designs[n].prevalence_slice_items:,}" for n in names),
        ],
        ["items, total", *(f"{designs[n].items:,}" for n in names)],
        ["union positives", *(f"{designs[n].union_positives:,.0f}" for n in names)],
        [
            "half-width at the assurance",
            *(_fmt(designs[n].half_width_at_assurance, 4) for n in names),
        ],
        [
            f"{metric_name(metric)} estimated (median)",
            *(_fmt(designs[n].estimate_median) for n in names),
        ],
        ["person-hours", *(f"{costs[n].person_hours:,.1f}" for n in names)],
        ["hours vs uniform", *(f"{comparison.hours_ratio(n):.2f}" for n in names)],
    ]
    if all(costs[n].cost is not None for n in names):
        rows.append(
            ["cost (hourly rate × person-hours)", *(f"{costs[n].cost:,.0f}" for n in names)]
        )
    return rows


def _pilot_count_order(comparison: Comparison) -> str:
    """What each of a stratum's pilot counts counts: a pair's four cells, or several
    annotators' items per number of positive labels (their count patterns' order)."""
    raters = comparison.raters
    if raters is None:
        return "both, first only, second only, neither"
    positives = ", ".join(str(int(j)) for j in raters.patterns[:, 1])
    return f"items with {positives} of their {raters.labels_per_item} labels positive"


def _pilot_strata_text(comparison: Comparison) -> str:
    """How a pilot read by stratum made the strata's models, and the weighted design under
    its uncertainty."""
    counts = "; ".join(
        f"{s['name']} {', '.join(str(c) for c in s['pilot_counts'])}" for s in comparison.strata
    )
    text = (
        f"Each stratum's model is its own pilot counts ({_pilot_count_order(comparison)}: "
        f"{counts}), as plug-in cells; the prevalence column is the pilot's positive-label rate."
    )
    u = comparison.pilot_uncertainty
    if u is not None:
        text += (
            f" Under the pilot's uncertainty (each stratum's truth drawn from its posterior, "
            f"{u.replicates:,} studies), the weighted design's {u.plug_in_items:,} items reach "
            f"the width with assurance {u.plug_in_assurance:.3f}, and {u.items:,} items at its "
            f"allocation reach {u.assurance:.3f} (target {u.target_assurance:g})."
        )
    return text


def designs_section(comparison: Comparison) -> list[Block]:
    metric = deciding_metric(comparison)[0]
    blocks: list[Block] = [
        ("h2", "Designs compared"),
        ("table", ["", *comparison.designs], _design_rows(comparison, metric)),
    ]
    blocks += [("p", f"{n}: {d.describes}.") for n, d in comparison.designs.items()]
    blocks.append(
        (
            "p",
            "The claim that enrichment buys the same interval for a fifth of the hours: here the "
            f"enriched design costs {comparison.hours_ratio('enriched'):.2f} of the uniform hours "
            f"({comparison.hours_ratio('enriched', with_slice=False):.2f} without its prevalence "
            "slice), and its number describes the enriched mixture, not traffic. The weighted "
            f"design, which describes traffic, costs {comparison.hours_ratio('weighted'):.2f}.",
        )
    )
    return blocks


# ------------------------------------------------------------------ figures, schedule, rebuild


def half_width_figure(figures: ReportFigures) -> Block:
    c = figures.half_width
    metric = metric_name(c.metric)
    design = " (uniform design)" if c.design == "uniform" else ""
    caption = (
        f"{metric} interval half-width against items labelled{design}: median, 10-90 % band and "
        f"the {c.assurance:g} assurance quantile over {c.replicates:,} simulated studies per "
        "size; the target and the planned size."
    )
    alt = (
        f"Line chart of the {metric} interval half-width against items labelled, from "
        f"{c.items[0]:,} to {c.items[-1]:,} items: the median falls from {c.median[0]:.3f} to "
        f"{c.median[-1]:.3f}; a red line marks the target {c.width:g} and a dotted line the "
        f"planned {c.planned:,} items."
    )
    return ("figure", "half_width.png", caption, alt)


def hours_figure(figures: ReportFigures) -> Block:
    bars = figures.hours
    kinds = set(bars.kinds)
    if "plan" in kinds:
        caption = (
            "Person-hours of the plan, of the stop rule and of the worst case (any agreement, "
            "items reaching the worst-case union positives with the plan's assurance); cost is "
            "hourly rate × person-hours."
        )
    else:
        caption = (
            "Person-hours (and cost, hourly rate × person-hours) of the designs for the same "
            "target."
        )
    parts = [
        f"{label.replace(chr(10), ' ')}: {hours:,.1f} person-hours"
        + ("" if cost is None else f", cost {cost:,.0f}")
        for label, hours, cost in zip(bars.labels, bars.hours, bars.costs, strict=True)
    ]
    return ("figure", "hours.png", caption, "Bar chart of person-hours. " + "; ".join(parts) + ".")


def assurance_figure(figures: ReportFigures) -> Block:
    """The assurance curve of a pair plan (``plan --curve``)."""
    a = figures.assurance
    assert a is not None  # build_blocks draws it only for pair plans
    names = " and ".join(metric_name(m) for m in a.curve if m in ("psa", "kappa"))
    caption = (
        f"Assurance against items: the probability that a study of that size gives a {names} "
        f"interval of half-width at most {a.width:g}; the target assurance {a.assurance:g} and "
        "the planned size."
    )
    if len(a.curve) > len(names.split(" and ")):  # a pilot: the hybrid curve decides
        caption += (
            " The plan reads the curve averaged over the pilot's posterior (counting its "
            "uncertainty); the PSA curve takes the pilot as the truth."
        )
    ends = "; ".join(
        f"{metric_name(m)} from {p[0]['assurance']:.2f} at {p[0]['items']:,.0f} items to "
        f"{p[-1]['assurance']:.2f} at {p[-1]['items']:,.0f}"
        for m, p in a.curve.items()
    )
    alt = (
        f"Line chart of assurance against items labelled: {ends}; a red line marks the target "
        f"{a.assurance:g} and a dotted line the planned {a.planned:,} items."
    )
    return ("figure", ASSURANCE_FILE, caption, alt)


def burndown_figure(figures: ReportFigures, model: str = "SimPy") -> Block:
    b = figures.burndown
    caption = (
        f"Burn-down over {b.runs} simulated runs of the operation ({model}): the share of items "
        "not finished on each calendar day, median and 10-90 % band of the runs on that day."
    )
    alt = (
        "Line chart of the share of items not finished against calendar days: the per-day "
        "median falls from 1 on day 0 to 0 inside a shaded 10-90 % band; the runs finish on "
        f"day {b.finish_median:g} (median) and day {b.finish_p90:g} (90th percentile)."
    )
    return ("figure", "burndown.png", caption, alt)


def estimates_figure(figures: ReportFigures) -> Block:
    e = figures.estimates
    metric = metric_name(e.metric)
    what = (
        "the weighted design (population-weighted, describes traffic)"
        if e.design == "weighted"
        else "a study of the planned size"
    )
    t = figures.thresholds
    caption = (
        f"Simulated {metric} estimates of {what}, {e.replicates:,} studies, with the typical "
        f"interval and the thresholds of the decision rule ({t.source})."
    )
    alt = (
        f"Histogram of {metric} estimates of {e.replicates:,} simulated studies around the "
        f"assumed true value {e.truth:.3f} (red line), with the typical "
        f"{e.confidence_level:.0%} interval {e.interval_lower:.3f} to {e.interval_upper:.3f} "
        f"shaded and black lines at the thresholds {t.not_demonstrated_below:g} (not "
        f"demonstrated below) and {t.demonstrated_at:g} (demonstrated at)."
    )
    return ("figure", "estimates.png", caption, alt)


def schedule_section(schedule: ScheduleResult, figures: ReportFigures) -> list[Block]:
    op = schedule.operation
    named = schedule.team is not None  # a named team: each person's own model and rate
    cost = "-" if schedule.cost_median is None else f"{schedule.cost_median:,.0f}"
    rows = [
        ["items", f"{sum(op.items_per_stratum):,} ({op.labels_per_item} labels each)"],
        [
            "team",
            f"{op.annotators} annotators, {op.hours_per_day:g} h/day, "
            f"{op.days_per_week} days/week, "
            f"{adjudication_said(op.adjudicators, op.adjudication_seconds, op.contested_rate)}",
        ],
        [
            "calendar days",
            f"median {schedule.calendar_days_median:g}, 90th percentile "
            f"{schedule.calendar_days_p90:g}",
        ],
        [
            "person-hours",
            f"median {schedule.person_hours_median:,.1f}, 90th percentile "
            f"{schedule.person_hours_p90:,.1f}"
            + ("" if named else f" (analytic {schedule.analytic_person_hours:,.1f})"),
        ],
        ["annotator utilisation", f"{schedule.annotator_utilisation:.0%}"],
        [f"cost (median; {'each person' if named else 'hourly'} rate × person-hours)", cost],
        ["runs", f"{schedule.runs}"],
    ]
    return [
        ("h2", "Schedule"),
        ("table", ["quantity", "value"], rows),
        burndown_figure(figures, "person by person" if named else "SimPy"),
        *team_section(schedule),
    ]


def _versions() -> dict[str, str]:
    import matplotlib
    import scipy
    import simpy

    return {
        "planner": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "simpy": simpy.__version__,
        "matplotlib": matplotlib.__version__,
    }


def rebuild_command(scenario: Scenario, seed: int) -> str:
    """The command that rebuilds the report: a shipped scenario by name, else its path."""
    shipped = shipped_scenarios().get(scenario.name)
    given = Path(scenario.path)
    if shipped is not None and shipped.resolve() == given.resolve():
        source = scenario.name
    else:
        source = scenario.path
    return f"planner report {source} --seed {seed} --force"


def rebuild_section(scenario: Scenario, seed: int) -> list[Block]:
    versions = ", ".join(f"{k} {v}" for k, v in _versions().items())
    return [
        ("h2", "Rebuild"),
        ("code", rebuild_command(scenario, seed)),
        (
            "p",
            f"Versions: {versions}; seed {seed}. The scenario file is saved beside this report, "
            "and the data of every figure in figures.json.",
        ),
    ]


def build_blocks(
    scenario: Scenario, result: PlanResult, schedule: ScheduleResult, figures: ReportFigures
) -> list[Block]:
    """Every section of the report of ``result``, in order."""
    blocks: list[Block] = [("h1", f"Agreement study plan: {scenario.name}")]
    blocks += recommendation_section(scenario, result, schedule, figures)
    if scenario.description:
        blocks += [("h2", "The study"), ("p", " ".join(scenario.description.split()))]
    blocks += target_section(result, figures.seed)
    match result:
        case Plan():
            blocks += assumptions_section(result) + plan_section(result)
        case Comparison():
            blocks += strata_section(result) + designs_section(result)
    blocks += [("h2", "Figures"), half_width_figure(figures), hours_figure(figures)]
    if figures.assurance is not None:
        blocks.append(assurance_figure(figures))
    blocks += schedule_section(schedule, figures)
    blocks.append(estimates_figure(figures))
    if figures.alt_test is not None:
        blocks += alt_test_section(figures.alt_test)
    return blocks + rebuild_section(scenario, figures.seed)


# ------------------------------------------------------------------ rendering


# always special: escapes, code, emphasis, strikethrough, table columns; an underscore at
# a word's edge (inside a word it emphasises nothing); a "]" that would close a link's
# text, and a "[" that would start a line's link definition
_MARKDOWN_SPECIAL = re.compile(
    r"([\\`*|~])|((?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))|(\](?=[(\[]))|(^\[)"
)
_ENTITY = re.compile(r"&(?=#?[0-9A-Za-z]+;)")


def markdown_text(text: object) -> str:
    r"""``text`` as literal Markdown: what a reader of the file sees is the text itself.

    Control characters are shown (:func:`~planner.output.safe_output.visible`); ``<`` and
    ``>`` become ``&lt;`` and ``&gt;`` (no HTML tag of a name reaches the file), an ``&``
    that would start an entity becomes ``&amp;``, and the characters that Markdown reads as
    emphasis, code, links, strikethrough or table columns (``\ ` * ~ |``, ``_`` at a
    word's edge, ``]`` before ``(`` or ``[``, a leading ``[``) are backslash-escaped, so a
    ``|`` in a stratum name never shifts a table's columns.

    >>> markdown_text("a|b <img src=x onerror=alert(1)> *x* [t](u) snake_case _e_")
    'a\\|b &lt;img src=x onerror=alert(1)&gt; \\*x\\* [t\\](u) snake_case \\_e\\_'
    """
    shown = _ENTITY.sub("&amp;", visible(text))
    shown = shown.replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(), shown)


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``."""
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    return "`" * max(3, longest + 1)


def markdown(blocks: list[Block]) -> str:
    """The blocks as Markdown (figures as ``figures/NAME`` with their alt text).

    Every block's text is plain text (as :func:`html_page` shows it), escaped by
    :func:`markdown_text`; a code block's text is shown (control characters written out)
    inside a fence it cannot close.
    """
    md = markdown_text
    out = []
    for block in blocks:
        match block:
            case ("h1", text):
                out.append(f"# {md(text)}\n")
            case ("h2", text):
                out.append(f"## {md(text)}\n")
            case ("p", text):
                out.append(f"{md(text)}\n")
            case ("table", header, rows):
                out.append("| " + " | ".join(md(h) for h in header) + " |")
                out.append("|" + "---|" * len(header))
                out.extend("| " + " | ".join(md(c) for c in row) + " |" for row in rows)
                out.append("")
            case ("figure", name, caption, alt):
                out.append(f"![{md(alt)}](figures/{name})\n\n*{md(caption)}*\n")
            case ("code", text):
                shown = visible(text)
                fence = _fence(shown)
                out.append(f"{fence}\n{shown}\n{fence}\n")
    return "\n".join(out)


STYLE = (
    "body{font-family:sans-serif;font-size:16px;max-width:960px;margin:2em auto;padding:0 1em;"
    "line-height:1.45}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
    "padding:4px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
    "figure{margin:1.5em 0}img{max-width:100%;height:auto}figcaption{font-size:0.95em}"
    "pre{background:#f4f4f4;padding:8px;overflow-x:auto}"
)


def _html(text: object) -> str:
    """``text`` for HTML: control characters shown (:func:`visible`), then escaped."""
    return html.escape(visible(text))


def _html_block(block: Block, figures: Path) -> str:
    match block:
        case ("h1" | "h2" as tag, text):
            return f"<{tag}>{_html(text)}</{tag}>"
        case ("p", text):
            return f"<p>{_html(text)}</p>"
        case ("table", header, rows):
            head = "".join(f"<th>{_html(str(h))}</th>" for h in header)
            body = "".join(
                "<tr>" + "".join(f"<td>{_html(str(c))}</td>" for c in row) + "</tr>" for row in rows
            )
            return f"<table><tr>{head}</tr>{body}</table>"
        case ("figure", name, caption, alt):
            data = base64.b64encode((figures / name).read_bytes()).decode("ascii")
            return (
                f"<figure><img src='data:image/png;base64,{data}' alt='{_html(alt)}'>"
                f"<figcaption>{_html(caption)}</figcaption></figure>"
            )
        case ("code", text):
            return f"<pre>{_html(text)}</pre>"
    raise ValueError(f"unknown report block {block[0]!r}")


def html_page(blocks: list[Block], title: str, figures: Path) -> str:
    """A self-contained HTML page of the blocks (figures embedded as PNG data URIs)."""
    head = (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
    )
    return "\n".join([head, *(_html_block(b, figures) for b in blocks), "</body></html>"])
