"""The report of a study in progress: done so far, still to do, dates and what the rest buys.

``planner report SCENARIO --labelled FILE`` writes ``reports/NAME-in-progress/`` (beside the
up-front report ``reports/NAME/``, which it never replaces) with ``report.md``, a
self-contained ``report.html``, the figures, the scenario file, ``progress.json`` (the plan
of the rest, as ``plan --labelled --json`` writes it), ``schedule.json`` and
``figures.json``. The labels in hand are the study's first stage, kept in the final analysis:

* a pair (or a file of 3 to 6 annotators, or two of them with ``pair``):
  :func:`planner.sizing.midstudy.plan_remaining_from_file` with the scenario's ``[target]``,
  ``[budget]`` and ``[simulation]`` settings;
* a stratified scenario with ``stratum_col``:
  :func:`planner.application.strata_in_progress.remaining_strata_from_file` (the items still
  to label per stratum, and the note when the first stage's strata shares differ from the
  design's).

The dates are the schedule of the remaining items only, simulated with the scenario's
``[team]``; the figure of a pair's plan is the final interval's hybrid assurance against the
items still to label, ``A(m)``, read from the library's own assurance function
(:func:`planner.sizing.midstudy.plan_remaining` with ``planned_items = n0 + m``, whose
``assurance_planned`` is ``A(m)``), evaluated at the planned answer ``m*`` exactly, where it
equals the plan's ``assurance``. The folder is built and published as
:func:`planner.output.report.write_report` builds its own (checked first, moved into place,
nothing half-written, replaced only with ``force``), and the same seed gives the same bytes.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from planner.data.scenario import Scenario, load_scenario
from planner.errors import InvalidInput
from planner.validation import RngLike, check_instance

if TYPE_CHECKING:
    from planner.operations.workload import ScheduleResult
    from planner.sizing.midstudy_result import RemainingPlan
    from planner.sizing.midstudy_strata import StratifiedRemaining

#: the folder of a study in progress's report: the scenario's name and this suffix
FOLDER_SUFFIX = "-in-progress"
#: the figure of the assurance against the items still to label
CURVE_FILE = "assurance_remaining.png"
#: points of that curve between no more items and twice the planned answer
CURVE_POINTS = 16


@dataclass(frozen=True)
class ProgressSettings:
    """What a report of a study in progress reads beside its scenario.

    Attributes
    ----------
    labelled
        The label file of the items labelled so far (read as a pilot file is read).
    stratum_col
        The column naming each item's stratum: a stratified scenario's study in progress.
    pair
        The two annotators the study is planned for, of a file with more.
    positive
        The positive label (0/1 and false/true labels need none).
    reader
        The reader's options (layout, columns, format, missing, engine), as
        :func:`planner.sizing.pilot.read_pilot` takes them.
    hours, budget
        The person-hours, or the money at the scenario's hourly rate, still to spend: adds
        what they buy (at most one of the two).

    Examples
    --------
    >>> ProgressSettings("examples/labelled-600.csv", hours=20).budget is None
    True
    """

    labelled: str
    stratum_col: str | None = None
    pair: tuple[str, str] | None = None
    positive: str | None = None
    reader: Mapping[str, Any] | None = None
    hours: float | None = None
    budget: float | None = None

    def __post_init__(self) -> None:
        from planner.sizing.midstudy_settings import RemainingSettings

        check_instance("labelled", self.labelled, str, "a label file's path")
        if not self.labelled.strip():
            raise InvalidInput("labelled must name a label file, got ''", parameter="labelled")
        for name in ("stratum_col", "positive"):
            if getattr(self, name) is not None:
                check_instance(name, getattr(self, name), str, "a column or label name")
        if self.reader is not None:
            check_instance("reader", self.reader, Mapping, "a mapping of reader options")
        if self.pair is not None:
            pair = check_instance("pair", self.pair, (tuple, list), "two annotators A,B")
            if len(pair) != 2 or not all(isinstance(p, str) and p for p in pair):
                raise InvalidInput("pair takes two annotators A,B", parameter="pair")
            object.__setattr__(self, "pair", tuple(pair))
        if self.pair is not None and self.stratum_col is not None:
            raise InvalidInput(
                "pair does not apply to a stratified study in progress (stratum_col): its file "
                "holds a pair's labels",
                parameter="pair",
            )
        knobs = RemainingSettings(hours=self.hours, budget=self.budget)  # checks both
        object.__setattr__(self, "hours", knobs.hours)
        object.__setattr__(self, "budget", knobs.budget)


@dataclass(frozen=True)
class RemainingCurve:
    """The final interval's hybrid assurance ``A(m)`` against the items still to label."""

    remaining: tuple[int, ...]
    assurance: tuple[float, ...]
    planned: int
    planned_assurance: float
    target: float
    width: float
    metric: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "remaining_items": list(self.remaining),
            "assurance": list(self.assurance),
            "planned_remaining": self.planned,
            "planned_assurance": self.planned_assurance,
            "target_assurance": self.target,
            "width": self.width,
            "metric": self.metric,
        }


