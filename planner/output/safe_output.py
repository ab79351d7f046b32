"""Safe output: atomic files and folders that never clobber, and leave nothing behind.

Every file or folder the tool writes is built under a hidden temporary name beside its
destination and moved into place with one ``rename``, so a reader sees the old version or
the new one, never half of one. Every failure (an ``OSError`` such as a full disk, an
exception, Ctrl-C or ``SIGTERM``) removes the temporary and re-raises; an ``OSError``
becomes one :class:`~planner.errors.OutputError` naming the path.

``SIGTERM`` normally kills Python without running any cleanup. While :func:`interruptible`
is active (in the main thread) it raises :class:`Terminated` instead, a
:class:`KeyboardInterrupt`, so the same cleanup runs as for Ctrl-C; inside
:func:`uninterrupted` a signal waits until the block is done (a rename and its cleanup are
never cut in half).

>>> import pathlib, shutil, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_text_atomically(folder / "a.txt", "one\\n")
>>> sorted(p.name for p in folder.iterdir())
['a.txt']
>>> shutil.rmtree(folder)
"""

from __future__ import annotations

import csv
import glob
import io
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from planner.errors import InvalidInput, OutputError


class Terminated(KeyboardInterrupt):
    """Raised in the main thread when ``SIGTERM`` arrives inside :func:`interruptible`."""


class _Signals:
    deferring = 0
    pending: int | None = None


def _interrupt(signum: int) -> KeyboardInterrupt:
    if signum == signal.SIGINT:
        return KeyboardInterrupt()
    return Terminated(f"terminated by {signal.Signals(signum).name}")


def _handler(signum: int, frame: Any) -> None:
    if _Signals.deferring:
        _Signals.pending = signum
        return
    raise _interrupt(signum)


