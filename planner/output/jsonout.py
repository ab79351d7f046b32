"""JSON output: every command's one document, in the shape of ``planner-output.schema.json``.

Each document is an envelope (:func:`document`: ``schema_version``, ``command``,
``planner_version``, ``seed``, ``notes``) around the command's body, and the things that
appear in several commands are built by one function each, so that they have one shape
everywhere: :func:`interval_json`, :func:`coefficient_json`, :func:`budget_json`,
:func:`design_json` and :func:`decision_json`. A plan's document is built here from the
result (:func:`plan_document`, :func:`raters_plan_document`, :func:`precision_json`: results
do not import output); some other results' ``to_dict()`` methods still wrap a function here.
Values are made JSON-ready on the way: numpy values as plain Python, NaN and infinities as
null.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, fields, replace
from importlib import resources
from typing import Any

import numpy as np

from planner.errors import shown_note

#: the version of the documents' shape, as in the schema file
SCHEMA_VERSION = "2"
#: the schema file, shipped as package data next to this module
SCHEMA_FILE = "planner-output.schema.json"
#: every document's ``command``
COMMANDS = (
    "plan",
    "plan-comparison",
    "plan-raters",
    "plan-labelled",
    "plan-labelled-strata",
    "agree",
    "schedule",
    "fit",
    "compat-kappasize",
    "compat-irr",
    "alt-test",
    "alt-test-plan",
    "scenarios",
    "examples",
)

#: the interval of specific agreement per category (multirater.specific_agreement_interval)
SPECIFIC_METHOD = "Wald on the logit scale, linearised SE"

COEFFICIENT_LABELS = {
    "psa": "PSA (positive specific agreement)",
    "nsa": "NSA (negative specific agreement)",
    "observed_agreement": "observed agreement",
    "cohen_kappa": "Cohen's kappa",
    "cohen_kappa_quadratic": "Cohen's kappa, quadratic weights",
    "cohen_kappa_linear": "Cohen's kappa, linear weights",
    "fleiss_kappa": "Fleiss' kappa",
    "fleiss_kappa_quadratic": "Fleiss' kappa, quadratic weights",
    "fleiss_kappa_linear": "Fleiss' kappa, linear weights",
    "gwet_ac1": "Gwet's AC1",
    "gwet_ac2": "Gwet's AC2 (weighted)",
    "brennan_prediger": "Brennan-Prediger",
    "brennan_prediger_quadratic": "Brennan-Prediger, quadratic weights",
    "brennan_prediger_linear": "Brennan-Prediger, linear weights",
    "conger_kappa": "Conger's kappa",
    "conger_kappa_quadratic": "Conger's kappa, quadratic weights",
    "conger_kappa_linear": "Conger's kappa, linear weights",
    "pabak": "PABAK",
    "krippendorff_alpha": "Krippendorff's alpha",
}
#: the names of the metrics a plan sizes, where they differ from the coefficients' names
METRIC_LABELS = {
    "kappa": "Cohen's kappa",
    "fleiss": "Fleiss' kappa",
    "alpha": "Krippendorff's alpha",
}


def label_of(name: str) -> str:
    """A coefficient's or sized metric's name in words (the name itself when unknown).

    >>> label_of("fleiss_kappa_quadratic"), label_of("alpha"), label_of("ac9")
    ("Fleiss' kappa, quadratic weights", "Krippendorff's alpha", 'ac9')
    """
    return COEFFICIENT_LABELS.get(name) or METRIC_LABELS.get(name, name)


def json_ready(value: Any) -> Any:
    """Recursively turn numpy arrays and scalars into Python values and non-finite floats
    into None, so ``json.dumps(..., allow_nan=False)`` accepts the result.

    >>> json_ready({"a": np.float64("nan"), "b": np.arange(2), "c": (1.5, float("inf"))})
    {'a': None, 'b': [0, 1], 'c': [1.5, None]}
    """
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_ready(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def load_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) every document follows."""
    import json

    text = resources.files("planner.output").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


# --------------------------------------------------------------------------- envelope


