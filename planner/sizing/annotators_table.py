"""What ``M = 2 .. 6`` annotators per item would buy at a plan's labelling hours.

A plan of several annotators who all label every item spends ``H`` labelling hours (every
label at the budget's ``seconds_per_item`` ``s``). Spent on ``M`` annotators per item, the
same hours buy ``floor(3600 H / (M s))`` items, and the table gives each ``M`` the plug-in
half-width at the expected pattern counts of that study
(:func:`planner.sizing.study_intervals.expected_half_width`), the team cycled from the given
annotators (:meth:`planner.sizing.annotator_model.RatersModel.with_annotators`). It is
:attr:`planner.sizing.plan.Plan.by_annotators`, the JSON's ``precision_by_annotators``.
"""

from __future__ import annotations

import numpy as np

from planner.operations.budget import SECONDS_PER_HOUR, labelling_hours
from planner.sizing.annotator_model import MAX_ANNOTATORS
from planner.sizing.common_prevalence_model import AnyRatersModel
from planner.sizing.plan import PrecisionRow
from planner.sizing.search import SampleSizeResult
from planner.sizing.study_intervals import expected_half_width, pattern_space


def precision_by_annotators(
    model: AnyRatersModel,
    sizing: SampleSizeResult,
    hours: float,
    seconds_per_item: float,
) -> list[PrecisionRow]:
    """Items and plug-in half-width for ``M = 2 .. 6`` annotators per item at ``hours``."""
    rows = []
    for m in range(2, MAX_ANNOTATORS + 1):
        items = int(np.floor(hours * SECONDS_PER_HOUR / (m * seconds_per_item)))
        patterns, probs = pattern_space(model.with_annotators(m), sizing.metric)
        hw = expected_half_width(
            sizing.metric,
            patterns,
            probs,
            max(items, 2),
            level=sizing.level,
            confidence_level=sizing.confidence_level,
            n_categories=model.n_categories,
        )
        rows.append(PrecisionRow(m, items, labelling_hours([items], [seconds_per_item], m), hw))
    return rows