@contextmanager
def interruptible() -> Iterator[None]:
    """Turn ``SIGTERM`` (and ``SIGINT``) into exceptions for the duration of the block.

    Installed only in the main thread and only over Python's default handlers (a handler
    the application set is left alone); the previous handlers are restored on exit.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    defaults = {signal.SIGTERM: signal.SIG_DFL, signal.SIGINT: signal.default_int_handler}
    previous = {}
    for signum, default in defaults.items():
        if signal.getsignal(signum) is default:
            previous[signum] = signal.signal(signum, _handler)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def uninterrupted() -> Iterator[None]:
    """Hold back ``SIGTERM``/``SIGINT`` (as handled by :func:`interruptible`) until the end."""
    _Signals.deferring += 1
    try:
        yield
    finally:
        _Signals.deferring -= 1
        if not _Signals.deferring and _Signals.pending is not None:
            signum, _Signals.pending = _Signals.pending, None
            raise _interrupt(signum)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def refuse_nul(path: str | Path, name: str) -> None:
    """Refuse a path holding a NUL byte (no file system takes one), in one line naming it.

    >>> refuse_nul("a\\x00b", "--out")
    Traceback (most recent call last):
    planner.errors.InvalidInput: --out 'a\\x00b': a path cannot hold a NUL byte
    """
    if "\x00" in str(path):
        raise InvalidInput(
            f"{name} {visible(repr(str(path)))}: a path cannot hold a NUL byte", parameter=name
        )


def output_error(exc: OSError, path: str | Path) -> OutputError:
    """One line for a failed write of ``path`` (the destination, not a temporary name).

    >>> str(output_error(OSError(28, "No space left on device"), "reports/x"))
    'cannot write reports/x: No space left on device'
    """
    return OutputError(f"cannot write {path}: {exc.strerror or type(exc).__name__}")


def probe_folder(folder: str | Path) -> None:
    """Check that ``folder`` exists or can be created, and can be written, without leaving a trace.

    Raises
    ------
    InvalidInput
        When ``folder`` or its nearest existing ancestor is not a folder.
    OutputError
        When the operating system refuses a write there (permission, read-only disk).
    """
    target = Path(folder)
    existing = target
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise InvalidInput(f"{target}: {existing} is not a folder")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".planner-probe.", dir=existing))
    except OSError as exc:
        raise output_error(exc, f"in {existing}") from None


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file (a device, FIFO or socket)"


def _is_pattern(text: str) -> bool:
    return any(ch in text for ch in "*?[")


def input_files(sources: Iterable[str | Path]) -> list[tuple[Path, str]]:
    """Every existing path the ``sources`` name, each with the source that named it.

    A source is a path, or a glob pattern (``*``, ``?``, ``[``): then every match, hidden
    files included (more than a reader takes, never fewer), as well as the pattern taken
    literally when such a file exists.
    """
    found: list[tuple[Path, str]] = []
    for source in sources:
        text = str(source)
        if os.path.lexists(text):
            found.append((Path(text), text))
        if _is_pattern(text):
            matches = glob.glob(text, recursive=True, include_hidden=True)
            found.extend((Path(match), text) for match in sorted(matches))
    return found


def input_named_by(target: str | Path, inputs: Iterable[str | Path]) -> str | None:
    """The source (a path or a glob) of ``inputs`` that names the file ``target`` is, or None.

    Two paths are the same file when they have one device and inode: every spelling of a
    path (relative, ``./``, ``..``), a symbolic link, a hard link and, on a file system
    that ignores case, another case all resolve to it.
    """
    try:
        seen = os.stat(target)
    except OSError:
        return None  # no such file yet: it cannot be one that is read
    for path, source in input_files(inputs):
        try:
            other = os.stat(path)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (seen.st_dev, seen.st_ino):
            return source
    return None


def refuse_input(target: str | Path, inputs: Iterable[str | Path], *, name: str) -> None:
    """Raise :class:`~planner.errors.InvalidInput` when ``target`` is one of ``inputs``.

    ``inputs`` are paths or glob patterns (:func:`input_named_by`); ``name`` is how the
    message names the value (``"--contested"``).

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "part1.csv").write_text("item,annotator,label\\n")
    >>> refuse_input(folder / "part1.csv", [folder / "part*.csv"], name="--contested")
    Traceback (most recent call last):
    planner.errors.InvalidInput: --contested ... is the input file (matched by .../part*.csv); ...
    """
    source = input_named_by(target, inputs)
    if source is None:
        return
    how = f" (matched by {source})" if _is_pattern(source) else ""
    raise InvalidInput(f"{name} {target} is the input file{how}; give another path")


def check_new_file(
    path: str | Path, *, name: str, force: bool = False, inputs: Collection[str | Path] = ()
) -> Path:
    """Check, before any work, that a file can be written at ``path``; return it.

    Refuses a path that is one of ``inputs`` (paths or glob patterns; the same file by
    device and inode, see :func:`input_named_by`), anything but a regular file (folders,
    devices, FIFOs, symbolic links, even with ``force``), an existing file without
    ``force``, and a folder that does not exist or cannot be written. ``name`` is how
    messages name the value (``"--contested"``).
    """
    target = Path(path)
    if not str(path) or target.name in ("", ".", ".."):
        raise InvalidInput(f"{name} must name a file, got {str(path)!r}")
    refuse_nul(path, name)
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InvalidInput(f"{name} {target}: {exc.strerror}") from None
    if mode is not None:
        if not stat.S_ISREG(mode):
            raise InvalidInput(f"{name} {target} is {_kind(mode)}; give the path of a new file")
        refuse_input(target, inputs, name=name)
        if not force:
            raise InvalidInput(
                f"{name} {target} exists; use force to replace it", parameters=("force",)
            )
    if not target.parent.is_dir():
        raise InvalidInput(f"{name} {target}: folder {target.parent} does not exist")
    probe_folder(target.parent)
    return target


#: How old a temporary of this module must be before a later run removes it (seconds).
STALE_AFTER = 6 * 3600.0
# mkstemp/mkdtemp draw 8 characters from this alphabet (CPython's tempfile)
_RANDOM = "[a-z0-9_]{8}"


def temporary_pattern(name: str) -> re.Pattern[str]:
    """The names this module gives the temporaries of a file or folder called ``name``.

    ``.NAME.xxxxxxxx`` (a file or a folder being built), ``.NAME.xxxxxxxx.csv`` (a CSV
    being streamed) and ``.NAME.old.xxxxxxxx`` (an old folder on its way out).

    >>> bool(temporary_pattern("report.md").fullmatch(".report.md.k2_x9a0q"))
    True
    >>> bool(temporary_pattern("report.md").fullmatch(".report.md.mine"))
    False
    """
    return re.compile(rf"\.{re.escape(name)}\.(?:old\.)?{_RANDOM}(?:\.csv)?")


def _newest_change(path: Path) -> float:
    newest = os.lstat(path).st_mtime
    if path.is_dir() and not path.is_symlink():
        for here, _dirs, names in os.walk(path):
            for entry in (here, *(os.path.join(here, n) for n in names)):
                newest = max(newest, os.lstat(entry).st_mtime)
    return newest


def remove_stale_temporaries(target: str | Path, *, older_than: float = STALE_AFTER) -> list[Path]:
    """Remove what a run killed mid-write (``SIGKILL``, a power cut) left beside ``target``.

    Only entries named as this module names the temporaries of ``target``
    (:func:`temporary_pattern`), owned by this user, and unchanged (nothing inside them
    either) for ``older_than`` seconds: a run still writing is never disturbed, and no
    file of another name is touched. Returns the paths removed; errors are ignored (the
    write itself reports its own).
    """
    dest = Path(target)
    pattern = temporary_pattern(dest.name)
    removed: list[Path] = []
    try:
        entries = [e for e in os.scandir(dest.parent) if pattern.fullmatch(e.name)]
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        path = Path(entry.path)
        try:
            info = os.lstat(path)
            if hasattr(os, "getuid") and info.st_uid != os.getuid():
                continue
            if now - _newest_change(path) < older_than:
                continue
            if stat.S_ISDIR(info.st_mode):
                shutil.rmtree(path)
            elif stat.S_ISREG(info.st_mode):
                path.unlink()
            else:
                continue
        except OSError:
            continue
        removed.append(path)
    return removed


def _mode_for(target: Path) -> int:
    """The mode of the file that ``target`` replaces, else what ``open`` would give."""
    try:
        info = os.lstat(target)
    except OSError:
        return 0o666 & ~_umask()
    return stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else 0o666 & ~_umask()


def write_file_atomically(
    path: str | Path,
    fill: Callable[[Path], object],
    *,
    inputs: Collection[str | Path] = (),
    name: str | None = None,
    suffix: str = "",
) -> None:
    """Write ``path`` by ``fill(tmp)`` into a temporary file beside it, moved into place.

    Parameters
    ----------
    path
        The file to write. A folder, device, FIFO or symbolic link there is never replaced.
    fill
        Writes the whole content to the temporary path it is given (which exists, empty).
    inputs
        Paths or glob patterns the run reads: ``path`` is refused when it is one of them
        (:func:`refuse_input`), checked again just before the move.
    name
        How messages name the value (default: the path).
    suffix
        The temporary's suffix (``".csv"`` for a writer that wants one).

    A replaced file's permission mode is kept; a new file gets the mode a plain ``open``
    would give (``0o666`` less the umask). Temporaries that an earlier, killed run left
    (:func:`remove_stale_temporaries`) are removed first. Any failure, ``SIGTERM`` and
    Ctrl-C included, removes the temporary; an ``OSError`` is raised as one
    :class:`~planner.errors.OutputError` naming ``path``.
    """
    target = Path(path)
    label = name or str(target)
    refuse_nul(target, label)
    refuse_input(target, inputs, name=label)
    remove_stale_temporaries(target)
    tmp: str | None = None
    with interruptible():
        try:
            with uninterrupted():
                fd, tmp = tempfile.mkstemp(
                    prefix=f".{target.name}.", suffix=suffix, dir=target.parent
                )
                os.close(fd)
            fill(Path(tmp))
            with uninterrupted():
                if os.path.lexists(target) and not stat.S_ISREG(os.lstat(target).st_mode):
                    raise InvalidInput(f"{target} is no longer a regular file; not replaced")
                refuse_input(target, inputs, name=label)
                os.chmod(tmp, _mode_for(target))
                os.replace(tmp, target)
        except BaseException as exc:
            with uninterrupted():
                if tmp is not None:
                    Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise output_error(exc, target) from None
            raise


def write_bytes_atomically(
    path: str | Path, data: bytes, *, inputs: Collection[str | Path] = ()
) -> None:
    """:func:`write_file_atomically` of ``data``."""
    write_file_atomically(path, lambda tmp: tmp.write_bytes(data), inputs=inputs)


def write_text_atomically(
    path: str | Path, text: str, *, inputs: Collection[str | Path] = ()
) -> None:
    """:func:`write_bytes_atomically` of ``text`` in UTF-8."""
    write_bytes_atomically(path, text.encode("utf-8"), inputs=inputs)


def write_csv_atomically(
    path: str | Path,
    header: list[str],
    rows: list[list[Any]],
    *,
    inputs: Collection[str | Path] = (),
) -> None:
    """Write a CSV (header, then rows) atomically, every text cell through :func:`csv_cell`.

    See :func:`write_file_atomically` for ``inputs`` and what is kept and cleaned.
    """
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")  # LF, as DuckDB's COPY writes
    writer.writerow([csv_cell(cell) for cell in header])
    writer.writerows([csv_cell(cell) for cell in row] for row in rows)
    write_text_atomically(path, buffer.getvalue(), inputs=inputs)


def write_csv_from(
    path: str | Path,
    produce: Callable[[Path], object],
    *,
    inputs: Collection[str | Path] = (),
) -> None:
    """Write a CSV that ``produce(raw)`` writes (DuckDB's ``COPY``) to ``path``, atomically.

    The raw file is a temporary beside ``path``; its cells are streamed through
    :func:`csv_cell` into the file that is moved into place, so that both engines write
    the same bytes. Both temporaries are removed on any failure.
    """
    target = Path(path)
    raw: str | None = None

    def fill(tmp: Path) -> None:
        nonlocal raw
        with uninterrupted():
            fd, raw = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".csv", dir=target.parent)
            os.close(fd)
        produce(Path(raw))
        with (
            open(raw, newline="", encoding="utf-8") as src,
            open(tmp, "w", newline="", encoding="utf-8") as dst,
        ):
            writer = csv.writer(dst, lineterminator="\n")
            writer.writerows([csv_cell(cell) for cell in row] for row in csv.reader(src))

    try:
        write_file_atomically(target, fill, inputs=inputs)
    finally:
        with uninterrupted():
            if raw is not None:
                Path(raw).unlink(missing_ok=True)


# ---------------------------------------------------------------- text from the user, shown

# C0 controls, DEL, C1 controls, and the line separators and bidirectional overrides and
# isolates that reorder or break what a terminal shows
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object) -> str:
    r"""``text`` with every control character written out, safe for a terminal or a file.

    C0 and C1 control characters and DEL (ESC starts the terminal's CSI and OSC
    sequences) become ``\xNN``; line and paragraph separators and bidirectional
    overrides and isolates become ``\uNNNN``. Everything else, any script included,
    is kept. Every piece of text from a file, a flag or a scenario that planner prints,
    writes to a CSV or a report passes through this function.

    >>> visible("ann\x1b]0;pwned\x07 \x9b31m")
    'ann\\x1b]0;pwned\\x07 \\x9b31m'
    >>> visible("café, 東京, عربى")
    'café, 東京, عربى'
    """
    return _CONTROL.sub(_shown, str(text))


# a cell that is a plain number (a label -1 or +5) is data, not a formula
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
FORMULA_START = ("=", "+", "-", "@")


def csv_cell(value: Any) -> Any:
    r"""A CSV cell that a terminal shows as text and a spreadsheet never runs as a formula.

    Text goes through :func:`visible`; text that starts with ``=``, ``+``, ``-`` or ``@``
    and is not a plain number gets a leading ``'`` (OWASP's advice against CSV injection:
    a spreadsheet shows it as text). Numbers and empty cells are kept as they are.

    >>> [csv_cell(x) for x in ["=HYPERLINK(\"x\")", "-1", "+5e3", "@SUM(A1)", "ok", 7, None]]
    ['\'=HYPERLINK("x")', '-1', '+5e3', "'@SUM(A1)", 'ok', 7, None]
    """
    if not isinstance(value, str):
        return value
    text = visible(value)
    if text.startswith(FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def files_below(folder: Path) -> tuple[set[str], set[str]]:
    """Relative paths (``/``-separated) of the files and of the folders below ``folder``.

    Symbolic links count as files and are not followed.
    """
    files: set[str] = set()
    folders: set[str] = set()
    for here, dirs, names in os.walk(folder):
        rel = Path(here).relative_to(folder)
        for d in list(dirs):
            if (Path(here) / d).is_symlink():
                dirs.remove(d)
                names.append(d)
            else:
                folders.add((rel / d).as_posix())
        files.update((rel / n).as_posix() for n in names)
    return files, folders


def unexpected_entries(folder: Path, allowed: Collection[str]) -> list[str]:
    """Entries below ``folder`` that are neither in ``allowed`` nor folders holding them."""
    files, folders = files_below(folder)
    parents = {p.as_posix() for f in allowed for p in Path(f).parents if p != Path(".")}
    return sorted((files - set(allowed)) | (folders - parents))


def refuse_inputs_inside(
    folder: str | Path, inputs: Iterable[str | Path], *, name: str | None = None
) -> None:
    """Raise :class:`~planner.errors.InvalidInput` when a file below ``folder`` is an input.

    For a folder that is about to be replaced (its old files deleted): no file of it may be
    one of ``inputs`` (paths or glob patterns, compared as :func:`input_named_by` does).
    """
    root = Path(folder)
    if not root.is_dir() or root.is_symlink():
        return
    sources = list(inputs)
    for relative in sorted(files_below(root)[0]):
        source = input_named_by(root / relative, sources)
        if source is not None:
            how = f" (matched by {source})" if _is_pattern(source) else ""
            raise InvalidInput(
                f"{root / relative} is an input of this run{how} and lies in {name or root}, "
                "which would be replaced (its files deleted): copy it elsewhere first"
            )


def _replace_folder(tmp: Path, dest: Path, allowed: Collection[str] | None) -> None:
    """Move ``tmp`` to ``dest``; an existing ``dest`` may hold only ``allowed`` files."""
    if not os.path.lexists(dest):
        os.rename(tmp, dest)
        return
    if allowed is None or dest.is_symlink() or not dest.is_dir():
        raise InvalidInput(f"{dest} exists; not replaced")
    trash = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old.", dir=dest.parent))
    try:
        os.rename(dest, trash / "old")
    except BaseException:
        trash.rmdir()
        raise
    try:
        extra = unexpected_entries(trash / "old", allowed)
        if extra:  # a file appeared since the check: put everything back, delete nothing
            raise InvalidInput(f"{dest} now holds files planner did not write ({extra[0]})")
        os.rename(tmp, dest)
    except BaseException:
        os.rename(trash / "old", dest)
        trash.rmdir()
        raise
    shutil.rmtree(trash)


def publish_folder(
    dest: str | Path,
    fill: Callable[[Path], None],
    *,
    replace: Collection[str] | None = None,
    inputs: Collection[str | Path] = (),
) -> None:
    """Build a folder with ``fill(tmp)`` in a hidden temporary folder and move it to ``dest``.

    Parameters
    ----------
    dest
        The folder to create; its parent must exist.
    fill
        Writes the folder's content into the temporary folder it is given.
    replace
        When ``dest`` exists: the relative paths of the files it may hold, all of which are
        removed once the new folder is in place. ``None``: an existing ``dest`` is refused.
        Anything else found in ``dest`` is never deleted (the call fails instead).
    inputs
        Paths or glob patterns the run reads: refused when one of them is a file in
        ``dest`` (:func:`refuse_inputs_inside`), checked before the work and again
        just before the swap.

    Every failure, ``SIGTERM`` and Ctrl-C included, removes the temporary folder; an
    ``OSError`` is raised as one :class:`~planner.errors.OutputError` naming the path.
    What a run killed outright (``SIGKILL``) left beside ``dest`` is removed by the next
    run, once old (:func:`remove_stale_temporaries`).
    """
    target = Path(dest)
    refuse_inputs_inside(target, inputs)
    remove_stale_temporaries(target)
    tmp: Path | None = None
    with interruptible():
        try:
            with uninterrupted():
                tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
            tmp.chmod(0o777 & ~_umask())
            fill(tmp)
            with uninterrupted():
                refuse_inputs_inside(target, inputs)
                _replace_folder(tmp, target, replace)
        except BaseException as exc:
            with uninterrupted():
                if tmp is not None:
                    shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, OSError):
                raise output_error(exc, target) from None
            raise
