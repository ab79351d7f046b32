"""The library names its simulation and resampling effort with four words, one per concept.

``replicates`` counts simulated studies, ``runs`` simulated labelling operations, ``draws``
draws from a pilot's posterior (or its bootstrap refits standing in for one), and ``n_boot``
bootstrap resamples of data already labelled; ``bootstrap`` is a bool (use the bootstrap or
not). Every public function and class outside ``cli`` and ``web`` is read: a parameter with
another word for the same thing (``n_reps``, ``n_sims``, ``n_runs``, ...) fails, as does a
``bootstrap`` parameter that is not a bool.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import planner

pytestmark = pytest.mark.slow  # imports every module of the library

EFFORT = {"replicates", "runs", "draws", "n_boot", "pilot_draws"}
OTHER_WORDS = re.compile(
    r"^(n_)?(reps?|sims?|simulations?|runs?|draws?|boots?|bootstraps|resamples?|samples?)$"
)
#: another word for effort inside a compound name (``search_reps``, ``n_bootstrap``); the four
#: words may be parts of names (``block_replicates``, ``per_draw``)
OTHER_PART = re.compile(
    r"(^|_)(reps?|sims?|simulations?|boots?|bootstraps|resamples?)(_|$)|(^|_)n_bootstrap"
)
#: compound names that keep another word for now: why
WAITING = {
    "search_reps": "SampleSizeResult's field is a key of JSON schema version 2 (plan.json of "
    "several annotators); it becomes search_replicates with the next schema version",
}
#: parameters that look like effort and are not: what they are
NOT_EFFORT = {
    "draw": "a figure's drawing callback, or a draw of a random study",
    "sample": "a few rows of a file, shown in a message",
    "simulation": "a scenario's [simulation] section",
    "boot": "the bootstrap engine of a measurement under way, not a count",
}


def _public_signatures():
    """``(qualified name, parameter)`` of every public function and class outside the
    interfaces (their ``__init__`` and public methods)."""
    for info in pkgutil.walk_packages(planner.__path__, "planner."):
        if info.name.startswith(("planner.cli", "planner.web", "planner.__main__")):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            functions = [obj] if inspect.isfunction(obj) else []
            if inspect.isclass(obj):
                functions = [obj.__init__] + [
                    f for n, f in vars(obj).items() if inspect.isfunction(f) and n[0] != "_"
                ]
            for function in functions:
                for parameter in inspect.signature(function).parameters.values():
                    yield f"{module.__name__}.{name}", parameter


def test_effort_parameters_use_the_four_names():
    odd = sorted(
        {
            f"{where}({p.name})"
            for where, p in _public_signatures()
            if OTHER_WORDS.match(p.name) and p.name not in EFFORT | set(NOT_EFFORT)
        }
    )
    assert odd == []


def test_compound_names_use_the_four_words_too():
    odd = sorted(
        {
            f"{where}({p.name})"
            for where, p in _public_signatures()
            if OTHER_PART.search(p.name)
            and p.name not in {"bootstrap", *EFFORT, *WAITING, *NOT_EFFORT}
        }
    )
    assert odd == []


def test_a_bootstrap_parameter_is_a_bool():
    counts = sorted(
        f"{where}({p.annotation})"
        for where, p in _public_signatures()
        if p.name == "bootstrap" and "bool" not in str(p.annotation)
    )
    assert counts == []


def test_the_checker_finds_a_planted_other_word():
    assert OTHER_WORDS.match("n_reps") and OTHER_WORDS.match("n_sims")
    assert OTHER_WORDS.match("resamples") and not OTHER_WORDS.match("replicates_for")
    assert OTHER_PART.search("search_reps") and OTHER_PART.search("n_bootstrap")
    assert OTHER_PART.search("sims_per_n") and not OTHER_PART.search("block_replicates")
    assert not OTHER_PART.search("bootstrap") and not OTHER_PART.search("per_draw")
