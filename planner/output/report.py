"""Reports: a scenario's plan, design comparison, budget and schedule, with figures.

``planner report scenarios/NAME.toml`` writes ``reports/NAME/`` with ``report.md``,
a self-contained ``report.html`` (figures embedded), the PNG figures, the scenario file and
the JSON of the plan and the schedule, and a ``.planner-report`` marker listing them. The
folder is built in a hidden temporary folder beside it and moved into place
(:mod:`planner.output.safe_output`), so a failed or interrupted run leaves nothing behind; an
existing report is replaced only with ``force=True``, and only when it is a report planner
wrote (its marker) holding no file planner did not write. Scenario names are plain folder
names (checked by :mod:`planner.data.scenario`), and the destination is checked to lie directly
inside the output folder. Figures are drawn on :class:`matplotlib.figure.Figure` objects,
without pyplot's global state.
"""

from __future__ import annotations

import base64
import contextlib
import html
import json
import os
import platform
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from planner import __version__
from planner.data.scenario import Scenario, load_scenario
from planner.errors import InvalidInput
from planner.operations.workload import simulate_schedule
from planner.output import plots
from planner.output.jsonout import json_ready
from planner.output.safe_output import (
    files_below,
    output_error,
    probe_folder,
    publish_folder,
    unexpected_entries,
)
from planner.sizing.design import StratifiedStudies, metric_value, weighted_estimate
from planner.sizing.exact import usable_half_width
from planner.sizing.model import PairModel, as_cells
from planner.sizing.plan_options import (
    TEAM_DEFAULTS,
    operation_for,
    resolve,
    resolve_team,
    run_plan,
)
from planner.sizing.search import interval_function
from planner.sizing.simulation import NestedStudies

Block = tuple[Any, ...]


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


def _figure(draw: Any, path: Path, size: tuple[float, float] = (7, 4)) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    draw(ax)
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": None})


def half_width_curve_data(
    model: PairModel,
    metric: str,
    method: str,
    settings: Any,
    planned: int,
    seed: int,
    n_reps: int = 2000,
) -> dict[str, Any]:
    """Half-width quantiles over simulated studies on a grid of sizes around ``planned``."""
    rng = np.random.default_rng(seed)
    interval_rng, study_rng = rng.spawn(2)
    interval = interval_function(metric, method, settings.confidence_level, rng=interval_rng)
    studies = NestedStudies(model.cells, n_reps, rng=study_rng)
    grid = np.unique(np.linspace(max(10, int(0.3 * planned)), int(2 * planned), 24).astype(int))
    rows = []
    for n in grid:
        # undefined and zero-width intervals count as infinitely wide, as in the search
        hw = usable_half_width(interval(studies.tables(int(n))).half_width)
        rows.append(np.quantile(hw, [0.1, 0.5, 0.9, settings.assurance]))
    q = np.array(rows)
    return {
        "items": grid.tolist(),
        "p10": q[:, 0].tolist(),
        "median": q[:, 1].tolist(),
        "p90": q[:, 2].tolist(),
        "at_assurance": q[:, 3].tolist(),
        "assurance": settings.assurance,
        "width": settings.width,
        "planned": int(planned),
        "metric": metric,
        "union_rate": model.union_rate,
    }


def _markdown(blocks: list[Block]) -> str:
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "h1":
            out.append(f"# {block[1]}\n")
        elif kind == "h2":
            out.append(f"## {block[1]}\n")
        elif kind == "p":
            out.append(f"{block[1]}\n")
        elif kind == "table":
            header, rows = block[1], block[2]
            out.append("| " + " | ".join(header) + " |")
            out.append("|" + "---|" * len(header))
            out.extend("| " + " | ".join(str(c) for c in row) + " |" for row in rows)
            out.append("")
        elif kind == "figure":
            out.append(f"![{block[2]}](figures/{block[1]})\n\n*{block[2]}*\n")
        elif kind == "code":
            out.append("```\n" + block[1] + "\n```\n")
    return "\n".join(out)


