"""What every command shares: one-line errors, option parsing, seeds and JSON output."""

from __future__ import annotations

import copy
import errno
import io
import json
import os
import re
import secrets
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from planner.cli.coercion import defer_coercion
from planner.errors import InvalidInput, PlannerError, parameters_named, shown_note
from planner.validation import RULES, check

#: THE table of library parameters whose flag is not the parameter's name with dashes
#: (``hours_per_day`` is ``--hours-per-day`` without an entry); every command renders
#: parameters as flags through :func:`flag_for`, which reads this table only
FLAGS = {
    "confidence_level": "--confidence",
    "replicates": "--replicates",
    "file_format": "--format",
    "annotator_cols": "--annotator-cols",
    "n_items": "--items",
    "llms": "--llm",  # one --llm per LLM: the flag is singular
    "out_root": "--out",
    "pilot_file": "--pilot",
    **{count: "--counts" for count in ("both", "a_only", "b_only", "neither")},
}
PARAMETER_FLAGS = FLAGS  # the name other modules imported


def _option_names() -> frozenset[str]:
    """Every ``--flag`` some planner command takes (read once from the command tree)."""
    global _OPTIONS
    if _OPTIONS is None:
        from planner.cli.commands import app

        names: set[str] = set()
        stack = [typer.main.get_command(app)]
        while stack:  # the command tree is finite: each command is visited once
            command = stack.pop()
            names.update(o for p in command.params for o in getattr(p, "opts", ()))
            stack.extend(getattr(command, "commands", {}).values())  # a group's commands
        _OPTIONS = frozenset(n for n in names if n.startswith("--"))
    return _OPTIONS


_OPTIONS: frozenset[str] | None = None


def flag_for(parameter: str) -> str | None:
    """The flag that sets library ``parameter`` (:data:`FLAGS`, else its name with dashes),
    or None when no command has that flag (a scenario-only key keeps its library name).

    >>> flag_for("confidence_level"), flag_for("hours_per_day"), flag_for("floor_items")
    ('--confidence', '--hours-per-day', None)
    """
    flag = FLAGS.get(parameter, "--" + parameter.replace("_", "-"))
    return flag if flag in _option_names() else None


def flag_message(exc: InvalidInput) -> str:
    """The error's message with its library parameters named as their flags: the leading
    ``parameter``, and every one of ``parameters`` wherever it stands as a word.

    >>> flag_message(InvalidInput("hours_per_day must be in (0, 24]", parameter="hours_per_day"))
    '--hours-per-day must be in (0, 24]'
    >>> flag_message(InvalidInput("kappa needs prevalence", parameters=("kappa", "prevalence")))
    '--kappa needs --prevalence'
    """
    message, parameter = str(exc), exc.parameter
    if parameter and message.startswith(parameter) and (flag := flag_for(parameter)):
        message = flag + message[len(parameter) :]
    return _flags_in(message, getattr(exc, "parameters", ()))


def _flags_in(message: str, parameters: tuple[str, ...]) -> str:
    """``message`` with each of ``parameters`` that has a flag named as it, as a word."""
    for parameter in parameters:
        if flag := flag_for(parameter):
            # a word: not inside a name, a flag or a path ("order" in "/tmp/order.csv")
            word = rf"(?<![\w./-]){re.escape(parameter)}(?![\w-]|\.\w)"
            message = re.sub(word, flag, message)
    return message


def flag_names(exc: PlannerError) -> str:
    """The message with each parameter the error lists (``exc.parameters``) named as its flag.

    >>> from planner.errors import TargetUnreachable
    >>> flag_names(TargetUnreachable("raise max_items", parameters=("max_items",)))
    'raise --max-items'
    """
    return _flags_in(str(exc), getattr(exc, "parameters", ()))


#: parameter names that are also words of the messages' prose ("a positive number", "a pair's
#: labels", "at level 0.95"): named as flags inside a sentence only when the error names them
PROSE_WORDS = frozenset({"positive", "pair", "level", "labelled"})


