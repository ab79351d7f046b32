"""What every command shares: one-line errors, option parsing, seeds and JSON output."""

from __future__ import annotations

import json
import secrets
import sys
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from planner.errors import InvalidInput, PlannerError

# library parameters whose flag is not the parameter's name with dashes
PARAMETER_FLAGS = {"confidence_level": "--confidence", "n_reps": "--replicates"}


def flag_message(exc: InvalidInput) -> str:
    """The error's message with its leading library parameter named as the flag.

    >>> flag_message(InvalidInput("hours_per_day must be in (0, 24]", parameter="hours_per_day"))
    '--hours-per-day must be in (0, 24]'
    """
    message, parameter = str(exc), exc.parameter
    if parameter and message.startswith(parameter):
        flag = PARAMETER_FLAGS.get(parameter, "--" + parameter.replace("_", "-"))
        return flag + message[len(parameter) :]
    return message


def fail(message: str, code: int) -> None:
    typer.secho(f"error: {message}", fg="red", err=True)
    sys.exit(code)


class _OneLineErrors:
    """Mixin for Typer's click classes: every error is one line, never a traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):  # type: ignore[no-untyped-def]
        try:
            rv = super().main(  # type: ignore[misc]
                args=args,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
        except typer.TyperException as exc:  # Typer's click errors: usage, bad values, files
            if type(exc).__name__ == "NoArgsIsHelpError":  # help was printed already
                sys.exit(2)
            fail(exc.format_message(), exc.exit_code)
        except typer.Abort:
            fail("aborted", 1)
        except InvalidInput as exc:
            fail(flag_message(exc), 2)
        except PlannerError as exc:
            fail(str(exc), 1)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


class PlannerGroup(_OneLineErrors, TyperGroup):  # type: ignore[misc]
    """The ``planner`` command group."""


class PlannerCommand(_OneLineErrors, TyperCommand):  # type: ignore[misc]
    """A single command (the ``plan`` script)."""


def parse_floats(text: str | None, option: str) -> tuple[float, ...] | None:
    """Parse ``"0.05"`` or ``"0.03,0.07"``."""
    if text is None:
        return None
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise InvalidInput(
            f"{option} takes a number or comma-separated numbers, got {text!r}"
        ) from None


def parse_ints(text: str, option: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise InvalidInput(f"{option} takes comma-separated whole numbers, got {text!r}") from None


def seed_or_draw(seed: int | None) -> int:
    if seed is None:
        return secrets.randbits(32)
    if seed < 0:
        raise InvalidInput(f"--seed must be a non-negative integer, got {seed}")
    return seed


def emit_json(document: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(document, indent=2, allow_nan=False) + "\n")


def json_document(doc: dict[str, Any]) -> dict[str, Any]:
    from planner.jsonout import json_ready

    return json_ready(doc)