def _html(blocks: list[Block], title: str, figures: Path) -> str:
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title><style>body{{font-family:sans-serif;max-width:960px;"
        "margin:2em auto;line-height:1.45}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}td:first-child,"
        "th:first-child{text-align:left}img{max-width:100%}pre{background:#f4f4f4;padding:8px;"
        "overflow-x:auto}</style></head><body>",
    ]
    for block in blocks:
        kind = block[0]
        if kind in ("h1", "h2"):
            parts.append(f"<{kind}>{html.escape(block[1])}</{kind}>")
        elif kind == "p":
            parts.append(f"<p>{html.escape(block[1])}</p>")
        elif kind == "table":
            head = "".join(f"<th>{html.escape(str(h))}</th>" for h in block[1])
            body = "".join(
                "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                for row in block[2]
            )
            parts.append(f"<table><tr>{head}</tr>{body}</table>")
        elif kind == "figure":
            data = base64.b64encode((figures / block[1]).read_bytes()).decode("ascii")
            parts.append(
                f"<figure><img src='data:image/png;base64,{data}' alt='{html.escape(block[2])}'>"
                f"<figcaption>{html.escape(block[2])}</figcaption></figure>"
            )
        elif kind == "code":
            parts.append(f"<pre>{html.escape(block[1])}</pre>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _fmt(x: float, digits: int = 3) -> str:
    return "undefined" if x is None or not np.isfinite(x) else f"{x:,.{digits}f}"


MARKER = ".planner-report"
MARKER_VERSION = "planner-report 1"
# what planner 0.x wrote before report folders carried a marker: replaced by --force too
LEGACY_FILES = frozenset(
    {"report.md", "report.html", "scenario.toml", "plan.json", "schedule.json"}
    | {f"figures/{n}.png" for n in ("burndown", "estimates", "half_width", "hours")}
)


def report_files(folder: Path) -> frozenset[str] | None:
    """The files a report folder may hold (from its marker), or ``None``: not a report.

    A folder is a report when it holds a :data:`MARKER` file whose first line is
    :data:`MARKER_VERSION`; the lines after it list the files planner wrote there. A folder
    without a marker is a report of an older planner when its files are among
    :data:`LEGACY_FILES` and include ``report.md``.
    """
    marker = folder / MARKER
    if os.path.lexists(marker):
        if marker.is_symlink() or not marker.is_file():
            return None
        lines = marker.read_text(encoding="utf-8", errors="replace").splitlines()
        if not lines or lines[0] != MARKER_VERSION:
            return None
        return frozenset({MARKER, *(x for x in lines[1:] if x and not x.startswith("#"))})
    files, _ = files_below(folder)
    return LEGACY_FILES if "report.md" in files and files <= LEGACY_FILES else None


def _listed(entries: list[str], most: int = 5) -> str:
    more = f" and {len(entries) - most} more" if len(entries) > most else ""
    return ", ".join(entries[:most]) + more


def check_destination(
    out_root: str | Path, name: str, *, force: bool
) -> tuple[Path, frozenset[str] | None]:
    """The folder ``out_root/name`` a report goes to, and the files ``--force`` may replace.

    Raises :class:`~planner.errors.InvalidInput` unless the folder lies directly inside
    ``out_root`` and is free, or (with ``force``) is a report planner wrote that holds no
    other file.
    """
    root = Path(out_root)
    dest = root / name
    if (
        name in ("", ".", "..")
        or Path(name).name != name
        or dest.parent.resolve() != root.resolve()
    ):
        raise InvalidInput(f"report name {name!r} is not a plain folder name inside {root}")
    if not os.path.lexists(dest):
        return dest, None
    if dest.is_symlink() or not dest.is_dir():
        kind = "a symbolic link" if dest.is_symlink() else "not a folder"
        raise InvalidInput(f"{dest} is {kind}; --force replaces only report folders planner wrote")
    allowed = report_files(dest)
    if allowed is None:
        raise InvalidInput(
            f"{dest} is not a report planner wrote (no {MARKER} file); --force replaces only "
            "those: move it away or choose another --out"
        )
    extra = unexpected_entries(dest, allowed)
    if extra:
        raise InvalidInput(
            f"{dest} holds files planner did not write ({_listed(extra)}); move them out and "
            "run again with --force"
        )
    if not force:
        raise InvalidInput(f"{dest} exists; use --force to replace it")
    return dest, allowed


def check_reports(
    scenario_paths: list[str], out_root: str | Path = "reports", *, force: bool = False
) -> list[Scenario]:
    """Check a batch before any work: every scenario, distinct names, every destination.

    Returns the loaded scenarios. Raises :class:`~planner.errors.InvalidInput` for a bad
    scenario, two scenarios with one name (compared case-insensitively, as some file
    systems do) or a destination :func:`check_destination` refuses, and
    :class:`~planner.errors.OutputError` when ``out_root`` cannot be created or written.
    """
    if not str(out_root).strip():
        raise InvalidInput("out must name a folder, got ''", parameter="out")
    probe_folder(out_root)
    scenarios = [load_scenario(path) for path in scenario_paths]
    seen: dict[str, str] = {}
    for scenario in scenarios:
        key = scenario.name.casefold()
        if key in seen:
            raise InvalidInput(
                f"{seen[key]} and {scenario.path} both have name {scenario.name!r}; "
                "reports of one call need distinct names"
            )
        seen[key] = scenario.path
        check_destination(out_root, scenario.name, force=force)
    return scenarios


def _make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return those created, outermost first."""
    missing = [p for p in (folder, *folder.parents) if not os.path.lexists(p)][::-1]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        for made in reversed(missing):
            with contextlib.suppress(OSError):
                made.rmdir()
        raise output_error(exc, folder) from None
    return missing


def write_report(
    scenario_path: str | Path, out_root: str | Path = "reports", *, force: bool = False
) -> Path:
    """Build the report of one scenario under ``out_root/NAME`` and return its folder.

    The destination is checked before any work (see :func:`check_destination`); the folder
    is built beside it under a hidden name and moved into place, with a :data:`MARKER` file
    listing what it holds, so that ``force`` later replaces exactly those files. Any
    failure, ``SIGTERM`` included, leaves nothing behind (an older report stays as it was).
    """
    scenario = load_scenario(scenario_path)
    root = Path(out_root)
    dest, allowed = check_destination(root, scenario.name, force=force)
    probe_folder(root)
    merged = resolve(scenario, {})
    seed = merged.get("seed")
    if seed is None:
        raise InvalidInput(f"{scenario.path}: a report needs simulation.seed so it can be rebuilt")
    result = run_plan(scenario.path, {}, lambda _: seed)
    team = resolve_team(scenario, {}) if scenario.team else dict(TEAM_DEFAULTS)
    schedule = simulate_schedule(
        operation_for(result, team, merged, "weighted"), runs=team["runs"], seed=seed
    )

    def fill(tmp: Path) -> None:
        figures = tmp / "figures"
        figures.mkdir()
        blocks = _build(scenario, result, schedule, figures, seed)
        title = f"planner report: {scenario.name}"
        (tmp / "report.md").write_text(_markdown(blocks), encoding="utf-8")
        (tmp / "report.html").write_text(_html(blocks, title, figures), encoding="utf-8")
        shutil.copyfile(scenario.path, tmp / "scenario.toml")
        (tmp / "plan.json").write_text(json.dumps(result.to_dict(), indent=2) + "\n")
        (tmp / "schedule.json").write_text(
            json.dumps(json_ready(schedule.to_dict()), indent=2) + "\n"
        )
        written = sorted(files_below(tmp)[0])
        note = "# written by planner report; report --force replaces this folder and these files"
        (tmp / MARKER).write_text("\n".join([MARKER_VERSION, note, *written]) + "\n")

    created = _make_folders(root)
    try:
        publish_folder(dest, fill, replace=allowed)
    except BaseException:
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return dest


def _build(scenario: Any, result: Any, schedule: Any, figures: Path, seed: int) -> list[Block]:
    settings = result.settings
    stratified = hasattr(result, "designs")
    metric = settings.metric if settings.metric != "both" else result.deciding_metric
    method = settings.psa_method if metric == "psa" else settings.kappa_method
    blocks: list[Block] = [("h1", f"Agreement study plan: {scenario.name}")]
    if scenario.description:
        blocks.append(("p", " ".join(scenario.description.split())))
    blocks.append(
        (
            "p",
            (
                f"Target: {metric.upper()} interval half-width at most {settings.width:g} at "
                f"{settings.confidence_level:.0%} confidence, with assurance {settings.assurance:g} "
                f"(the share of studies of the planned size that reach the width). Interval method: "
                f"{method}. Every figure below is computed by planner {__version__} from the scenario "
                f"file with seed {seed}."
            ),
        )
    )

    if stratified:
        from planner.sizing.compare import stratum_models

        cells = sum(
            s["share"] * np.array(m.cells)
            for s, m in zip(result.strata, stratum_models(scenario), strict=True)
        )
        model = PairModel(cells=as_cells(cells), source="strata", assumptions={})
        blocks.append(("h2", "Traffic strata"))
        blocks.append(
            (
                "table",
                ["stratum", "share", "prevalence", "union rate", "PSA", "kappa", "seconds/item"],
                [
                    [
                        s["name"],
                        _fmt(s["share"]),
                        _fmt(s["prevalence"]),
                        _fmt(s["union_rate"]),
                        _fmt(s["psa"]),
                        _fmt(s["kappa"]),
                        f"{s['seconds_per_item']:g}",
                    ]
                    for s in result.strata
                ]
                + [
                    [
                        "traffic",
                        "1",
                        "",
                        _fmt(result.population["union_rate"]),
                        _fmt(result.population["psa"]),
                        _fmt(result.population["kappa"]),
                        "",
                    ]
                ],
            )
        )
        blocks.append(("h2", "Designs compared"))
        names = list(result.designs)
        rows = []
        for i, s in enumerate(result.strata):
            rows.append(
                [
                    f"items: {s['name']}",
                    *(f"{result.designs[n].items_per_stratum[i]:,}" for n in names),
                ]
            )
        rows += [
            [
                "items: uniform prevalence slice",
                *(f"{result.designs[n].prevalence_slice_items:,}" for n in names),
            ],
            ["items, total", *(f"{result.designs[n].items:,}" for n in names)],
            ["union positives", *(f"{result.designs[n].union_positives:,.0f}" for n in names)],
            [
                "half-width at the assurance",
                *(_fmt(result.designs[n].half_width_at_assurance, 4) for n in names),
            ],
            [
                f"{metric.upper()} estimated (median)",
                *(_fmt(result.designs[n].estimate_median) for n in names),
            ],
            ["person-hours", *(f"{result.costs[n].person_hours:,.1f}" for n in names)],
            ["hours vs uniform", *(f"{result.hours_ratio(n):.2f}" for n in names)],
        ]
        if result.costs["uniform"].cost is not None:
            rows.append(["cost", *(f"{result.costs[n].cost:,.0f}" for n in names)])
        blocks.append(("table", ["", *names], rows))
        for n in names:
            blocks.append(("p", f"{n}: {result.designs[n].describes}."))
        blocks.append(
            (
                "p",
                (
                    "The chapter's claim that enrichment buys the same interval for a fifth of the "
                    f"hours: here the enriched design costs {result.hours_ratio('enriched'):.2f} of the "
                    f"uniform hours ({result.hours_ratio('enriched', with_slice=False):.2f} without its "
                    "prevalence slice), and its number describes the enriched mixture, not traffic. "
                    f"The weighted design, which describes traffic, costs "
                    f"{result.hours_ratio('weighted'):.2f}."
                ),
            )
        )
        planned = result.designs["uniform"].items
        labels = list(names)
        hours = [result.costs[n].person_hours for n in names]
        costs = [result.costs[n].cost for n in names]
        caption_hours = "Person-hours (and cost) of the three designs for the same target."
        estimates, truth, interval = _weighted_estimates(result, metric, seed)
        caption_estimates = (
            f"Simulated {metric.upper()} estimates of the weighted design "
            "(population-weighted, describes traffic)."
        )
    else:
        model = result.model
        summary = model.summary()
        blocks.append(("h2", "Assumptions"))
        blocks.append(
            (
                "table",
                ["quantity", "value"],
                [[k.replace("_", " "), _fmt(v, 4)] for k, v in summary.items()]
                + [[k.replace("_", " "), str(v)] for k, v in model.assumptions.items()],
            )
        )
        res = result.results[result.deciding_metric]
        budget = result.budgets[result.deciding_metric]
        blocks.append(("h2", "Plan"))
        rows = []
        for name, r in result.results.items():
            rows.append(
                [
                    name,
                    f"{r.items:,}",
                    f"{r.union_positives:,.0f}",
                    _fmt(r.half_width_at_assurance, 4),
                    f"{r.interval_median[0]:.3f} to {r.interval_median[1]:.3f}",
                    f"{r.assurance:.3f} ± {r.assurance_mc_se:.3f}",
                    f"{result.budgets[name].person_hours:,.1f}",
                ]
            )
        blocks.append(
            (
                "table",
                [
                    "metric",
                    "items",
                    "union positives",
                    "half-width at assurance",
                    "typical interval",
                    "assurance reached",
                    "person-hours",
                ],
                rows,
            )
        )
        wc, sr = result.worst_case, result.stop_rule
        blocks.append(
            (
                "p",
                (
                    f"Whatever the true agreement, {wc['union_positives_wilson_every_outcome']} union "
                    f"positives give a Wilson half-width of at most {settings.width:g} for every outcome "
                    f"(delta method: {wc['union_positives_delta']}). "
                    + (
                        f"Stop rule: label until {sr['union_positives']} union positives; expected "
                        f"{sr['expected_items']:,.0f} items, 90th percentile {sr['items_p90']:,}."
                        if sr
                        else ""
                    )
                ),
            )
        )
        if budget.cost is not None:
            blocks.append(
                ("p", f"Budget: {budget.person_hours:,.1f} person-hours, cost {budget.cost:,.0f}.")
            )
        planned = res.items
        per_hour = budget.person_hours / res.items
        labels = ["fixed n (plan)"]
        item_counts = [res.items]
        if sr:
            labels += ["stop rule, expected", "stop rule, 90th pct"]
            item_counts += [sr["expected_items"], sr["items_p90"]]
        labels.append("any agreement (worst case)")
        item_counts.append(wc["items_at_model_union_rate"])
        hours = [n * per_hour for n in item_counts]
        costs = [None if settings.hourly_rate is None else h * settings.hourly_rate for h in hours]
        caption_hours = "Person-hours of the plan, of the stop rule and of the worst case."
        estimates, truth, interval = _plain_estimates(result, metric, seed)
        caption_estimates = f"Simulated {metric.upper()} estimates of a study of the planned size."
    curve = half_width_curve_data(model, metric, method, settings, planned, seed)
    _figure(lambda ax: plots.half_width_curve(ax, curve), figures / "half_width.png")
    _figure(lambda ax: plots.hours_by_design(ax, labels, hours, costs), figures / "hours.png")
    sched = schedule.to_dict()
    _figure(lambda ax: plots.burndown(ax, sched), figures / "burndown.png")
    _figure(
        lambda ax: plots.estimate_distribution(ax, estimates, truth, interval, metric),
        figures / "estimates.png",
    )
    blocks.append(("h2", "Figures"))
    blocks.append(
        (
            "figure",
            "half_width.png",
            (
                f"{metric.upper()} interval half-width against items labelled"
                + (" (uniform design)" if stratified else "")
                + f": median, 10-90 % band and the {settings.assurance:g} assurance quantile over "
                "2,000 simulated studies per size; the target and the planned size."
            ),
        )
    )
    blocks.append(("figure", "hours.png", caption_hours))
    blocks.append(("h2", "Schedule"))
    op = schedule.operation
    blocks.append(
        (
            "table",
            ["quantity", "value"],
            [
                ["items", f"{sum(op.items_per_stratum):,} ({op.labels_per_item} labels each)"],
                [
                    "team",
                    f"{op.annotators} annotators, {op.hours_per_day:g} h/day, "
                    f"{op.days_per_week} days/week, {op.adjudicators} adjudicator(s)",
                ],
                [
                    "calendar days",
                    f"median {schedule.calendar_days_median:g}, 90th percentile "
                    f"{schedule.calendar_days_p90:g}",
                ],
                [
                    "person-hours",
                    f"median {schedule.person_hours_median:,.1f}, 90th percentile "
                    f"{schedule.person_hours_p90:,.1f} (analytic "
                    f"{schedule.analytic_person_hours:,.1f})",
                ],
                ["annotator utilisation", f"{schedule.annotator_utilisation:.0%}"],
                [
                    "cost (median)",
                    "-" if schedule.cost_median is None else f"{schedule.cost_median:,.0f}",
                ],
                ["runs", f"{schedule.runs}"],
            ],
        )
    )
    blocks.append(
        (
            "figure",
            "burndown.png",
            f"Burn-down over {schedule.runs} simulated runs of the operation (SimPy).",
        )
    )
    blocks.append(("figure", "estimates.png", caption_estimates))
    blocks.append(("h2", "Rebuild"))
    blocks.append(("code", f"planner report {scenario.path} --force"))
    blocks.append(
        (
            "p",
            "Versions: "
            + ", ".join(f"{k} {v}" for k, v in _versions().items())
            + f"; seed {seed}. The scenario file is saved beside this report.",
        )
    )
    return blocks


def _plain_estimates(result: Any, metric: str, seed: int) -> tuple[np.ndarray, float, tuple]:
    from planner.sizing.simulation import simulate_tables

    res = result.results[metric]
    tables = simulate_tables(result.model.cells, res.items, 4000, rng=seed)
    values = metric_value(metric, tables.reshape(-1, 4) / res.items)
    truth = float(metric_value(metric, np.array(result.model.cells)))
    return values, truth, res.interval_median


def _weighted_estimates(result: Any, metric: str, seed: int) -> tuple[np.ndarray, float, tuple]:
    from planner.sizing.compare import stratum_models

    models = stratum_models(result.scenario)
    shares = np.array([s["share"] for s in result.strata])
    studies = StratifiedStudies(models, 4000, np.random.default_rng(seed))
    tables = studies.tables(result.designs["weighted"].items_per_stratum)
    estimate, low, high = weighted_estimate(
        metric, tables, shares, result.settings.confidence_level
    )
    truth = float(result.population[metric])
    return estimate, truth, (float(np.nanmedian(low)), float(np.nanmedian(high)))
