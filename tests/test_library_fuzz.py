"""The library's public functions at the door: bad types and values raise planner errors.

For every function exported from :mod:`planner` (the notebook user's API) a valid, cheap
baseline call is written below; hypothesis then replaces one parameter at a time by a value
of the wrong type or past the edge of its range. The call must either succeed (the value
was acceptable after all) or raise a :class:`~planner.errors.PlannerError`; an
:class:`~planner.errors.InvalidInput` must name the parameter (``exc.parameter``, or the
name in its message). A raw ``TypeError``, ``AttributeError`` or ``ValueError`` from inside
the library fails the test.
"""

from __future__ import annotations

import functools
import inspect
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import planner
from planner.errors import InvalidInput, PlannerError

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
WIDE = str(ROOT / "examples" / "labels.csv")
PILOT = str(ROOT / "examples" / "pilot.csv")
VECTORS = str(ROOT / "examples" / "vector-counts.csv")
PATTERNS = str(ROOT / "examples" / "category-counts.csv")


def _ratings():
    return planner.ratings_from_counts(40, 5, 7, 148)


def _multi():
    rows = np.array([[0, 1, 1, 0, 2, 1, 0, 0], [0, 1, 0, 0, 2, 1, 1, 0], [0, 1, 1, 0, 2, 2, 0, 0]])
    return planner.ratings_from_matrix(rows, ["a", "b", "c"], rows="annotators")


def _pair():
    return planner.pair_from_annotators(0.1, 0.05)


def _alt_model():
    return planner.alt_test_model(humans=3, categories=2)


@functools.cache
def _raters_plan():
    settings = planner.PlanSettings(width=0.4, replicates=400)
    return planner.plan_remaining_raters(
        _multi(), settings, planner.RemainingSettings(draws=20), rng=1
    )


def _strata_stage():
    return planner.StrataStage([[20, 5, 4, 71], [30, 6, 6, 58]], ["a", "b"], [0.6, 0.4], [0.5, 0.5])


# function -> (positional arguments, keyword arguments) of a valid and cheap call
BASELINES = {
    "pair_from_annotators": lambda: ((0.1,), {"error_rate": 0.05, "bias": 0.0, "ambiguity": 0.0}),
    "pair_from_union_rate": lambda: ((0.1, 0.7), {"a_share": 0.5}),
    "pair_from_counts": lambda: (([40, 5, 7, 148],), {}),
    "pair_from_agreement": lambda: ((0.1,), {"psa": 0.7, "bias": 0.0, "ambiguity": 0.0}),
    "PlanSettings": lambda: ((), {"width": 0.1, "replicates": 100, "hourly_rate": 30.0}),
    "make_plan": lambda: ((_pair(), planner.PlanSettings(width=0.2, replicates=100)), {"rng": 1}),
    "SearchSettings": lambda: ((), {"metric": "psa", "width": 0.2, "replicates": 100}),
    "find_sample_size": lambda: (
        (_pair(), planner.SearchSettings(width=0.2, replicates=100, max_items=100_000)),
        {"rng": 1},
    ),
    "ratings_from_counts": lambda: ((40, 5, 7, 148), {}),
    "ratings_from_matrix": lambda: (
        (np.array([[0, 1, 1, 0], [0, 1, 0, 0]]),),
        {"annotators": ["a", "b"], "rows": "annotators"},
    ),
    "ReaderSettings": lambda: ((), {"layout": "auto", "missing": (), "repeats": "refuse"}),
    "read_labels": lambda: ((WIDE, planner.ReaderSettings(layout="auto", missing=())), {}),
    "ratings_from_vector_counts": lambda: ((VECTORS,), {"by": ("week",), "missing": ()}),
    "ratings_from_category_counts": lambda: ((PATTERNS,), {"count_col": "count"}),
    "MeasureSettings": lambda: ((), {"confidence_level": 0.9, "n_boot": 200, "level": "nominal"}),
    "measure_agreement": lambda: (
        (_ratings(), planner.MeasureSettings(confidence_level=0.9, n_boot=200)),
        {"rng": 1},
    ),
    "kappasize": lambda: (("CIBinary",), {"kappa0": 0.4, "kappaL": 0.3, "props": 0.3}),
    "irr": lambda: (("N.cohen.kappa",), {"rate1": 0.5, "rate2": 0.5, "k1": 0.7, "k0": 0.85}),
    "alt_test_model": lambda: (
        (),
        {
            "humans": 3,
            "categories": 2,
            "human_error": 0.2,
            "llm_error": 0.2,
            "prevalences": [0.5, 0.5],
            "error_draw": "uniform",
        },
    ),  # fmt: skip
    "pass_probability": lambda: (
        (_alt_model(), 40, planner.AltTestPlanSettings(epsilon=0.2, replicates=100)),
        {"rng": 1},
    ),
    "AltTestPlanSettings": lambda: (
        (),
        {"epsilon": 0.2, "q": 0.05, "min_items": 30, "replicates": 100, "seconds_per_item": 90.0},
    ),
    "raters_model": lambda: ((0.2,), {"n_annotators": 3, "error_rate": 0.1, "ambiguity": 0.0}),
    "pilot_from_ratings": lambda: ((_ratings(),), {"confidence_level": 0.95}),
    "read_pilot": lambda: ((PILOT,), {"confidence_level": 0.95}),
    "items_under_uncertainty": lambda: (
        ((40, 5, 7, 148), planner.PlanSettings(width=0.2, max_items=100_000)),
        {"draws": 20, "plug_in_items": 100, "rng": 1},
    ),
    "fixed_size_precision": lambda: (
        (_pair(), planner.PlanSettings(replicates=100)),
        {"items": 200, "rng": 1},
    ),
    "assurance_curve": lambda: (
        (_pair(), "psa", planner.PlanSettings(replicates=100), [100, 200]),
        {"rng": 1},
    ),
    "alt_test": lambda: ((_multi(), ["c"]), {"epsilon": 0.2, "q": 0.05, "min_items": 2}),
    "LatentClassSettings": lambda: ((), {"n_boot": 0, "max_iter": 50}),
    "fit_latent_classes": lambda: (
        (_multi(), planner.LatentClassSettings(n_boot=0, max_iter=50)),
        {"rng": 1},
    ),
    "load_scenario": lambda: (("unsupported-claims",), {}),
    "ProgressSettings": lambda: (
        (str(ROOT / "examples" / "labelled-600.csv"),),
        {"pair": ("ann_a", "ann_b"), "positive": "1", "hours": 20.0},
    ),
    "Operation": lambda: (((100,), (30.0,), (0.1,)), {"annotators": 2, "hours_per_day": 8.0}),
    "raters_batch_procedure": lambda: (
        (_raters_plan(), planner.PlanSettings(width=0.4, replicates=400)),
        {"remaining": planner.RemainingSettings(batch_size=20), "rng": 1},
    ),
    "strata_batch_procedure": lambda: (
        (_strata_stage(), planner.PlanSettings(width=0.12, replicates=100)),
        {"remaining": planner.RemainingSettings(batch_size=50), "rng": 1},
    ),
}

