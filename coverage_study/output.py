"""The coverage study's printed table and its Markdown summary (for the README)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from coverage_study.methods import role

REGIME_NAMES = {
    "unbiased": "2 annotators, unbiased, independent errors",
    "correlated": "2 annotators, unbiased, correlated errors (h = 0.5)",
    "biased": "2 annotators, biased (different positive rates)",
    "extreme": "2 annotators, extreme bias (rates 10%/1%, 7%/0.5%), rarer annotator >= 10 "
    "expected positives",
    "extreme-few": "2 annotators, extreme bias, rarer annotator 4-7 expected positives",
    "multi-unbiased": "2-5 annotators, unbiased",
    "multi-biased": "2-5 annotators, biased (±0.8)",
    "multi-few": "2 annotators (several-annotator coefficients), 10-15 union positives",
    "multi-few-several": "3-5 annotators, 10-15 union positives",
}
# (row key, header, width, format); text is left-aligned, numbers right-aligned (NaN prints "nan")
_COLUMNS = (
    ("cell", "cell", 44, "s"),
    ("coefficient", "coefficient", 18, "s"),
    ("method", "method", 34, "s"),
    ("true_value", "true", 7, ".3f"),
    ("coverage", "cover", 6, ".3f"),
    ("mc_se", "MC SE", 6, ".4f"),
    ("n_undefined", "undef", 5, "d"),
    ("median_half_width", "med hw", 7, ".3f"),
    ("flag", "flag", 5, "s"),
)


def text_table(rows: Iterable[dict[str, Any]]) -> str:
    """One line per grid cell x method, aligned columns; flagged rows say under or over."""

    def align(fmt: str) -> str:
        return "<" if fmt == "s" else ">"

    header = " ".join(f"{h:{align(f)}{w}}" for _, h, w, f in _COLUMNS)
    lines = [header, "-" * len(header)]
    for row in rows:
        shown = {**row, "method": method_label(row["coefficient"], row["method"], row["regime"])}
        lines.append(" ".join(f"{shown[k]:{align(f)}{w}{f}}" for k, _, w, f in _COLUMNS))
    return "\n".join(lines)


def method_label(coefficient: str, method: str, regime: str = "") -> str:
    """The method's name, with ``(agree's default)`` or ``(previous default)`` after it."""
    place = role(coefficient, method, regime)
    if place == "default":
        return f"{method} (agree's default)"
    return f"{method} ({place})" if place else method


def summary(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per coefficient, method and regime: cells, flags, worst and best coverage and where."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["coefficient"], row["method"], row["regime"]), []).append(row)
    out = []
    for (coefficient, method, regime), members in groups.items():
        worst = min(members, key=lambda r: r["coverage"])
        best = max(members, key=lambda r: r["coverage"])
        out.append(
            {
                "coefficient": coefficient,
                "method": method,
                "regime": regime,
                "cells": len(members),
                "flagged_under": sum(r["flag"] == "under" for r in members),
                "flagged_over": sum(r["flag"] == "over" for r in members),
                "worst_coverage": worst["coverage"],
                "worst_mc_se": worst["mc_se"],
                "worst_cell": worst["cell"],
                "best_coverage": best["coverage"],
                "best_cell": best["cell"],
            }
        )
    return out


def status(group: dict[str, Any]) -> str:
    """``**yes** (under)``, ``**yes** (over)``, ``**yes** (under, over)`` or ``no``."""
    sides = [side for side in ("under", "over") if group[f"flagged_{side}"] > 0]
    return f"**yes** ({', '.join(sides)})" if sides else "no"


def _carried_over(settings: dict[str, Any]) -> str:
    kept = settings.get("carried_over")
    if not kept:
        return ""
    regimes = "; ".join(REGIME_NAMES.get(r, r) for r in _in_order(kept["regimes"]))
    return (
        f" Rows of the methods not rerun for {regimes} are carried over unchanged from the "
        f"`{kept['slice']}` run at "
        f"{str(kept['git_commit'])[:10]} ({kept['reps']:,} studies per cell, seed "
        f"{kept['seed']}): their methods did not change."
    )


def _merged(settings: dict[str, Any]) -> str:
    """A sentence per run merged in by :func:`coverage_study.coverage.merge` with methods."""
    runs = [r for r in settings.get("merged_runs", []) if r.get("methods") not in (None, "all")]
    return "".join(
        f" Merged in: {', '.join(r['methods'])} on `{r['slice']}` at "
        f"{str(r['git_commit'])[:10]} ({r['reps']:,} studies per cell)."
        for r in runs
    )


def _in_order(regimes: Iterable[str]) -> list[str]:
    """Regimes in the order of :data:`REGIME_NAMES` (two annotators first), others last."""
    order = list(REGIME_NAMES)
    return sorted(regimes, key=lambda r: order.index(r) if r in order else len(order))


def markdown(document: dict[str, Any]) -> str:
    """The README's table: per method and regime, the worst coverage and where it occurs."""
    s = document["settings"]
    lines = [
        f"Coverage of nominal 95% intervals: {s['reps']:,} simulated studies per grid cell "
        f"(seed {s['seed']}, bootstrap B = {s['n_boot']}, slice `{s['slice']}`, "
        f"planner {s['versions']['planner']} at {str(s['versions']['git_commit'])[:10]}). "
        f"Flagged: {s['flag_rule']}. Undefined intervals count as misses."
        + _carried_over(s)
        + _merged(s),
        "",
        "| coefficient | method | regime | flagged | cells | flagged (under / over) "
        "| worst coverage (MC SE) | where | best coverage |",
        "|---|---|---|---|---:|---:|---:|---|---:|",
    ]
    groups = summary(document["rows"])
    ranks = {r: i for i, r in enumerate(_in_order({g["regime"] for g in groups}))}
    for g in sorted(groups, key=lambda g: ranks[g["regime"]]):  # stable: methods keep order
        lines.append(
            f"| {g['coefficient']} | {method_label(g['coefficient'], g['method'], g['regime'])} "
            f"| {REGIME_NAMES.get(g['regime'], g['regime'])} "
            f"| {status(g)} | {g['cells']} | {g['flagged_under']} / {g['flagged_over']} "
            f"| {g['worst_coverage']:.3f} ({g['worst_mc_se']:.3f}) | {g['worst_cell']} "
            f"| {g['best_coverage']:.3f} |"
        )
    if document["skipped"]:
        lines += ["", "Grid cells skipped as infeasible:", ""]
        lines += [f"- {line}" for line in document["skipped"]]
    return "\n".join(lines) + "\n"
