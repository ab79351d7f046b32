"""What the command-line fuzz modules share: values, input files, the run and its checks.

The fuzz modules (``tests/test_fuzz*.py``) build argument lists from option tables
(flag -> :class:`Opt`): each option has *valid* values, most of them just inside the
documented ranges (counts of 1 and 2, annotators 2 and 6, prevalences near 0 and 1,
widths near 1), and *odd* ones (NaN, inf, huge, negative, text, NUL, escapes). A value is
valid with probability 7/8, so that most invocations get past validation and run.

:func:`run` invokes one command in process (Typer's runner) inside a sandbox: the working
directory and ``tempfile``'s folder are under the fuzz's temporary folder, an audit hook
records every file opened for writing (and every rename, removal, folder creation) outside
it, and every input file is checksummed before and after. Each invocation must:

* exit 0, 1 or 2, with no exception escaping the CLI and no "Traceback" anywhere
  (``--debug`` prints one on purpose: only the exit code is checked then);
* on an error, print at most one line on stderr;
* with ``--json`` and exit 0, print one valid JSON document on stdout;
* not end in ``error: internal error`` unless listed in :data:`KNOWN`;
* print no raw control character (ESC, BEL, NUL, C1 controls; tab and newline are text):
  the runner gives no colour, so none may reach the output, even when the input holds some;
* write no file outside the temporary folder and change no input file; the text files it
  writes (.md, .csv, .html, ...) hold no raw control character either;
* finish within ``FUZZ_TIMEOUT`` seconds (default 120; a hang is a problem, not a stuck CI).

``FUZZ_LOG=file.jsonl`` logs every invocation (command, arguments, exit code, seconds,
problems) instead of failing; ``python -m tests.cli_fuzzing file.jsonl`` summarises a log
(the exit-code mix per command and each problem with a reproducer);
``python -m tests.cli_fuzzing explore [FOLDER]`` runs the explore profile with a log and
summarises it. Every session that ran the fuzz prints the exit-code mix at its end
(tests/conftest.py).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import re
import shlex
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app, plan_app

runner = CliRunner()
EXPLORE = os.environ.get("HYPOTHESIS_PROFILE") == "explore"

# Defects in other areas' files that the CI slice still finds: (command or "*", pattern of
# the problem). They are logged (never hidden) under FUZZ_LOG; remove an entry when fixed.
KNOWN: list[tuple[str, str]] = []

#: (command, exit code) of every invocation this session, for the summary at its end
TALLY: Counter[tuple[str, int]] = Counter()


def examples(ci: int, explore: int) -> int:
    return explore if EXPLORE else ci


def fuzz_settings(ci: int, explore: int) -> settings:
    return settings(
        max_examples=examples(ci, explore),
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
        deadline=None,
    )


# ----------------------------------------------------------------------------- values


def mostly(valid: st.SearchStrategy[str], odd: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """``valid`` seven times in eight, else ``odd``."""
    return st.integers(0, 7).flatmap(lambda i: odd if i == 7 else valid)


ODD_NUMBERS = ["nan", "-nan", "inf", "-inf", "-0", "0", "-1", "1", "1e308", "1e999", "1e-308"]
ODD_NUMBERS += ["1e-200", "2", "1.5", "abc", "", " ", "0x10", "1_000", "½", "0.5,0.5", "\x1b[31m"]
odd_numbers = st.one_of(
    st.sampled_from(ODD_NUMBERS), st.floats(allow_nan=True, allow_infinity=True).map(repr)
)
ODD_INTEGERS = ["0", "-1", "1", "2", "99", "100", "101", "1.5", "1e3", "abc", "", str(2**63)]
ODD_INTEGERS += [str(10**30), "-" + str(10**30), "007", "\x00"]
odd_integers = st.one_of(st.sampled_from(ODD_INTEGERS), st.integers(-(10**20), 10**20).map(str))
ODD_TEXT = ["", "\x00", "é", "中文", ",", ",,", "a,b", "a,a", " ", "-", "--", "NA", "null"]
ODD_TEXT += ["\x1b[2J", "\x1b]0;title\x07", "\x9b31m", "a\nb", "../x", "*"]
odd_text = st.one_of(st.sampled_from(ODD_TEXT), st.text(max_size=12))
odd_lists = st.one_of(
    odd_numbers, st.lists(odd_numbers, min_size=1, max_size=4).map(",".join), odd_text
)


def fmt(x: float) -> str:
    return f"{x:.4g}"


def unit(lo: float, hi: float, edges: list[str]) -> st.SearchStrategy[str]:
    """Numbers in [lo, hi] as text: the edge values given, or any in between."""
    return st.one_of(st.sampled_from(edges), st.floats(lo, hi).map(fmt))


def whole(lo: int, hi: int, edges: list[int]) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(edges), st.integers(lo, hi)).map(str)


def choice(*names: str) -> st.SearchStrategy[str]:
    return st.sampled_from(names)


def shares(k: int) -> st.SearchStrategy[str]:
    """``k`` proportions summing to 1 (written to 6 decimals), near-degenerate ones included."""
    tiny = [0.001] * (k - 1)
    edges = [[1 / k] * k, [*tiny, 1 - sum(tiny)], [0.5, *([0.5 / (k - 1)] * (k - 1))]]
    drawn = st.lists(st.floats(0.01, 1), min_size=k, max_size=k).map(
        lambda w: [x / sum(w) for x in w]
    )
    return st.one_of(st.sampled_from(edges), drawn).map(_joined_shares)


def _joined_shares(values: list[float]) -> str:
    head = [round(v, 6) for v in values[:-1]]
    return ",".join(f"{v:.6f}" for v in [*head, 1 - sum(head)])


SEEDS = whole(0, 2**32 - 1, [0, 1, 2**32 - 1])
NUMBER = mostly(unit(0.01, 0.99, ["0.01", "0.5", "0.99"]), odd_numbers)


@dataclass(frozen=True)
class Opt:
    """One option's values: ``valid`` (None: a flag) and ``odd``; ``odd`` defaults by type."""

    valid: st.SearchStrategy[str] | None
    odd: st.SearchStrategy[str] | None = None

    def values(self) -> st.SearchStrategy[str] | None:
        if self.valid is None:
            return None
        return mostly(self.valid, self.odd if self.odd is not None else odd_text)


