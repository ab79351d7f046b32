"""The report of a scenario with an ``[annotators]`` section: several annotators per item.

The plan is :func:`planner.application.raters_options.raters_plan_from_options` with its
assurance curve; the schedule is ``planner schedule``'s for the scenario
(:func:`planner.application.schedule_options.run_schedule`, which labels the plan's items with the
plan's labels per item). The figures are those of a pair's report, drawn from studies of
label-pattern counts (:mod:`planner.sizing.studies`):

- the half-width's median, 10-90 % band and assurance quantile against items, over
  :data:`~planner.output.report_figures.CURVE_REPLICATES` nested studies per size;
- person-hours of the plan and, for ``M = 2 .. 6`` annotators per item, of the items whose
  plug-in half-width (at expected counts, shrinking as ``1 / sqrt(n)``) is the target width;
- the assurance curve of the plan (``plan --curve``);
- the burn-down band of the schedule and the histogram of the estimates of
  :data:`~planner.output.report_figures.ESTIMATE_REPLICATES` studies of the planned size, with
  the typical interval (medians of the limits) and the decision rule's thresholds.

Every stream is a child of the report's seed that the plan's search does not use.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from planner.data.scenario import Scenario
from planner.measuring.decision import decide
from planner.operations.workload import ScheduleResult
from planner.output.report_alt_test import alt_test_section
from planner.output.report_figures import (
    CURVE_REPLICATES,
    CURVE_SIZES,
    ESTIMATE_REPLICATES,
    FIGURE_STREAM,
    AssuranceCurve,
    HalfWidthCurve,
    HoursBars,
    ReportFigures,
    burndown_band,
    decision_thresholds,
    metric_name,
    spread_of,
)
from planner.output.report_sections import (
    Block,
    calendar_days,
    estimates_figure,
    half_width_figure,
    rebuild_section,
    schedule_section,
)
from planner.sizing.annotator_model import MAX_ANNOTATORS
from planner.sizing.common_prevalence_model import AnyRatersModel
from planner.sizing.exact import half_width_quantiles
from planner.sizing.plan import RatersPlan
from planner.sizing.studies import NestedPatternStudies, simulate_pattern_counts
from planner.sizing.study_intervals import expected_half_width, pattern_space, study_intervals
from planner.sizing.team_cost import study_budget
from planner.validation import seed_from

#: the name ``planner agree --decide-on`` gives each several-annotator metric (None: agree
#: does not report it)
AGREE_NAMES = {
    "psa": "psa",
    "fleiss": "fleiss_kappa",
    "alpha": "krippendorff_alpha",
    "conger": "conger_kappa",
    "kappa": None,
}


def _streams(seed: int) -> list[np.random.Generator]:
    """Three streams of the report's seed (half-width curve, estimates, assurance curve)."""
    sequence = np.random.SeedSequence(seed, spawn_key=(FIGURE_STREAM,))
    return [np.random.default_rng(s) for s in sequence.spawn(3)]


def _options(model: AnyRatersModel, plan: RatersPlan) -> dict[str, Any]:
    s = plan.sizing
    return dict(level=s.level, confidence_level=s.confidence_level, n_categories=model.n_categories)


def _per_item(plan: RatersPlan) -> int | None:
    s = plan.sizing
    return None if s.labels_per_item == s.n_annotators else s.labels_per_item


def union_rate(model: AnyRatersModel, per_item: int | None = None) -> float:
    """Binary: the share of items at least one annotator labels positive; else NaN."""
    if model.n_categories != 2:
        return float("nan")
    patterns, probs = model.count_patterns(per_item)
    return float(probs[patterns[:, 1] > 0].sum())