def document(
    command: str, body: Mapping[str, Any], *, seed: int | None, notes: Any = ()
) -> dict[str, Any]:
    """One command's JSON document: the envelope, then ``body``, JSON-ready.

    >>> list(document("schedule", {"runs": 3}, seed=1))
    ['schema_version', 'command', 'planner_version', 'seed', 'notes', 'runs']
    """
    from planner import __version__

    assert command in COMMANDS, command
    head = {
        "schema_version": SCHEMA_VERSION,
        "command": command,
        "planner_version": __version__,
        "seed": None if seed is None else int(seed),
        "notes": [shown_note(n) for n in notes],
    }
    rest = {k: v for k, v in body.items() if k not in head}
    return json_ready({**head, **rest})


# --------------------------------------------------------------------------- shared objects


def interval_json(
    lower: Any, upper: Any, *, level: float, method: str, covers: str
) -> dict[str, Any]:
    """An interval: its bounds, confidence level, method and the quantity it covers.

    >>> interval_json(0.1, 0.3, level=0.95, method="Wilson", covers="PSA of A and B")["covers"]
    'PSA of A and B'
    """
    return {
        "lower": _number(lower),
        "upper": _number(upper),
        "level": float(level),
        "method": str(method),
        "covers": covers,
    }


def coefficient_json(
    name: str,
    estimate: Any,
    interval: dict[str, Any] | None,
    *,
    se: Any = None,
    n_items: Any = None,
    note: str | None = None,
    label: str | None = None,
) -> dict[str, Any]:
    """A coefficient: name, label in words, estimate, standard error, interval, items, note."""
    return {
        "name": name,
        "label": label or label_of(name),
        "estimate": _number(estimate),
        "se": _number(se),
        "interval": interval,
        "n_items": None if n_items is None else int(n_items),
        "note": note or None,
    }


def budget_json(budget: Any) -> dict[str, Any]:
    """A budget (:class:`planner.operations.budget.Budget`) as its seven numbers."""
    return {
        "items": int(budget.items),
        "labels": int(budget.labels),
        "labelling_hours": float(budget.labelling_hours),
        "contested_items": float(budget.contested_items),
        "adjudication_hours": float(budget.adjudication_hours),
        "person_hours": float(budget.person_hours),
        "cost": _number(budget.cost),
    }


def design_json(name: str, design: Any, cost: Any, hours_vs_uniform: float) -> dict[str, Any]:
    """One design of a comparison (a ``DesignResult``) with its budget."""
    return {
        **asdict(design),
        "design": name,
        "items": int(design.items),
        "hours_vs_uniform": hours_vs_uniform,
        "prevalence_slice_hours": cost.prevalence_slice_hours,
        "budget": budget_json(cost.budget),
    }


def decision_json(decision: Any, *, level: float, method: str, covers: str) -> dict[str, Any]:
    """A verdict against thresholds set in advance (a ``measuring.decision.Decision``)."""
    d = decision
    return {
        "verdict": d.verdict,
        "metric": d.metric,
        "rule": (
            f"demonstrated when the interval's lower bound is at least {d.demonstrated_at:g}; "
            f"not demonstrated when its upper bound is below {d.not_demonstrated_below:g}; "
            "otherwise inconclusive"
        ),
        "not_demonstrated_below": d.not_demonstrated_below,
        "demonstrated_at": d.demonstrated_at,
        "estimate": _number(d.estimate),
        "interval": interval_json(d.ci_low, d.ci_high, level=level, method=method, covers=covers),
        "reason": d.reason,
    }


def _number(value: Any) -> Any:
    """A finite float (or int) as itself, NaN, infinities and None as None."""
    if value is None:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _relabelled(interval: Mapping[str, Any], covers: str) -> dict[str, Any]:
    """An interval built elsewhere as ``{lower, upper, level, method}``, with ``covers``."""
    return interval_json(
        interval["lower"],
        interval["upper"],
        level=interval["level"],
        method=interval["method"],
        covers=covers,
    )


# --------------------------------------------------------------------------- plan


def stop_rule_json(rule: Any) -> dict[str, Any] | None:
    """A :class:`~planner.sizing.sampling_rules.StopRule` as JSON: its costs only when a
    named team priced them."""
    if rule is None:
        return None
    body = asdict(rule)
    if rule.cost_expected is None and rule.cost_p90 is None:
        del body["cost_expected"], body["cost_p90"]
    return body


