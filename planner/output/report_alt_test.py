"""A report's Alt-Test section: can the scenario's LLM judge replace one of its humans?

A scenario with an ``[alt_test]`` table (:mod:`planner.data.scenario`) names a planning model
for the alternative annotator test (Calderon, Reichart & Dror 2025; ``docs/methods/alt-test.md``):
the
humans' and the LLM's error rates, the categories and the test's margin. The report shows the
items the test needs (:func:`planner.sizing.alt_test_plan.alt_test_plan_summary`), P(pass)
there and at the study's own items, the humans' person-hours, the table over 2 to 6 humans,
the model in words, and a figure of P(pass) against items. Everything is computed once here,
from a stream of the report's seed that no other part of the report uses
(:func:`planner.application.alt_test_options.alt_test_seeds`, the stream ``plan SCENARIO``
draws its Alt-Test items from); the seed the numbers were drawn with is recorded
(``figures.json``, ``alt_test``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.application.alt_test_options import (
    DEFAULT_SECONDS,
    alt_test_seeds,
    alt_test_settings,
)
from planner.data.scenario import Scenario
from planner.sizing.alt_test_plan import (
    AltTestModel,
    AltTestPlanSettings,
    AltTestPlanSummary,
    alt_test_plan_summary,
    pass_probability,
)

CURVE_SIZES = 12
"""Sizes on the P(pass) curve."""
FIGURE_FILE = "alt_test.png"

Block = tuple[Any, ...]


@dataclass(frozen=True)
class PassCurve:
    """P(pass) of the Alt-Test against items: the figure's data.

    ``pass_probability[i]`` is the Monte Carlo estimate at ``items[i]`` over ``replicates``
    simulated studies (standard error ``standard_error[i]``), drawn from ``seed``.
    """

    items: tuple[int, ...]
    pass_probability: tuple[float, ...]
    standard_error: tuple[float, ...]
    power: float
    planned: int | None
    items_given: int | None
    replicates: int
    seed: int


@dataclass(frozen=True)
class AltTestReport:
    """What the report shows of the Alt-Test: the summary, its settings and the curve."""

    summary: AltTestPlanSummary
    humans: int
    q: float
    min_items: int
    replicates: int
    seconds_per_item: float
    first_human_error: float
    curve: PassCurve

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (``figures.json``'s ``alt_test``:
        :func:`planner.output.alt_test_json.alt_test_report_json`)."""
        from planner.output.alt_test_json import alt_test_report_json

        return alt_test_report_json(self)


def curve_sizes(min_items: int, planned: int | None, given: int | None) -> list[int]:
    """:data:`CURVE_SIZES` sizes from ``min_items`` to twice the larger of the plan and the
    study's items (300 items when neither is known), with both included."""
    top = 2 * max(planned or 0, given or 0) or 300
    grid = np.linspace(min_items, max(top, min_items + CURVE_SIZES), CURVE_SIZES)
    sizes = {int(round(n)) for n in grid} | {n for n in (planned, given) if n is not None}
    return sorted(sizes)


def pass_curve(
    model: AltTestModel, summary: AltTestPlanSummary, settings: AltTestPlanSettings, seed: int
) -> PassCurve:
    """P(pass) against items: the plan's own curve (every size its search walked, on one
    nested sequence of studies), and the study's own items beyond it (their P(pass) as the
    section's table gives it), where there is a plan; else :func:`curve_sizes`, each size
    from the same ``seed``."""
    if summary.curve:
        replicates = settings.replicates
        walked = list(summary.curve)
        given, at_given = summary.items_given, summary.pass_probability_at_items
        if given is not None and at_given is not None and given > walked[-1][0]:
            walked.append((given, at_given))  # the study's own size, as the table gives it
        values = [p for _, p in walked]
        return PassCurve(
            items=tuple(n for n, _ in walked),
            pass_probability=tuple(values),
            standard_error=tuple(math.sqrt(p * (1 - p) / replicates) for p in values),
            power=summary.power,
            planned=summary.n_items,
            items_given=summary.items_given,
            replicates=replicates,
            seed=summary.seed,
        )
    sizes = curve_sizes(settings.min_items, summary.n_items, summary.items_given)
    points = [pass_probability(model, n, settings, rng=seed) for n in sizes]
    return PassCurve(
        items=tuple(sizes),
        pass_probability=tuple(p.probability for p in points),
        standard_error=tuple(p.standard_error for p in points),
        power=summary.power,
        planned=summary.n_items,
        items_given=summary.items_given,
        replicates=settings.replicates,
        seed=seed,
    )


def alt_test_report(scenario: Scenario, seed: int) -> AltTestReport | None:
    """The Alt-Test numbers of the report of ``scenario`` with ``seed`` (None without
    ``[alt_test]``)."""
    if not scenario.alt_test:
        return None
    model, settings = alt_test_settings(scenario)
    seeds = alt_test_seeds(seed)
    summary = alt_test_plan_summary(model, settings, rng=seeds.summary)
    return AltTestReport(
        summary=summary,
        humans=model.n_humans,
        q=settings.q,
        min_items=settings.min_items,
        replicates=settings.replicates,
        seconds_per_item=DEFAULT_SECONDS
        if settings.seconds_per_item is None
        else settings.seconds_per_item,
        first_human_error=model.human_error[0],
        curve=pass_curve(model, summary, settings, seeds.curve),
    )


# ------------------------------------------------------------------ the section


def _number(x: float | None, digits: int = 3) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:,.{digits}f}"


