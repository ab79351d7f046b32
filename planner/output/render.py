"""Rich tables for the terminal. Only the CLI imports this module."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from planner.errors import shown_note
from planner.output.jsonout import COEFFICIENT_LABELS
from planner.output.safe_output import visible
from planner.output.words import PERSON_HOURS_MEANING, adjudication_said, counted
from planner.sizing.plan import Plan, interval_label
from planner.sizing.sampling_rules import WorstCase
from planner.sizing.search import SampleSizeResult

_CELL_LABELS = {
    "both": "both positive (a)",
    "a_only": "A only (b)",
    "b_only": "B only (c)",
    "neither": "neither (d)",
}


class TerminalConsole(Console):
    """The console every command prints through: text from files and flags stays text.

    No Rich markup (``[red]`` in a label is a label), and every string it renders (table
    cells, headers, titles, lines) passes through :func:`~planner.output.safe_output.visible`
    first, so an ESC, OSC or CSI sequence in an annotator name, a label, an item id or a
    group never reaches the terminal raw, and widths are measured on what is shown.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("markup", False)
        super().__init__(**kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(visible(text), **kwargs)

    def print(self, *objects: Any, **kwargs: Any) -> None:
        for item in objects:
            if isinstance(item, Table):
                fit_to_width(item, self, self.width)
        super().print(*objects, **kwargs)


def print_notes(lines: Iterable[str], console: Console, *, style: str | None = "dim") -> None:
    """Each of ``lines`` as ``note: line`` on standard error, wrapped at ``console``'s width.

    Notes (what was assumed, how a file was read, where a number is weak) are about the
    run, not its result: standard output holds the result alone, so that ``> file`` or a
    pipe keeps the tables and a terminal still shows both. Text passes through
    :class:`TerminalConsole`, so nothing from a file reaches the terminal raw.
    """
    notes = list(lines)
    if not notes:
        return
    stderr = TerminalConsole(stderr=True, width=console.width, highlight=False)
    for line in notes:
        stderr.print(f"note: {shown_note(line)}", style=style)


def _cell_text(cell: Any) -> str | None:
    if isinstance(cell, Text):
        return cell.plain
    if isinstance(cell, str):
        return visible(cell)
    return None  # another renderable: measured by Rich alone


_BOX = re.compile("[\u2500-\u257f]")  # box-drawing characters: no part of a word


def _shown_words(table: Table, console: Console, width: int) -> tuple[list[str], str]:
    text = "".join(seg.text for seg in console.render(table, console.options.update_width(width)))
    return _BOX.sub(" ", text).split(), text


def _rich_keeps_words(table: Table, console: Console, width: int, cells: list[list[str]]) -> bool:
    """Whether Rich's own layout at ``width`` shows every word of the table whole: each
    word of its title, caption and ``cells`` (the columns' lines of text)."""
    headings = [_cell_text(t) or "" for t in (table.title, table.caption) if t is not None]
    words = {w for column in [*cells, headings] for line in column for w in line.split()}
    narrow, text = _shown_words(table, console, width)
    return "…" not in text and words <= set(narrow)


def fit_to_width(table: Table, console: Console, width: int) -> None:
    """Set the widths of ``table``'s text columns so that it fits ``width`` without cutting.

    Rich squeezes a table that is too wide by shrinking every column alike, which cuts
    numbers (``w`` for ``won``) and ends long words with an ellipsis. Here only the
    left-aligned (name and note) columns give way, the widest first, each down to its
    longest word, so names wrap between words; right-aligned columns (numbers,
    intervals) and ``no_wrap`` ones keep their full width. A table Rich lays out without
    cutting a word, or one that cannot fit even so, is left to Rich.
    """
    columns = table.columns
    cells = [[column.header, *column._cells] for column in columns]
    texts = [[_cell_text(c) for c in column] for column in cells]
    if any(t is None for column in texts for t in column):
        return
    lines = [[line for t in column for line in str(t).splitlines() or [""]] for column in texts]
    natural = [max((cell_len(line) for line in column), default=0) for column in lines]
    shrinkable = [c.justify in ("left", "default") and not c.no_wrap for c in columns]
    least = [
        max((cell_len(w) for line in column for w in line.split()), default=1) if ok else n
        for column, ok, n in zip(lines, shrinkable, natural, strict=True)
    ]
    overhead = console.measure(table, options=console.options.update_width(10**4)).maximum
    overhead -= sum(natural)
    excess = sum(natural) + overhead - width
    if (
        excess <= 0
        or sum(least) + overhead > width
        or _rich_keeps_words(table, console, width, lines)
    ):
        return
    widths = list(natural)
    while excess > 0:
        i = max(range(len(widths)), key=lambda k: (widths[k] - least[k] > 0, widths[k]))
        widths[i] -= 1
        excess -= 1
    for column, w, n in zip(columns, widths, natural, strict=True):
        if w < n:
            column.width = w


def fmt(value: Any, digits: int = 4) -> str:
    """A number as the tables print it (``digits`` significant digits, thousands separated;
    ``-`` for None)."""
    if value is None:
        return "-"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "undefined"
        return f"{value:.{digits}g}" if abs(value) < 1e4 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def quantity_table(title: str) -> Table:
    """An empty ``quantity | value | note`` table with ``title``, as every section uses."""
    table = Table(title=title, title_justify="left", show_header=True, header_style="bold")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    table.add_column("note", style="dim")
    return table


def render_plan(plan: Plan, console: Console) -> None:
    """Print the assumptions, the answer per metric, the budget and the PSA checks."""
    console.print(_assumptions_table(plan))
    console.print(_answer_table(plan))
    if plan.worst_case is not None:
        console.print(_checks_table(plan, plan.worst_case))
    print_notes(plan.notes, console)
    console.print(
        f"seed {plan.seed} (rerun with --seed {plan.seed} for identical output)", style="dim"
    )


def _assumptions_table(plan: Plan) -> Table:
    """The annotator pair: the inputs, the cell probabilities and the indices they imply."""
    model = plan.model.summary()
    assumptions = quantity_table("Assumptions: the annotator pair")
    source = plan.model.source
    if source == "pilot-counts" and getattr(plan, "pilot", None) is not None:
        source = "the pilot file"  # its counts, read by --pilot FILE
    for key, value in plan.model.assumptions.items():
        if isinstance(value, list):
            value = ", ".join(fmt(v) for v in value)
        assumptions.add_row(key.replace("_", " "), fmt(value), f"from {source}")
    for key, label in _CELL_LABELS.items():
        assumptions.add_row(f"P({label})", fmt(model[key]), "cell probability")
    for key, note in [
        ("union_rate", "share of items at least one annotator flags"),
        ("psa", "positive specific agreement, 2a/(2a+b+c)"),
        ("nsa", "negative specific agreement"),
        ("kappa", "Cohen's kappa"),
        ("prevalence_index", "Byrt PI = (a-d)/n"),
        ("bias_index", "Byrt BI = (b-c)/n; > 0 when A flags more"),
    ]:
        assumptions.add_row(key.replace("_", " "), fmt(model[key]), note)
    return assumptions


def _answer_table(plan: Plan) -> Table:
    """The answer: items, union positives, hours, half-width and assurance per metric."""
    settings = plan.settings
    answer = quantity_table(
        f"Answer: half-width <= {settings.width:g} at {settings.confidence_level:.0%} confidence, "
        f"assurance {settings.assurance:g}"
    )
    for metric, res in plan.results.items():
        _answer_rows(answer, plan, metric, res)
    if plan.recommended is not None:  # a pilot: the rows above take it as the truth
        rec = plan.recommended
        answer.add_row(
            Text("recommended: items", style="bold"),
            Text(f"{rec.items:,}", style="bold"),
            f"{rec.metric} under pilot uncertainty (below); the {rec.plug_in_items:,} above "
            "hold if the pilot were the truth",
        )
        answer.add_row("recommended: person-hours", fmt(rec.budget.person_hours, 4), "")
        if rec.budget.cost is not None:
            answer.add_row("recommended: cost", f"{rec.budget.cost:,.2f}", "")
    return answer


def _answer_rows(answer: Table, plan: Plan, metric: str, res: SampleSizeResult) -> None:
    """One metric's rows of the answer table."""
    settings = plan.settings
    budget = plan.budgets[metric]
    deciding = " (decides)" if metric == plan.deciding_metric and len(plan.results) > 1 else ""
    answer.add_row(
        Text(f"{metric}{deciding}: items", style="bold"),
        Text(f"{res.items:,}", style="bold"),
        (
            f"exact, from binomial sums ({interval_label(metric, res.method)})"
            if res.basis == "exact"
            else f"± {res.items_mc_se:.1f} items Monte Carlo SE "
            f"({interval_label(metric, res.method)})"
        ),
    )
    answer.add_row(
        f"{metric}: union positives",
        fmt(res.union_positives, 4),
        "expected at that many items",
    )
    answer.add_row(
        f"{metric}: person-hours",
        fmt(budget.person_hours, 4),
        (
            f"{settings.annotators_per_item} annotators × {settings.seconds_per_item:g} s"
            if settings.team is None
            else f"{settings.annotators_per_item} labels an item, each person's seconds"
        )
        + (
            f" + adjudication {budget.adjudication_hours:.3g} h"
            if budget.adjudication_hours
            else ""
        ),
    )
    if budget.cost is not None:
        answer.add_row(
            f"{metric}: cost",
            f"{budget.cost:,.2f}",
            f"at {settings.hourly_rate:g} per hour"
            if settings.team is None
            else "each person at their rate",
        )
    answer.add_row(
        f"{metric}: half-width",
        fmt(res.half_width_median),
        f"median; {fmt(res.half_width_at_assurance)} at the assurance quantile",
    )
    answer.add_row(
        f"{metric}: typical interval",
        f"{res.interval_median[0]:.3f} – {res.interval_median[1]:.3f}",
        "medians of the limits over simulated studies",
    )
    _evidence_rows(answer, metric, res)


def _evidence_rows(answer: Table, metric: str, res: SampleSizeResult) -> None:
    """What a metric's planned size was checked against: the assurance reached, undefined
    intervals and the interval's coverage (exact where known, else on fresh studies)."""
    fresh = f"{res.replicates:,} fresh simulated studies"
    if res.exact_assurance is not None:
        answer.add_row(
            f"{metric}: assurance reached",
            f"{res.exact_assurance:.3f}",
            f"exact; Monte Carlo check {res.assurance:.3f} ± {res.assurance_mc_se:.3f} on {fresh}",
        )
    else:
        answer.add_row(
            f"{metric}: assurance reached",
            f"{res.assurance:.3f}",
            f"± {res.assurance_mc_se:.3f} MC SE on {fresh}, not those the search used",
        )
    if res.n_undefined:
        answer.add_row(
            f"{metric}: undefined intervals", f"{res.n_undefined:,}", "counted as too wide"
        )
    if res.exact_coverage is not None:
        answer.add_row(
            f"{metric}: interval coverage",
            f"{res.exact_coverage:.3f}",
            f"exact at these items ({res.confidence_level:.0%} intended); Monte Carlo check "
            f"{res.coverage:.3f} ± {res.coverage_mc_se:.3f}",
        )
    elif res.metric == "psa":
        answer.add_row(
            f"{metric}: interval coverage",
            f"{res.coverage:.3f}",
            f"± {res.coverage_mc_se:.3f} MC SE on {fresh} ({res.confidence_level:.0%} intended)",
        )
    if res.metric == "kappa":
        answer.add_row(
            f"{metric}: interval coverage",
            f"{res.coverage:.3f}",
            f"± {res.coverage_mc_se:.3f} MC SE, {res.method} interval simulated at these items "
            f"({res.confidence_level:.0%} intended); {res.share_undefined:.1%} of studies have "
            "no interval (counted as misses)",
        )


def _checks_table(plan: Plan, wc: WorstCase) -> Table:
    """PSA without trusting the model: the worst case ``wc`` and the stop rule."""
    checks = quantity_table("PSA without trusting the model: other sampling rules")
    checks.add_row(
        "any agreement (worst case): union positives",
        fmt(wc.union_positives_wilson_every_outcome),
        f"Wilson, every outcome; delta method says {wc.union_positives_delta}",
    )
    checks.add_row(
        "any agreement: items, person-hours",
        f"{wc.items_at_model_union_rate:,}, {wc.person_hours:,.1f} h",
        f"reach that many with probability >= {wc.items_probability:g} at the model's "
        f"union rate {plan.model.union_rate:.4g} (expected {wc.items_expected:,.0f})",
    )
    if plan.stop_rule:
        sr = plan.stop_rule
        checks.add_row(
            "stop rule: label until U union positives",
            fmt(sr.union_positives),
            f"exact for PSA {plan.model.psa:.3g}, {sr.method} interval",
        )
        checks.add_row(
            "stop rule: items, person-hours",
            f"{sr.expected_items:,.0f}, {sr.person_hours_expected:,.1f} h",
            f"expected; 90th percentile {sr.items_p90:,} items, {sr.person_hours_p90:,.1f} h",
        )
    return checks


_COEFFICIENT_NAMES = COEFFICIENT_LABELS  # one set of names, shared with the JSON output


def render_agreement(report: Any, console: Console) -> None:
    """Print the data, coefficients with intervals, the decision and the diagnostics."""
    console.print(_data_table(report))
    console.print(_coefficients_table(report))
    _print_tests(report.summary, console)
    if report.decision is not None:  # None: the decision is the population's (--stratum-col)
        _print_decision(report.decision, console)
    _print_diagnostics(report.diagnostics, console)
    print_notes(report.notes, console)
    console.print(f"seed {report.seed}", style="dim")


def _data_table(report: Any) -> Table:
    """What was read: items, annotators, categories, level, the positive label's counts."""
    s = report.summary
    data = quantity_table(f"Data: {report.source}")
    data.add_row(
        "items", fmt(report.n_items), f"{s['n_pairable_items']:,} with two or more ratings"
    )
    data.add_row("annotators", fmt(report.n_annotators), ", ".join(report.annotators[:8]))
    data.add_row(
        "categories",
        fmt(len(report.categories)),
        ", ".join(f"{c}: {n:,}" for c, n in list(s["category_counts"].items())[:8]),
    )
    data.add_row("level", report.level, "Krippendorff metric; quadratic weights unless nominal")
    if report.positive is not None:
        data.add_row("positive label", str(report.positive), "")
        data.add_row(
            "prevalence (positive labels)",
            fmt(s["prevalence_of_positive_labels"]),
            "share of all ratings",
        )
        if "joint_positives" in s:
            data.add_row(
                "joint positives (a)",
                fmt(s["joint_positives"]),
                f"A only {s['a_only']:,}, B only {s['b_only']:,}, union {s['union_positives']:,}",
            )
            data.add_row(
                "Byrt prevalence / bias index",
                f"{s['prevalence_index']:.3f} / {s['bias_index']:.3f}",
                "BI > 0: A flags more",
            )
    return data


def _coefficients_table(report: Any) -> Table:
    """One row per coefficient: estimate, interval, SE, method, items."""
    level = f"{report.confidence_level:.0%}"
    coefs = Table(title="Agreement", title_justify="left", header_style="bold", pad_edge=False)
    names = [_COEFFICIENT_NAMES.get(name, name) for name in report.coefficients]
    longest_word = max((len(w) for n in names for w in n.split()), default=0)
    coefs.add_column("coefficient", justify="left", min_width=longest_word)  # never cut a name
    for col, justify in [
        ("estimate", "right"),
        (f"{level} interval", "right"),
        ("SE", "right"),
        ("method", "left"),
        ("items", "right"),
    ]:
        coefs.add_column(col, justify=justify)  # type: ignore[arg-type]
    for name, c in report.coefficients.items():
        interval = (
            "-"
            if not (math.isfinite(c.ci_low) and math.isfinite(c.ci_high))
            else f"{c.ci_low:.3f} – {c.ci_high:.3f}"
        )
        estimate = f"{c.estimate:.4f}" if math.isfinite(c.estimate) else "undefined"
        method = c.method + (f" ({shown_note(c.note)})" if c.note else "")
        se = f"{c.se:.4f}" if math.isfinite(c.se) else "-"
        coefs.add_row(
            _COEFFICIENT_NAMES.get(name, name), estimate, interval, se, method, f"{c.n_items:,}"
        )
    return coefs


def _print_tests(s: dict[str, Any], console: Console) -> None:
    """The lines under the coefficients: P(alpha < min), tests of kappa = 0, marginals."""
    if "alpha_below_min" in s:
        q = s["alpha_below_min"]
        console.print(
            f"P(alpha < {q['alpha_min']:g}) = {fmt(q['probability'])} (bootstrap over items)"
        )
    if "fleiss_kappa_test_zero" in s:  # unweighted Fleiss' kappa only
        test = s["fleiss_kappa_test_zero"]
        console.print(
            f"Test of Fleiss' kappa = 0: z = {fmt(test['z'])}, p = {fmt(test['p_value'])} "
            f"(Fleiss-Nee-Landis SE {fmt(test['se_under_kappa_zero'])}, for this test only)",
            style="dim",
        )
    for key, label in (
        ("cohen_kappa_test_zero", "Cohen's kappa"),
        ("cohen_kappa_quadratic_test_zero", "quadratic-weighted kappa"),
        ("cohen_kappa_linear_test_zero", "linear-weighted kappa"),
    ):
        if key in s:
            t = s[key]
            console.print(
                f"Test of {label} = 0: z = {fmt(t['z'])}, p = {fmt(t['p_value'])} "
                f"(Fleiss-Cohen-Everitt SE under kappa = 0 {fmt(t['se_under_kappa_zero'])}, "
                "for this test only)",
                style="dim",
            )
    if "cohen_marginals" in s:
        used = s["cohen_marginals"]
        console.print(f"Cohen's kappa marginals: {used['used']} ({used['meaning']})", style="dim")
    if "landis_koch" in s:  # absent when no kappa is reported (many distinct values)
        console.print(
            f"Landis-Koch label: {s['landis_koch']['label']} ({s['landis_koch']['caution']})",
            style="dim",
        )


def _print_decision(d: Any, console: Console) -> None:
    """The verdict against the thresholds fixed in advance, coloured."""
    colour = {"demonstrated": "green", "not demonstrated": "red"}.get(d.verdict, "yellow")
    console.print(
        Text.assemble(
            (f"Decision on {d.metric}:", "bold"),
            " ",
            (d.verdict, colour),
            f" — {d.reason} (thresholds fixed in advance: not demonstrated below "
            f"{d.not_demonstrated_below:g}, demonstrated at {d.demonstrated_at:g})",
        )
    )


def _print_diagnostics(diag: dict[str, Any], console: Console) -> None:
    """Per annotator, per pair of annotators and per group (``--by``) tables."""
    people = Table(
        title=f"Diagnostics: {diag['contested_items']:,} contested items",
        title_justify="left",
        header_style="bold",
    )
    keys = list(next(iter(diag["per_annotator"].values()), {}).keys())  # {}: no annotators
    people.add_column("annotator")
    for key in keys:
        people.add_column(key.replace("_", " "), justify="right")
    for name, entry in diag["per_annotator"].items():
        people.add_row(name, *(fmt(entry[key]) for key in keys))
    console.print(people)
    if len(diag["per_pair"]) > 1:
        pairs = Table(title="Per pair of annotators", title_justify="left", header_style="bold")
        keys = [k for k in diag["per_pair"][0] if k != "annotators"]
        pairs.add_column("pair")
        for key in keys:
            pairs.add_column(key.replace("_", " "), justify="right")
        for entry in diag["per_pair"][:30]:
            pairs.add_row(" / ".join(entry["annotators"]), *(fmt(entry[key]) for key in keys))
        console.print(pairs)
    if "by" in diag:
        groups = Table(
            title=f"By {diag['by']['column']}", title_justify="left", header_style="bold"
        )
        keys = [k for k in diag["by"]["groups"][0]]
        for key in keys:
            groups.add_column(key.replace("_", " "), justify="right")
        for entry in diag["by"]["groups"]:
            groups.add_row(*(fmt(entry[key]) for key in keys))
        console.print(groups)


def render_comparison(comparison: Any, console: Console) -> None:
    """Print the strata and the three designs side by side."""
    console.print(_strata_table(comparison))
    console.print(_designs_table(comparison))
    for d in comparison.designs.values():
        console.print(Text.assemble((d.design, "bold"), f": {d.describes}"))
    console.print(_per_stratum_table(comparison))
    _print_checks(comparison, console)
    print_notes(comparison.notes, console)
    console.print(f"seed {comparison.seed}", style="dim")


def _strata_table(comparison: Any) -> Table:
    """Each stratum's share, prevalence, union rate, PSA, kappa and seconds, and traffic's."""
    sc = comparison.scenario
    title = f"Scenario {sc.name}: strata"
    if any(s.get("model_source") == "pilot" for s in comparison.strata):
        title += " from the pilot's counts (prevalence: its positive-label rate)"
    strata = Table(title=title, title_justify="left", header_style="bold")
    kappa = "kappa" if comparison.raters is None else "Fleiss' kappa"  # several annotators'
    for col in ("stratum", "share", "prevalence", "union rate", "PSA", kappa, "s/item"):
        strata.add_column(col, justify="left" if col == "stratum" else "right")
    for s in comparison.strata:
        strata.add_row(
            s["name"],
            f"{s['share']:.3f}",
            f"{s['prevalence']:.3f}",
            f"{s['union_rate']:.3f}",
            f"{s['psa']:.3f}",
            f"{s['kappa']:.3f}",
            f"{s['seconds_per_item']:g}",
        )
    pop = comparison.population
    strata.add_row(
        Text("traffic", style="bold"),
        "1",
        "",
        f"{pop['union_rate']:.3f}",
        f"{pop['psa']:.3f}",
        f"{pop['kappa']:.3f}",
        "",
    )
    return strata


def _designs_table(comparison: Any) -> Table:
    """The designs side by side: items per stratum, half-width, estimate, hours and cost."""
    settings = comparison.settings
    title = (
        f"Designs: {settings.metric} half-width <= {settings.width:g} at "
        f"{settings.confidence_level:.0%}, assurance {settings.assurance:g}"
    )
    table = Table(title=title, title_justify="left", header_style="bold")
    table.add_column("")
    for name in comparison.designs:
        table.add_column(name, justify="right")
    designs = list(comparison.designs.values())
    costs = [comparison.costs[d.design] for d in designs]
    for i, s in enumerate(comparison.strata):
        table.add_row(f"items: {s['name']}", *(f"{d.items_per_stratum[i]:,}" for d in designs))
    table.add_row(
        "items: uniform prevalence slice", *(f"{d.prevalence_slice_items:,}" for d in designs)
    )
    table.add_row(
        Text("items, total", style="bold"), *(Text(f"{d.items:,}", style="bold") for d in designs)
    )
    table.add_row("union positives", *(f"{d.union_positives:,.0f}" for d in designs))
    table.add_row(
        "half-width at the assurance", *(f"{d.half_width_at_assurance:.4f}" for d in designs)
    )
    table.add_row(
        f"{settings.metric} estimated (median)", *(f"{d.estimate_median:.3f}" for d in designs)
    )
    table.add_row(
        Text("person-hours", style="bold"),
        *(Text(f"{c.person_hours:,.1f}", style="bold") for c in costs),
    )
    table.add_row(
        "  of which prevalence slice", *(f"{c.prevalence_slice_hours:,.1f}" for c in costs)
    )
    table.add_row("hours vs uniform", *(f"{comparison.hours_ratio(d.design):.2f}" for d in designs))
    if costs[0].cost is not None:
        table.add_row("cost", *(f"{c.cost:,.0f}" for c in costs))
    return table


def _per_stratum_table(comparison: Any) -> Table:
    """The enriched design per stratum (each row describes its own stratum)."""
    per = Table(
        title="Enriched design, per stratum (each describes its own stratum)",
        title_justify="left",
        header_style="bold",
    )
    for col in ("stratum", "items", "expected union positives", "PSA", "approx. half-width"):
        per.add_column(col, justify="left" if col == "stratum" else "right")
    for row in comparison.per_stratum_psa:
        per.add_row(
            row["stratum"],
            f"{row['enriched_items']:,}",
            f"{row['expected_union_positives']:,.0f}",
            f"{row['psa']:.3f}",
            fmt(row["approx_half_width"], 3),
        )
    return per


def _print_checks(comparison: Any, console: Console) -> None:
    """The weighted design's bootstrap check and the enrichment claim, checked."""
    check = comparison.weighted_bootstrap_check
    console.print(
        f"Weighted design check on {check['studies']} simulated studies: median half-width "
        f"{check['median_half_width_linearised']:.4f} (linearised) against "
        f"{check['median_half_width_bootstrap']:.4f} (stratified bootstrap, "
        f"{check['n_boot']} resamples)."
    )
    under = getattr(comparison, "pilot_uncertainty", None)
    if under is not None:
        console.print(
            f"Under the pilot's uncertainty (each stratum's truth drawn from its posterior, "
            f"{under.replicates:,} studies): the weighted design's {under.plug_in_items:,} items "
            f"reach the width with assurance {under.plug_in_assurance:.3f}; "
            f"{under.items:,} items at its allocation reach {under.assurance:.3f} "
            f"(target {under.target_assurance:g})."
        )
    ratio = comparison.hours_ratio("enriched")
    bare = comparison.hours_ratio("enriched", with_slice=False)
    console.print(
        "The claim often made for enriched designs, 'the same interval for a fifth of the "
        f"hours': here the enriched "
        f"design costs {ratio:.2f} of the uniform hours ({bare:.2f} without its prevalence "
        f"slice; a fifth is 0.20), and its number describes hard cases, not traffic. The "
        f"weighted design, which does describe traffic, costs "
        f"{comparison.hours_ratio('weighted'):.2f}."
    )


def render_schedule(result: Any, console: Console) -> None:
    """Print the simulated operation: calendar time, hours, utilisation and cost."""
    if getattr(result, "team", None) is not None:  # a named team: person by person
        from planner.output.render_team import render_team_schedule

        return render_team_schedule(result, console)
    op = result.operation
    adjudication = adjudication_said(op.adjudicators, op.adjudication_seconds, op.contested_rate)
    table = quantity_table(f"Schedule: {result.runs} simulated runs")
    table.add_row(
        "items",
        f"{sum(op.items_per_stratum):,}",
        f"{op.labels_per_item} labels each, {counted(len(op.items_per_stratum), 'stratum')}",
    )
    table.add_row(
        "team",
        f"{op.annotators} annotators",
        f"{op.hours_per_day:g} h/day, {op.days_per_week} days/week; {adjudication}",
    )
    table.add_row(
        Text("calendar days", style="bold"),
        Text(f"{result.calendar_days_median:g}", style="bold"),
        f"median; 90th percentile {result.calendar_days_p90:g}",
    )
    table.add_row(
        "person-hours",
        f"{result.person_hours_median:,.1f}",
        f"{PERSON_HOURS_MEANING}; median, 90th percentile {result.person_hours_p90:,.1f}; "
        f"analytic {result.analytic_person_hours:,.1f}",
    )
    table.add_row(
        "annotator utilisation",
        f"{result.annotator_utilisation:.0%}",
        "busy share of the shifts until the last item",
    )
    if math.isfinite(result.adjudicator_utilisation) and adjudication != "no adjudication":
        table.add_row("adjudicator utilisation", f"{result.adjudicator_utilisation:.0%}", "")
    if result.cost_median is not None:
        table.add_row("cost", f"{result.cost_median:,.0f}", f"median, at {op.hourly_rate:g}/hour")
    console.print(table)
    console.print(f"seed {result.seed}", style="dim")
