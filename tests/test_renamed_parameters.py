"""Old parameter names still work, with a warning that names the new one (planner/renamed.py).

``n_reps`` became ``replicates`` everywhere (the name the CLI, scenario files and JSON use):
each public settings object takes ``n_reps=`` and each result reads ``.n_reps``, with a
``DeprecationWarning``; the JSON schema has no ``n_reps`` left.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

import planner
from planner.output.jsonout import load_schema
from planner.renamed import renamed_field, renamed_keyword

SETTINGS = ("PlanSettings", "SearchSettings", "AltTestPlanSettings")
RESULTS = ("SampleSizeResult", "CompatVerdict", "AltTestPlan", "PassProbability", "RatersPrecision")


@pytest.mark.parametrize("name", SETTINGS)
def test_settings_take_the_old_keyword_with_a_warning_naming_the_new(name):
    cls = getattr(planner, name)
    with pytest.warns(DeprecationWarning, match="n_reps is deprecated: use replicates"):
        settings = cls(n_reps=700)
    assert settings.replicates == 700
    assert settings == cls(replicates=700)
    with pytest.warns(DeprecationWarning):
        assert dataclasses.replace(settings, n_reps=300).replicates == 300
    with pytest.warns(DeprecationWarning):
        assert settings.n_reps == 700


@pytest.mark.parametrize("name", RESULTS)
def test_results_read_the_old_attribute_as_the_new(name):
    cls = getattr(planner, name)
    assert "replicates" in {f.name for f in dataclasses.fields(cls)}
    assert "n_reps" not in {f.name for f in dataclasses.fields(cls)}
    assert isinstance(cls.__dict__["n_reps"], property)


def test_a_search_result_answers_to_both_names():
    model = planner.pair_from_annotators(0.3, 0.05)
    settings = planner.SearchSettings(metric="kappa", width=0.2, replicates=200)
    result = planner.find_sample_size(model, settings, rng=1)
    with pytest.warns(DeprecationWarning, match="use replicates"):
        assert result.n_reps == result.replicates == 200


def test_functions_take_the_old_keyword_and_warn_at_the_callers_line():
    @renamed_keyword("n_reps", "replicates")
    def simulate(*, replicates: int = 10) -> int:
        return replicates

    with pytest.warns(DeprecationWarning) as caught:
        assert simulate(n_reps=5) == 5
    assert caught[0].filename == __file__
    assert simulate(replicates=6) == 6 and simulate() == 10


def test_a_renamed_field_keeps_the_constructors_signature():
    import inspect

    @renamed_field("old", "new")
    @dataclasses.dataclass(frozen=True)
    class Thing:
        new: int = 1

    assert list(inspect.signature(Thing).parameters) == ["new"]
    with pytest.warns(DeprecationWarning, match="old is deprecated: use new"):
        assert Thing(old=3).new == 3


def test_the_json_schema_names_replicates_only():
    text = json.dumps(load_schema())
    assert '"n_reps"' not in text and '"replicates"' in text
    assert load_schema()["schema_version"] == "2"


def test_every_dataclass_that_had_n_reps_reads_it_as_replicates():
    """Public through a result (a kappa pilot's uncertainty, a study of several annotators)."""
    from planner.sizing.study_precision import RatersStudy
    from planner.sizing.uncertainty_kappa import KappaPilotUncertainty

    for cls in (RatersStudy, KappaPilotUncertainty):
        assert isinstance(cls.__dict__["n_reps"], property)
    with pytest.warns(DeprecationWarning):
        assert RatersStudy(metric="psa", width=0.1, n_reps=300).replicates == 300


@pytest.mark.parametrize("name", SETTINGS)
def test_both_names_with_different_values_are_refused_naming_the_new(name):
    from planner.errors import InvalidInput

    cls = getattr(planner, name)
    with pytest.raises(InvalidInput, match="replicates is given twice") as caught:
        cls(n_reps=500, replicates=800)
    assert caught.value.parameter == "replicates" and caught.value.value == 500
    with pytest.warns(DeprecationWarning):
        assert cls(n_reps=500, replicates=500).replicates == 500


def test_a_function_refuses_both_names_with_different_values():
    from planner.errors import InvalidInput

    @renamed_keyword("n_reps", "replicates")
    def simulate(*, replicates: int = 10) -> int:
        return replicates

    with pytest.raises(InvalidInput, match="give replicates once"):
        simulate(n_reps=5, replicates=6)


def test_a_dataclass_subclass_takes_the_old_keyword_only_when_decorated_again():
    @renamed_field("old", "new")
    @dataclasses.dataclass(frozen=True)
    class Base:
        new: int = 1

    @dataclasses.dataclass(frozen=True)
    class Plain(Base):
        extra: int = 0

    @renamed_field("old", "new")
    @dataclasses.dataclass(frozen=True)
    class Decorated(Base):
        extra: int = 0

    with pytest.raises(TypeError, match="old"):
        Plain(old=3)  # type: ignore[call-arg]
    with pytest.warns(DeprecationWarning):
        assert Plain(new=2).old == 2  # the attribute is inherited
    with pytest.warns(DeprecationWarning):
        assert Decorated(old=3, extra=1).new == 3