FLAG = Opt(None)


def num(lo: float, hi: float, edges: list[str]) -> Opt:
    return Opt(unit(lo, hi, edges), odd_numbers)


def count(lo: int, hi: int, edges: list[int]) -> Opt:
    return Opt(whole(lo, hi, edges), odd_integers)


#: ``planner app``'s options, known to the fuzz but never run: a valid run serves until stopped
APP_OPTIONS: dict[str, Opt] = {
    "--host": Opt(st.just("127.0.0.1")),
    "--port": count(1, 65535, [1, 65535]),
    "--upload-limit-mb": num(0.001, 100, ["0.001", "20"]),
    "--no-browser": FLAG,
}


def options(
    table: dict[str, Opt], names: list[str] | None = None, max_size: int = 5
) -> st.SearchStrategy[list[str]]:
    """A few options of ``table`` (or of its ``names``), in any order, as an argument list."""
    chosen = names if names is not None else list(table)

    def pair(flag: str) -> st.SearchStrategy[list[str]]:
        values = table[flag].values()
        return st.just([flag]) if values is None else values.map(lambda v: [flag, v])

    return st.lists(st.sampled_from(chosen).flatmap(pair), max_size=max_size).map(
        lambda parts: [a for part in parts for a in part]
    )


def with_defaults(args: list[str], defaults: dict[str, str]) -> list[str]:
    """``args`` plus each default option not given (keeps every invocation cheap)."""
    return args + [a for flag, v in defaults.items() if flag not in args for a in (flag, v)]


# ----------------------------------------------------------------------------- files

