"""One validation layer: the rules every value obeys, wherever it comes from.

A value reaches the library from a function call, from a scenario file or from a
command-line option. Each entry checks it against the same :class:`Rule`, and the message
names the value as its source did:

* a library call names the parameter: ``hours_per_day must be a number in (0, 24], got nan``;
* a scenario names the file and key: ``team.toml: team.hours_per_day must be ...``;
* the CLI translates the parameter into its flag: ``--hours-per-day must be ...``
  (see :func:`planner.cli.common.flag_message`).

>>> check("width", 0.5, RULES["width"])
0.5
>>> check("width", 1.5, RULES["width"])
Traceback (most recent call last):
...
planner.errors.InvalidInput: width must be a number in [0.001, 1), got 1.5
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.errors import InvalidInput


@dataclass(frozen=True)
class Rule:
    """What a value must be: a kind (``"number"``, ``"integer"``, ``"text"``), a check, in words.

    Numbers must be finite (NaN and infinities never pass); integers must be whole numbers
    (``True``/``False`` are not numbers).
    """

    kind: str
    test: Callable[[Any], bool] | None
    allowed: str


def _number(allowed: str, test: Callable[[float], bool]) -> Rule:
    return Rule("number", test, f"a number in {allowed}")


def _integer(low: int, high: int) -> Rule:
    return Rule("integer", lambda x: low <= x <= high, f"a whole number in [{low:,}, {high:,}]")


def shown(value: Any) -> str:
    """A value as a user typed it: ``1`` not ``np.int64(1)``, ``nan`` not ``np.float64(nan)``."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return f"{value:g}" if math.isfinite(value) and value == value else str(value)
    return repr(value) if isinstance(value, str) else str(value)


def check(name: str, value: Any, rule: Rule, *, parameter: str | None = None) -> Any:
    """Return ``value`` (converted to ``float``/``int``) when it obeys ``rule``; else raise.

    Parameters
    ----------
    name
        How the message names the value (the parameter, or ``"file: section.key"``).
    value
        The value to check.
    rule
        The rule it must obey.
    parameter
        The library parameter name, carried on the error so that the CLI can name the flag;
        defaults to ``name``.

    Raises
    ------
    InvalidInput
        ``"{name} must be {rule.allowed}, got {value}"``.
    """
    error = InvalidInput(
        f"{name} must be {rule.allowed}, got {shown(value)}",
        parameter=parameter if parameter is not None else (name if name.isidentifier() else None),
        value=value,
        rule=rule.allowed,
    )
    if rule.kind == "text":
        if not isinstance(value, str) or (rule.test is not None and not rule.test(value)):
            raise error
        return value
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number):
        raise error
    if rule.kind == "integer":
        if isinstance(value, float | np.floating) and not float(value).is_integer():
            raise error
        value = int(value)
    else:
        value = float(value)
        if not math.isfinite(value):
            raise error
    if rule.test is not None and not rule.test(value):
        raise error
    return value


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """``value`` when it is one of ``choices``; else "``name`` must be one of a, b; got x"."""
    if not isinstance(value, str) or value not in choices:
        raise InvalidInput(
            f"{name} must be one of {', '.join(choices)}; got {shown(value)}",
            parameter=name if name.isidentifier() else None,
            value=value,
            rule=f"one of {', '.join(choices)}",
        )
    return str(value)


