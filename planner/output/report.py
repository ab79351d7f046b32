"""Reports: a scenario's plan, design comparison, budget and schedule, with figures; for a
pair plan the assurance curve, for a scenario with ``[alt_test]`` an Alt-Test section
(:mod:`planner.output.report_alt_test`), and for a scenario with ``[annotators]`` the
several-annotator plan with its curve (:mod:`planner.output.report_raters`).

``planner report scenarios/NAME.toml`` writes ``reports/NAME/`` with ``report.md``,
a self-contained ``report.html`` (figures embedded), the PNG figures, the scenario file (and
its pilot file, beside it, so that the folder rebuilds its report anywhere), the JSON of the
plan, the schedule and every figure's data, and a ``.planner-report`` marker listing them. The
folder is built in a hidden temporary folder beside it and moved into place
(:mod:`planner.output.safe_output`), so a failed or interrupted run leaves nothing behind; an
existing report is replaced only with ``force=True``, and only when it is a report planner
wrote (its marker) holding no file planner did not write. Scenario names are plain folder
names (checked by :mod:`planner.data.scenario`), and the destination is checked to lie directly
inside the output folder. Figures are drawn on :class:`matplotlib.figure.Figure` objects,
without pyplot's global state.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from planner.application.plan_options import PlanOptions, run_plan
from planner.application.raters_options import raters_plan_from_options
from planner.application.schedule_options import operation_for, run_schedule, schedule_for_plan
from planner.application.schedule_team import TeamSettings, resolve_team, wants_named
from planner.data.scenario import Scenario, load_scenario
from planner.data.scenario_raters import RatersScenario
from planner.errors import InvalidInput
from planner.operations.workload import ScheduleResult, simulate_schedule
from planner.output.jsonout import (
    json_ready,
    plan_result_document,
    raters_plan_document,
    schedule_document,
)
from planner.output.report_alt_test import alt_test_report
from planner.output.report_figures import (
    PlanResult,
    decision_thresholds,
    draw_figures,
    figure_data,
)
from planner.output.report_raters import raters_blocks, raters_figure_data
from planner.output.report_schedule import draw_team_figure
from planner.output.report_sections import build_blocks, html_page, markdown
from planner.output.safe_output import (
    files_below,
    output_error,
    probe_folder,
    publish_folder,
    refuse_inputs_inside,
    unexpected_entries,
)
from planner.sizing.common_prevalence_model import AnyRatersModel
from planner.sizing.plan import RatersPlan
from planner.validation import RngLike, seed_from

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


def scenario_inputs(scenario: Scenario) -> tuple[str, ...]:
    """The files a report of ``scenario`` reads: the scenario file and its pilot file."""
    section = getattr(scenario, "annotators", None)
    pilot = scenario.model.get("pilot_file") or getattr(section, "pilot_file", None)
    return (scenario.path, *([str(pilot)] if pilot else []))


#: the names a report writes at its top level: a pilot file is never copied onto one
WRITTEN = frozenset(
    {MARKER, "figures", "figures.json", "plan.json", "schedule.json", "scenario.toml"}
    | {"report.md", "report.html"}
)


def _pilot_copy_name(written: str, pilot: Path) -> tuple[str, bool]:
    """Where the report keeps its copy of the pilot file (``pilot``, written ``written`` in
    the scenario file), and whether the copied scenario's ``pilot_file`` must be rewritten to
    find it: an absolute path, one outside the scenario's folder, or one that would land on a
    file the report writes."""
    relative = Path(written)
    taken = not relative.parts or relative.parts[0] in WRITTEN
    if not relative.is_absolute() and ".." not in relative.parts and not taken:
        return relative.as_posix(), False
    name = pilot.name
    return (f"pilot-{name}" if name in WRITTEN else name), True


def _written_pilot(text: str) -> str | None:
    """The ``pilot_file`` value as the scenario file writes it (``[model]`` or
    ``[annotators]``), or ``None`` when the text does not parse."""
    import tomllib

    try:
        tables = [t for t in tomllib.loads(text).values() if isinstance(t, dict)]
    except tomllib.TOMLDecodeError:
        return None
    return next((str(t["pilot_file"]) for t in tables if "pilot_file" in t), None)


def _renamed_pilot(source: str, text: str, name: str) -> str:
    """The scenario file's text with its ``pilot_file`` value replaced by ``name``, checked
    by parsing it back.

    Raises
    ------
    InvalidInput
        Naming the file and key when the key is not written as one plain string on its own
        line (``pilot_file = "..."``), which the copy could not rewrite safely.
    """
    import re

    line = re.compile(r"^(\s*pilot_file\s*=\s*)(\"[^\"\\\n]*\"|'[^'\n]*')", re.MULTILINE)
    new, count = line.subn(lambda m: m.group(1) + json.dumps(name, ensure_ascii=False), text)
    if count == 1 and _written_pilot(new) == name:
        return new
    raise InvalidInput(
        f"{source}: pilot_file: the report copies the pilot beside scenario.toml as {name!r} "
        "and must rewrite the key to find it, which it can only do for a key written "
        'pilot_file = "..." on one line of its own; write it so, or keep the pilot in the '
        "scenario's folder"
    )


def copy_inputs(scenario: Scenario, tmp: Path) -> str | None:
    """Copy the scenario file into the report's folder ``tmp`` as ``scenario.toml``, and its
    pilot file beside it, so that the folder rebuilds its report on any machine; return the
    pilot copy's path inside the folder (``None`` without a pilot)."""
    pilot = scenario_inputs(scenario)[1:]
    if not pilot:
        shutil.copyfile(scenario.path, tmp / "scenario.toml")
        return None
    text = Path(scenario.path).read_text(encoding="utf-8")
    name, rename = _pilot_copy_name(_written_pilot(text) or pilot[0], Path(pilot[0]))
    if rename:
        text = _renamed_pilot(scenario.path, text, name)
    (tmp / "scenario.toml").write_text(text, "utf-8")
    (tmp / name).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(pilot[0], tmp / name)
    return name