ESC_NAME = "\x1b[31mA\x1b]0;t\x07"  # CSI and OSC escapes in an annotator's name
LABELS = {
    "long.csv": "item,annotator,label\n1,A,yes\n1,B,yes\n2,A,no\n2,B,yes\n3,A,no\n3,B,no\n",
    "wide.csv": "item,A,B,C\n1,1,1,0\n2,0,0,0\n3,1,0,1\n4,0,0,0\n",
    "other-names.csv": "doc,rater,verdict\n1,A,yes\n1,B,no\n2,A,no\n2,B,no\n",
    "one-item.csv": "item,annotator,label\n1,A,1\n1,B,0\n",
    "two-items.csv": "item,annotator,label\n1,A,1\n1,B,1\n2,A,0\n2,B,1\n",
    "all-agree.csv": "item,A,B,C\n1,1,1,1\n2,0,0,0\n3,1,1,1\n4,0,0,0\n5,1,1,1\n",
    "one-category.csv": "item,annotator,label\n1,A,x\n1,B,x\n2,A,x\n2,B,x\n3,A,x\n3,B,x\n",
    "missing-but-one.csv": "item,A,B,C\n1,1,,\n2,,0,\n3,,,1\n4,0,1,\n",
    "six.csv": "item,a1,a2,a3,a4,a5,a6\n"
    + "".join(f"{i},{i % 2},{i % 2},{(i // 2) % 2},{i % 2},{(i // 3) % 2},1\n" for i in range(12)),
    "ordinal.csv": "item,annotator,label\n"
    + "".join(
        f"{i},{a},{lab}\n" for i in range(6) for a, lab in (("A", i % 3), ("B", (i + 1) % 3))
    ),
    "grouped.csv": "item,week,A,B\n"
    + "".join(f"{i},w{i % 2},{i % 2},{(i // 2) % 2}\n" for i in range(8)),
    "many-groups.csv": "item,week,A,B\n"
    + "".join(f"{i},w{i},{i % 2},{(i // 2) % 2}\n" for i in range(8)),
    "escapes.csv": f"item,annotator,label\n1,{ESC_NAME},yes\n1,B,\x1b[2Jno\n2,{ESC_NAME},no\n"
    "2,B,\x1b[2Jno\n",
    "numeric-ids.csv": "item,annotator,label\n007,1,a\n7,01,a\n1e3,1,b\n1000,01,b\n",
    "quoted.csv": 'item,annotator,label\n1,A,"yes"\n1,B,yes\n2,A,"no"\n2,B,True\n',
    "na.csv": "item,annotator,label\n1,A,NA\n1,B,None\n2,A,null\n2,B,n/a\n",
    "inf.csv": "item,annotator,label\n1,A,inf\n1,B,1\n2,A,-inf\n2,B,nan\n",
    "unicode.tsv": "item\tannotator\tlabel\n1\té\t中\n1\tü\t中\n2\té\tß\n2\tü\t中\n",
    "nfd.csv": "item,annotator,label\n1,A,caf\u00e9\n1,B,cafe\u0301\n2,A,x\n2,B,x\n",
    "one-annotator.csv": "item,annotator,label\n1,A,1\n2,A,0\n",
    "labels.jsonl": '{"item": 1, "annotator": "A", "label": 1}\n'
    '{"item": 1, "annotator": "B", "label": 0}\n{"item": 2, "annotator": "A", "label": 1}\n'
    '{"item": 2, "annotator": "B", "label": 1}\n',
    "odd.jsonl": '{"item": 1, "annotator": "A", "label": 1}\n'
    '{"item": 1, "annotator": "B", "label": [1]}\n{"item": 2, "annotator": "A", "label": {}}\n',
    "empty.csv": "",
    "all-empty.csv": "item,annotator,label\n1,A,\n1,B,\n2,A,\n2,B,\n",
    "nan-column.csv": "item,A,B\n1,,1\n2,,0\n3,,1\n",
    "duplicate.csv": "item,annotator,label\n1,A,1\n1,A,0\n1,B,1\n2,A,0\n2,B,0\n",
    "duplicate-wide.csv": "item,A,B\n1,1,1\n1,1,0\n2,0,0\n",
    "header-only.csv": "item,annotator,label\n",
    "bad.parquet": "not parquet",
    "alt.csv": "item,domain,h1,h2,h3,llm\n"
    + "".join(f"{i},d{i % 2},{i % 2},{i % 2},{(i // 2) % 2},{i % 2}\n" for i in range(40)),
    "alt-scores.csv": "item,h1,h2,h3,llm\n"
    + "".join(f"{i},{i % 5},{(i + 1) % 5},{i % 5},{i % 4}\n" for i in range(12)),
    "vectors.csv": "week,A,B,count\nw0,yes,yes,3\nw0,yes,no,1\nw1,no,,2\nw1,no,no,0\n",
    "patterns.csv": "yes,no,count\n2,0,3\n1,1,2\n0,3,1\n0,0,4\n",
    "bad-vectors.csv": "A,B,count\nyes,yes,-1\nyes,no,1.5\n,,2\n",
    "parts/part1.csv": "item,annotator,label\n1,A,yes\n1,B,no\n2,A,no\n2,B,no\n",
    "parts/part2.csv": "item,annotator,label\n3,A,yes\n3,B,yes\n4,A,no\n4,B,yes\n",
}
CHEAP = "[simulation]\nreplicates = 100\n"
SCENARIOS = {
    "good.toml": f"[model]\nprevalence = 0.08\n{CHEAP}[team]\nruns = 3\n",
    "rare.toml": f"[model]\nprevalence = 0.001\n{CHEAP}[target]\nwidth = 0.2\n[team]\nruns = 2\n",
    "common.toml": f"[model]\nprevalence = 0.999\n{CHEAP}[target]\nwidth = 0.5\n[team]\nruns = 2\n",
    "strata.toml": f"[model]\nerror_rate = 0.02\n{CHEAP}"
    '[[strata]]\nname = "a"\nshare = 0.2\nprevalence = 0.3\n'
    '[[strata]]\nname = "b"\nshare = 0.8\nprevalence = 0.03\n[team]\nruns = 3\n',
    "one-stratum.toml": f"{CHEAP}"
    '[[strata]]\nname = "only"\nshare = 1\nprevalence = 0.2\n[team]\nruns = 2\n',
    "many-strata.toml": f"{CHEAP}[target]\nwidth = 0.3\n[team]\nruns = 2\n"
    + "".join(
        f'[[strata]]\nname = "s{i}"\nshare = 0.05\nprevalence = {0.02 + i * 0.04:.2f}\n'
        for i in range(20)
    ),
    "escape-stratum.toml": f"{CHEAP}"
    '[[strata]]\nname = "\\u001b[31mred|<img>"\nshare = 0.5\nprevalence = 0.2\n'
    '[[strata]]\nname = "\\u001b]0;title\\u0007"\nshare = 0.5\nprevalence = 0.1\n',
    "nan.toml": "[model]\nprevalence = nan\n",
    "inf-width.toml": "[model]\nprevalence = 0.1\n[target]\nwidth = inf\n",
    "huge.toml": "[model]\nprevalence = 0.1\n[simulation]\nreplicates = 9223372036854775807\n",
    "degenerate.toml": "[model]\nprevalence = 0.03\nerror_rate = [0.01, 0.03]\nbias = [1, -1]\n",
    "empty-pair.toml": "[model]\nprevalence = 0.1\nerror_rate = []\n",
    "unknown.toml": "[model]\nprevalence = 0.1\nsurprise = 1\n",
    "not-toml.toml": "[model\nprevalence = = 0.1\n",
    "empty.toml": "",
    "binary.toml": "\x00\x01\x02",
    "zero-share.toml": '[[strata]]\nname = "a"\nshare = 0\nprevalence = 0.1\n',
    "method.toml": '[model]\nprevalence = 0.1\n[target]\npsa_method = "exact"\n',
    "name-slash.toml": f'name = "a/b"\n[model]\nprevalence = 0.1\n{CHEAP}',
    "name-empty.toml": f'name = ""\n[model]\nprevalence = 0.1\n{CHEAP}',
    "name-dot.toml": f'name = "."\n[model]\nprevalence = 0.1\n{CHEAP}',
    "name-long.toml": f'name = "{"x" * 300}"\n[model]\nprevalence = 0.1\n{CHEAP}',
    "name-nul.toml": f'name = "a\\u0000b"\n[model]\nprevalence = 0.1\n{CHEAP}',
    "team-odd.toml": f"[model]\nprevalence = 0.1\n{CHEAP}[team]\nannotators = 0\n",
    "pilot-file.toml": f'pilot_file = "../long.csv"\n{CHEAP}',
    "nested.toml": "[model]\nprevalence = " + "[" * 600 + "]" * 600 + "\n",
}
#: the shipped named-team scenario (``[[team.annotator]]``), planned cheaply
SCENARIOS["team.toml"] = (
    (Path(__file__).parent.parent / "examples" / "team.toml")
    .read_text()
    .replace("seed = 4\n", "seed = 4\nreplicates = 100\n")
)
VALID_SCENARIOS = ["good.toml", "rare.toml", "common.toml", "strata.toml"]
VALID_SCENARIOS += ["many-strata.toml"]