def raters_half_width_curve(
    model: AnyRatersModel, plan: RatersPlan, rng: np.random.Generator
) -> HalfWidthCurve:
    """Half-width quantiles over nested studies on a grid from 0.3 to 2 times the plan."""
    s = plan.sizing
    patterns, probs = pattern_space(model, s.metric, _per_item(plan))
    studies = NestedPatternStudies(probs, CURVE_REPLICATES, rng=rng)
    planned = plan.items  # the recommendation (under a pilot's uncertainty when there is one)
    grid = np.linspace(max(10, int(0.3 * planned)), 2 * planned, CURVE_SIZES)
    grid = np.unique(grid.astype(int))
    quantiles = [0.1, 0.5, 0.9, s.target_assurance]
    rows = []
    for n in grid:
        ci = study_intervals(s.metric, patterns, studies.counts(int(n)), **_options(model, plan))
        rows.append(half_width_quantiles(ci.half_width, quantiles))
    table = np.array(rows)
    return HalfWidthCurve(
        items=tuple(int(n) for n in grid),
        p10=tuple(table[:, 0].tolist()),
        median=tuple(table[:, 1].tolist()),
        p90=tuple(table[:, 2].tolist()),
        at_assurance=tuple(table[:, 3].tolist()),
        assurance=s.target_assurance,
        width=s.width,
        planned=int(planned),
        metric=s.metric,
        union_rate=union_rate(model, _per_item(plan)),
        replicates=CURVE_REPLICATES,
        design="plan",
    )


def plug_in_items(model: AnyRatersModel, plan: RatersPlan, annotators: int) -> int:
    """Items whose half-width at expected counts is the target, with ``annotators`` per item:
    ``ceil(n0 (h(n0) / w)^2)`` at ``n0 = 10,000`` (the search's analytic start)."""
    s = plan.sizing
    patterns, probs = pattern_space(model.with_annotators(annotators), s.metric)  # type: ignore[union-attr]
    ref = 10_000.0
    hw = expected_half_width(s.metric, patterns, probs, ref, **_options(model, plan))
    return int(np.ceil(ref * (hw / s.width) ** 2))


def raters_hours(model: AnyRatersModel, plan: RatersPlan) -> HoursBars:
    """The plan's person-hours and, without ``k`` of ``M``, those of ``M = 2 .. 6``
    annotators per item at their plug-in items for the target width.

    Each bar bills its items as the plan does (:func:`study_budget`: every label and the
    ``M`` annotators' contested share adjudicated). A named team has its own number of
    people, so the ``M = 2 .. 6`` bars are then billed at the budget's single rate and their
    labels say so.
    """
    b, s = plan.budget, plan.sizing
    counted = "" if plan.recommended is None else " under\nthe pilot's uncertainty"
    bars: list[tuple[str, float, float, float | None, str]] = [
        (f"the plan: {s.labels_per_item} labels,\nassurance {s.target_assurance:g}{counted}",
         plan.items, b.person_hours, b.cost, "plan"),
    ]  # fmt: skip
    if _per_item(plan) is None:
        single_rate = replace(plan.settings, team=None, per_item=None)
        rate = "" if plan.settings.team is None else ", single rate"
        for m in range(2, MAX_ANNOTATORS + 1):
            items = plug_in_items(model, plan, m)
            bill = study_budget(model.with_annotators(m), single_rate, items)  # type: ignore[union-attr]
            label = f"{m} annotators\n(plug-in{rate})"
            bars.append((label, items, bill.person_hours, bill.cost, "m"))
    return HoursBars(
        labels=tuple(x[0] for x in bars),
        items=tuple(float(x[1]) for x in bars),
        hours=tuple(float(x[2]) for x in bars),
        costs=tuple(None if x[3] is None else float(x[3]) for x in bars),
        kinds=tuple(x[4] for x in bars),
    )


def raters_estimates(model: AnyRatersModel, plan: RatersPlan, rng: np.random.Generator) -> Any:
    """Estimates of studies of the planned size, with the typical interval (median limits)."""
    s = plan.sizing
    patterns, probs = pattern_space(model, s.metric, _per_item(plan))
    counts = simulate_pattern_counts(probs, plan.items, ESTIMATE_REPLICATES, rng=rng)
    ci = study_intervals(s.metric, patterns, counts, **_options(model, plan))  # type: ignore[arg-type]
    low, high = np.asarray(ci.low, float), np.asarray(ci.high, float)
    defined = np.isfinite(low) & np.isfinite(high)
    interval = (float(np.median(low[defined])), float(np.median(high[defined])))
    return spread_of(
        np.asarray(ci.estimate, float), s.true_value, interval, s.confidence_level, s.metric
    )


