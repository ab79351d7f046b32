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
import io
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Collection, Iterator
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


def check_new_file(
    path: str | Path, *, name: str, force: bool = False, inputs: Collection[str | Path] = ()
) -> Path:
    """Check, before any work, that a file can be written at ``path``; return it.

    Refuses a path that is one of ``inputs`` (the same file, by device and inode), anything
    but a regular file (folders, devices, FIFOs, symbolic links, even with ``force``), an
    existing file without ``force``, and a folder that does not exist or cannot be written.
    ``name`` is how messages name the value (``"--contested"``).
    """
    target = Path(path)
    if not str(path) or target.name in ("", ".", ".."):
        raise InvalidInput(f"{name} must name a file, got {str(path)!r}")
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InvalidInput(f"{name} {target}: {exc.strerror}") from None
    if mode is not None:
        if not stat.S_ISREG(mode):
            raise InvalidInput(f"{name} {target} is {_kind(mode)}; give the path of a new file")
        for source in inputs:
            if os.path.exists(source) and os.path.samefile(source, target):
                raise InvalidInput(f"{name} {target} is the input file; give another path")
        if not force:
            raise InvalidInput(
                f"{name} {target} exists; use force to replace it", parameters=("force",)
            )
    if not target.parent.is_dir():
        raise InvalidInput(f"{name} {target}: folder {target.parent} does not exist")
    probe_folder(target.parent)
    return target


def write_bytes_atomically(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it, moved into place.

    The file gets the mode a plain ``open`` would give (``0o666`` less the umask). A
    folder, device, FIFO or symbolic link at ``path`` is never replaced.
    """
    target = Path(path)
    tmp: str | None = None
    with interruptible():
        try:
            with uninterrupted():
                fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
            with os.fdopen(fd, "wb") as handle:
                if hasattr(os, "fchmod"):  # POSIX: mkstemp made it 0o600
                    os.fchmod(handle.fileno(), 0o666 & ~_umask())
                handle.write(data)
            with uninterrupted():
                if os.path.lexists(target) and not stat.S_ISREG(os.lstat(target).st_mode):
                    raise InvalidInput(f"{target} is no longer a regular file; not replaced")
                os.replace(tmp, target)
        except BaseException as exc:
            with uninterrupted():
                if tmp is not None:
                    Path(tmp).unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise output_error(exc, target) from None
            raise


def write_text_atomically(path: str | Path, text: str) -> None:
    """:func:`write_bytes_atomically` of ``text`` in UTF-8."""
    write_bytes_atomically(path, text.encode("utf-8"))


def write_csv_atomically(path: str | Path, header: list[str], rows: list[list[Any]]) -> None:
    """Write a CSV (header, then rows) atomically; see :func:`write_bytes_atomically`."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")  # LF, as DuckDB's COPY writes
    writer.writerow(header)
    writer.writerows(rows)
    write_text_atomically(path, buffer.getvalue())


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
    dest: str | Path, fill: Callable[[Path], None], *, replace: Collection[str] | None = None
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

    Every failure, ``SIGTERM`` and Ctrl-C included, removes the temporary folder; an
    ``OSError`` is raised as one :class:`~planner.errors.OutputError` naming the path.
    """
    target = Path(dest)
    tmp: Path | None = None
    with interruptible():
        try:
            with uninterrupted():
                tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
            tmp.chmod(0o777 & ~_umask())
            fill(tmp)
            with uninterrupted():
                _replace_folder(tmp, target, replace)
        except BaseException as exc:
            with uninterrupted():
                if tmp is not None:
                    shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, OSError):
                raise output_error(exc, target) from None
            raise