def make_inputs(root: Path) -> Path:
    """The fuzz's folder: inputs/ (every file above), reports/ (outputs), cwd/, tmp/."""
    for name in ("inputs", "reports", "cwd", "tmp", "mpl"):
        (root / name).mkdir(exist_ok=True)
    return write_inputs(root)


def write_inputs(root: Path) -> Path:
    """(Re)write inputs/ as it starts, extra files removed."""
    import shutil

    shutil.rmtree(root / "inputs")
    (root / "inputs").mkdir()
    for name, content in {**LABELS, **SCENARIOS}.items():
        path = root / "inputs" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(content)
    (root / "inputs" / "nul.csv").write_bytes(b"\x00" * 2000)
    (root / "inputs" / "late-nul.csv").write_bytes(LABELS["long.csv"].encode() * 500 + b"\x00" * 9)
    (root / "inputs" / "folder.csv").mkdir()
    return root


#: options whose value is a file the command writes, not one it reads
WRITTEN = ("--contested", "--out", "--temp-dir")


def _reads(args: list[str], path: str) -> bool:
    """Whether an invocation with ``args`` reads ``path``: named (not as the value of an
    option that names what it writes, such as ``--contested`` with ``--counts``, where
    ``--force`` may replace it), or matched by a glob."""
    read = [a for i, a in enumerate(args) if i == 0 or args[i - 1] not in WRITTEN]
    return any(a == path or ("*" in a and fnmatch.fnmatch(path, a)) for a in read)


