"""Option values converted without Typer's Pydantic layer (planner.cli.coercion) equal
Typer's own conversion: the same value of the same type, or the same error."""

from __future__ import annotations

import math

import click
import pytest
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param

from planner.cli.coercion import DeferredCoercion, plain_value
from planner.cli.commands import app


def plan_params() -> dict[type, object]:
    """One option of ``plan`` for each of the types str, int and float."""
    group = typer.main.get_command(app)
    ctx = click.Context(group)
    plan = group.get_command(ctx, "plan")
    found: dict[type, object] = {}
    for param in plan.get_params(ctx):
        annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
        if annotation in (str, int, float) and param.type_descriptor.parameter_info.min is None:
            found.setdefault(annotation, param)
    return found


PARAMS = plan_params()

numbers = st.one_of(
    st.from_regex(r"\A[+-]?[0-9]{1,25}\Z"),
    st.from_regex(r"\A[+-]?[0-9]{0,12}\.?[0-9]{0,12}([eE][+-]?[0-9]{1,4})?\Z"),
    st.floats(allow_nan=True).map(repr),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(["1_000", " 5", "5 ", "inf", "-inf", "nan", "0x10", "1e400", "", "."]),
    st.text(max_size=8),
)


def same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return (
        type(a) is type(b)
        and a == b
        and (
            not isinstance(a, float) or math.copysign(1, a) == math.copysign(1, b)  # type: ignore[arg-type]
        )
    )


def outcome(coercion: object, value: object, param: object) -> tuple[str, object]:
    try:
        return "value", coercion.coerce(value, param=param, ctx=None)  # type: ignore[attr-defined]
    except BadParameter as exc:
        return "error", exc.message


def test_plan_has_options_of_each_plain_type():
    assert set(PARAMS) == {str, int, float}


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(kind=st.sampled_from([str, int, float]), text=numbers)
def test_deferred_conversion_equals_typers(kind, text):
    param = PARAMS[kind]
    ours = outcome(DeferredCoercion(param.type_descriptor, build_runtime_param), text, param)
    typers = outcome(build_runtime_param(param.type_descriptor), text, param)
    assert ours[0] == typers[0]
    if ours[0] == "value":
        assert same(ours[1], typers[1]), (ours, typers)
    else:
        assert ours[1] == typers[1]


@pytest.mark.parametrize("kind", [str, int, float])
def test_a_missing_option_stays_none_and_plain_texts_skip_typer(kind):
    param = PARAMS[kind]

    def never(descriptor: object) -> object:
        raise AssertionError("Typer's conversion was built for a plain value")

    coercion = DeferredCoercion(param.type_descriptor, never)
    assert coercion.coerce(None, param=param, ctx=None) is None
    text = {str: "alpha", int: "4000", float: "0.08"}[kind]
    assert same(coercion.coerce(text, param=param, ctx=None), kind(text))
    assert plain_value(kind, "1_000") == (kind is str, "1_000" if kind is str else None)