def check_destination(
    out_root: str | Path, name: str, *, force: bool
) -> tuple[Path, frozenset[str] | None]:
    """The folder ``out_root/name`` a report goes to, and the files ``--force`` may replace.

    Raises :class:`~planner.errors.InvalidInput` unless the folder lies directly inside
    ``out_root`` and is free, or (with ``force``) is a report planner wrote that holds no
    other file.
    """
    from planner.output.safe_output import refuse_nul

    refuse_nul(out_root, "out_root")
    refuse_nul(name, "name")
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
        raise InvalidInput(
            f"{dest} is {kind}; force replaces only report folders planner wrote",
            parameters=("force",),
        )
    allowed = report_files(dest)
    if allowed is None:
        raise InvalidInput(
            f"{dest} is not a report planner wrote (no {MARKER} file); force replaces only "
            "those: move it away or choose another out_root",
            parameters=("force", "out_root"),
        )
    extra = unexpected_entries(dest, allowed)
    if extra:
        raise InvalidInput(
            f"{dest} holds files planner did not write ({_listed(extra)}); move them away and "
            "run again with force",
            parameters=("force",),
        )
    if not force:
        raise InvalidInput(f"{dest} exists; use force to replace it", parameters=("force",))
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
        dest, _ = check_destination(out_root, scenario.name, force=force)
        refuse_inputs_inside(dest, [p for s in scenarios for p in scenario_inputs(s)])
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


def make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return those created, outermost first
    (for a caller that removes them again when its work fails)."""
    return _make_folders(folder)


def report_seed(scenario: Scenario, rng: RngLike = None) -> int:
    """The seed a report of ``scenario`` uses and records.

    ``rng`` (anything :func:`numpy.random.default_rng` takes) wins; without it, the scenario's
    ``simulation.seed``, as ``plan`` uses it; without either, a seed drawn from fresh entropy.
    """
    if rng is None and scenario.simulation.get("seed") is not None:
        return int(scenario.simulation["seed"])
    return seed_from(rng)


def _schedule(scenario: Scenario, result: PlanResult, seed: int) -> ScheduleResult:
    """The operation that carries out the plan (the weighted design of a comparison)."""
    if wants_named(scenario, None):  # person by person
        return schedule_for_plan(scenario.path, result, runs=None, seed=seed)
    team = resolve_team(scenario) if scenario.team else TeamSettings()
    operation = operation_for(result, team, "weighted")
    return simulate_schedule(operation, runs=team.runs, rng=seed)


@dataclass(frozen=True)
class _SeveralAnnotators:
    """A several-annotator scenario's plan (with its curve) and its model."""

    plan: RatersPlan
    model: AnyRatersModel

    def to_dict(self) -> dict[str, Any]:
        return raters_plan_document(self.plan)


def _several_annotators(scenario: Scenario, seed: int) -> tuple[_SeveralAnnotators, Any]:
    """The plan of an ``[annotators]`` scenario and the schedule that labels its items."""
    from planner.application.raters_options import raters_model_from_options

    plan = raters_plan_from_options({"curve": True}, scenario, rng=seed)
    model = plan.pilot.model if plan.pilot is not None else raters_model_from_options({}, scenario)
    _, schedule = run_schedule(scenario.path, PlanOptions(), {}, lambda _: seed)
    return _SeveralAnnotators(plan, model), schedule


