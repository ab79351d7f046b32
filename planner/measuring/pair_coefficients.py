"""Coefficients of two annotators from their pair table: observed agreement, Cohen's kappa
(and its weighted form), with the test of kappa = 0.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from planner.errors import InvalidInput
from planner.measuring.agreement_bootstrap import (
    clipped,
)
from planner.measuring.coefficient import (
    IntervalAt,
)
from planner.measuring.diagnostics import scalar
from planner.measuring.measured_data import (
    Measurement,
    two_sided_p,
    undefined_note,
)
from planner.measuring.several_coefficients import (
    conger,
)
from planner.measuring.small_counts import cohen_kappa_note
from planner.statistics import agreement as ag
from planner.statistics.intervals import (
    KAPPA_ESTIMANDS,
    coverage_note,
    kappa_interval,
    normal_quantile,
    wilson_interval,
)


def pair_kappa_interval(
    table: NDArray, confidence_level: float, method: str
) -> tuple[float, float, str]:
    """Cohen's kappa interval of a pair table, labelled with the quantity it estimates."""
    ci = kappa_interval(table, confidence_level, method)
    label = {
        "profile": "profile LR",
        "score": "score",
        "gof": "Donner-Eliasziw GOF",
        "fce": "Wald, FCE SE",
    }[method]
    return float(ci.low), float(ci.high), f"{label}, for {KAPPA_ESTIMANDS[method]}"


def pair_coefficients(
    m: Measurement,
) -> NDArray:
    """Observed agreement, Cohen's kappa (and its weighted form) of the pair table."""
    d, s, boot, out, summary = m.d, m.s, m.boot, m.out, m.summary
    table = d.ratings.pair_table()
    n_pair = int(table.sum())
    p_o = ag.observed_agreement(table)
    agree = np.trace(table)
    po_at: IntervalAt = (
        boot.pair(table, ag.observed_agreement)
        if s.bootstrap
        else lambda level: wilson_interval(agree, n_pair, level)
    )
    se_po = np.sqrt(p_o * (1 - p_o) / n_pair) if n_pair else np.nan
    method = boot.name if s.bootstrap else "Wilson"
    out.add_at("observed_agreement", p_o, po_at, s.confidence_level, method, n_pair, se=se_po)
    cohen_kappa_coefficient(m, table)
    if d.weights_kind:  # weights on the categories' values (ranks at the ordinal level)
        wk = ag.cohen_kappa(table, d.weight_matrix)
        wse = ag.weighted_kappa_standard_error(table, d.weight_matrix)
        wk_at: IntervalAt
        if s.weighted_kappa_method == "wald" and not s.bootstrap:

            def wk_at(level: float) -> tuple[Any, Any]:
                z_w = normal_quantile(level)
                return max(wk - z_w * wse, -1.0), min(wk + z_w * wse, 1.0)

            wname = "Wald, FCE (1969) SE"
        else:
            wk_at = boot.pair(table, lambda t: ag.cohen_kappa(t, d.weight_matrix))
            wname = boot.name
        out.add_at(
            f"cohen_kappa_{d.weights_kind}", wk, wk_at, s.confidence_level, wname, n_pair, se=wse
        )
        summary[f"cohen_kappa_{d.weights_kind}_test_zero"] = kappa_test_zero(table, d.weight_matrix)
    return table


def cohen_kappa_coefficient(
    m: Measurement,
    table: NDArray,
) -> None:
    """Cohen's kappa with the interval chosen, its marginals and its test of kappa = 0."""
    d, s, boot, out, summary, notes = m.d, m.s, m.boot, m.out, m.summary, m.notes
    k, n_pair = d.k, int(table.sum())
    kappa = ag.cohen_kappa(table)
    method = s.kappa_method or ("profile" if k == 2 else "fce")
    if k != 2 and method in ("profile", "score", "gof"):
        raise InvalidInput(
            f"kappa_method {method} needs binary labels; use fce or bootstrap",
            parameter="kappa_method",
        )
    kappa_se = ag.weighted_kappa_standard_error(table)
    gwet = s.cohen_marginals == "gwet" and d.ratings.n_pairable_items < d.ratings.n_items
    summary["cohen_marginals"] = {
        "used": "gwet" if gwet else "complete",
        "meaning": "every rating of each annotator (Gwet 2014)"
        if gwet
        else "the items both annotators rated"
        + (" (the same here: every item has both ratings)" if s.cohen_marginals == "gwet" else ""),
    }
    kappa_at: IntervalAt
    if gwet:
        res = conger(d.ratings, None)
        kappa, kappa_se = res.estimate, res.standard_error
        kappa_at = clipped(res.confidence_interval)
        kname = "Gwet variance, t (Gwet marginals: every rating of each annotator)"
    elif s.bootstrap or method == "bootstrap":
        kappa_at = boot.pair(table, ag.cohen_kappa)
        kname = f"{boot.name}, Cohen's kappa"
    else:
        kname = pair_kappa_interval(table, s.confidence_level, method)[2]
        kappa_at = lambda level: pair_kappa_interval(table, level, method)[:2]  # noqa: E731
    if k == 2 and not gwet:  # union positives: items off the larger agree cell
        note = coverage_note(
            "kappa",
            "bootstrap" if s.bootstrap else method,
            n_pair - float(np.max(np.diag(table))),
            "use `kappa_method` score without `bootstrap`" if s.bootstrap else None,
        )
        if note is not None:
            notes.append(note)
        if not s.bootstrap and (note := cohen_kappa_note(table, method)) is not None:
            notes.append(note)
    undefined = undefined_note(kappa, d.one_category)
    out.add_at(
        "cohen_kappa", kappa, kappa_at, s.confidence_level, kname, n_pair, undefined, se=kappa_se
    )
    summary["cohen_kappa_test_zero"] = kappa_test_zero(table, None)


def kappa_test_zero(table: NDArray, weights: NDArray | None) -> dict[str, Any]:
    """Test of (weighted) Cohen's kappa = 0 on the pair table: SE under H0, z, p-value."""
    se0 = scalar(ag.kappa_null_standard_error(table, weights))
    est = scalar(ag.cohen_kappa(table, weights))
    z = est / se0 if se0 > 0 and math.isfinite(est) else float("nan")
    return {
        "se_under_kappa_zero": se0,
        "z": z,
        "p_value": two_sided_p(z),
        "note": "Fleiss-Cohen-Everitt (1969) variance under kappa = 0, margins fixed at "
        "their estimates (items both annotators rated): for testing kappa = 0 only, "
        "not intervals",
    }