@dataclass(frozen=True)
class InProgress:
    """Everything a report of a study in progress shows: the plan of the rest, the schedule
    of the remaining items (None when nothing remains), the curve (None: not available),
    and whether the remaining budget's purchase was refused for this kind of study."""

    scenario: Scenario
    settings: ProgressSettings
    plan: RemainingPlan | StratifiedRemaining
    schedule: ScheduleResult | None
    curve: RemainingCurve | None
    seed: int
    bought_refused: bool = False


def progress_folder_name(scenario: Scenario) -> str:
    """The report's folder name: ``NAME-in-progress``."""
    return scenario.name + FOLDER_SUFFIX


def _checked_kind(scenario: Scenario, settings: ProgressSettings) -> None:
    """A pair's scenario, or a stratified one with ``stratum_col`` (and only then)."""
    if settings.stratum_col is not None and not scenario.strata:
        raise InvalidInput(
            f"stratum_col needs a stratified scenario ([[strata]]); {scenario.path} has none",
            parameter="stratum_col",
        )
    if settings.stratum_col is None:
        from planner.application.in_progress import refuse_strata

        refuse_strata(scenario)


def check_progress_report(
    scenario_path: str | Path,
    settings: ProgressSettings,
    out_root: str | Path = "reports",
    *,
    force: bool = False,
) -> tuple[Scenario, Path, frozenset[str] | None]:
    """Check one report before any work: the scenario, its kind, the label file, the
    destination (:func:`planner.output.report.check_destination`).

    Returns ``(scenario, destination, files force may replace)``.
    """
    from planner.output.report import check_destination
    from planner.output.safe_output import probe_folder, refuse_inputs_inside

    check_instance("settings", settings, ProgressSettings, "a ProgressSettings")
    if not str(out_root).strip():
        raise InvalidInput("out must name a folder, got ''", parameter="out")
    scenario = load_scenario(scenario_path)
    _checked_kind(scenario, settings)
    if not Path(settings.labelled).is_file():
        raise InvalidInput(
            f"labelled: {settings.labelled} is not a file (the labels so far)",
            parameter="labelled",
        )
    probe_folder(out_root)
    dest, allowed = check_destination(out_root, progress_folder_name(scenario), force=force)
    refuse_inputs_inside(dest, [scenario.path, settings.labelled])
    return scenario, dest, allowed


def _pair_plan(scenario: Scenario, settings: ProgressSettings, seed: int) -> tuple[Any, bool]:
    """The plan of the rest of a pair's (or several annotators') study with the scenario's
    settings and named team (:func:`planner.application.in_progress.remaining_from_file`);
    ``True`` when the remaining budget's purchase was refused for this kind of study (planned
    without it)."""
    from planner.application.in_progress import remaining_from_file
    from planner.sizing.midstudy_settings import RemainingSettings

    knobs = RemainingSettings(hours=settings.hours, budget=settings.budget)

    def plan(remaining: RemainingSettings | None) -> Any:
        return remaining_from_file(
            settings.labelled, scenario, remaining=remaining, pair=settings.pair,
            positive=settings.positive, reader=dict(settings.reader or {}), rng=seed,
        )  # fmt: skip

    try:
        return plan(knobs), False
    except InvalidInput as exc:
        named = {exc.parameter, *exc.parameters}
        if knobs == RemainingSettings() or not named & {"hours", "budget"}:
            raise
    return plan(None), True