def plan_document(plan: Any, schedule: Any = None) -> dict[str, Any]:
    """``plan`` for an annotator pair: inputs, model, results per metric, recommendation."""
    results = {name: _sized_metric(plan, name) for name in plan.results}
    body: dict[str, Any] = {
        "inputs": {"model": plan.model.assumptions, **_settings_json(plan.settings)},
        "model": {"source": plan.model.source, **plan.model.summary()},
        "results": results,
        "recommendation": _recommendation_json(plan),
        "worst_case": asdict(plan.worst_case),
        "stop_rule": stop_rule_json(plan.stop_rule),
        "replicates": plan.settings.replicates,
    }
    if plan.pilot is not None:
        body["pilot"] = pilot_json(plan.pilot)
    if plan.uncertainty is not None:  # the metric that needs the most items under it
        body["uncertainty"] = uncertainty_json(plan.uncertainty)
    if len(plan.uncertainty_by_metric) > 1:
        body["uncertainty_by_metric"] = {
            m: uncertainty_json(u) for m, u in plan.uncertainty_by_metric.items()
        }
    if plan.precision is not None:
        body["precision"] = precision_json(plan.precision)
    if plan.curve is not None:
        body["assurance_curve"] = plan.curve
    if schedule is not None:
        body["schedule"] = {**schedule_body(schedule), "notes": list(schedule.notes)}
    return document("plan", body, seed=plan.seed, notes=plan.notes)


def _settings_json(settings: Any) -> dict[str, Any]:
    """A pair's or a stratified comparison's settings; a named team (``team``) as its people's
    seconds, rates and shares (no ``team`` key without one). ``level`` and ``per_item`` are left
    out: they describe studies of several annotators and do not enter these answers."""
    body = asdict(replace(settings, team=None))
    for several_only in ("team", "level", "per_item"):
        body.pop(several_only)
    if settings.team is not None:
        body["team"] = settings.team.summary()
    return body


def _recommendation_json(plan: Any) -> dict[str, Any]:
    """The items to label and their budget; with a pilot, the uncertainty-aware answer."""
    deciding = plan.deciding_metric
    body: dict[str, Any] = {
        "metric": deciding,
        "items": plan.items,
        "union_positives": plan.results[deciding].union_positives,
        "budget": budget_json(plan.budget),
    }
    if plan.recommended is not None:
        body.update(
            union_positives=plan.recommended.union_positives,
            basis=plan.recommended.basis,
            plug_in_items=plan.recommended.plug_in_items,
        )
    return body


def _sized_metric(plan: Any, name: str) -> dict[str, Any]:
    """One metric's sample size, its median interval, curve and budget."""
    from planner.sizing.search import SEVERAL_ONLY_FIELDS

    res = plan.results[name]
    entry = {k: v for k, v in asdict(res).items() if k not in SEVERAL_ONLY_FIELDS}
    for key in ("half_width_median", "half_width_at_assurance", "interval_median", "replicates"):
        entry.pop(key)
    label = label_of(name)
    return {
        **entry,
        "half_width": {
            "median": res.half_width_median,
            "at_assurance": res.half_width_at_assurance,
        },
        "interval": interval_json(
            res.interval_median[0],
            res.interval_median[1],
            level=res.confidence_level,
            method=res.method,
            covers=f"{label}, for the annotator pair: the median simulated study's interval",
        ),
        "replicates": res.replicates,
        "curve": [{"items": n, "assurance": a} for n, a in res.curve],
        "budget": budget_json(plan.budgets[name]),
    }


def pilot_json(pilot: Any) -> dict[str, Any]:
    """The pilot a plan was made from: its pair's counts and coefficients with intervals, or
    (three or more annotators and no pair) the fitted model's description."""
    coefficients = []
    if pilot.pair is not None:
        pair = " and ".join(pilot.pair)
        for c in (pilot.psa, pilot.kappa):
            if c is None:
                continue
            covers = f"{label_of(c.name)}, for annotators {pair} in the pilot"
            level, method = c.level, c.method
            interval = interval_json(c.lower, c.upper, level=level, method=method, covers=covers)
            coefficients.append(coefficient_json(c.name, c.estimate, interval, n_items=pilot.items))
    counts = None
    if pilot.counts is not None:
        counts = dict(zip(("both", "a_only", "b_only", "neither"), pilot.counts, strict=True))
    return {
        "file": pilot.source,
        "annotators": list(pilot.annotators),
        "pair": list(pilot.pair) if pilot.pair is not None else None,
        "positive": pilot.positive,
        "items": pilot.items,
        "counts": counts,
        "coefficients": coefficients,
        "model": getattr(pilot, "description", None),
        "notes": list(pilot.notes),
    }


