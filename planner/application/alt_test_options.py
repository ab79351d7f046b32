"""A scenario's ``[alt_test]`` as the Alt-Test's planning model and settings, and its seeds.

A scenario with an ``[alt_test]`` table (:mod:`planner.data.scenario`) asks, beside its
agreement plan, whether an LLM judge can replace one of its humans (the alternative annotator
test, ``docs/methods/alt-test.md``). ``plan SCENARIO`` shows the items that test needs and
``report SCENARIO`` adds a section with its curve and table; both draw the test's numbers from
one stream of the plan's seed (:func:`alt_test_seeds`) that nothing else uses, so the two
commands print the same items at the same seed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from planner.data.scenario import Scenario, load_scenario
from planner.operations.budget import SECONDS_PER_ITEM
from planner.sizing.alt_test_plan import (
    AltTestModel,
    AltTestPlanSettings,
    AltTestPlanSummary,
    alt_test_model,
    alt_test_plan_summary,
)
from planner.validation import seed_from

ALT_TEST_STREAM = 2**20 + 1
"""Spawn key of the Alt-Test's stream under the plan's seed (a report's figures use ``2**20``)."""
DEFAULT_SECONDS = SECONDS_PER_ITEM
"""Seconds a human spends on an item when the scenario's ``[budget]`` does not say."""


class AltTestSeeds(NamedTuple):
    """The seeds of a scenario's Alt-Test numbers under the plan's seed: the stream's own
    seed (``stream``, recorded by reports), the summary's and the P(pass) curve's."""

    stream: int
    summary: int
    curve: int


class HumanEffort(NamedTuple):
    """The command line's word on a human's time and its price (None: the scenario's)."""

    seconds_per_item: float | None = None
    hourly_rate: float | None = None


SCENARIOS_EFFORT = HumanEffort()
"""No word from the command line: the scenario's ``[budget]`` prices the humans' time."""


#: the ``[alt_test]`` keys of the model and of the plan's settings (each its parameter's name)
MODEL_KEYS = ("humans", "categories", "human_error", "llm_error", "prevalences", "error_draw")
SETTINGS_KEYS = ("epsilon", "q", "power", "items", "min_items", "replicates")


def _given(table: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The values ``table`` gives of ``keys``."""
    return {key: table[key] for key in keys if key in table}


def alt_test_settings(
    scenario: Scenario, *, table: bool = True, effort: HumanEffort = SCENARIOS_EFFORT
) -> tuple[AltTestModel, AltTestPlanSettings]:
    """The planning model of the scenario's ``[alt_test]`` and the settings of its summary
    (:func:`~planner.sizing.alt_test_plan.alt_test_plan_summary`; ``table``: with the plans
    of 2 to 6 humans). Hours come from ``effort`` where it says, else from the scenario's
    ``[budget]`` (``seconds_per_item``, default :data:`DEFAULT_SECONDS`; ``hourly_rate``),
    so ``plan SCENARIO --seconds-per-item S`` prices the agreement plan and the Alt-Test alike.
    """
    alt = scenario.alt_test
    seconds = effort.seconds_per_item
    rate = effort.hourly_rate
    # keys the scenario leaves out take the library's defaults
    model = alt_test_model(**_given(alt, MODEL_KEYS))
    settings = AltTestPlanSettings(
        **_given(alt, SETTINGS_KEYS),
        seconds_per_item=(
            seconds
            if seconds is not None
            else scenario.budget.get("seconds_per_item", DEFAULT_SECONDS)
        ),
        hourly_rate=rate if rate is not None else scenario.budget.get("hourly_rate"),
        table=table,
    )
    return model, settings


def alt_test_seeds(seed: int) -> AltTestSeeds:
    """The Alt-Test's seeds under the plan's (or report's) ``seed``: the child of spawn key
    :data:`ALT_TEST_STREAM`, and its two children for the summary and the curve."""
    sequence = np.random.SeedSequence(seed, spawn_key=(ALT_TEST_STREAM,))
    stream = seed_from(np.random.default_rng(sequence))
    summary, curve = (
        seed_from(np.random.default_rng(child)) for child in np.random.SeedSequence(stream).spawn(2)
    )
    return AltTestSeeds(stream=stream, summary=summary, curve=curve)


def alt_test_for_plan(
    scenario_path: str | None, seed: int, effort: HumanEffort = SCENARIOS_EFFORT
) -> AltTestPlanSummary | None:
    """The Alt-Test section of ``plan SCENARIO``: the plan for the scenario's LLM judge and
    P(pass) at its ``alt_test.items``, without the table of 2 to 6 humans (``report`` adds
    it); None without a scenario or without ``[alt_test]``. ``effort``: the command line's
    seconds per item and hourly rate, which override the scenario's ``[budget]``.

    Drawn from :func:`alt_test_seeds` of the plan's ``seed``, so the items equal those of
    ``report`` at that seed. An unreachable plan is a summary without a plan, its reason in
    ``unreachable``: the agreement plan still stands.
    """
    if not scenario_path:
        return None
    scenario = load_scenario(scenario_path)
    if not scenario.alt_test:
        return None
    model, settings = alt_test_settings(scenario, table=False, effort=effort)
    return alt_test_plan_summary(model, settings, rng=alt_test_seeds(seed).summary)