def _strata_plan(scenario: Scenario, settings: ProgressSettings, seed: int) -> Any:
    """The plan of the rest of a stratified study, per stratum."""
    from planner.application.strata_in_progress import remaining_strata_from_file
    from planner.sizing.midstudy_settings import RemainingSettings

    simulation = {"replicates": "replicates", "max_items": "max_items"}
    effort = {k: scenario.simulation.get(v) for k, v in simulation.items()}
    assert settings.stratum_col is not None  # checked by _checked_kind
    return remaining_strata_from_file(
        settings.labelled,
        scenario.path,
        settings.stratum_col,
        positive=settings.positive,
        reader=dict(settings.reader or {}),
        remaining=RemainingSettings(hours=settings.hours, budget=settings.budget),
        rng=seed,
        **effort,
    )


def remaining_curve(plan: Any, scenario: Scenario) -> RemainingCurve | None:
    """``A(m)`` of a pair's plan for ``m`` from 0 to twice the planned answer ``m*``, and at
    ``m*`` exactly (None for other kinds of study, or when nothing remains).

    ``A(m)`` is :func:`planner.sizing.midstudy.plan_remaining`'s ``assurance_planned`` with
    ``planned_items = n0 + m``, on the plan's own counts, settings and seed: the same
    posterior draws as the plan's search, so ``A(m*)`` is the plan's ``assurance``.
    """
    from planner.application.in_progress import scenario_settings
    from planner.sizing.midstudy import RemainingPlan, plan_remaining
    from planner.sizing.midstudy_settings import RemainingSettings

    if not isinstance(plan, RemainingPlan) or plan.counts is None or plan.remaining_items == 0:
        return None
    settings = scenario_settings(scenario)  # the assurance only: the team's prices aside
    planned = plan.remaining_items
    grid = np.unique(np.round(np.linspace(0, 2 * planned, CURVE_POINTS)).astype(int))
    points = sorted({*grid.tolist(), planned})

    def at(m: int) -> float:
        knobs = RemainingSettings(planned_items=plan.labelled_items + m)
        value = plan_remaining(plan.counts, settings, knobs, rng=plan.seed).assurance_planned
        return float(value if value is not None else plan.assurance_now)

    return RemainingCurve(
        remaining=tuple(int(m) for m in points),
        assurance=tuple(at(m) for m in points),
        planned=planned,
        planned_assurance=float(plan.assurance),
        target=float(plan.target_assurance),
        width=float(plan.width),
        metric=str(plan.metric),
    )


def remaining_schedule(scenario: Scenario, plan: Any, seed: int) -> Any:
    """The schedule of the remaining items with the scenario's ``[team]`` and ``[budget]``
    (contested share: the plan's, ``contested_items / items``; a stratified study: each
    stratum's remaining items at its seconds and contested share,
    :func:`planner.application.strata_in_progress.remaining_work`); None when nothing
    remains."""
    from planner.application.plan_options import PlanOptions
    from planner.application.schedule_options import run_schedule

    if plan.remaining_items == 0:
        return None
    if getattr(plan, "strata", None):  # each stratum's rest at its seconds and contested share
        from planner.application.strata_in_progress import remaining_work

        _, schedule = run_schedule(
            scenario.path, PlanOptions(), {}, lambda _: seed, work=remaining_work(plan)
        )
        return schedule
    budget = plan.budget
    contested = float(budget.contested_items) / max(int(budget.items), 1)
    # several annotators: each remaining item gets a label from every one of them
    labels = len(getattr(plan, "annotators", ())) or None
    options = PlanOptions(
        contested_rate=min(max(contested, 0.0), 1.0),
        annotators_per_item=labels if labels is not None and labels > 2 else None,
    )
    _, schedule = run_schedule(
        scenario.path, options, {}, lambda _: seed, items=int(plan.remaining_items)
    )
    return schedule