def inp(root: Path, name: str) -> str:
    return str(root / "inputs" / name)


def odd_paths(root: Path) -> list[str]:
    return [str(root / "missing.csv"), str(root / "inputs"), "/dev/null", "", "\x00"]


def input_paths(root: Path, names: list[str]) -> st.SearchStrategy[str]:
    return mostly(
        st.sampled_from([inp(root, n) for n in names]),
        st.sampled_from([*odd_paths(root), inp(root, "nul.csv"), inp(root, "folder.csv")]),
    )


def output_paths(root: Path, inputs: list[str] = ()) -> st.SearchStrategy[str]:  # type: ignore[assignment]
    """Where --contested, --out and --temp-dir may write: a fresh folder under the fuzz's
    own (or, to check they are refused, one of the ``inputs``)."""

    def fresh(kind: str) -> str:
        folder = Path(tempfile.mkdtemp(dir=root / "reports"))
        return {
            "file": str(folder / "out.csv"),
            "folder": str(folder),
            "missing-parent": str(folder / "no" / "such" / "out.csv"),
            "unicode": str(folder / "é中 ,x.csv"),
            "relative": "out.csv",  # the working directory is the sandbox's cwd/
        }[kind]

    kinds = st.sampled_from(["file", "folder", "missing-parent", "unicode", "relative"])
    fresh_paths = kinds.map(fresh)
    return st.one_of(fresh_paths, st.sampled_from(list(inputs))) if inputs else fresh_paths


# ----------------------------------------------------------------------------- the checks

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def problems(command: str, args: list[str], result: Any) -> list[str]:
    """What is wrong with one invocation's output (empty when it behaved)."""
    found = []
    code = result.exit_code
    if code not in (0, 1, 2):
        found.append(f"exit code {code}")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        found.append(f"exception escaped: {type(result.exception).__name__}: {result.exception}")
    debug = "--debug" in args
    if "Traceback" in result.output and not debug:
        found.append("traceback in the output")
    lines = result.stderr.strip().splitlines()
    said = [line for line in lines if not line.startswith("note: ")]  # notes may come first
    if code != 0 and len(said) > 1 and not debug:
        found.append(f"{len(said)} lines on stderr besides notes: {said[:3]}")
    if code == 0 and "--json" in args and "--help" not in args and "--version" not in args:
        try:
            json.loads(result.stdout)
        except ValueError:
            found.append(f"invalid JSON on stdout: {result.stdout[:80]!r}")
    for name, text in (("stdout", result.stdout), ("stderr", result.stderr)):
        if (m := CONTROL.search(text)) is not None:
            around = text[max(0, m.start() - 30) : m.end() + 30]
            found.append(f"raw control character {m.group()!r} on {name}: {around!r}")
    internal = [line for line in lines if "internal error" in line]
    if internal and not debug:
        found.append(internal[0])
    return found


def unlisted(command: str, found: list[str], known: bool = False) -> list[str]:
    """``found`` less the :data:`KNOWN` defects (kept as "known: ..." when ``known``)."""
    listed = [p for p in found if any(c in (command, "*") and re.search(k, p) for c, k in KNOWN)]
    rest = [p for p in found if p not in listed]
    return rest + (["known: " + p for p in listed] if known else [])