def uncertainty_json(u: Any) -> dict[str, Any]:
    """The plan under the pilot's uncertainty of one metric (``sizing.uncertainty`` for PSA,
    ``sizing.uncertainty_kappa`` for Cohen's kappa)."""
    metric = getattr(u, "metric", "psa")
    body = {
        "items_under_uncertainty": u.items,
        "metric": metric,
        "hybrid_assurance": u.hybrid_assurance,
        "target_assurance": u.target_assurance,
        "plug_in_items": u.plug_in_items,
        "plug_in_hybrid_assurance": u.plug_in_hybrid_assurance,
        "items_per_truth": dict(u.per_truth),
        f"{metric}_posterior": dict(getattr(u, f"{metric}_posterior")),
        "pilot_counts": list(u.counts),
        "prior": u.prior,
        "method": u.method,
        "basis": u.basis,
        "seed": u.seed,
        "explanation": u.explanation,
    }
    if metric == "psa":
        body.update(
            unreachable_share=u.unreachable_share,
            draws=u.draws,
            replicates=u.replicates,
            items_mc_se=u.items_mc_se,
            hybrid_assurance_se=u.hybrid_assurance_se,
        )
    else:
        body.update(
            simulated_studies=u.replicates,
            standard_error=u.standard_error,
            items_mc_se=u.items_mc_se,
            items_per_truth_basis=u.per_truth_basis,
        )
    if getattr(u, "notes", None):  # for example the bound on the posterior lattices was hit
        body["notes"] = list(u.notes)
    return body


def precision_json(precision: Any) -> dict[str, Any]:
    """The precision a fixed number of items reaches, per metric."""
    metrics = {}
    for name, m in precision.metrics.items():
        label = label_of(name)
        covers = f"{label}, for the annotator pair: the median simulated study's interval"
        metrics[name] = {**asdict(m), "interval": _relabelled(m.interval, covers)}
    return {
        "items": precision.items,
        "given": dict(precision.given),
        "width": precision.width,
        "person_hours": precision.person_hours,
        "cost": precision.cost,
        "metrics": metrics,
        "seed": precision.seed,
    }


def comparison_document(comparison: Any, schedule: Any = None) -> dict[str, Any]:
    """``plan`` on a stratified scenario: the three designs compared, each with its budget."""
    c = comparison
    designs = {
        name: design_json(name, res, c.costs[name], c.hours_ratio(name))
        for name, res in c.designs.items()
    }
    body: dict[str, Any] = {
        "scenario": {
            "name": c.scenario.name,
            "path": c.scenario.path,
            "description": c.scenario.description,
        },
        "inputs": _settings_json(c.settings),
        "strata": c.strata,
        "population": c.population,
        "designs": designs,
        "per_stratum_psa": c.per_stratum_psa,
        "weighted_bootstrap_check": c.weighted_bootstrap_check,
        "claim_check": {
            "claim": "enrichment buys the same interval for a fifth of the hours",
            "enriched_hours_vs_uniform": c.hours_ratio("enriched"),
            "enriched_hours_vs_uniform_without_prevalence_slice": c.hours_ratio(
                "enriched", with_slice=False
            ),
            "weighted_hours_vs_uniform": c.hours_ratio("weighted"),
        },
    }
    if c.raters is not None:  # several annotators: which coefficients psa and kappa are
        body["annotators"] = {
            "count": c.raters.n_annotators,
            "psa": "specific positive agreement (Uebersax) among all the annotators",
            "kappa": "Fleiss' kappa",
        }
        if c.raters.per_item is not None:  # k of the M annotators label each item
            body["annotators"]["per_item"] = c.raters.per_item
    if c.pilot_uncertainty is not None:  # a pilot's strata: the weighted design under it
        u = c.pilot_uncertainty
        body["pilot_uncertainty"] = {
            "design": "weighted",
            "items": u.items,
            "items_per_stratum": list(u.items_per_stratum),
            "hybrid_assurance": u.assurance,
            "plug_in_items": u.plug_in_items,
            "plug_in_hybrid_assurance": u.plug_in_assurance,
            "target_assurance": u.target_assurance,
            "replicates": u.replicates,
            "truth": "each stratum from Dirichlet(pilot counts + 1/2)",
        }
    if schedule is not None:
        body["schedule"] = {**schedule_body(schedule), "notes": list(schedule.notes)}
    return document("plan-comparison", body, seed=c.seed, notes=c.notes)


