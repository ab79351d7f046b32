"""Coefficients of any number of annotators from the count patterns: pairwise observed
agreement, Fleiss' kappa, Gwet's AC1/AC2, Brennan-Prediger, and Conger's kappa (3+).
"""

from __future__ import annotations

from numpy.typing import NDArray

from planner.data.labels import Ratings
from planner.measuring import several_profile as sp
from planner.measuring.agreement_bootstrap import (
    canonical_rows,
    clipped,
)
from planner.measuring.coefficient import (
    IntervalAt,
)
from planner.measuring.decision import landis_koch
from planner.measuring.diagnostics import scalar
from planner.measuring.measured_data import (
    Measurement,
    two_sided_p,
    undefined_note,
    weighted_name,
)
from planner.measuring.several_profile import profile_applies, profile_at
from planner.statistics import multirater as mr
from planner.statistics.conger import CONGER_CELLS_LIMIT, conger_kappa


def several_coefficients(
    m: Measurement,
) -> None:
    """Pairwise observed agreement (3+), Fleiss, AC1/AC2, Brennan-Prediger, Conger (3+)."""
    d, out, summary = m.d, m.out, m.summary
    if not d.two:
        observed_agreement_patterns(m)
    for name, chance in (
        (weighted_name("fleiss_kappa", d.weights_kind), "fleiss"),
        ("gwet_ac1" if not d.weights_kind else "gwet_ac2", "gwet"),
        (weighted_name("brennan_prediger", d.weights_kind), "brennan-prediger"),
    ):
        chance_corrected(m, name, chance)
    if d.ratings.n_annotators >= 3:
        add_conger(m)
    kappa = weighted_name("fleiss_kappa", d.weights_kind) if not d.two else "cohen_kappa"
    summary["landis_koch"] = {
        "label": landis_koch(out.coefficients[kappa].estimate),
        "caution": "Landis & Koch (1977) labels are conventional, not statistically motivated",
    }


def observed_agreement_patterns(m: Measurement) -> None:
    """Pairwise observed agreement from the count patterns (linear in the ratings), with
    the item bootstrap."""
    d, boot, out = m.d, m.boot, m.out
    patterns = d.patterns
    p_a = mr.pairwise_agreement_patterns(patterns)
    out.add_at(
        "observed_agreement",
        p_a,
        boot.patterns(d, lambda mult: mr.pairwise_agreement_patterns(patterns, mult)),
        m.s.confidence_level,
        boot.name,
        int(d.mult @ (patterns.totals >= 2)),
        "pairwise agreement over items with two or more ratings",
    )


def chance_corrected(
    m: Measurement,
    name: str,
    chance: str,
) -> None:
    """One chance-corrected coefficient of the count patterns, with Gwet's variance."""
    d, s, boot, out, summary = m.d, m.s, m.boot, m.out, m.summary
    res = mr.chance_corrected_patterns(d.patterns, chance, d.weight_matrix)
    interval_at: IntervalAt
    if s.bootstrap:
        interval_at = boot.patterns(
            d,
            lambda m: mr.chance_corrected_patterns(d.patterns, chance, d.weight_matrix, m).estimate,
        )
        method = boot.name
    elif chance == "fleiss" and sp.complete_binary_pair(d):
        # two annotators: Fleiss' kappa is the intraclass kappa (several_profile.py)
        interval_at, method = sp.intraclass_at(d), sp.INTRACLASS_METHOD
    elif chance == "fleiss" and profile_applies(d, s.bootstrap):  # several_profile.py
        interval_at, method = profile_at(d.patterns, "fleiss_kappa"), sp.PROFILE_METHOD
    else:  # AC1/AC2 and BP on log(1 - c): see ChanceCorrected.confidence_interval
        scale = "linear" if chance == "fleiss" else "log1m"
        interval_at = clipped(lambda level: res.confidence_interval(level, scale))
        method = "Gwet variance, t" + ("" if chance == "fleiss" else " on log(1 - c)")
    undefined = undefined_note(res.estimate, d.one_category)
    out.add_at(
        name, res.estimate, interval_at, s.confidence_level, method, int(res.n_items),
        undefined, se=res.standard_error,
    )  # fmt: skip
    if name == "fleiss_kappa":  # the Fleiss-Nee-Landis test is for unweighted kappa
        se0 = mr.fleiss_kappa_null_se_patterns(d.patterns)
        z = scalar(res.estimate) / scalar(se0) if scalar(se0) > 0 else float("nan")
        summary["fleiss_kappa_test_zero"] = {
            "se_under_kappa_zero": scalar(se0),
            "z": z,
            "p_value": two_sided_p(z),
            "note": "Fleiss-Nee-Landis variance: for testing kappa = 0 only, not intervals",
        }