def study_in_progress(
    scenario: Scenario, settings: ProgressSettings, *, rng: RngLike = None
) -> InProgress:
    """Plan the rest of the study, schedule it and compute the curve (no file is written).

    Parameters
    ----------
    scenario
        A loaded pair's or stratified scenario (its ``[target]``, ``[budget]``,
        ``[simulation]`` and ``[team]``).
    settings
        The label file and its options (:class:`ProgressSettings`).
    rng
        The seed of the plan, the schedule and the curve (default: the scenario's
        ``simulation.seed``, else fresh entropy; :func:`planner.output.report.report_seed`).
    """
    from planner.output.report import report_seed

    _checked_kind(scenario, settings)
    seed = report_seed(scenario, rng)
    refused = False
    if settings.stratum_col is not None:
        plan = _strata_plan(scenario, settings, seed)
        refused = (settings.hours, settings.budget) != (None, None)
        refused = refused and getattr(plan, "bought", None) is None
    else:
        plan, refused = _pair_plan(scenario, settings, seed)
    schedule = remaining_schedule(scenario, plan, seed)
    curve = remaining_curve(plan, scenario)
    return InProgress(scenario, settings, plan, schedule, curve, seed, refused)


def _plan_document(study: InProgress) -> dict[str, Any]:
    from planner.output.jsonout import labelled_document, labelled_strata_document

    strata = study.settings.stratum_col is not None
    return (labelled_strata_document if strata else labelled_document)(study.plan)


def _fill(tmp: Path, study: InProgress) -> None:
    """Draw the figures and write every file of the report into the folder ``tmp``."""
    from planner.output.jsonout import json_ready, schedule_document
    from planner.output.report import write_documents
    from planner.output.report_in_progress_sections import draw_progress_figures, progress_blocks
    from planner.output.report_sections import html_page, markdown

    folder = tmp / "figures"
    folder.mkdir()
    draw_progress_figures(study, folder)
    blocks = progress_blocks(study)
    title = f"planner report: {study.scenario.name} (study in progress)"
    (tmp / "report.md").write_text(markdown(blocks), encoding="utf-8")
    (tmp / "report.html").write_text(html_page(blocks, title, folder), encoding="utf-8")
    shutil.copyfile(study.scenario.path, tmp / "scenario.toml")
    documents: dict[str, Any] = {"progress.json": json_ready(_plan_document(study))}
    if study.schedule is not None:
        documents["schedule.json"] = json_ready(schedule_document(study.schedule))
    curve = None if study.curve is None else study.curve.to_dict()
    documents["figures.json"] = json_ready({"seed": study.seed, "assurance_remaining": curve})
    note = "# written by planner report --labelled; report --force replaces this folder"
    write_documents(tmp, documents, note)


def write_progress_report(
    scenario_path: str | Path,
    settings: ProgressSettings,
    out_root: str | Path = "reports",
    *,
    force: bool = False,
    rng: RngLike = None,
) -> Path:
    """Write the report of a study in progress under ``out_root/NAME-in-progress``.

    Parameters
    ----------
    scenario_path
        A pair's or stratified scenario file, or a shipped scenario's name: the target, the
        costs, the team (and for strata the design).
    settings
        The labels so far and how to read them (:class:`ProgressSettings`).
    out_root
        The folder that holds reports.
    force
        Replace an existing report planner wrote there
        (:func:`planner.output.report.check_destination`).
    rng
        The seed (default the scenario's ``simulation.seed``, else fresh entropy); the same
        seed gives byte-identical files.

    Returns
    -------
    Path
        The report's folder.

    Raises ``InvalidInput`` (named by its parameter) before any work for a bad scenario,
    label file, kind of study or destination, and any of the mid-study plan's errors; a
    failure leaves nothing behind.

    Examples
    --------
    >>> write_progress_report(
    ...     "unsupported-claims", ProgressSettings("examples/labelled-600.csv"), "/tmp/r", rng=1
    ... )  # doctest: +SKIP
    PosixPath('/tmp/r/unsupported-claims-in-progress')
    """
    from planner.output.report import make_folders
    from planner.output.safe_output import publish_folder

    scenario, dest, allowed = check_progress_report(scenario_path, settings, out_root, force=force)
    study = study_in_progress(scenario, settings, rng=rng)
    created = make_folders(Path(out_root))
    try:
        publish_folder(
            dest,
            lambda tmp: _fill(tmp, study),
            replace=allowed,
            inputs=(scenario.path, settings.labelled),
        )
    except BaseException:
        for made in reversed(created):
            if made.is_dir() and not any(made.iterdir()):
                made.rmdir()
        raise
    return dest