def renamed(exc: PlannerError, flags: Mapping[str, str] | tuple[str, ...]) -> PlannerError:
    """``exc`` (same type) with every library parameter of ``flags`` named as its flag.

    For a command whose messages name parameters inside the sentence ("lower min_items")
    or parameters whose flag is not their name (``n_items`` is ``--items``): each name in
    ``flags`` is renamed wherever it stands as a word (one of :data:`PROSE_WORDS` only when
    it is the error's own parameter, so that "a positive number" stays prose), then the
    leading parameter (or the error's ``parameters``) as :func:`flag_message`
    (:func:`flag_names`) does. Only the names given are touched inside
    the sentence, so prose keeps its words.

    >>> str(renamed(InvalidInput("n_items must be >= 2; lower min_items"), {"n_items": "--items",
    ...     "min_items": "--min-items"}))
    '--items must be >= 2; lower --min-items'
    >>> str(renamed(InvalidInput("hours must be a positive number", parameter="hours"),
    ...     {"hours": "--hours", "positive": "--positive"}))
    '--hours must be a positive number'
    """
    message = str(exc)
    if not isinstance(flags, Mapping):  # parameter names: their flags from FLAGS
        flags = {name: flag for name in flags if (flag := flag_for(name))}
    own = {getattr(exc, "parameter", None), *getattr(exc, "parameters", ())}
    for parameter, flag in flags.items():
        if parameter not in PROSE_WORDS or parameter in own:  # "a positive number" stays
            message = re.sub(rf"(?<![\w.-]){re.escape(parameter)}(?![\w-])", flag, message)
    new = copy.copy(exc)
    new.args = (message,)
    message = flag_message(new) if isinstance(new, InvalidInput) else flag_names(new)
    new.args = (message,)
    if isinstance(new, InvalidInput):
        new.parameter = None
    if hasattr(new, "parameters"):
        new.parameters = ()
    return new


@contextmanager
def flags_named(flags: Mapping[str, str] | tuple[str, ...]) -> Iterator[None]:
    """Planner errors raised inside name the parameters of ``flags`` as flags (:func:`renamed`)."""
    try:
        yield
    except PlannerError as exc:
        raise renamed(exc, flags) from None


def fail(message: str, code: int) -> None:
    """``error: message`` on stderr (control characters shown, never sent raw), exit ``code``."""
    from planner.output.safe_output import visible

    typer.secho(f"error: {visible(message)}", fg="red", err=True)
    sys.exit(code)


def note(message: str) -> None:
    """One ``note:`` line on stderr (stdout stays one JSON document or the tables).

    Control characters in the message (from a file or a flag) are shown, never sent raw.
    """
    from planner.output.safe_output import visible

    typer.echo(f"note: {visible(shown_note(message))}", err=True)


_ON_SUCCESS: list[str] = []  # notes for the end of a command that succeeds


def note_on_success(message: str) -> None:
    """A ``note:`` line on stderr once the command has succeeded (an error stays one line)."""
    _ON_SUCCESS.append(message)


class _Debug:
    """Whether ``--debug`` (or ``PLANNER_DEBUG=1``) asked for tracebacks; reset per run."""

    flag = False

    @classmethod
    def on(cls) -> bool:
        return cls.flag or os.environ.get("PLANNER_DEBUG", "").strip() not in ("", "0")


def set_debug(value: bool) -> bool:
    """Callback of the ``--debug`` option (eager, so it holds before any other check)."""
    if value:
        _Debug.flag = True
    return value


DEBUG_HELP = "Show the full traceback of an error (also PLANNER_DEBUG=1)."


class _Interrupted(Exception):
    """Ctrl-C inside a command, carried past click's own handling (which exits silently)."""


def internal_error_message(exc: BaseException) -> str:
    """``internal error: <type>: <first line>`` for an exception planner did not expect.

    >>> internal_error_message(ZeroDivisionError("float division by zero\\nmore"))[:57]
    'internal error: ZeroDivisionError: float division by zero'
    """
    if isinstance(exc, MemoryError):
        return "out of memory: the input or the requested effort is too large for this machine"
    lines = str(exc).strip().splitlines()
    first = f": {lines[0]}" if lines else ""
    return f"internal error: {type(exc).__name__}{first} (rerun with --debug to see the traceback)"


def _quiet_broken_pipe() -> None:
    """The reader of stdout went away (``plan --json | head -1``): stop quietly, exit 1.

    stdout is pointed at /dev/null so that the interpreter's final flush does not complain.
    """
    _silence(sys.stdout)
    sys.exit(1)


# errno values of a write that failed for want of room or a working device
_WRITE_ERRNOS = frozenset(
    getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO") if hasattr(errno, name)
)


def _stream_name(stream: Any, label: str) -> str:
    """``standard output (/dev/full)``: the stream, and the file it goes to when one is named."""
    try:
        where = os.readlink(f"/proc/self/fd/{stream.fileno()}")
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return label
    return f"{label} ({where})" if where.startswith("/") else label


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (ValueError, AttributeError):
        return False