def _raters_recommendation_json(plan: Any) -> dict[str, Any]:
    """A several-annotator plan's items to label and their budget, in the pair's shape: the
    plug-in answer, or with a pilot the answer under its uncertainty (``basis``,
    ``plug_in_items``). ``union_positives`` is ``null``: a union of M annotators has no one
    expected count that the pair's PSA arithmetic gives."""
    body: dict[str, Any] = {
        "metric": plan.sizing.metric,
        "items": plan.items,
        "union_positives": None,
        "budget": budget_json(plan.budget),
    }
    if plan.recommended is not None:
        body.update(basis=plan.recommended.basis, plug_in_items=plan.recommended.plug_in_items)
    return body


def raters_plan_document(plan: Any, schedule: Any = None) -> dict[str, Any]:
    """``plan --annotators M``: the sample size for several annotators and its evidence; with
    ``schedule`` (a scenario's ``[team]``), its numbers as the ``schedule`` section."""
    from planner.sizing.search import PAIR_ONLY_FIELDS

    s = plan.sizing
    label = label_of(s.metric)
    interval = interval_json(
        s.true_value - s.half_width_median,
        s.true_value + s.half_width_median,
        level=s.confidence_level,
        method=s.method,
        covers=f"{label}, for {s.n_annotators} annotators: the median simulated study's interval",
    )
    body = {
        "kind": "multi-rater",
        "items": plan.items,
        "recommendation": _raters_recommendation_json(plan),
        "sizing": {
            k: v for k, v in asdict(s).items() if k != "curve" and k not in PAIR_ONLY_FIELDS
        },
        "curve": [list(p) for p in s.curve],
        "expected_coefficient": coefficient_json(s.metric, s.true_value, interval),
        "budget": budget_json(plan.budget),
        "sizing_budget": budget_json(plan.sizing_budget),
        # of the items to label (the recommendation), as items and budget are
        "hours_per_annotator": plan.hours_per_annotator,
        "precision_by_annotators": [asdict(r) for r in plan.by_annotators],
        "model": plan.model.describe(),
    }
    if plan.pilot is not None:
        pilot = plan.pilot
        body["pilot"] = {
            "source": pilot.source,
            "annotators": list(pilot.annotators),
            "items": pilot.items,
            "categories": list(pilot.categories),
            "positive": pilot.positive,
            "bootstrap_refits": len(pilot.draws),
            "unconverged": pilot.unconverged,
            "seed": pilot.seed,
        }
    if plan.uncertainty is not None:
        body["uncertainty"] = asdict(plan.uncertainty)
    if plan.precision is not None:
        body["precision"] = raters_precision_json(plan.precision)
    if plan.curve is not None:
        body["assurance_curve"] = plan.curve
    if schedule is not None:
        body["schedule"] = {**schedule_body(schedule), "notes": list(schedule.notes)}
    return document("plan-raters", body, seed=s.seed, notes=plan.notes)


def raters_precision_json(precision: Any) -> dict[str, Any]:
    """The precision a fixed number of items reaches with several annotators per item."""
    p = precision
    interval = interval_json(
        p.interval["lower"],
        p.interval["upper"],
        level=p.confidence_level,
        method=p.method,
        covers=f"{label_of(p.metric)}, for {p.n_annotators} annotators: the median simulated "
        "study's interval",
    )
    body = {k: v for k, v in asdict(p).items() if k != "interval"}
    return {**body, "interval": interval}


# --------------------------------------------------------------------------- agree, fit