def digest(folder: Path) -> dict[str, str]:
    """Every path under ``folder`` with its content's hash (folders as 'dir')."""
    out = {}
    for path in sorted(folder.rglob("*")):
        out[str(path)] = "dir" if path.is_dir() else hashlib.sha1(path.read_bytes()).hexdigest()
    return out


class _Writes:
    """An audit hook recording what an invocation writes outside the sandbox."""

    root: str | None = None
    outside: list[str] = []
    inside: list[str] = []
    allowed = ("/dev/null", "/dev/stdout", "/dev/stderr")

    @classmethod
    def hook(cls, event: str, args: tuple[Any, ...]) -> None:
        if cls.root is None:
            return
        if event == "open":
            path, mode, flags = (*args, None, None)[:3]
            writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int)
                and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
            )
            paths = [path] if writes else []
        elif event in ("os.rename", "shutil.copyfile", "shutil.move", "os.link", "os.symlink"):
            paths = [args[1]]
        elif event in ("os.remove", "os.mkdir", "os.rmdir", "os.chmod", "os.truncate"):
            paths = [args[0]]
        elif event == "shutil.rmtree":
            paths = [args[0]]
        else:
            return
        for path in paths:
            if isinstance(path, bytes):
                path = os.fsdecode(path)
            if not isinstance(path, str):
                continue  # a file descriptor: opened (and checked) before
            full = os.path.abspath(path)
            if full.startswith(cls.root + os.sep):
                cls.inside.append(full)
            elif not (full in cls.allowed or "__pycache__" in full or full.startswith("/proc/")):
                cls.outside.append(f"{event} {full}")


sys.addaudithook(_Writes.hook)


class Hang(Exception):
    """An invocation ran past FUZZ_TIMEOUT seconds."""


def _alarm(_signum, _frame):  # noqa: ANN001
    raise Hang("ran past FUZZ_TIMEOUT seconds")


TEXT_SUFFIXES = (".md", ".csv", ".html", ".txt", ".json", ".tsv")


def _raw_controls_in(paths: Iterable[str]) -> list[str]:
    """A problem for each text file written (or in a folder renamed into place) that holds
    a raw control character."""
    found, files = [], []
    for path in paths:
        files += [str(p) for p in Path(path).rglob("*")] if os.path.isdir(path) else [path]
    for path in dict.fromkeys(files):
        if path.endswith(TEXT_SUFFIXES) and os.path.isfile(path):
            text = Path(path).read_bytes().decode("utf-8", errors="replace")
            if (m := CONTROL.search(text)) is not None:
                around = text[max(0, m.start() - 30) : m.end() + 30]
                found.append(f"raw control character {m.group()!r} in {path}: {around!r}")
    return found


def invoke(command: str, args: list[str], root: Path, columns: int = 80) -> tuple[Any, list[str]]:
    """Run one command in the sandbox; its result and the sandbox's own problems."""
    env = {
        "PLANNER_DEBUG": None,
        "FORCE_COLOR": None,
        "CLICOLOR_FORCE": None,
        "COLUMNS": str(columns),
        "MPLCONFIGDIR": str(root / "mpl"),
    }
    timeout = int(os.environ.get("FUZZ_TIMEOUT", "120"))
    before = digest(root / "inputs")
    cwd, tmp = os.getcwd(), tempfile.tempdir
    outside_cwd = sorted(os.listdir(cwd))
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    _Writes.root, _Writes.outside, _Writes.inside = os.path.realpath(root), [], []
    os.chdir(root / "cwd")
    tempfile.tempdir = str(root / "tmp")
    try:
        if command == "plan-script":
            result = runner.invoke(plan_app, args, env=env)
        else:
            result = runner.invoke(app, [*command.split(), *args], env=env)
    finally:
        signal.alarm(0)
        _Writes.root = None
        os.chdir(cwd)
        tempfile.tempdir = tmp
    found = [f"wrote outside the temporary folder: {w}" for w in dict.fromkeys(_Writes.outside)]
    found += _raw_controls_in(dict.fromkeys(_Writes.inside))
    after = digest(root / "inputs")
    changed = sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))
    found += [f"input changed: {p}" for p in changed if _reads(args, p)]
    if changed:  # an output named onto a file of inputs/ that this invocation did not read
        write_inputs(root)
    if sorted(os.listdir(cwd)) != outside_cwd:
        found.append(f"wrote into the working directory {cwd}")
    if isinstance(result.exception, Hang) or "Hang" in result.stderr:
        found.append(f"ran past {timeout} s")
    return result, found