def failed_stream(exc: BaseException) -> str | None:
    """The standard stream a write error came from (``standard output (/dev/full)``), or None.

    Every file planner writes turns an ``OSError`` into an
    :class:`~planner.errors.OutputError` naming the file; what is left with no file name
    and an errno of a full disk or a failed device is a write of stdout (or of stderr,
    when stdout is a terminal and stderr is not).
    """
    if not isinstance(exc, OSError) or exc.filename is not None:
        return None
    if exc.errno not in _WRITE_ERRNOS:
        return None
    if _is_terminal(sys.stdout) and not _is_terminal(sys.stderr):
        return _stream_name(sys.stderr, "standard error")
    return _stream_name(sys.stdout, "standard output")


def _silence(stream: Any) -> None:
    """Point ``stream``'s descriptor at /dev/null, so the interpreter's last flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass  # not a real file (a test runner's buffer): nothing to silence


def _output_failed(exc: OSError, where: str) -> None:
    """One line on stderr for a failed write of stdout, exit 1 (silently if stderr fails too)."""
    _silence(sys.stdout)
    try:
        fail(f"cannot write {where}: {exc.strerror or type(exc).__name__}", 1)
    except OSError:
        _silence(sys.stderr)
        sys.exit(1)


def _warnings_note(caught: list[warnings.WarningMessage]) -> str | None:
    """One line for the warnings a command raised, or None.

    Numerical warnings (numpy's divide by zero, invalid value) are a note, never a
    multi-line warning on the terminal; ``--debug`` shows them in full.
    """
    texts = list(dict.fromkeys(str(w.message).strip().splitlines()[0] for w in caught))
    if not texts:
        return None
    shown_texts = "; ".join(texts[:3]) + ("; ..." if len(texts) > 3 else "")
    return (
        f"numerical warnings during the computation ({shown_texts}); "
        "rerun with --debug to see where"
    )


class _OneLineErrors:
    """Mixin for Typer's click classes: every error is one line, never a traceback.

    Exit codes: 2 for a usage error, 1 for a planner error or an unexpected exception
    (``error: internal error: ...``; ``--debug`` or ``PLANNER_DEBUG=1`` prints the traceback
    first), 130 after Ctrl-C, 1 (quietly) when the reader of stdout has gone away.
    """

    def invoke(self, ctx):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)  # type: ignore[misc]
        except KeyboardInterrupt:
            raise _Interrupted from None

    def parse_args(self, ctx, args):  # type: ignore[no-untyped-def]
        defer_coercion(self.get_params(ctx))  # type: ignore[attr-defined]
        return super().parse_args(ctx, args)  # type: ignore[misc]

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):  # type: ignore[no-untyped-def]
        _Debug.flag = False
        _ON_SUCCESS.clear()
        run = super().main  # type: ignore[misc]
        with warnings.catch_warnings(record=True) as caught, parameters_named(flag_for):
            warnings.simplefilter("default")
            try:
                rv = run(
                    args=args,
                    prog_name=prog_name,
                    complete_var=complete_var,
                    standalone_mode=False,
                    **extra,
                )
                sys.stdout.flush()
                for message in _ON_SUCCESS:
                    note(message)
            except BaseException as exc:  # noqa: BLE001 - the last-resort handler
                _handle(exc)
        if _Debug.on():
            for w in caught:  # in full, where they arose
                sys.stderr.write(
                    warnings.formatwarning(w.message, w.category, w.filename, w.lineno)
                )
        elif (message := _warnings_note(caught)) is not None:
            note(message)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


def _handle(exc: BaseException) -> None:
    """Turn any exception out of a command into one line on stderr and an exit code."""
    if isinstance(exc, SystemExit):
        raise exc
    if isinstance(exc, BrokenPipeError):
        _quiet_broken_pipe()
    if isinstance(exc, OSError) and (where := failed_stream(exc)) is not None:
        _output_failed(exc, where)
    if isinstance(exc, typer.TyperException):  # Typer's click errors: usage, bad values, files
        if type(exc).__name__ == "NoArgsIsHelpError":  # help was printed already
            sys.exit(2)
        fail(exc.format_message(), exc.exit_code)  # type: ignore[attr-defined]
    if isinstance(exc, typer.Abort):
        fail("aborted", 1)
    if isinstance(exc, _Interrupted | KeyboardInterrupt):
        fail("interrupted", 130)
    if _Debug.on():
        traceback.print_exception(exc, file=sys.stderr)
    if isinstance(exc, InvalidInput):
        fail(shown_message(flag_message(exc)), 2)
    if isinstance(exc, PlannerError):
        fail(shown_message(flag_names(exc)), 1)
    message = internal_error_message(exc)
    fail(
        message.removesuffix(" (rerun with --debug to see the traceback)")
        if _Debug.on()
        else message,
        1,
    )


def shown_message(message: str) -> str:
    """A message on one line: later lines (never expected) are joined with ' / '."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    return " / ".join(lines)


class PlannerGroup(_OneLineErrors, TyperGroup):  # type: ignore[misc]
    """The ``planner`` command group."""


class PlannerCommand(_OneLineErrors, TyperCommand):  # type: ignore[misc]
    """A single command (the ``plan`` script)."""


def _flag_help(option: Any) -> Any:
    """``--help`` shown as the flag it is (no ``<bool>`` value), as every other flag."""
    if option is not None:
        option.metavar = ""
    return option


class FlagHelpGroup(PlannerGroup):  # type: ignore[misc]
    """A command group (``planner``, ``planner compat``): its ``--help``, and each
    subcommand's, shown as a flag."""

    def get_help_option(self, ctx):  # type: ignore[no-untyped-def]
        return _flag_help(super().get_help_option(ctx))

    def get_params(self, ctx):  # type: ignore[no-untyped-def]
        params = super().get_params(ctx)
        for param in params:  # --install-completion and --show-completion are flags too
            if param.name in ("install_completion", "show_completion"):
                _flag_help(param)
        return params

    def get_command(self, ctx, cmd_name):  # type: ignore[no-untyped-def]
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _flag_help(command.get_help_option(ctx))  # cached on the command: kept for its help
            defer_coercion(command.get_params(ctx))
        return command


class FlagHelpCommand(PlannerCommand):  # type: ignore[misc]
    """The ``plan`` script's command, its ``--help`` shown as a flag."""

    def get_help_option(self, ctx):  # type: ignore[no-untyped-def]
        return _flag_help(super().get_help_option(ctx))


def parse_floats(text: str | None, option: str) -> tuple[float, ...] | None:
    """Parse ``"0.05"`` or ``"0.03,0.07"``, the flag ``option`` named in its error
    (:func:`planner.application.several_options.parse_numbers`)."""
    from planner.application.several_options import parse_numbers

    return parse_numbers(text, option)


def parse_ints(text: str, option: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise InvalidInput(f"{option} takes comma-separated whole numbers, got {text!r}") from None


def seed_or_draw(seed: int | None) -> int:
    if seed is None:
        return secrets.randbits(32)
    return int(check("seed", seed, RULES["seed"]))  # as a scenario's simulation.seed


def seed_of(seed: int | None, scenario: Any) -> int:
    """The run's seed: ``--seed``, else the scenario's ``[simulation] seed`` (``scenario``
    may be None), else a fresh one."""
    if seed is None and scenario is not None:
        seed = scenario.simulation.get("seed")
    return seed_or_draw(seed)


def emit_json(document: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(document, indent=2, allow_nan=False) + "\n")


def json_document(doc: dict[str, Any], command: str | None = None) -> dict[str, Any]:
    """``doc`` ready for :func:`emit_json` (numpy values plain, NaN as null).

    With ``command`` (a top-level document), the envelope of
    :func:`planner.output.jsonout.document` comes first, with ``doc``'s own ``seed`` and
    ``notes``; without it (a part of another document) nothing is added. The commands
    build their documents in :mod:`planner.output.jsonout`; this is for new code only.

    >>> list(json_document({"seed": 1}, "schedule"))
    ['schema_version', 'command', 'planner_version', 'seed', 'notes']
    """
    from planner.output.jsonout import document, json_ready

    if command is None:
        return json_ready(doc)  # type: ignore[no-any-return]
    return document(command, doc, seed=doc.get("seed"), notes=doc.get("notes", ()))


#: a library function's ``progress`` callback: ``progress(done, total)``
Progress = Callable[[int, int], None]


@contextmanager
def progress_bar(label: str, *, disabled: bool = False) -> Iterator[Progress]:
    """A Rich progress bar on stderr, as the ``progress`` callback of a library function.

    Shows ``label``, the bar, ``done/total``, the time elapsed and the time remaining; the
    callback sets the bar to ``done`` of ``total``. Nothing is drawn when ``disabled`` (the
    command's ``--json`` or ``--quiet``) or when stderr is not a terminal; the bar disappears
    when the step ends, so stdout and the final stderr stay as without it.

    >>> with progress_bar("sizing designs", disabled=True) as progress:
    ...     progress(1, 4)
    """
    from rich.console import Console

    console = Console(stderr=True)
    if disabled or not console.is_terminal:  # a bar only where someone watches it
        yield lambda done, total: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as RichProgress
    from rich.text import Text

    class StepsColumn(MofNCompleteColumn):  # "2/4"; nothing (never "0/?") before a total
        def render(self, task: Any) -> Any:
            return Text("") if task.total is None else super().render(task)

    columns = (
        TextColumn(label),
        BarColumn(),
        StepsColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with RichProgress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(label, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)
