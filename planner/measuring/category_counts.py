"""Agreement from per-item category counts alone: what needs no annotator identity.

A category-count file (:func:`planner.data.vector_counts.ratings_from_category_counts`)
says, per item, how many annotators put it in each category, not who did. Every statistic of
those counts is reported as :func:`planner.measuring.measure.measure_agreement` computes it:
observed (pairwise) agreement, Fleiss' kappa (Fleiss 1971), Gwet's AC1 and Brennan-Prediger,
Krippendorff's alpha (Krippendorff 2004, from the values within each item), specific
agreement per category and PSA. What needs each annotator's own marginals or labels --
Cohen's kappa (Cohen 1960), Conger's kappa (Conger 1980), the bias index, the per-annotator
and per-pair diagnostics -- is left out, with one note saying why.

References
----------
Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. *Psychological
Bulletin* 76(5), 378-382.
Conger, A. J. (1980). Integration and generalization of kappas for multiple raters.
*Psychological Bulletin* 88(2), 322-328.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from planner.data.labels import Ratings
from planner.errors import InvalidInput
from planner.measuring.decision import landis_koch
from planner.measuring.measure import AgreementReport, measure_agreement
from planner.measuring.measure_settings import DEFAULTS, MeasureSettings
from planner.validation import RngLike

#: coefficients (by name prefix) that need to know which annotator gave which label
NEEDS_ANNOTATORS = ("cohen_kappa", "conger_kappa")
#: summary entries that do
_SUMMARY_NEEDS_ANNOTATORS = (
    "cohen_kappa",
    "cohen_marginals",
    "a_only",
    "b_only",
    "bias_index",
    "positive_rate_by_annotator",
    "joint_positives",  # with the two above: the pair's table, shown as A and B
)
LEFT_OUT = (
    "who gave which rating is not in a category-count file: Cohen's and Conger's kappa, the "
    "bias index and the per-annotator and per-pair diagnostics need it and are left out"
)


def measure_category_counts(
    ratings: Ratings,
    settings: MeasureSettings = DEFAULTS,
    *,
    rng: RngLike = None,
    progress: Callable[[int, int], None] | None = None,
) -> AgreementReport:
    """:func:`~planner.measuring.measure.measure_agreement` of category counts, without
    what needs annotator identity.

    Parameters
    ----------
    ratings
        From :func:`planner.data.vector_counts.ratings_from_category_counts`.
    settings, rng, progress
        Those of :func:`~planner.measuring.measure.measure_agreement`; ``settings.decide_on``
        may not name a coefficient left out (:data:`NEEDS_ANNOTATORS`).

    Returns
    -------
    AgreementReport
        The report with Cohen's and Conger's kappa, the bias index and the per-annotator and
        per-pair diagnostics left out, and a note saying so; Landis & Koch's label reads
        Fleiss' kappa.
    """
    decide_on = settings.decide_on if isinstance(settings, MeasureSettings) else None
    if isinstance(decide_on, str) and decide_on.startswith(NEEDS_ANNOTATORS):
        raise InvalidInput(
            f"decide_on {decide_on} needs to know which annotator gave which label; category "
            "counts give fleiss_kappa, krippendorff_alpha, psa, observed_agreement, ...",
            parameter="decide_on",
            value=decide_on,
        )
    report = measure_agreement(ratings, settings, rng=rng, progress=progress)
    kept = {
        name: co
        for name, co in report.coefficients.items()
        if not name.startswith(NEEDS_ANNOTATORS)
    }
    summary = {
        key: value
        for key, value in report.summary.items()
        if not key.startswith(_SUMMARY_NEEDS_ANNOTATORS)
    }
    fleiss = next((co for name, co in kept.items() if name.startswith("fleiss_kappa")), None)
    if "landis_koch" in summary and fleiss is not None:
        summary["landis_koch"] = {**summary["landis_koch"], "label": landis_koch(fleiss.estimate)}
    diagnostics = {**report.diagnostics, "per_annotator": {}, "per_pair": []}
    notes = [n for n in report.notes if "Cohen" not in n and "Conger" not in n] + [LEFT_OUT]
    return replace(report, coefficients=kept, summary=summary, diagnostics=diagnostics, notes=notes)