def fit_document(fit: Any, rates: Any = None, *, notes: Any = (), **extra: Any) -> dict[str, Any]:
    """``planner fit``: prevalences and confusion matrices with intervals, and with ``rates``
    (:meth:`~planner.statistics.dawid_skene.LatentClassFit.binary`) the binary rates.

    ``extra`` (the CLI's ``source`` and ``input``) is added to the body.
    """
    cats = [str(c) for c in fit.categories]

    def interval(limits: Any, covers: str) -> dict[str, Any]:
        lower, upper = (float(x) for x in limits)
        ok = math.isfinite(lower)
        method = "item bootstrap percentile" if ok else "none"
        return interval_json(lower, upper, level=fit.confidence_level, method=method, covers=covers)

    def cell(j: int, name: str, t: int, k: int) -> dict[str, Any]:
        covers = f"probability that annotator {name} labels {cats[k]} an item of class {cats[t]}"
        return {
            "estimate": float(fit.confusion[j, t, k]),
            "interval": interval(fit.confusion_interval[j, t, k], covers),
        }

    n = fit.n_categories
    body: dict[str, Any] = {
        "n_items": fit.n_items,
        "n_patterns": len(fit.multiplicity),
        "categories": list(fit.categories),
        "annotators": list(fit.annotators),
        "prevalence": [
            {
                "category": fit.categories[t],
                "estimate": float(fit.prevalence[t]),
                "interval": interval(fit.prevalence_interval[t], f"prevalence of class {cats[t]}"),
            }
            for t in range(n)
        ],
        "confusion": {
            name: {cats[t]: {cats[k]: cell(j, name, t, k) for k in range(n)} for t in range(n)}
            for j, name in enumerate(fit.annotators)
        },
        "log_likelihood": fit.log_likelihood,
        "iterations": fit.iterations,
        "converged": fit.converged,
        "convergence_rule": f"largest parameter change < {fit.tolerance:g} "
        f"within {fit.max_iter:,} iterations",
        "n_boot": fit.n_boot,
        "bootstrap_unconverged": fit.bootstrap_unconverged,
        **extra,
    }
    if rates is not None:
        body["binary"] = _binary_rates(fit, rates)
    return document("fit", body, seed=fit.seed, notes=notes)


def _binary_rates(fit: Any, rates: Any) -> dict[str, Any]:
    """Sensitivity, specificity, error rate, false-positive share and bias per annotator."""
    return {
        "positive": rates.positive,
        "prevalence": rates.prevalence,
        "annotators": [
            {
                "annotator": name,
                "sensitivity": float(rates.sensitivity[j]),
                "specificity": float(rates.specificity[j]),
                "error_rate": float(rates.error_rate[j]),
                "false_positive_share": float(rates.false_positive_share[j]),
                "bias": float(rates.bias[j]),
            }
            for j, name in enumerate(fit.annotators)
        ],
    }


# --------------------------------------------------------------------------- schedule


def schedule_body(result: Any) -> dict[str, Any]:
    """A schedule's numbers without the envelope (the ``schedule`` section of a plan)."""
    skip = {"records", "notes", "seed", "operation", "team"}
    body = {f.name: getattr(result, f.name) for f in fields(result) if f.name not in skip}
    out = {"operation": asdict(result.operation), **body, "seed": result.seed}
    if getattr(result, "team", None) is not None:
        out["team"] = team_json(result.team)
    return out


def team_json(team: Any) -> dict[str, Any]:
    """A named team's schedule: finish quantiles (dates with a start), the deadline's odds,
    each person's share, cost and bottleneck
    (:class:`planner.operations.team_outcome.TeamOutcome`)."""
    people = [asdict(row) for row in (*team.annotators, *team.adjudicators)]
    return {
        "start": None if team.start is None else team.start.isoformat(),
        "finish": team.finish_dates if team.finish_dates is not None else team.finish_days,
        "finish_days": team.finish_days,
        "deadline": None if team.deadline is None else team.deadline.isoformat(),
        "p_finish_by_deadline": team.p_deadline,
        "annotators": [p for p in people if p["role"] == "annotator"],
        "adjudicators": [p for p in people if p["role"] == "adjudicator"],
        "cost_median": team.cost_median,
        "cost_p90": team.cost_p90,
        "bottleneck": {"name": team.bottleneck, "share_of_runs": team.bottleneck_share},
        "assignment": team.assignment,
        "min_shared_items": {"asked": team.min_shared_items, "reached": team.min_shared_reached},
    }


def schedule_document(result: Any) -> dict[str, Any]:
    """``planner schedule``: calendar days, person-hours and the burn-down over runs."""
    return document("schedule", schedule_body(result), seed=result.seed, notes=result.notes)


# alt-test: planner.output.alt_test_json


# --------------------------------------------------------------------------- compat, scenarios


def compat_document(command: str, body: Mapping[str, Any], *, seed: int) -> dict[str, Any]:
    """``planner compat kappasize|irr``: R's answer, the criterion and the simulated verdict."""
    return document(command, body, seed=seed)


