"""Sample sizes counted in union positives: the worst case, the stop rule, inverse sampling.

For PSA the information is in the union positives ``U`` (items at least one annotator
flags): given ``U``, the joint positives are ``Bin(U, J)``. So a study can be sized in ``U``
whatever the prevalence (:func:`worst_case_union_positives` whatever the agreement too), run
as a stop rule (label until ``U`` union positives, :func:`union_positives_for_assurance`),
and turned back into items at a union rate (:func:`inverse_sampling_items`,
:func:`items_for_union_positives`). docs/methods/sample-size.md 2.2.
"""

from __future__ import annotations

import numpy as np

from planner.errors import TargetUnreachable, step_guard
from planner.sizing.exact import EXACT_PSA_METHODS, binomial_at_least, conditional_psa_assurance
from planner.sizing.sample_size_search import smallest_passing, smallest_passing_near
from planner.sizing.search_criteria import WORST_CASE_JACCARD, check_target, psa_variance_factor
from planner.statistics.intervals import normal_quantile, psa_conditional_interval
from planner.validation import RULES, check, check_choice


def worst_case_union_positives(width: float, confidence_level: float = 0.95) -> dict[str, int]:
    """Union positives that reach ``width`` for PSA whatever the true agreement.

    ``delta``: ``ceil(z^2 f* / w^2)`` with ``f* = max_J 4J(1-J)/(1+J)^4 = 0.309842`` at
    ``J* = (5 - sqrt 17)/4`` (docs/methods/sample-size.md 2.2). ``wilson``: the smallest ``U`` from
    which on
    the Wilson-for-J interval has half-width at most ``width`` for *every* outcome
    ``a = 0..U``, a guarantee that needs no assumption about ``J`` at all.

    >>> worst_case_union_positives(0.08)
    {'delta': 186, 'wilson': 182}
    """
    _, width, confidence_level, _ = check_target("psa", width, confidence_level)
    z = normal_quantile(confidence_level)
    delta = int(np.ceil(z * z * psa_variance_factor(WORST_CASE_JACCARD) / width**2))

    def every_outcome_narrow(u: int) -> bool:
        a = np.arange(u + 1, dtype=float)
        hw = psa_conditional_interval(a, float(u), confidence_level, "wilson").half_width
        return bool(np.max(hw) <= width)

    guarantee = smallest_passing(every_outcome_narrow, delta, 100 * delta + 100)
    # the maximum over outcomes wobbles with U; walk up until a run of U's all pass
    guard = step_guard("walking up to a run of narrow outcomes", 1000)
    while not all(every_outcome_narrow(u) for u in range(guarantee, guarantee + 20)):
        guard()
        guarantee += 1
    return {"delta": delta, "wilson": guarantee}


def union_positives_for_assurance(
    jaccard: float,
    width: float,
    confidence_level: float = 0.95,
    assurance: float = 0.5,
    method: str = "wilson",
    max_union_positives: int = 10_000_000,
) -> int:
    """Fixed union positives (the stop rule) with ``P(hw <= width | U) >= assurance``.

    Exact: given ``U``, ``a ~ Bin(U, J)``. Returns the smallest ``U`` from which on the
    assurance holds over a run of 20 consecutive values (the exact curve wobbles with the
    discreteness of ``a``).
    """
    jaccard = check("jaccard", jaccard, RULES["jaccard"])
    _, width, confidence_level, assurance = check_target("psa", width, confidence_level, assurance)
    method = check_choice("method", method, EXACT_PSA_METHODS)
    max_union_positives = check(
        "max_union_positives", max_union_positives, RULES["max_union_positives"]
    )
    z = normal_quantile(confidence_level)
    start = max(int(np.ceil(z * z * psa_variance_factor(jaccard) / width**2)), 1)

    def passes(u: int) -> bool:
        return bool(
            conditional_psa_assurance(u, jaccard, width, confidence_level, method)[0] >= assurance
        )

    try:
        u = smallest_passing(passes, start, max_union_positives)
    except TargetUnreachable:
        raise TargetUnreachable(
            f"width {width:g} is not reached by the stop rule within max_union_positives "
            f"{max_union_positives}",
            parameters=("width", "max_union_positives"),
        ) from None
    guard = step_guard("walking up to a run of passing union positives", 1000)
    while True:
        guard()
        run = conditional_psa_assurance(
            np.arange(u, u + 20), jaccard, width, confidence_level, method
        )
        failing = np.flatnonzero(run < assurance)
        if failing.size == 0:
            return u
        u += int(failing[-1]) + 1


def items_for_union_positives(union_positives: int, union_rate: float, probability: float) -> int:
    """Smallest ``n`` with ``P(Bin(n, r) >= U) >= probability``.

    Equivalently the ``probability``-quantile of the items needed to reach the ``U``-th
    union positive (``n - U`` is negative binomial: failures before the ``U``-th success).

    >>> items_for_union_positives(186, 0.082, 0.9)
    2475
    """
    u = check("union_positives", union_positives, RULES["union_positives"])
    r = check("union_rate", union_rate, RULES["union_rate"])
    probability = check("probability", probability, RULES["probability"])
    if u <= 0:
        return 0
    if r >= 1.0:
        return u
    guess = int(np.ceil(u / r))
    cap = 10 * guess + 1000
    return smallest_passing_near(lambda n: binomial_at_least(u, n, r) >= probability, guess, cap)


def inverse_sampling_items(union_positives: int, union_rate: float) -> dict[str, float | int]:
    """Items needed to collect ``U`` union positives when labelling until the ``U``-th.

    Items minus ``U`` is negative binomial (failures before the ``U``-th success,
    success probability ``r``): mean ``U / r`` items, and the 90th percentile from its
    distribution function.

    >>> out = inverse_sampling_items(186, 0.082)
    >>> round(out["expected"]), out["p90"]
    (2268, 2475)
    """
    u = check("union_positives", union_positives, RULES["union_positives"])
    r = check("union_rate", union_rate, RULES["union_rate"])
    return {"expected": u / r, "p90": items_for_union_positives(u, r, 0.9)}