def raters_figure_data(
    scenario: Scenario,
    plan: RatersPlan,
    model: AnyRatersModel,
    schedule: ScheduleResult,
    seed: int,
) -> ReportFigures:
    """The data of every figure of the report of a several-annotator plan."""
    curve_rng, estimate_rng, assurance_rng = _streams(seed)
    s = plan.sizing
    assurance = None
    if plan.curve is not None:
        assurance = AssuranceCurve(
            curve=plan.curve,
            width=s.width,
            assurance=s.target_assurance,
            planned=int(plan.items),
            seed=seed_from(assurance_rng),
        )
    return ReportFigures(
        raters_half_width_curve(model, plan, curve_rng),
        raters_hours(model, plan),
        burndown_band(schedule),
        raters_estimates(model, plan, estimate_rng),
        decision_thresholds(scenario),
        seed,
        assurance,
    )


# ------------------------------------------------------------------ the text


def _design(plan: RatersPlan) -> str:
    s = plan.sizing
    if s.labels_per_item < s.n_annotators:
        return f"{s.labels_per_item} of a pool of {s.n_annotators} annotators, drawn at random"
    return f"all {s.n_annotators} annotators"


def _label(plan: RatersPlan) -> str:
    s = plan.sizing
    return f"{s.confidence_level:.0%} {metric_name(s.metric)} interval ({s.method})"


def agree_line(plan: RatersPlan, figures: ReportFigures) -> str:
    """The ``planner agree`` call that applies the rule fixed in advance to the labels."""
    t, s = figures.thresholds, plan.sizing
    line = (
        f"planner agree LABELS.csv --not-demonstrated-below {t.not_demonstrated_below:g} "
        f"--demonstrated-at {t.demonstrated_at:g}"
    )
    name = AGREE_NAMES[s.metric]
    if name is not None:
        line += f" --decide-on {name}"
    if s.confidence_level != 0.95:
        line += f" --confidence {s.confidence_level:g}"
    return line


def _assurance_evidence(plan: RatersPlan) -> str:
    """How the recommended size's assurance was checked: a fresh simulation of the model,
    or (from a pilot) the hybrid assurance over the pilot's bootstrap refits."""
    s, u = plan.sizing, plan.uncertainty
    if u is None:
        return (
            f"(a fresh check of {s.replicates:,} simulated studies: "
            f"{s.assurance:.3f} ± {s.assurance_mc_se:.3f})"
        )
    return (
        f"counting the pilot's uncertainty (hybrid assurance {u.hybrid_assurance:.3f} ± "
        f"{u.hybrid_assurance_se:.3f} over {u.draws:,} plausible truths; {u.plug_in_items:,} "
        "items if the pilot's fit were the truth)"
    )


def recommendation(
    scenario: Scenario, plan: RatersPlan, schedule: ScheduleResult, figures: ReportFigures
) -> list[Block]:
    """What to label, what it costs, how long it takes, how to decide."""
    s, b = plan.sizing, plan.budget
    op = schedule.operation
    cost = "" if b.cost is None else f", cost {b.cost:,.0f} (hourly rate × person-hours)"
    whose = "the team in the scenario" if scenario.team else "planner schedule's default team"
    e, t = figures.estimates, figures.thresholds
    verdict = decide(
        s.metric, e.truth, e.interval_lower, e.interval_upper,
        t.not_demonstrated_below, t.demonstrated_at,
    )  # fmt: skip
    blocks: list[Block] = [
        ("h2", "Recommendation"),
        (
            "p",
            f"Label {plan.items:,} items, each by {_design(plan)} ({b.labels:,} labels): "
            f"{b.person_hours:,.1f} person-hours{cost}; about "
            f"{calendar_days(schedule.calendar_days_median)} (90th percentile "
            f"{schedule.calendar_days_p90:g}) with {whose} ({op.annotators} annotators, "
            f"{op.hours_per_day:g} h a day, {op.days_per_week} days a week). A study of this "
            f"size gives a {_label(plan)} of half-width at most {s.width:g} with assurance "
            f"{s.target_assurance:g} {_assurance_evidence(plan)}.",
        ),
        (
            "p",
            f"Decide in advance ({t.source}): when the labels are in, compute the "
            f"{_label(plan)}; agreement is demonstrated if its lower limit is at least "
            f"{t.demonstrated_at:g}, not demonstrated if its upper limit is below "
            f"{t.not_demonstrated_below:g}, and inconclusive otherwise. At the assumed "
            f"{metric_name(s.metric)} {verdict.estimate:.3f} the typical interval "
            f"{verdict.ci_low:.3f} to {verdict.ci_high:.3f} would read: {verdict.verdict}.",
        ),
        ("code", agree_line(plan, figures)),
    ]
    if AGREE_NAMES[s.metric] is None:
        blocks.append(("p", f"planner agree does not report the {metric_name(s.metric)}."))
    return blocks


