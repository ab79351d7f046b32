"""Specific agreement (Uebersax) of every category; PSA/NSA and PABAK of two annotators."""

from __future__ import annotations

from typing import Any

from numpy.typing import NDArray

from planner.measuring import several_profile as sp
from planner.measuring.coefficient import (
    IntervalAt,
)
from planner.measuring.diagnostics import binary_table, plain_value, scalar
from planner.measuring.measured_data import (
    Measurement,
)
from planner.measuring.several_profile import profile_applies, profile_at
from planner.statistics import agreement as ag
from planner.statistics import multirater as mr
from planner.statistics.intervals import (
    psa_conditional_interval,
    psa_standard_error,
)


def specific_agreement(
    m: Measurement,
    table: NDArray | None,
) -> None:
    """Specific agreement (Uebersax) of every category; PSA/NSA of the positive class."""
    d, s, boot, out, summary = m.d, m.s, m.boot, m.out, m.summary
    specific = mr.specific_agreement_patterns(d.patterns)
    spec_se = mr.specific_agreement_se_patterns(d.patterns)
    spec_lo, spec_hi = mr.specific_agreement_interval(specific, spec_se, s.confidence_level)
    summary["specific_agreement"] = {
        str(c): {"estimate": float(v), "ci_low": float(lo_c), "ci_high": float(hi_c)}
        for c, v, lo_c, hi_c in zip(d.ratings.categories, specific, spec_lo, spec_hi, strict=True)
    }
    pos = d.pos
    if pos is None:
        return
    category_totals = d.patterns.per_category(d.mult)
    summary["positive_label"] = plain_value(d.ratings.categories[pos])
    summary["prevalence_of_positive_labels"] = float(category_totals[pos] / category_totals.sum())
    summary["positive_rate_by_annotator"] = {
        name: float(rate)
        for name, rate in zip(d.ratings.annotators, d.ratings.positive_rates(pos), strict=True)
    }
    if table is not None:
        positive_pair(m, table)
        return
    psa_at: IntervalAt
    if s.bootstrap:
        psa_at = boot.patterns(d, lambda m: mr.specific_agreement_patterns(d.patterns, m, pos))
        method = boot.name
    elif profile_applies(d, s.bootstrap):  # several_profile.py
        psa_at, method = profile_at(d.patterns, "specific_agreement", pos), sp.PROFILE_METHOD
    else:

        def psa_at(level: float) -> tuple[Any, Any]:
            lo, hi = mr.specific_agreement_interval(specific, spec_se, level)
            return lo[pos], hi[pos]

        method = "linearised ratio variance, Wald on the logit scale"
    p = d.patterns
    out.add_at(
        "psa", specific[pos], psa_at, s.confidence_level, method,
        int(d.mult @ ((p.categories == pos) & (p.counts > 0)).any(axis=1)),
        "specific positive agreement among all annotators (Uebersax)", se=spec_se[pos],
    )  # fmt: skip


def positive_pair(
    m: Measurement,
    table: NDArray,
) -> None:
    """PSA, NSA and PABAK of two annotators, with Byrt's indices."""
    d, s, boot, out, summary = m.d, m.s, m.boot, m.out, m.summary
    pos = d.pos
    assert pos is not None
    binary = binary_table(table, pos)
    a, b, c, dd = (int(x) for x in binary.ravel())
    summary.update(
        {
            "joint_positives": a,
            "a_only": b,
            "b_only": c,
            "neither": dd,
            "union_positives": a + b + c,
            "prevalence_index": scalar(ag.prevalence_index(binary)),
            "bias_index": scalar(ag.bias_index(binary)),
        }
    )
    psa_at: IntervalAt
    nsa_at: IntervalAt
    if s.bootstrap:
        psa_at = boot.pair(table, lambda t: ag.positive_agreement(binary_table(t, pos)))
        nsa_at = boot.pair(table, lambda t: ag.negative_agreement(binary_table(t, pos)))
        m1 = m2 = boot.name
    else:
        psa_at = lambda level: psa_conditional_interval(a, a + b + c, level)  # noqa: E731
        nsa_at = lambda level: psa_conditional_interval(dd, b + c + dd, level)  # noqa: E731
        m1 = "Wilson on J = a/U"
        m2 = "Wilson on d/(b+c+d)"
    level = s.confidence_level
    out.add_at(
        "psa", ag.positive_agreement(binary), psa_at, level, m1, a + b + c,
        "" if a + b + c else "undefined: no item was flagged positive by either annotator",
        se=psa_standard_error(binary),
    )  # fmt: skip
    nsa_table = binary[::-1, ::-1]  # NSA is PSA of the negative class
    out.add_at(
        "nsa", ag.negative_agreement(binary), nsa_at, level, m2, b + c + dd,
        se=psa_standard_error(nsa_table),
    )  # fmt: skip
    if d.k == 2:
        po = out.coefficients["observed_agreement"]

        def pabak_at(confidence_level: float) -> tuple[Any, Any]:
            po_low, po_high = po.confidence_interval(confidence_level)
            return 2 * po_low - 1, 2 * po_high - 1

        out.add_at(
            "pabak", ag.pabak(binary), pabak_at, level, "2 p_o - 1",
            int(table.sum()), se=2 * po.se,
        )  # fmt: skip