def scenarios_document(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """``planner scenarios``: the scenarios shipped with planner."""
    return document("scenarios", {"scenarios": rows}, seed=None)


def examples_document(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """``planner examples``: the example label files shipped with planner (or copied)."""
    return document("examples", {"examples": rows}, seed=None)


def _remaining_json(r: Any) -> dict[str, Any]:
    """One metric's mid-study plan (:class:`planner.sizing.midstudy_result.RemainingPlan`)."""
    label = label_of(r.metric)
    low, high = r.interval_now
    who = "the annotator pair" if r.counts is not None else f"the {len(r.annotators)} annotators"
    covers = f"{label}, for {who}, on the {r.labelled_items:,} items labelled so far"
    return {
        "metric": r.metric,
        "estimate_now": _number(r.estimate),
        "interval_now": interval_json(
            low, high, level=r.confidence_level, method=r.method, covers=covers
        ),
        "half_width_now": _number(r.half_width_now),
        "coverage_now": _number(r.coverage_now),
        "remaining_items": r.remaining_items,
        "remaining_items_mc_se": _number(r.remaining_mc_se),
        "total_items": r.total_items,
        "assurance": _number(r.assurance),
        "assurance_se": _number(r.assurance_se),
        "assurance_now": _number(r.assurance_now),
        "assurance_planned": _number(r.assurance_planned),
        "final_coverage": {"coverage": r.final_coverage, "se": r.final_coverage_se},
        "budget": budget_json(r.budget),
        "basis": r.basis,
    }


def labelled_document(r: Any) -> dict[str, Any]:
    """``plan --labelled``: a study in progress, its first stage kept in the final analysis.

    The body holds the deciding metric's numbers at top level (``remaining_items``,
    ``total_items``, ``assurance``, ``half_width_now``, ...), ``recommendation.items`` the items
    still to label, ``labelled`` the first stage, ``batches`` the batch procedure (or null) and,
    with ``--metric both``, ``by_metric``.
    """
    if r.counts is None:  # several annotators: who, and the fit's plausible truths
        labelled: dict[str, Any] = {
            "items": r.labelled_items, "annotators": list(r.annotators),
            "categories": list(r.categories), "positive": r.positive,
            "bootstrap_refits": len(r.pilot.draws),
        }  # fmt: skip
    else:
        counts = dict(zip(("both", "a_only", "b_only", "neither"), r.counts, strict=True))
        labelled = {"items": r.labelled_items, "counts": counts}
    body: dict[str, Any] = {
        "inputs": {
            "width": r.width,
            "confidence_level": r.confidence_level,
            "assurance": r.target_assurance,
            "metric": r.metric,
            "method": r.method,
            "planned_items": r.planned_items,
            **_costs_json(r.costs),
        },
        "labelled": labelled,
        **_remaining_json(r),
        "planned_items": r.planned_items,
        "recommendation": {
            "metric": r.metric,
            "items": r.remaining_items,
            "total_items": r.total_items,
            "budget": budget_json(r.budget),
            "basis": r.basis,
        },
        "batches": None if r.batches is None else asdict(r.batches),
    }
    if r.stage is not None:
        body["labelled"]["file"] = pilot_json(r.stage)
    if r.by_metric:
        body["by_metric"] = {m: _remaining_json(p) for m, p in r.by_metric.items()}
    from planner.output.midstudy_budget_json import add_bought

    add_bought(body, r)  # --hours/--budget: what they buy
    return document("plan-labelled", body, seed=r.seed, notes=r.notes)


def _costs_json(costs: Any) -> dict[str, Any]:
    """A study in progress's ``inputs``: what a remaining label costs, and the named team
    (null: every label at the hourly rate)."""
    keys = ("annotators_per_item", "seconds_per_item", "adjudication_seconds", "hourly_rate")
    found = {k: getattr(costs, k, None) for k in keys}
    team = getattr(costs, "team", None)
    return {**found, "team": None if team is None else team.summary()}


def labelled_strata_document(r: Any) -> dict[str, Any]:
    """``plan --labelled --stratum-col``: a stratified study in progress; the keys of
    :func:`labelled_document` that apply (``batches`` the batch procedure, or null), and
    ``strata`` (each stratum's items in hand and still to label) and ``shares_check`` (the
    first stage's strata shares against the design's)."""
    low, high = r.interval_now
    covers = (
        f"population-weighted {r.metric_name} on the {r.labelled_items:,} items labelled so far"
    )
    body: dict[str, Any] = {
        "inputs": {
            "width": r.width,
            "confidence_level": r.confidence_level,
            "assurance": r.target_assurance,
            "metric": r.metric,
            "labels_per_item": r.labels_per_item,
            "team": None if r.team is None else r.team.summary(),
        },  # fmt: skip
        "labelled": {"items": r.labelled_items, "file": r.source},
        "metric": r.metric,
        "estimate_now": _number(r.estimate),
        "interval_now": interval_json(
            low,
            high,
            level=r.confidence_level,
            method="linearised ratio estimator, t",
            covers=covers,
        ),  # fmt: skip
        "half_width_now": _number(r.half_width_now),
        "remaining_items": r.remaining_items,
        "total_items": r.total_items,
        "design_total": r.design_total,
        "assurance": _number(r.assurance),
        "assurance_se": _number(r.assurance_se),
        "assurance_now": _number(r.assurance_now),
        "final_coverage": {"coverage": r.final_coverage, "se": r.final_coverage_se},
        "budget": budget_json(r.budget),
        "basis": r.basis,
        "strata": [
            {
                "name": s.name,
                "share": s.share,
                "design_share": s.design_share,
                "labelled": s.labelled,
                "union_positives": s.union_positives,
                "remaining": s.remaining,
                "total": s.total,
            }
            for s in r.strata
        ],  # fmt: skip
        "shares_check": asdict(r.shares_check),
        "batches": None if getattr(r, "batches", None) is None else asdict(r.batches),
        "recommendation": {
            "metric": r.metric,
            "items": r.remaining_items,
            "total_items": r.total_items,
            "budget": budget_json(r.budget),
            "basis": r.basis,
        },  # fmt: skip
    }
    from planner.output.midstudy_budget_json import add_bought

    add_bought(body, r)  # --hours/--budget: what they buy
    return document("plan-labelled-strata", body, seed=r.seed, notes=r.notes)


def with_batches(doc: dict[str, Any], batches: Any) -> dict[str, Any]:
    """``plan --batch-size`` without ``--labelled``: the plan's document with ``batches``, the
    batch procedure from the plan's model (its notes added to the document's)."""
    if batches is None:
        return doc
    notes = [*doc.get("notes", []), *batches.notes]
    return {**doc, "notes": notes, "batches": json_ready(asdict(batches))}


def plan_result_document(result: Any, schedule: Any = None) -> dict[str, Any]:
    """``plan``'s document: :func:`comparison_document` for a ``Comparison``, else
    :func:`plan_document`; with ``schedule``, its numbers as the ``schedule`` section."""
    from planner.sizing.compare import Comparison

    if isinstance(result, Comparison):
        return comparison_document(result, schedule)
    return plan_document(result, schedule)


def stratified_json(report: Any) -> dict[str, Any]:
    """``agree --stratum-col``: the population-weighted coefficients (each with its unweighted
    figure and the t interval's degrees of freedom), the per-stratum table and the decision."""
    level = report.confidence_level
    coefficients = {}
    for key, c in report.coefficients.items():
        covers = f"{label_of(c.name)} on the population, strata weighted by their shares"
        entry = coefficient_json(
            c.name,
            c.estimate,
            interval_json(c.ci_low, c.ci_high, level=level, method=c.method, covers=covers),
            se=c.se,
            n_items=report.n_items,
            label=f"{label_of(c.name)}, population-weighted",
        )
        coefficients[key] = {**entry, "df": _number(c.df), "unweighted": _number(c.unweighted)}
    decision = None
    if report.decision is not None:
        chosen = report.coefficients[report.decision.metric]
        decision = decision_json(
            report.decision,
            level=level,
            method=chosen.method,
            covers=f"{label_of(chosen.name)} on the population",
        )
    return {
        "stratum_col": report.stratum_col,
        "confidence_level": level,
        "positive": report.positive,
        "n_items": report.n_items,
        "strata": [
            {
                "name": s.name,
                "share": s.share,
                "n_items": s.n_items,
                "union_positives": s.union_positives,
                "psa": _number(s.psa),
            }
            for s in report.strata
        ],
        "coefficients": coefficients,
        "decision": decision,
        "notes": list(report.notes),
    }