def _items(n: int | None) -> str:
    return "unreachable" if n is None else f"{n:,}"


def _plan_rows(alt: AltTestReport) -> list[list[str]]:
    s = alt.summary
    rows = [[f"items (each labelled by all {alt.humans} humans and the LLM)", _items(s.n_items)]]
    if s.n_items is not None:
        rows += [
            [f"P(pass) at {s.n_items:,} items (target {s.power:g})", _number(s.pass_probability)],
            [
                f"person-hours of the humans' labels ({alt.seconds_per_item:g} s an item)",
                _number(s.person_hours, 1),
            ],
        ]
    if s.items_given is not None:
        rows.append(
            [
                f"P(pass) at the study's {s.items_given:,} items",
                _number(s.pass_probability_at_items),
            ]
        )
    return rows


#: rows of the report's P(pass) table
CURVE_ROWS = 16


def _curve_rows(alt: AltTestReport) -> list[list[str]]:
    """P(pass) at about :data:`CURVE_ROWS` sizes of the curve, with the first crossing, the
    plan and every size between them where P(pass) dips below the target."""
    c, s = alt.curve, alt.summary
    marks = {s.first_crossing, s.n_items}
    dips = {
        n
        for n, p in zip(c.items, c.pass_probability, strict=True)
        if s.first_crossing is not None and s.n_items is not None
        if s.first_crossing < n < s.n_items and p < c.power
    }
    step = max(1, len(c.items) // CURVE_ROWS)
    ends = {c.items[-1], s.searched_to}
    shown = set(c.items[::step]) | ends | dips | {m for m in marks if m is not None}
    notes = {s.first_crossing: "first reaches the target", s.n_items: "the plan: stays above"}
    if s.searched_to is not None:
        notes[s.searched_to] = "the largest size searched"
    if s.items_given is not None:
        notes[s.items_given] = "the study's items"
    if s.first_crossing == s.n_items:
        notes[s.n_items] = "the plan: first reaches the target and stays above"
    return [
        [f"{n:,}", f"{p:.3f}", notes.get(n, "below the target" if n in dips else "")]
        for n, p in zip(c.items, c.pass_probability, strict=True)
        if n in shown
    ]


def _table_rows(alt: AltTestReport) -> list[list[str]]:
    return [[str(m), _items(n), _number(h, 1)] for m, n, h in alt.summary.table]


def alt_test_figure(alt: AltTestReport) -> Block:
    """The figure block of P(pass) against items."""
    c = alt.curve
    caption = (
        f"Probability that the Alt-Test passes (winning rate at least 0.5) against items, "
        f"{c.replicates:,} simulated studies per size; the target {c.power:g}"
        + ("" if c.planned is None else f" and the planned {c.planned:,} items")
        + "."
    )
    alt_text = (
        f"Line chart of P(pass) against items from {c.items[0]:,} to {c.items[-1]:,}: it goes "
        f"from {c.pass_probability[0]:.2f} to {c.pass_probability[-1]:.2f}; a red line marks "
        f"the target {c.power:g}"
        + ("" if c.planned is None else f" and a dotted line the planned {c.planned:,} items")
        + "."
    )
    return ("figure", FIGURE_FILE, caption, alt_text)


def alt_test_section(alt: AltTestReport) -> list[Block]:
    """The report's Alt-Test section: plan, P(pass), hours, the 2-6 humans table, the model."""
    s = alt.summary
    test = (
        f"The alternative annotator test (Calderon, Reichart & Dror 2025) passes when the LLM "
        f"is at least as good as a human, less the margin epsilon = {s.epsilon:g}, for at least "
        f"half the humans (one-sided tests, Benjamini-Yekutieli at q = {alt.q:g}; no human is "
        f"tested on fewer than {alt.min_items} items). Planning model: {s.model_description}."
    )
    unreachable = (
        []
        if s.n_items is not None
        else [
            (
                "p",
                f"P(pass) {s.power:g} is not reached: either the LLM is expected to trail more "
                "than half the humans by epsilon or more (then more items make passing less "
                "likely), or it needs more than the 20,000 items searched.",
            )
        ]
    )
    stays = []
    if s.n_items is not None and s.first_crossing is not None:
        text = (
            f"P(pass) is saw-toothed in the items. The plan is the fewest items from which it "
            f"stays at or above {s.power:g} at every size searched, up to {s.searched_to:,}"
        )
        if s.first_crossing != s.n_items:
            text += (
                f"; it first reaches {s.power:g} at {s.first_crossing:,} items but falls below "
                "it again before the plan, so a study of that size and a few more items can "
                "lose power"
            )
        stays = [
            ("p", text + "."),
            ("table", ["items", "P(pass)", "note"], _curve_rows(alt)),
        ]
    return [
        ("h2", "Alt-Test: can the LLM judge replace a human annotator?"),
        ("p", test),
        ("table", ["quantity", "value"], _plan_rows(alt)),
        *unreachable,
        *stays,
        (
            "p",
            "Adding a human adds a label to every item; adding items adds one label per human. "
            f"Items and person-hours for 2 to 6 humans, every human with the first human's "
            f"error rate ({alt.first_human_error:g}), so the row of {alt.humans} humans differs "
            "from the plan above when the humans' error rates differ:",
        ),
        ("table", ["humans", "items", "person-hours"], _table_rows(alt)),
        alt_test_figure(alt),
        ("p", f"Alt-Test numbers drawn with seed {s.seed} (alt_test_plan_summary)."),
    ]