BAD = [
    None, "zzz", "", [], {}, (), object(), True, -1, 0, -1.5, 1e308, -1e308,
    math.nan, math.inf, -math.inf, np.array([[1.0, 2.0], [3.0, 4.0]]), [None], ["x", 1],
    2**70, 1e-300,
]  # fmt: skip

CASES = [
    (name, parameter)
    for name, baseline in BASELINES.items()
    for parameter in list(inspect.signature(getattr(planner, name)).parameters)
    if parameter not in ("progress", "arguments", "reader", "self")
]


def _call(name, parameter, value):
    args, kwargs = BASELINES[name]()
    names = list(inspect.signature(getattr(planner, name)).parameters)
    position = names.index(parameter)
    if parameter in kwargs or position >= len(args):
        kwargs = {**kwargs, parameter: value}
    else:
        args = (*args[:position], value, *args[position + 1 :])
    return getattr(planner, name)(*args, **kwargs)


def test_every_baseline_runs():
    for name in BASELINES:
        args, kwargs = BASELINES[name]()
        getattr(planner, name)(*args, **kwargs)


@pytest.mark.parametrize(("name", "parameter"), CASES)
@settings(
    max_examples=3 * len(BAD), derandomize=True, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)  # fmt: skip
@given(value=st.sampled_from(BAD))
def test_bad_values_raise_planner_errors_naming_the_parameter(name, parameter, value):
    try:
        with np.errstate(all="ignore"):
            _call(name, parameter, value)
    except InvalidInput as exc:
        # the parameter given, or (a combination refused) another one it is checked against
        named = exc.parameter is not None or parameter in str(exc)
        named = named or (parameter == "path" and str(exc).startswith(f"{value}:"))  # the file
        assert named, f"{name}({parameter}={value!r}): {exc} (no parameter named)"
    except PlannerError:
        pass
    except Exception as exc:  # noqa: BLE001 - what the test is for
        pytest.fail(f"{name}({parameter}={value!r}) raised {type(exc).__name__}: {exc}")


@pytest.mark.parametrize(
    ("call", "parameter", "message"),
    [
        (
            lambda: planner.alt_test_model(prevalences=0.5),
            "prevalences",
            "prevalences must be a list of numbers, got float",
        ),
        (
            lambda: planner.alt_test_model(human_error=None),
            "human_error",
            "human_error must be a number or a list of numbers, got None",
        ),
        (
            lambda: planner.alt_test_model(categories=1),
            "categories",
            "categories must be a whole number in [2, 100], got 1",
        ),
        (
            lambda: planner.pass_probability(None, 40),
            "model",
            "model must be an AltTestModel (see alt_test_model), got None",
        ),
        (
            lambda: planner.raters_model(None),
            "prevalence",
            "prevalence must be a number or a list of numbers, got None",
        ),
        (
            lambda: planner.raters_model(0.2, bias=None),
            "bias",
            "bias must be a number or a list of numbers, got None",
        ),
        (
            lambda: planner.raters_model(0.2, n_categories=6),
            "n_categories",
            "n_categories must be a whole number in [2, 5], got 6",
        ),
    ],
)
def test_the_door_names_the_parameter_and_its_rule(call, parameter, message):
    with pytest.raises(InvalidInput) as caught:
        call()
    assert (caught.value.parameter, str(caught.value)) == (parameter, message)


def test_an_operation_too_long_names_what_its_days_depend_on():
    # 100 items x 2 labels x 30 s = 5,000 s of labelling over 2 annotators, at 1e-300 h a day
    with pytest.raises(InvalidInput) as caught:
        planner.Operation((100,), (30.0,), (0.1,), annotators=2, hours_per_day=1e-300)
    assert "hours_per_day" in caught.value.parameters
    assert "hours_per_day" in str(caught.value)