def _figures_and_blocks(
    scenario: Scenario, result: Any, schedule: ScheduleResult, seed: int
) -> tuple[Any, list[Any]]:
    """The figures' data and the report's blocks, for a pair's or several annotators' plan."""
    alt_test = alt_test_report(scenario, seed)
    if isinstance(result, _SeveralAnnotators):
        figures = raters_figure_data(scenario, result.plan, result.model, schedule, seed)
        figures = replace(figures, alt_test=alt_test)
        return figures, raters_blocks(scenario, result.plan, schedule, figures)
    figures = figure_data(result, schedule, decision_thresholds(scenario), seed=seed)
    figures = replace(figures, alt_test=alt_test)
    return figures, build_blocks(scenario, result, schedule, figures)


def _fill(
    tmp: Path,
    scenario: Scenario,
    result: PlanResult | _SeveralAnnotators,
    schedule: ScheduleResult,
    seed: int,
) -> None:
    """Compute the figures' data and write every file of the report into the folder ``tmp``."""
    figures, blocks = _figures_and_blocks(scenario, result, schedule, seed)
    folder = tmp / "figures"
    folder.mkdir()
    draw_figures(figures, folder)
    draw_team_figure(schedule, folder)
    title = f"planner report: {scenario.name}"
    (tmp / "report.md").write_text(markdown(blocks), encoding="utf-8")
    (tmp / "report.html").write_text(html_page(blocks, title, folder), encoding="utf-8")
    pilot_copy = copy_inputs(scenario, tmp)
    plan = (
        result.to_dict() if isinstance(result, _SeveralAnnotators) else plan_result_document(result)
    )
    if "scenario" in plan:  # the copy beside the report, not a path on the machine that built it
        plan["scenario"]["path"] = "scenario.toml"
    if isinstance(plan.get("pilot"), dict) and plan["pilot"].get("source"):
        # the copy beside the report (a pilot given by --pilot, not copied: its name)
        plan["pilot"]["source"] = pilot_copy or Path(plan["pilot"]["source"]).name
    documents = {
        "plan.json": plan,
        "schedule.json": json_ready(schedule_document(schedule)),
        "figures.json": figures.to_dict(),
    }
    note = "# written by planner report; report --force replaces this folder and these files"
    write_documents(tmp, documents, note)


def write_documents(tmp: Path, documents: dict[str, Any], note: str) -> None:
    """Write each JSON document into the report's temporary folder ``tmp``, then the marker
    listing every file written (what ``--force`` may replace), with its ``note``."""
    for name, document in documents.items():
        (tmp / name).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    written = sorted(files_below(tmp)[0])
    (tmp / MARKER).write_text("\n".join([MARKER_VERSION, note, *written]) + "\n")


def write_report(
    scenario_path: str | Path,
    out_root: str | Path = "reports",
    *,
    force: bool = False,
    rng: RngLike = None,
) -> Path:
    """Build the report of one scenario under ``out_root/NAME`` and return its folder.

    Parameters
    ----------
    scenario_path
        A scenario file, or the name of a shipped scenario.
    out_root
        The folder that holds reports.
    force
        Replace an existing report planner wrote (see :func:`check_destination`).
    rng
        Seed of the plan, the schedule and the figures' simulated studies: anything
        :func:`numpy.random.default_rng` takes (see :func:`report_seed`; default: the
        scenario's ``simulation.seed``, else fresh entropy). The seed is recorded in the
        report; the same seed gives byte-identical files.

    Notes
    -----
    The destination is checked before any work; the folder is built beside it under a hidden
    name and moved into place, with a :data:`MARKER` file listing what it holds, so that
    ``force`` later replaces exactly those files. Any failure, ``SIGTERM`` included, leaves
    nothing behind (an older report stays as it was).
    """
    scenario = load_scenario(scenario_path)
    root = Path(out_root)
    dest, allowed = check_destination(root, scenario.name, force=force)
    probe_folder(root)
    seed = report_seed(scenario, rng)
    result: PlanResult | _SeveralAnnotators
    if isinstance(scenario, RatersScenario) and scenario.strata:  # their designs compared
        from planner.application.raters_strata_options import raters_comparison_from_options

        result = raters_comparison_from_options({}, scenario, rng=seed)
        _, schedule = run_schedule(scenario.path, PlanOptions(), {}, lambda _: seed)
    elif isinstance(scenario, RatersScenario):
        result, schedule = _several_annotators(scenario, seed)
    else:
        result = run_plan(scenario.path, PlanOptions(), lambda _: seed)
        schedule = _schedule(scenario, result, seed)
    created = _make_folders(root)
    try:
        publish_folder(
            dest,
            lambda tmp: _fill(tmp, scenario, result, schedule, seed),
            replace=allowed,
            inputs=scenario_inputs(scenario),
        )
    except BaseException:
        for folder in reversed(created):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return dest