def _type_name(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def check_instance(name: str, value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    """``value`` when it is a ``kind``; else "``name`` must be ``what``, got <type>".

    The door check of a library function that takes a model, settings or ratings object.

    >>> check_instance("model", None, int, "a PairModel")
    Traceback (most recent call last):
    ...
    planner.errors.InvalidInput: model must be a PairModel, got None
    """
    if not isinstance(value, kind):
        raise InvalidInput(
            f"{name} must be {what}, got {_type_name(value)}", parameter=name, value=value,
            rule=what,
        )  # fmt: skip
    return value


def check_text(name: str, value: Any, *, optional: bool = False) -> str | None:
    """``value`` when it is text (or ``None`` when ``optional``); else an :class:`InvalidInput`."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        what = "text or None" if optional else "text"
        raise InvalidInput(
            f"{name} must be {what}, got {_type_name(value)}", parameter=name, value=value,
            rule=what,
        )  # fmt: skip
    return value


def check_texts(name: str, value: Any, *, optional: bool = False) -> tuple[str, ...] | None:
    """``value`` as a tuple when it is a list or tuple of texts (or ``None`` when
    ``optional``); a single text is refused (``"ab"`` is not ``("a", "b")``)."""
    if value is None and optional:
        return None
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        what = "a list of texts" + (" or None" if optional else "")
        got = shown(value) if isinstance(value, str) else _type_name(value)
        raise InvalidInput(
            f"{name} must be {what}, got {got}",
            parameter=name, value=value, rule=what,
        )  # fmt: skip
    return tuple(value)


def check_numbers(name: str, value: Any) -> tuple[float, ...]:
    """``value`` as a tuple of floats when it is a number or a list/tuple/array of numbers
    (finite, not booleans); else an :class:`InvalidInput` naming ``name``."""
    items = value.tolist() if isinstance(value, np.ndarray) else value
    items = [items] if isinstance(items, int | float | np.number) else items
    if (
        isinstance(items, bool)
        or not isinstance(items, list | tuple)
        or not items
        or not all(
            isinstance(v, int | float | np.number)
            and not isinstance(v, bool | np.bool_)
            and math.isfinite(float(v))
            for v in items
        )
    ):
        raise InvalidInput(
            f"{name} must be a number or a list of numbers, got {_type_name(value)}",
            parameter=name, value=value, rule="a number or a list of numbers",
        )  # fmt: skip
    return tuple(float(v) for v in items)


def check_per_annotator(name: str, values: Any, count: int) -> tuple[float, ...]:
    """One value for all ``count`` annotators, or one for each, every one checked by
    ``RULES[name]``: ``count`` values, a single one repeated.

    >>> check_per_annotator("bias", 0.2, 3)
    (0.2, 0.2, 0.2)
    >>> check_per_annotator("error_rate", [0.01, 0.02, 0.03], 2)
    Traceback (most recent call last):
    ...
    planner.errors.InvalidInput: error_rate takes one value or two (annotator A, annotator B), got 3
    """
    if not isinstance(values, int | float | np.number):
        what = "a number or two numbers" if count == 2 else "a number or a list of numbers"
        check_instance(name, values, (list, tuple, np.ndarray), what)
    items = (values,) if isinstance(values, int | float | np.number) else tuple(values)
    if len(items) not in (1, count):
        each = "two (annotator A, annotator B)" if count == 2 else f"one per annotator ({count})"
        raise InvalidInput(
            f"{name} takes one value or {each}, got {len(items)}",
            parameter=name, value=values, rule=f"one value or {count}",
        )  # fmt: skip
    checked = tuple(check(name, v, RULES[name]) for v in items)
    return checked * count if len(checked) == 1 else checked


UNIT_OPEN = _number("(0, 1)", lambda x: 0 < x < 1)
UNIT = _number("[0, 1]", lambda x: 0 <= x <= 1)
POSITIVE = Rule("number", lambda x: x > 0, "a positive number")
NON_NEGATIVE = Rule("number", lambda x: x >= 0, "a number >= 0")

RULES: dict[str, Rule] = {
    # the annotator model
    "prevalence": UNIT_OPEN,
    "error_rate": _number("[0, 0.5)", lambda x: 0 <= x < 0.5),
    "bias": _number("[-1, 1]", lambda x: -1 <= x <= 1),
    "ambiguity": UNIT,
    "union_rate": _number("(0, 1]", lambda x: 0 < x <= 1),
    "psa": UNIT,
    # the target
    "width": _number("[0.001, 1)", lambda x: 0.001 <= x < 1),  # a plan needs a resolvable width
    "confidence": UNIT_OPEN,
    "confidence_level": UNIT_OPEN,
    "assurance": UNIT_OPEN,
    # the budget
    "annotators_per_item": _integer(2, 1000),
    # (bounded so that hours and cost stay finite: 10^6 s is 278 hours on one item)
    "seconds_per_item": _number("(0, 1e6]", lambda x: 0 < x <= 1e6),
    "adjudication_seconds": _number("[0, 1e6]", lambda x: 0 <= x <= 1e6),
    "hourly_rate": _number("[0, 1e9]", lambda x: 0 <= x <= 1e9),
    # designs and simulation
    "floor_items": _integer(0, 10**9),
    "prevalence_width": UNIT_OPEN,
    "replicates": _integer(100, 1_000_000),
    "max_items": _integer(10, 10**9),
    "seed": _integer(0, 2**63 - 1),
    # the team
    "annotators": _integer(1, 10_000),
    "hours_per_day": _number("(0, 24]", lambda x: 0 < x <= 24),
    "days_per_week": _integer(1, 7),
    "time_spread": _number("[0, 3] (lognormal sigma)", lambda x: 0 <= x <= 3),
    "attention_check_share": _number("[0, 1)", lambda x: 0 <= x < 1),
    "attention_fail_rate": UNIT,
    "requalification_hours": NON_NEGATIVE,
    "adjudicators": _integer(0, 1000),
    "runs": _integer(1, 100_000),
    # schedule (workload.py): the operation's items and per-stratum values
    "items": _integer(1, 10_000_000),
    "items_per_stratum": _integer(0, 10_000_000),
    "contested_rate": UNIT,
    "labels_per_item": _integer(1, 1000),
    # decisions
    "not_demonstrated_below": UNIT,
    "demonstrated_at": UNIT,
    # plan and model: the pair model's other inputs
    "a_share": UNIT,
    "pilot_count": _integer(0, 10**12),
}

# sizing (search.py): the search's own arguments
RULES.update(
    {
        "jaccard": UNIT,
        "union_positives": _integer(0, 10**9),
        "max_union_positives": _integer(1, 10**9),
        "probability": UNIT_OPEN,
    }
)

# multi-rater sizing: annotators per item and k of M
RULES.update(
    {
        "n_annotators": _integer(2, 6),
        "raters_categories": _integer(2, 5),  # raters_model's n_categories (MAX_CATEGORIES)
        "per_item": _integer(2, 5),
    }
)

# pilot planning, fixed-size precision, the model as users state it
RULES.update(
    {
        "draws": _integer(20, 100_000),
        "hours": POSITIVE,
        "budget": POSITIVE,
        "kappa": _number("(-1, 1)", lambda x: -1 < x < 1),
    }
)

# output safety: a scenario's name is the folder its report goes to, so one plain path
# component (no separators, no leading dot, nothing a file system treats specially)
NAME_MAX = 100
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
RULES["scenario_name"] = Rule(
    "text",
    lambda x: len(x) <= NAME_MAX and _PLAIN_NAME.fullmatch(x) is not None,
    "a plain folder name (ASCII letters, digits, '.', '_' and '-', starting with a letter or a "
    f"digit, at most {NAME_MAX} characters)",
)
# agree's statistics (measure_agreement): bounds on the bootstrap and alpha's threshold.
# n_boot: the percentile interval's Monte Carlo error shrinks as 1/sqrt(B); at 100,000
# resamples it is far below any reported digit, and time grows linearly beyond it.
RULES.update(
    {
        "n_boot": _integer(100, 100_000),
        "alpha_min": _number("[-1, 1]", lambda x: -1 <= x <= 1),
    }
)

# fit (Dawid & Skene): the latent-class fit's EM and bootstrap
RULES.update(
    {
        "fit_n_boot": Rule(
            "integer",
            lambda x: x == 0 or 100 <= x <= 100_000,
            "0 (no intervals) or a whole number in [100, 100,000]",
        ),
        "max_iter": _integer(1, 100_000),
        "fit_tolerance": _number("(0, 0.1)", lambda x: 0 < x < 0.1),
    }
)

# the alternative annotator test (alt-test): its margin, FDR level and item floor;
# and the planning model's error rates (an error draws a label at random, so up to 1)
RULES.update(
    {
        "alt_epsilon": _number("[0, 1)", lambda x: 0 <= x < 1),
        "fdr_q": UNIT_OPEN,
        "alt_min_items": _integer(2, 10**9),
        "annotator_error": _number("[0, 1]", lambda x: 0 <= x <= 1),
        "n_humans": _integer(2, 12),
        "n_categories": _integer(2, 100),
        "power": UNIT_OPEN,
    }
)


#: what ``rng=`` accepts: anything :func:`numpy.random.default_rng` takes
RngLike = int | np.random.Generator | np.random.SeedSequence | np.random.BitGenerator | None


def seed_from(rng: RngLike, parameter: str = "rng") -> int:
    """The integer seed a computation uses, from anything :func:`numpy.random.default_rng` takes.

    An integer is used as given (so a study is reproduced by its seed); a generator, a seed
    sequence or a bit generator gives a seed drawn from it; ``None`` draws one from fresh OS
    entropy. No function of the library falls back on a fixed seed. The seed is recorded in
    the result so that the same numbers can be drawn again.

    >>> seed_from(7)
    7
    >>> seed_from(np.random.default_rng(1)) == seed_from(np.random.default_rng(1))
    True
    >>> seed_from(-1)
    Traceback (most recent call last):
    ...
    planner.errors.InvalidInput: rng must be a whole number in [0, 2^63), got -1
    """
    if isinstance(rng, bool):
        raise InvalidInput(
            f"{parameter} must be a seed or a numpy Generator, got {rng!r}", parameter=parameter
        )
    if isinstance(rng, int | np.integer):
        if not 0 <= int(rng) < 2**63:
            raise InvalidInput(
                f"{parameter} must be a whole number in [0, 2^63), got {shown(rng)}",
                parameter=parameter,
            )
        return int(rng)
    if rng is None or isinstance(
        rng, np.random.Generator | np.random.SeedSequence | np.random.BitGenerator
    ):
        return int(np.random.default_rng(rng).integers(2**63))
    raise InvalidInput(
        f"{parameter} must be a seed or a numpy Generator, got {type(rng).__name__}",
        parameter=parameter,
    )


# --- rng (splits helper): a generator from anything default_rng takes, checked -------------


def as_generator(rng: RngLike, parameter: str = "rng") -> np.random.Generator:
    """``numpy.random.default_rng(rng)``, with a bad ``rng`` an :class:`InvalidInput`.

    A generator is returned as given (the caller's stream is used and advanced, so that a
    function fed a spawned stream draws the same numbers as before); a seed is checked as
    :func:`seed_from` checks it. Use :func:`seed_from` instead where the seed is recorded.

    >>> bool(as_generator(3).integers(10) == np.random.default_rng(3).integers(10))
    True
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, np.random.SeedSequence | np.random.BitGenerator):
        return np.random.default_rng(rng)
    return np.random.default_rng(seed_from(rng, parameter))


# compat: kappaSize's and irr's arguments, under R's names
RULES.update(
    {
        "compat_kappa": UNIT_OPEN,  # kappaSize: kappa0, kappaL, kappaU, kappa1 and props
        "compat_raters": _integer(2, 6),
        "compat_n": _integer(11, 10**9),  # FixedN*: R requires more than 10 items
        # below 1e-12 the normal quantile of 1 - alpha is no longer a finite float
        "compat_alpha": _number("[1e-12, 1)", lambda x: 1e-12 <= x < 1),
        "compat_power": UNIT_OPEN,
        "irr_rate": UNIT_OPEN,
        "irr_kappa": _number("[-1, 1]", lambda x: -1 <= x <= 1),
        "irr_margin": UNIT,
    }
)

# strata: a stratified design simulates every stratum's replicate studies at once, about
# 240 bytes per stratum and replicate (measured: 200 strata x 4,000 replicates 0.25 GB,
# x 16,000 replicates 0.74 GB), so both the strata and their product with the replicates
# are bounded: 1,000 strata, and 4,000,000 stratum-replicates (about 1 GB)
MAX_STRATA = 1000
MAX_STRATUM_REPLICATES = 4_000_000
RULES["strata"] = _integer(2, MAX_STRATA)


def check_strata_effort(strata: int, replicates: int) -> None:
    """Refuse a stratified simulation past :data:`MAX_STRATUM_REPLICATES` (memory).

    >>> check_strata_effort(1000, 4000)
    >>> check_strata_effort(1000, 8000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    planner.errors.InvalidInput: replicates times the strata must be at most 4,000,000 ...
    """
    if strata * replicates > MAX_STRATUM_REPLICATES:
        raise InvalidInput(
            f"replicates times the strata must be at most {MAX_STRATUM_REPLICATES:,} (about 1 GB "
            f"of memory), got {replicates:,} x {strata:,} strata",
            parameter="replicates",
            value=replicates,
            rule=f"at most {MAX_STRATUM_REPLICATES:,} / strata",
        )


# several annotators: kappaSize's common-prevalence model
# (an intraclass kappa in (0, 1): the Dirichlet-multinomial needs kappa > 0)
RULES.update({"intraclass_kappa": UNIT_OPEN})


# ---------------------------------------------------------------- short reprs
# Results hold arrays of every item or pattern; their repr shows shapes, not the values.

_SHORT = 6  # arrays and sequences up to this many values are shown in full


def compact_repr(obj: Any, depth: int = 0) -> str:
    """``Name(field=value, ...)`` of a dataclass result, short whatever its arrays hold.

    Arrays of more than six values show as their shape and type, longer sequences and
    mappings as their length, numbers in six significant digits; a field's value is shown
    one level deep (a result or container inside it as ``Name(...)`` or its length). Use it
    in a result's class body as ``__repr__ = compact_repr``.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Fit:
    ...     prevalence: np.ndarray
    ...     posterior: np.ndarray
    ...     log_likelihood: float
    ...     __repr__ = compact_repr
    >>> Fit(np.array([0.25, 0.75]), np.zeros((500, 2)), -1234.56789)
    Fit(prevalence=array([0.25, 0.75]), posterior=<array (500, 2) float64>, log_likelihood=-1234.57)
    """
    import dataclasses

    if depth >= 2:
        return f"{type(obj).__name__}(...)"
    fields = (f for f in dataclasses.fields(obj) if f.repr)
    parts = (f"{f.name}={_brief(getattr(obj, f.name), depth + 1)}" for f in fields)
    return f"{type(obj).__name__}({', '.join(parts)})"


def _brief(value: Any, depth: int) -> str:
    """One value of :func:`compact_repr`; ``depth`` 1 for a field, 2 inside a field's value."""
    import dataclasses

    if isinstance(value, np.ndarray):
        if value.size > _SHORT:
            return f"<array {value.shape} {value.dtype}>"
        return "array([" + ", ".join(_brief(v, depth) for v in value.ravel()) + "])"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return compact_repr(value, depth)
    if isinstance(value, dict):
        if len(value) > _SHORT or (depth >= 2 and value):
            head = ", ".join(map(str, list(value)[:_SHORT])) + (
                ", ..." if len(value) > _SHORT else ""
            )
            return f"<dict of {len(value)}: {head}>"
        return "{" + ", ".join(f"{k!r}: {_brief(v, depth + 1)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        nested = any(not _scalar(v) for v in value)
        if len(value) > _SHORT or (depth >= 2 and nested):
            return f"<{type(value).__name__} of {len(value)}>"
        inner = ", ".join(_brief(v, depth + 1) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' * (len(value) == 1)})"
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return repr(float(f"{value:.6g}"))
    if isinstance(value, str) and len(value) > 80:
        return repr(value[:77] + "...")
    return repr(value)


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool | np.generic) or value is None
