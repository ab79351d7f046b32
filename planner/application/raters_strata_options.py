"""The designs over strata of a scenario whose ``[annotators]`` label ``[[strata]]``.

:func:`raters_comparison_from_options` is what ``plan SCENARIO`` runs for such a scenario:
the options over the scenario over the defaults (:func:`planner.application.raters_options.
resolve`), one annotator model per stratum, and the uniform, enriched and weighted designs
(:func:`planner.sizing.raters_strata.compare_raters_designs`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.application.raters_options import resolve, settings_from_values
from planner.application.schedule_team import SEVERAL_OPTIONS
from planner.errors import InvalidInput
from planner.sizing.compare import Comparison, enriched_shares
from planner.sizing.raters_strata import STRATA_METRICS, raters_strata, stratum_raters_models
from planner.sizing.raters_strata_designs import StrataOptions, compare_raters_designs
from planner.validation import seed_from

#: options a comparison of designs over strata has no use for (each stratum states its
#: prevalence; every annotator labels every item of two categories)
NOT_WITH_STRATA = (
    "prevalence", "n_categories", "confusion", "kappa", "per_item", "level", "pilot",
    "items", "hours", "budget",
)  # fmt: skip
#: the scenario keys of the designs, and their defaults (as for a pair's strata)
DESIGN_DEFAULTS = {"floor_items": 20, "prevalence_width": 0.02}


def has_strata(scenario: Any) -> bool:
    """Whether a several-annotator scenario has ``[[strata]]``."""
    return bool(getattr(scenario, "strata", ()))


def _refuse_options(options: dict[str, Any], scenario: Any) -> None:
    given = [k for k in NOT_WITH_STRATA if options.get(k) not in (None, {}, False)]
    if options.get("curve"):
        given.append("curve")
    if not given:
        return
    name = given[0]
    if name in ("items", "hours", "budget", "curve"):
        why = "the designs size each stratum's items themselves"
    elif name == "prevalence":
        why = "each stratum states its own prevalence"
    else:
        why = "every annotator labels every item of two categories, by error rates"
    raise InvalidInput(
        f"{name} does not combine with the strata of {Path(scenario.path).name}: {why}",
        parameter=name,
    )


def raters_comparison_from_options(
    options: dict[str, Any],
    scenario: Any,
    *,
    rng: Any = None,
    progress: Callable[[int, int], None] | None = None,
) -> Comparison:
    """The three designs of ``scenario``'s strata with ``options`` (library parameter
    names, ``None`` = not given) over the scenario over the defaults.

    Raises
    ------
    InvalidInput
        An option the designs have no use for, a metric without a weighted interval, or a
        stratum whose model is infeasible (named as the file's key, ``strata[2].error_rate``,
        or the section's, ``annotators.error_rate``).
    """
    _refuse_options(options, scenario)
    values, from_file = resolve(options, scenario)
    metric = values["metric"] or "psa"
    if metric not in STRATA_METRICS:
        raise InvalidInput(
            f"metric {metric} has no population-weighted interval over strata for several "
            f"annotators; give {' or '.join(STRATA_METRICS)}",
            parameter="metric",
        )
    settings = settings_from_values(
        values,
        metric,
        annotators_per_item=values["n_annotators"],  # every one, every item
    )

    def name(key: str, i: int) -> str:
        if getattr(scenario.strata[i - 1], key, None) is not None:
            return f"{scenario.path}: strata[{i}].{key}"
        return f"{scenario.path}: annotators.{key}" if key in from_file else key

    defaults = {k: values[k] for k in ("error_rate", "bias", "ambiguity")}
    models = stratum_raters_models(scenario.strata, values["n_annotators"], defaults, name)
    strata = raters_strata(
        [s.name for s in scenario.strata],
        [s.share for s in scenario.strata],
        [s.seconds_per_item or settings.seconds_per_item for s in scenario.strata],
        models,
    )
    design = {k: scenario.design.get(k, v) for k, v in DESIGN_DEFAULTS.items()}
    extra = StrataOptions(
        scenario=scenario,
        prevalences=[s.prevalence for s in scenario.strata],
        enriched=enriched_shares(scenario, strata),  # type: ignore[arg-type]
        floor_items=int(design["floor_items"]),
        prevalence_width=float(design["prevalence_width"]),
    )
    return compare_raters_designs(strata, settings, extra, rng=seed_from(rng), progress=progress)


@dataclass(frozen=True)
class StrataWork:
    """What one design over strata gives its schedule: items, seconds per item and the
    share of items whose labels are not unanimous, per stratum (and the prevalence slice),
    the labels each item gets, and a note."""

    items: tuple[int, ...]
    seconds_per_item: tuple[float, ...]
    contested_rate: tuple[float, ...]
    labels_per_item: int
    notes: tuple[str, ...]


def strata_work(scenario: Any, seed: int, options: dict[str, Any], design: str) -> StrataWork:
    """The work of ``design`` (uniform, enriched or weighted) of ``scenario``'s strata, sized
    with ``schedule``'s plan options (:data:`~planner.application.schedule_team.
    SEVERAL_OPTIONS` names)."""
    library = {SEVERAL_OPTIONS[k]: v for k, v in options.items() if k in SEVERAL_OPTIONS}
    comparison = raters_comparison_from_options(library, scenario, rng=seed)
    chosen = comparison.designs[design]
    rows = comparison.strata
    items = list(chosen.items_per_stratum)
    seconds = [row["seconds_per_item"] for row in rows]
    contested = [row["contested_rate"] for row in rows]
    if chosen.prevalence_slice_items:
        items.append(chosen.prevalence_slice_items)
        seconds.append(float(sum(r["share"] * r["seconds_per_item"] for r in rows)))
        contested.append(comparison.population["contested_rate"])
    labels = int(resolve(library, scenario)[0]["n_annotators"])  # every one, every item
    note = (
        f"{Path(scenario.path).name}: the {design} design over its strata sizes "
        f"{chosen.items:,} items with {labels} annotators each; the schedule labels them"
    )
    return StrataWork(tuple(items), tuple(seconds), tuple(contested), labels, (note,))
