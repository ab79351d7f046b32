"""Option values converted without Typer's Pydantic layer when the conversion is plain.

Typer converts every parameter's value through a Pydantic ``TypeAdapter``, built the first
time the parameter is processed, and a command processes all of its parameters, given
or not; importing Pydantic and building some fifty adapters is about a quarter of the
CPU time of ``plan``'s headline run, as much as importing numpy. For an option that is not
given (``None``), a ``str`` option given as text, or an ``int`` or ``float`` option given
as a plain decimal (``4000``, ``-3``, ``0.08``, ``1e-3``) the result of that conversion is
known: ``None``, the text itself, ``int(text)`` or ``float(text)`` (both are exact and
correctly rounded, as Pydantic's parser). Those values are converted here; every other
value (other spellings, paths, lists, choices, bounded numbers, custom parsers) goes
through Typer's own conversion, built on first use, so its results and error messages are
unchanged. tests/test_cli_coercion.py checks the equality against Typer's conversion.
"""

from __future__ import annotations

import re
from typing import Any

_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")  # within int64, far below int()'s digit limit
# a mantissa of at most 20 characters and a two-digit exponent: no overflow, no underflow
_DECIMAL = re.compile(
    r"[+-]?(?=[0-9.]{1,20}(?:[eE]|$))(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,2})?"
)


def plain_value(annotation: Any, value: Any) -> tuple[bool, Any]:
    """``(True, converted)`` when ``value``'s conversion to ``annotation`` is plain, else
    ``(False, None)``."""
    if isinstance(value, str):
        if annotation is str:
            return True, value
        if annotation is int and _INTEGER.fullmatch(value):
            return True, int(value)
        if annotation is float and _DECIMAL.fullmatch(value):
            return True, float(value)
    elif annotation is int and type(value) is int:
        return True, value
    elif annotation is float and type(value) is float:
        return True, value
    return False, None


class DeferredCoercion:
    """A parameter's runtime conversion: plain values here, the rest by Typer's own."""

    def __init__(self, descriptor: Any, build: Any) -> None:
        self._descriptor = descriptor
        self._build = build
        self._built: Any = None
        info = descriptor.parameter_info
        self._plain = (
            descriptor.file_annotation is None
            and info.parser is None
            and info.min is None
            and info.max is None
            and not info.clamp
        )

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        single = not (param.multiple or param.nargs == -1)
        if self._plain and single:
            if value is None:
                return None
            plain, converted = plain_value(self._descriptor.annotation, value)
            if plain:
                return converted
        if self._built is None:
            self._built = self._build(self._descriptor)
        return self._built.coerce(value, param=param, ctx=ctx)


def defer_coercion(params: Any) -> None:
    """Give each of Typer's ``params`` a :class:`DeferredCoercion` before it is processed.

    Parameters that are not Typer's, or a Typer without this layer, are left as they are.
    """
    try:
        from typer._coercion import build_runtime_param
    except ImportError:  # another Typer: its own conversion throughout
        return
    for param in params:
        if getattr(param, "_runtime_param", False) is None and hasattr(param, "type_descriptor"):
            param._runtime_param = DeferredCoercion(param.type_descriptor, build_runtime_param)