def pilot_rows(plan: RatersPlan) -> list[list[str]]:
    """What a several-annotator pilot gave, as rows: the annotators, items and labels read,
    the fit, its bootstrap refits and the metric's posterior (the report's and the app's)."""
    pilot, u = plan.pilot, plan.uncertainty
    assert pilot is not None and u is not None  # a plan from a pilot
    rows = [
        ["annotators", ", ".join(pilot.annotators)],
        ["items", f"{pilot.items:,}"],
        ["labels", ", ".join(pilot.categories)],
    ]
    if pilot.positive is not None:
        rows.append(["positive label", pilot.positive])
    return rows + [
        ["model", "latent-class fit of all the annotators (Dawid & Skene)"],
        ["bootstrap refits", f"{len(pilot.draws):,} ({pilot.unconverged} did not converge)"],
        [
            f"posterior {metric_name(u.metric)}",
            f"{u.posterior['p50']:.3f} (10-90 %: {u.posterior['p10']:.3f} to "
            f"{u.posterior['p90']:.3f})",
        ],
    ]


def pilot_section(plan: RatersPlan) -> list[Block]:
    """What the pilot file gave: the annotators and labels read, the fit, its uncertainty."""
    pilot, u = plan.pilot, plan.uncertainty
    if pilot is None or u is None:
        return []
    rows = [["file", Path(pilot.source).name], *pilot_rows(plan)]
    text = (
        f"The pilot's fit is the model of the tables and figures below, as if it were the "
        f"truth (the Plan table's {u.plug_in_items:,} items); the figures mark the recommended "
        f"{u.items:,}. The recommendation counts the fit's uncertainty: "
        f"{u.items:,} items (± {u.items_mc_se:.1f} Monte Carlo SE) reach the width with "
        f"hybrid assurance {u.hybrid_assurance:.3f} (target {u.target_assurance:g}): of "
        f"{u.studies:,} simulated studies per size, each under one of the {u.draws:,} bootstrap "
        "refits, the share whose interval is narrow enough; "
        f"the plug-in {u.plug_in_items:,} items reach it with hybrid assurance "
        f"{u.plug_in_hybrid_assurance:.3f}."
    )
    return [("h2", "The pilot"), ("table", ["quantity", "value"], rows), ("p", text)]


def assumptions(plan: RatersPlan) -> list[Block]:
    """The model the plan assumes."""
    model, s = plan.model.describe(), plan.sizing
    rows = [
        ["annotators", str(model["n_annotators"])],
        ["categories", str(model["n_categories"])],
        ["class prevalences", ", ".join(f"{p:.4g}" for p in model["prevalences"])],
    ]
    if model.get("kind") == "common-prevalence":
        rows.append(["model", f"common prevalence ({model['family']})"])
        rows.append(["intraclass kappa", f"{model['kappa']:.4g}"])
    else:
        for j, mat in enumerate(model["confusion"]):
            diagonal = ", ".join(f"{row[t]:.4g}" for t, row in enumerate(mat))
            rows.append([f"annotator {j + 1}: P(correct | class)", diagonal])
        rows.append(["ambiguity (share of items with shared errors)", f"{model['ambiguity']:.4g}"])
    rows.append([f"true {metric_name(s.metric)}", f"{s.true_value:.4f}"])
    return [("h2", "Assumptions"), ("table", ["quantity", "value"], rows)]


def _if_truth(plan: RatersPlan) -> str:
    return "" if plan.pilot is None else "; if the pilot's fit were the truth"