def conger(
    ratings: Ratings, weight_matrix: NDArray | None, rows: NDArray | None = None
) -> mr.ChanceCorrected:
    """Conger's kappa of every annotator of ``ratings`` (Gwet's variance); ``rows``
    replaces the items each row stands for (a bootstrap resample)."""
    return conger_kappa(
        ratings.item_index,
        ratings.annotator_index,
        ratings.label_index,
        n_rows=ratings.n_rows,
        n_categories=ratings.n_categories,
        n_annotators=ratings.n_annotators,
        weights=weight_matrix,
        row_weights=ratings.weights if rows is None else rows,
    )


#: Most ``resamples x ratings`` for the item bootstrap of Conger's kappa (rows are
#: reweighted, so each resample costs one pass over the ratings).
CONGER_BOOT_LIMIT = 50_000_000


def add_conger(m: Measurement) -> None:
    """Conger's kappa with Gwet's variance (t), or the item bootstrap with ``bootstrap``."""
    ratings, weight_matrix, weights_kind = m.d.ratings, m.d.weight_matrix, m.d.weights_kind
    s, boot, out, notes = m.s, m.boot, m.out, m.notes
    if ratings.n_annotators * ratings.n_categories > CONGER_CELLS_LIMIT:
        notes.append(
            f"Conger's kappa is not reported: {ratings.n_annotators:,} annotators x "
            f"{ratings.n_categories:,} categories is more than {CONGER_CELLS_LIMIT:,} cells"
        )
        return
    res = conger(ratings, weight_matrix)
    method = "Gwet variance, t"
    interval_at: IntervalAt = res.confidence_interval
    n_boot = boot.n_boot
    # resample the distinct label vectors in one canonical order: the same draws for a file
    # read by pandas, DuckDB, Spark or from vector counts
    distinct = canonical_rows(ratings) if s.bootstrap else ratings
    if s.bootstrap and n_boot * len(distinct.item_index) <= CONGER_BOOT_LIMIT:
        interval_at = boot.rows(
            distinct, lambda rows: scalar(conger(distinct, weight_matrix, rows).estimate)
        )
        method = boot.name
    elif s.bootstrap:
        notes.append(
            "Conger's kappa keeps Gwet's variance with `bootstrap`: "
            f"{n_boot:,} resamples of {len(distinct.item_index):,} ratings is too slow"
        )
    elif profile_applies(m.d, False):  # several_profile.py
        shift = scalar(res.estimate) - scalar(mr.chance_corrected_patterns(m.d.patterns).estimate)
        interval_at, method = sp.conger_profile_at(m.d.patterns, shift), sp.CONGER_PROFILE_METHOD
    out.add_at(
        weighted_name("conger_kappa", weights_kind),
        res.estimate,
        clipped(interval_at),
        s.confidence_level,
        method,
        int(res.n_items),
        undefined_note(res.estimate, False)
        or "each annotator's own marginals (Conger 1980)"
        + ("" if weight_matrix is None else ", with the agreement weights of AC2"),
        se=res.standard_error,
    )
