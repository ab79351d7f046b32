"""What a label file is, before it is read: the path, the first bytes, the header.

Nothing is guessed silently. A path must be a regular file (a directory or a device is
named as such); the first ``SNIFF_BYTES`` bytes must fit the format (UTF-8 text, a
delimiter on the first CSV line, a JSON object first, Parquet's magic bytes);
gzip-compressed text (``labels.csv.gz``: :data:`GZIP_MAGIC`) is looked at decompressed.
A NUL byte anywhere in a text file (CSV, TSV, JSON Lines) refuses it: the whole file is
scanned for one, so binary after the first bytes is refused by both engines alike.
A CSV or TSV header that names a column twice is refused (pandas and DuckDB would rename
the second ``a`` to ``a.1`` or ``a_1``). The layout and the role of each column are found
in :mod:`planner.data.layout`.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import stat
import zlib
from pathlib import Path
from typing import BinaryIO

from planner.data.layout import SAMPLE_ROWS, id_columns, looks_like_ids
from planner.errors import InvalidInput

__all__ = ["SAMPLE_ROWS", "SNIFF_BYTES", "check_path", "id_columns", "looks_like_ids", "sniff"]

SNIFF_BYTES = 8192  # the first bytes of a file looked at before pandas reads it
GZIP_MAGIC = b"\x1f\x8b"  # the first bytes of a gzip file (RFC 1952)
GZIP_SUFFIX = ".gz"


def format_suffix(p: Path) -> str:
    """The suffix that names a file's format, lower case: ``.csv`` for ``x.csv.gz`` too.

    >>> format_suffix(Path("a/labels.v2.CSV.gz")), format_suffix(Path("x.parquet"))
    ('.csv', '.parquet')
    """
    suffixes = [s.lower() for s in p.suffixes]
    if len(suffixes) >= 2 and suffixes[-1] == GZIP_SUFFIX:
        return suffixes[-2]
    return p.suffix.lower()


def is_gzip(p: Path) -> bool:
    """Whether the file starts with gzip's magic bytes (unreadable files: False)."""
    try:
        with open(p, "rb") as handle:
            return handle.read(2) == GZIP_MAGIC
    except OSError:
        return False


def check_path(p: Path, kind: str = "file") -> None:
    """Refuse a path that is not a readable regular file, saying what it is instead."""
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise InvalidInput(f"{p}: no such {kind}") from None
    except ValueError:  # an embedded NUL byte: no file system has such a name
        raise InvalidInput(f"{str(p)!r}: not a valid path (it contains a NUL byte)") from None
    except OSError as exc:
        raise InvalidInput(f"{p}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    if stat.S_ISDIR(mode):
        raise InvalidInput(f"{p}: is a directory, not a {kind}")
    if not stat.S_ISREG(mode):
        raise InvalidInput(f"{p}: is not a regular file (a device, pipe or socket)")


def sniff(p: Path, fmt: str) -> None:
    """Look at the first ``SNIFF_BYTES`` bytes and refuse what cannot be a ``fmt`` file;
    scan the rest of a text file for NUL bytes (:func:`_has_nul`)."""
    try:
        with open(p, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
            text_file = fmt != "parquet" and not head.startswith(GZIP_MAGIC)
            nul_later = text_file and _has_nul(handle)
    except OSError as exc:
        raise InvalidInput(f"{p}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    if not head:
        raise InvalidInput(f"{p}: is empty")
    if fmt == "parquet":
        if not head.startswith(b"PAR1"):
            raise InvalidInput(f"{p}: is not a Parquet file (it does not start with PAR1)")
        return
    if head.startswith(GZIP_MAGIC):
        head, nul_later = _gunzipped_head(p)
    if b"\x00" in head or nul_later:
        raise InvalidInput(f"{p}: contains NUL bytes, so it is not a {fmt} text file")
    try:  # an incremental decoder accepts a character cut at the end of the window
        text = codecs.getincrementaldecoder("utf-8-sig")().decode(head, final=False)
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{p}: is not UTF-8 text (byte {exc.start}), so it is not a {fmt} file"
        ) from None
    first = text.lstrip("\r\n").split("\n", 1)[0]
    if fmt in ("csv", "tsv"):
        sep = "," if fmt == "csv" else "\t"
        if sep not in first:
            name = "comma" if fmt == "csv" else "tab"
            raise InvalidInput(
                f"{p}: the first line has no {name}, so it is not a {fmt} file with two or "
                "more columns"
            )
        _refuse_repeated_names(p, text, sep)
    elif fmt == "jsonl" and not text.lstrip().startswith("{"):
        raise InvalidInput(f"{p}: is not JSON Lines (the first line is not a JSON object)")


SCAN_BYTES = 1 << 20  # the block size of the scan for NUL bytes past the sniffed bytes


def _has_nul(handle: BinaryIO) -> bool:
    """Whether the rest of an open file (decompressed, for gzip) has a NUL byte.

    The whole file is scanned, block by block in bounded memory, so that binary after the
    first ``SNIFF_BYTES`` is refused by both engines before either reads a cell (a
    memory-speed scan). A file that cannot be read further is left to the reader, which
    names the problem.
    """
    try:
        while block := handle.read(SCAN_BYTES):
            if b"\x00" in block:
                return True
    except (OSError, EOFError, zlib.error):
        return False
    return False


def _gunzipped_head(p: Path) -> tuple[bytes, bool]:
    """The first ``SNIFF_BYTES`` bytes of a gzip file, decompressed, and whether the rest
    has a NUL byte."""
    try:
        with gzip.open(p, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
            nul_later = bool(head) and _has_nul(handle)  # type: ignore[arg-type]
    except (OSError, EOFError, zlib.error) as exc:
        raise InvalidInput(f"{p}: is not a readable gzip file ({exc})") from None
    if not head:
        raise InvalidInput(f"{p}: is empty (once decompressed)")
    return head, nul_later


HEADER_BYTES = 1 << 24  # the longest header line read to check its names (16 MiB)


def _refuse_repeated_names(p: Path, head: str, sep: str) -> None:
    """Refuse a header that names a column twice, naming the columns (one line)."""
    text = head.lstrip("\ufeff\r\n")
    if "\n" not in text:  # a header longer than the sniffed bytes: read its whole line
        opener = gzip.open if is_gzip(p) else open
        try:
            with opener(p, "rt", encoding="utf-8-sig", newline="") as handle:  # type: ignore[operator]
                text = handle.readline(HEADER_BYTES)
        except (OSError, EOFError, UnicodeDecodeError, zlib.error):
            return  # refused by the reader, with its own message
    try:
        names = next(csv.reader(io.StringIO(text), delimiter=sep), [])
    except csv.Error:
        return  # a malformed header: the reader says where
    seen: set[str] = set()
    repeated = []
    for name in names:
        if name in seen:
            repeated.append(name)
        seen.add(name)
    if repeated:
        listed = ", ".join(repr(n) for n in dict.fromkeys(repeated))
        raise InvalidInput(
            f"{p}: the header names column(s) {listed} more than once; give each column its "
            "own name"
        )
