"""A study of a fixed size: the one of ``items``, ``hours`` and ``budget`` given, checked once,
and what it buys beside the plan.

Both plans (a pair's, :mod:`planner.application.plan_options`, and several annotators',
:mod:`planner.application.raters_options`) add the precision that a study of a fixed size
buys (:func:`planner.sizing.precision.fixed_size_precision`) when one of these options is
given. What they accept is the same: one of the three, each in its range, and a budget only
when every label has a price — the single ``hourly_rate``, or a named team whose every
working person has their own rate or falls back on it
(:func:`planner.sizing.team_cost.priced_budget`); and both add the precision and the
assurance curve the same way (:func:`with_fixed_size`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from planner.errors import InvalidInput
from planner.validation import RULES, check

if TYPE_CHECKING:
    from planner.sizing.plan import Plan

PlanT = TypeVar("PlanT", bound="Plan[Any, Any, Any, Any]")
#: options that fix the study's size (at most one of them)
FIXED_SIZE = ("items", "hours", "budget")


def fixed_size_given(options: Mapping[str, Any]) -> dict[str, Any]:
    """The one of ``items``, ``hours`` and ``budget`` that ``options`` give (``None``: not
    given), checked against its range; ``{}`` when none is.

    Raises
    ------
    InvalidInput
        Two or three of them given, or one outside its range.
    """
    given = {k: options[k] for k in FIXED_SIZE if options.get(k) is not None}
    if len(given) > 1:
        raise InvalidInput(
            f"{' and '.join(given)} each fix the study's size: give one of them",
            parameter=next(iter(given)),
            parameters=tuple(given),
        )
    return {k: check(k, v, RULES[k]) for k, v in given.items()}


def refuse_unpriced_budget(
    given: Mapping[str, Any],
    settings: Any,
    contested_rate: float,
    labels_per_item: int | None = None,
) -> None:
    """Refuse a ``budget`` that no label price can spend: ``settings`` (a
    :class:`planner.sizing.plan.PlanSettings`) price an item at no cost (no ``hourly_rate``,
    and no named team whose people all have one). ``labels_per_item`` is several
    annotators' labels an item (else ``settings.annotators_per_item``)."""
    from planner.sizing.team_cost import priced_budget

    if "budget" not in given:
        return
    if priced_budget(settings, 1, contested_rate, labels_per_item).cost is None:
        raise InvalidInput(
            "budget needs hourly_rate (the cost of one person-hour; with a named team, of "
            "everyone without their own)",
            parameter="budget",
            parameters=("hourly_rate",),
        )


def with_fixed_size(
    plan: PlanT,
    given: Mapping[str, Any],
    *,
    curve: bool,
    seed: int,
    curve_streams: Mapping[str, Any] | None = None,
) -> PlanT:
    """``plan`` with what a study of the fixed size ``given`` buys (its ``precision``,
    :func:`planner.sizing.precision.fixed_size_precision`; its under-coverage notes added)
    and, with ``curve``, the assurance against items around that size, else around the
    planned one, for every metric the plan sized
    (:func:`planner.sizing.assurance_curve.assurance_curve`).

    Both draw from ``seed``; a metric's curve from ``curve_streams[metric]`` when given (a
    pair's plan gives each of its metrics its own stream).
    """
    if not given and not curve:
        return plan
    precision = None
    if given:
        from planner.sizing.precision import fixed_size_precision

        precision = fixed_size_precision(plan.model, plan.settings, **given, rng=seed)
        plan.notes.extend(precision.under_coverage_notes())
    curves = None
    if curve:
        from planner.sizing.assurance_curve import assurance_curve, curve_items

        center = precision.items if precision is not None else plan.items
        streams = curve_streams or {}
        curves = {
            metric: assurance_curve(
                plan.model, metric, plan.settings, curve_items(center), planned=center,
                rng=streams.get(metric, seed),
            )
            for metric in plan.settings.metrics
        }  # fmt: skip
    return replace(plan, precision=precision, curve=curves)