def plan_table(plan: RatersPlan) -> list[Block]:
    """The plan's answer and its evidence, and the fixed-hours table."""
    s, b = plan.sizing, plan.sizing_budget
    each = b.labelling_hours / s.n_annotators  # of these items (the plug-in answer)
    rows = [
        ["items", f"{s.items:,} ({_design(plan)}{_if_truth(plan)})"],
        ["labels", f"{b.labels:,}"],
        ["person-hours", f"{b.person_hours:,.1f}"],
        ["hours per annotator", f"{each:,.1f} (pool of {s.n_annotators})"],
        ["half-width", f"{s.half_width_median:.4f} (median over {s.replicates:,} new studies)"],
        [
            "assurance",
            f"{s.assurance:.3f} ± {s.assurance_mc_se:.3f} (target {s.target_assurance:g})",
        ],
        ["interval coverage", f"{s.coverage:.3f} ± {s.coverage_mc_se:.3f} ({s.method})"],
        ["analytic start", f"{s.analytic_items:,} (plug-in half-width ~ 1/sqrt(n))"],
        ["search", f"{s.search_reps:,} studies, assurance >= {s.assurance_goal:.3f}"],
    ]
    if b.cost is not None:
        rows.insert(3, ["cost", f"{b.cost:,.2f}"])
    blocks: list[Block] = [("h2", "Plan"), ("table", ["quantity", "value"], rows)]
    if plan.by_annotators:
        hours = plan.sizing_budget.labelling_hours
        blocks.append(
            ("p", f"At the same {hours:,.1f} labelling hours, by annotators per item (the "
             "half-width at expected counts, plug-in):")
        )  # fmt: skip
        table = [
            [f"{r.annotators}", f"{r.items:,}", f"{r.hours:,.1f}", f"{r.half_width:.4f}"]
            for r in plan.by_annotators
        ]
        blocks.append(("table", ["annotators", "items", "hours", "half-width"], table))
    blocks += [("p", f"Note: {line}") for line in plan.notes]
    return blocks


def hours_block(figures: ReportFigures) -> Block:
    bars = figures.hours
    caption = (
        "Person-hours of the plan and, for 2 to 6 annotators per item, of the items whose "
        "half-width at expected counts (plug-in: the median study, not the plan's assurance) "
        "is the target; cost is hourly rate × person-hours."
    )
    parts = [
        f"{label.replace(chr(10), ' ')}: {items:,.0f} items, {hours:,.1f} person-hours"
        + ("" if cost is None else f", cost {cost:,.0f}")
        for label, items, hours, cost in zip(
            bars.labels, bars.items, bars.hours, bars.costs, strict=True
        )
    ]
    return ("figure", "hours.png", caption, "Bar chart of person-hours. " + "; ".join(parts) + ".")


def assurance_block(figures: ReportFigures) -> Block:
    a = figures.assurance
    assert a is not None  # the report's plan carries its curve
    metric, points = next(iter(a.curve.items()))
    caption = (
        f"Assurance against items: the probability that a study of that size gives a "
        f"{metric_name(metric)} interval of half-width at most {a.width:g} "
        f"({CURVE_REPLICATES:,} nested simulated studies); the target assurance "
        f"{a.assurance:g} and the planned size."
    )
    alt = (
        f"Line chart of assurance against items labelled: from {points[0]['assurance']:.2f} at "
        f"{points[0]['items']:,.0f} items to {points[-1]['assurance']:.2f} at "
        f"{points[-1]['items']:,.0f}; a red line marks the target {a.assurance:g} and a dotted "
        f"line the planned {a.planned:,} items."
    )
    return ("figure", "assurance.png", caption, alt)


def raters_blocks(
    scenario: Scenario, plan: RatersPlan, schedule: ScheduleResult, figures: ReportFigures
) -> list[Block]:
    """Every section of the report of a several-annotator plan, in order."""
    s = plan.sizing
    blocks: list[Block] = [("h1", f"Agreement study plan: {scenario.name}")]
    blocks += recommendation(scenario, plan, schedule, figures)
    if scenario.description:
        blocks += [("h2", "The study"), ("p", " ".join(scenario.description.split()))]
    blocks.append(
        (
            "p",
            f"Target: {metric_name(s.metric)} interval half-width at most {s.width:g} at "
            f"{s.confidence_level:.0%} confidence, with assurance {s.target_assurance:g}, "
            f"{_design(plan)} on every item. Every number and figure below is computed from "
            f"the scenario file with seed {figures.seed}.",
        )
    )
    blocks += pilot_section(plan) + assumptions(plan) + plan_table(plan)
    blocks += [("h2", "Figures"), half_width_figure(figures), hours_block(figures)]
    if figures.assurance is not None:
        blocks.append(assurance_block(figures))
    blocks += schedule_section(schedule, figures)
    blocks.append(estimates_figure(figures))
    if figures.alt_test is not None:
        blocks += alt_test_section(figures.alt_test)
    return blocks + rebuild_section(scenario, figures.seed)