def run(command: str, args: list[str], root: Path, columns: int = 80) -> None:
    """Invoke and check; with ``FUZZ_LOG=path``, log the invocation instead of failing."""
    log = os.environ.get("FUZZ_LOG")
    start = time.monotonic()
    result, found = invoke(command, args, root, columns)
    found = unlisted(command, found + problems(command, args, result), known=bool(log))
    TALLY[(command or "planner", result.exit_code)] += 1
    if log:
        entry = {
            "command": command,
            "args": args,
            "exit": result.exit_code,
            "seconds": round(time.monotonic() - start, 3),
            "stderr": result.stderr.strip()[-300:],
            "problems": found,
        }
        with open(log, "a") as handle:
            handle.write(json.dumps(entry) + "\n")
        return
    assert not found, f"{reproducer(command, args)}: {found}"


def shell_word(text: str) -> str:
    """``text`` quoted for bash; control characters as ``$'\\x1b'``."""
    if text.isprintable():
        return shlex.quote(text)
    inner = "".join(
        c
        if c.isprintable() and c not in "'\\"
        else f"\\x{ord(c):02x}"
        if ord(c) < 128
        else f"\\u{ord(c):04x}"
        for c in text
    )
    return f"$'{inner}'"


def reproducer(command: str, args: list[str]) -> str:
    head = "plan" if command == "plan-script" else f"python -m planner {command}"
    return " ".join([head, *(shell_word(a) for a in args)])


def tally_lines(tally: Counter[tuple[str, int]]) -> list[str]:
    """The exit-code mix per command, and in all."""
    commands = sorted({c for c, _ in tally})
    lines = []
    for name in [*commands, "all"]:
        codes: Counter[int] = Counter()
        for (c, k), n in tally.items():
            if name in (c, "all"):
                codes[k] += n
        total = sum(codes.values())
        mix = ", ".join(f"exit {k}: {n} ({n / total:.0%})" for k, n in sorted(codes.items()))
        lines.append(f"{name}: {total} invocations; {mix}")
    return lines


def summarise(log: str) -> None:
    """Print a FUZZ_LOG's exit-code mix and its problems, each with a reproducer."""
    entries = [json.loads(line) for line in open(log)]
    for line in tally_lines(Counter((e["command"], e["exit"]) for e in entries)):
        print(line)
    slow = sorted(entries, key=lambda e: -e.get("seconds", 0))[:5]
    print("slowest:", [(e["seconds"], reproducer(e["command"], e["args"])) for e in slow])
    seen: dict[str, dict[str, Any]] = {}
    for e in entries:
        for p in e["problems"]:
            key = re.sub(r"/tmp/\S+|\d+(\.\d+)?", "#", p)[:120]
            seen.setdefault(key, e)
    print(
        f"{sum(bool(e['problems']) for e in entries)} invocations with problems, {len(seen)} kinds"
    )
    for key, e in seen.items():
        print(
            f"- {key}\n    {reproducer(e['command'], e['args'])}\n    exit {e['exit']}: "
            f"{e['stderr'][:200]!r}"
        )


def explore(folder: str) -> int:
    """Run the explore profile of every fuzz module, logging into ``folder``, and summarise.

    ``folder`` (made empty first) gets ``fuzz.jsonl``, the log, and ``inputs/``, the files
    that the log's reproducers name.
    """
    import shutil
    import subprocess

    root = Path(folder).resolve()
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    log = root / "fuzz.jsonl"
    env = {**os.environ, "HYPOTHESIS_PROFILE": "explore", "FUZZ_LOG": str(log)}
    env |= {"FUZZ_DIR": str(root / "sandbox"), "FUZZ_TIMEOUT": env.get("FUZZ_TIMEOUT", "60")}
    tests = sorted(str(p) for p in Path(__file__).parent.glob("test_fuzz*.py"))
    command = [sys.executable, "-m", "pytest", *tests, "-q", "-p", "no:cacheprovider"]
    command += ["-m", "slow or not slow"]  # the fuzz modules are marked slow
    code = subprocess.call(command, env=env)
    summarise(str(log))
    return code


if __name__ == "__main__":
    if sys.argv[1:2] == ["explore"]:
        sys.exit(explore(sys.argv[2] if len(sys.argv) > 2 else "/tmp/planner-fuzz"))
    summarise(sys.argv[1])
