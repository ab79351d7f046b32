"""Output safety: nothing written or deleted outside --out, nothing clobbered, nothing left behind.

Scenario names used as
paths, --force deleting folders and user files, --contested clobbering its input and
special files, late failures after all the work, partial batches, SIGTERM leftovers, and
"no such file" for folders and devices.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.scenario import load_scenario, scenario_from_dict
from planner.errors import InvalidInput, OutputError
from planner.output import report as report_module
from planner.output.report import MARKER, MARKER_VERSION
from planner.output.safe_output import publish_folder, unexpected_entries, write_text_atomically

pytestmark = pytest.mark.slow

runner = CliRunner()
ROOT = Path(__file__).parent.parent
TINY = """\
[model]
pilot_counts = [6, 21, 14, 459]
[target]
metric = "psa"
width = 0.2
[simulation]
seed = 3
replicates = 200
[team]
runs = 2
"""


def _scenario(folder: Path, name: str = "tiny", file: str | None = None) -> Path:
    path = folder / (file or f"{name}.toml")
    path.write_text(f"name = {name!r}\n" + TINY)
    return path


def _one_line_error(result, code: int) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a report's work (the plan) starts."""

    def refuse(*args, **kwargs):
        raise AssertionError("the work started before the output was checked")

    monkeypatch.setattr(report_module, "run_plan", refuse)


# --- defect 1: a scenario name is a plain folder name, never a path ----------------------


@pytest.mark.parametrize(
    "name",
    [
        "/" + "../" * 30 + "VICTIM",
        "./../victim",
        "../victim",
        "a/b",
        "a\x00b",
        "x" * 300,
        "",
        ".",
        "..",
        ".hidden",
        "a\\b",
    ],
)
def test_name_that_is_a_path_is_refused_and_deletes_nothing(tmp_path, name):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep")
    name = name.replace("VICTIM", str(victim).lstrip("/"))
    path = tmp_path / "s.toml"
    path.write_text("name = " + repr(name).replace("\\x00", "\\u0000") + "\n" + TINY)
    out = tmp_path / "out"
    result = runner.invoke(app, ["report", str(path), "--out", str(out), "--force"])
    line = _one_line_error(result, 2)
    assert "s.toml: name must be a plain folder name" in line
    assert (victim / "precious.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml", "victim"]


def test_name_from_the_file_name_obeys_the_same_rule(tmp_path):
    path = tmp_path / "my study.toml"
    path.write_text(TINY)
    with pytest.raises(InvalidInput, match=r"name \(not set; from the file name\) must be"):
        load_scenario(path)


@given(st.text(max_size=120))
def test_every_accepted_name_is_one_folder_directly_inside_out(name):
    try:
        scenario = scenario_from_dict({"name": name}, "f.toml")
    except InvalidInput:
        return
    root = Path("/srv/reports")
    assert Path(scenario.name).name == scenario.name
    assert not scenario.name.startswith(".") and "\x00" not in scenario.name
    assert (root / scenario.name).resolve().parent == root
    assert len(scenario.name.encode()) <= 100


def test_force_never_replaces_a_folder_planner_did_not_write(tmp_path, no_work):
    out = tmp_path / "out"
    mine = out / "tiny"
    mine.mkdir(parents=True)
    (mine / "thesis.tex").write_text("years of work")
    result = runner.invoke(app, ["report", str(_scenario(tmp_path)), "--out", str(out), "--force"])
    assert "is not a report planner wrote" in _one_line_error(result, 2)
    assert (mine / "thesis.tex").read_text() == "years of work"


def test_force_never_follows_or_replaces_a_symbolic_link(tmp_path, no_work):
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / MARKER).write_text(MARKER_VERSION + "\n")  # even a report behind the link
    (out / "tiny").symlink_to(elsewhere)
    result = runner.invoke(app, ["report", str(_scenario(tmp_path)), "--out", str(out), "--force"])
    assert "symbolic link" in _one_line_error(result, 2)
    assert (out / "tiny").is_symlink() and (elsewhere / MARKER).exists()


def test_force_keeps_user_files_and_replaces_exactly_the_marked_report(tmp_path):
    out = tmp_path / "out"
    scenario = str(_scenario(tmp_path))
    assert runner.invoke(app, ["report", scenario, "--out", str(out)]).exit_code == 0
    folder = out / "tiny"
    lines = (folder / MARKER).read_text().splitlines()
    assert lines[0] == MARKER_VERSION
    listed = {x for x in lines[1:] if not x.startswith("#")}
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert listed | {MARKER} == on_disk and "report.md" in listed
    before = _tree(folder)

    (folder / "notes.txt").write_text("mine")
    (folder / "figures" / "annotated.png").write_bytes(b"mine too")
    result = runner.invoke(app, ["report", scenario, "--out", str(out), "--force"])
    line = _one_line_error(result, 2)
    assert "notes.txt" in line and "figures/annotated.png" in line
    assert (folder / "notes.txt").read_text() == "mine"

    (folder / "notes.txt").unlink()
    (folder / "figures" / "annotated.png").unlink()
    (folder / "report.md").write_text("edited by hand")  # a file planner wrote: replaced
    result = runner.invoke(app, ["report", scenario, "--out", str(out), "--force"])
    assert result.exit_code == 0, result.output
    assert _tree(folder) == before  # same seed, same report, nothing else
    assert sorted(p.name for p in out.iterdir()) == ["tiny"]


def test_force_replaces_a_report_of_an_older_planner_without_marker(tmp_path):
    out = tmp_path / "out"
    legacy = out / "tiny"
    (legacy / "figures").mkdir(parents=True)
    for name in report_module.LEGACY_FILES:
        (legacy / name).write_text("old")
    scenario = str(_scenario(tmp_path))
    result = runner.invoke(app, ["report", scenario, "--out", str(out), "--force"])
    assert result.exit_code == 0, result.output
    assert (legacy / MARKER).exists() and (legacy / "report.md").read_text() != "old"


# --- defect 3 and 4: every location, every name checked before any work -----------------


def test_out_that_is_a_file_fails_before_any_work(tmp_path, no_work):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = runner.invoke(
        app, ["report", str(_scenario(tmp_path)), "--out", str(blocker / "reports")]
    )
    assert "is not a folder" in _one_line_error(result, 2)


def test_unwritable_out_fails_before_any_work_with_one_line(tmp_path, no_work):
    if os.access("/sys", os.W_OK) and os.geteuid() != 0:
        pytest.skip("/sys is writable here")
    probe = subprocess.run(["mkdir", "/sys/planner-probe"], capture_output=True)
    if probe.returncode == 0:
        os.rmdir("/sys/planner-probe")
        pytest.skip("/sys is writable here")
    result = runner.invoke(app, ["report", str(_scenario(tmp_path)), "--out", "/sys/reports"])
    line = _one_line_error(result, 1)
    assert line.startswith("error: cannot write in /sys:")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only folders")
def test_read_only_out_fails_before_any_work(tmp_path, no_work):
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o555)
    try:
        result = runner.invoke(app, ["report", str(_scenario(tmp_path)), "--out", str(out)])
    finally:
        out.chmod(0o755)
    assert "cannot write in" in _one_line_error(result, 1)


def test_later_destination_taken_refuses_the_batch_before_the_first(tmp_path, no_work):
    out = tmp_path / "out"
    (out / "second").mkdir(parents=True)
    (out / "second" / MARKER).write_text(MARKER_VERSION + "\n")  # a report planner wrote
    first, second = _scenario(tmp_path, "first"), _scenario(tmp_path, "second")
    result = runner.invoke(app, ["report", str(first), str(second), "--out", str(out)])
    assert "second exists; use --force" in _one_line_error(result, 2)
    assert sorted(p.name for p in out.iterdir()) == ["second"]


def test_duplicate_names_in_one_call_are_refused_naming_both_files(tmp_path, no_work):
    a = _scenario(tmp_path, "same", file="a.toml")
    b = _scenario(tmp_path, "SAME", file="b.toml")  # one folder on case-insensitive disks
    result = runner.invoke(app, ["report", str(a), str(b), "--out", str(tmp_path / "out")])
    line = _one_line_error(result, 2)
    assert str(a) in line and str(b) in line and "distinct names" in line
    assert not (tmp_path / "out").exists()


# --- defects 5 and 7: failures and signals leave nothing behind -------------------------


def test_sigterm_mid_report_leaves_no_temporary_and_no_half_report(tmp_path):
    scenario, out = _scenario(tmp_path), tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "planner", "report", str(scenario), "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while proc.poll() is None and not (out.is_dir() and list(out.glob(".tiny.*"))):
            time.sleep(0.005)
        assert proc.poll() is None, "the report finished before its folder was seen"
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 143  # 128 + SIGTERM, as a shell reports it
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1
    assert "terminated (SIGTERM)" in stderr
    left = sorted(p.name for p in out.iterdir()) if out.exists() else []
    assert not [name for name in left if name.startswith(".")]
    assert left in ([], ["tiny"])  # the signal may land after the final rename
    if left:
        assert (out / "tiny" / MARKER).exists()


def test_interrupt_during_force_keeps_the_old_report(tmp_path, monkeypatch):
    out, scenario = tmp_path / "out", str(_scenario(tmp_path))
    assert runner.invoke(app, ["report", scenario, "--out", str(out)]).exit_code == 0
    before = _tree(out / "tiny")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report_module, "markdown", interrupted)  # mid-write
    result = runner.invoke(app, ["report", scenario, "--out", str(out), "--force"])
    assert "interrupted; no report was left half-written" in _one_line_error(result, 130)
    assert sorted(p.name for p in out.iterdir()) == ["tiny"]
    assert _tree(out / "tiny") == before


def test_full_disk_is_one_line_naming_the_path_and_leaves_nothing(tmp_path, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(report_module.shutil, "copyfile", full)
    out = tmp_path / "new" / "out"
    result = runner.invoke(app, ["report", str(_scenario(tmp_path)), "--out", str(out)])
    line = _one_line_error(result, 1)
    assert f"cannot write {out / 'tiny'}: No space left on device" in line
    assert not (tmp_path / "new").exists()  # the folders it made are gone too


# --- defect 6: what a scenario path is when it is not a file ----------------------------


def test_scenario_path_that_is_a_folder_device_or_fifo_says_so(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    cases = [
        (tmp_path, "is a directory"),
        ("/dev/null", "is not a regular file"),
        (fifo, "is not a regular file"),
        (tmp_path / "none.toml", "no such scenario file"),
    ]
    for path, needle in cases:
        result = runner.invoke(app, ["report", str(path), "--out", str(tmp_path / "out")])
        assert needle in _one_line_error(result, 2)


# --- defect 2: --contested never clobbers ------------------------------------------------


@pytest.fixture
def labels(tmp_path) -> Path:
    path = tmp_path / "labels.csv"
    path.write_text("item,annotator,label\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n3,a,y\n3,b,x\n")
    return path


def _agree(*args: str):
    return runner.invoke(app, ["agree", *args, "--seed", "1"])


def test_contested_refuses_the_input_file_by_any_name(tmp_path, labels):
    original = labels.read_bytes()
    (tmp_path / "link.csv").symlink_to(labels)
    os.link(labels, tmp_path / "hard.csv")
    for source, target in [(labels, labels), (tmp_path / "link.csv", labels),
                           (labels, tmp_path / "hard.csv")]:  # fmt: skip
        result = _agree(str(source), "--contested", str(target), "--force")
        assert "is the input file" in _one_line_error(result, 2)
    assert labels.read_bytes() == original


def test_contested_refuses_an_existing_file_without_force(tmp_path, labels, monkeypatch):
    out = tmp_path / "out.csv"
    out.write_text("mine")
    import planner.measuring.measure

    def refuse(*args, **kwargs):
        raise AssertionError("measured before the output was checked")

    with monkeypatch.context() as patch:
        patch.setattr(planner.measuring.measure, "measure_agreement", refuse)
        result = _agree(str(labels), "--contested", str(out))
        assert "exists; use --force" in _one_line_error(result, 2)
    assert out.read_text() == "mine"
    result = _agree(str(labels), "--contested", str(out), "--force")
    assert result.exit_code == 0, result.output
    assert out.read_text().splitlines() == ["item,a,b", "1,x,y", "3,y,x"]


def test_contested_refuses_folders_devices_fifos_and_links_even_with_force(tmp_path, labels):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "target.csv")
    cases = [(tmp_path, "is a folder"), ("/dev/null", "is not a regular file"),
             (fifo, "is not a regular file"), (link, "is a symbolic link")]  # fmt: skip
    for target, needle in cases:
        result = _agree(str(labels), "--contested", str(target), "--force")
        assert needle in _one_line_error(result, 2)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert not (tmp_path / "target.csv").exists() and link.is_symlink()


def test_contested_file_honours_the_umask(tmp_path, labels):
    out = tmp_path / "c.csv"
    previous = os.umask(0o027)
    try:
        result = _agree(str(labels), "--contested", str(out))
    finally:
        os.umask(previous)
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.csv", "labels.csv"]


def test_contested_in_an_unwritable_place_is_one_line_before_any_work(labels):
    probe = subprocess.run(["mkdir", "/sys/planner-probe"], capture_output=True)
    if probe.returncode == 0:
        os.rmdir("/sys/planner-probe")
        pytest.skip("/sys is writable here")
    result = _agree(str(labels), "--contested", "/sys/contested.csv")
    assert "cannot write in /sys" in _one_line_error(result, 1)


def test_failed_atomic_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "c.csv"
    target.write_text("old")

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OutputError, match=f"cannot write {target}: No space left"):
        write_text_atomically(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["c.csv"]


def test_unexpected_entries_lists_files_and_empty_folders_not_allowed(tmp_path):
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "a.png").write_text("")
    (tmp_path / "empty").mkdir()
    (tmp_path / "report.md").write_text("")
    (tmp_path / "link").symlink_to("/")
    allowed = {"report.md", "figures/a.png"}
    assert unexpected_entries(tmp_path, allowed) == ["empty", "link"]


def test_a_file_that_appears_before_the_swap_is_put_back_not_deleted(tmp_path):
    dest = tmp_path / "report"
    dest.mkdir()
    (dest / "ours.txt").write_text("old")
    (dest / "theirs.txt").write_text("arrived after the check")

    def fill(folder: Path) -> None:
        (folder / "ours.txt").write_text("new")

    with pytest.raises(InvalidInput, match="now holds files planner did not write"):
        publish_folder(dest, fill, replace={"ours.txt"})
    assert _tree(dest) == {"ours.txt": b"old", "theirs.txt": b"arrived after the check"}
    assert [p.name for p in tmp_path.iterdir()] == ["report"]


# --- no input file is ever written: a glob's matches and every spelling of a path --------


def _two_parts(folder: Path) -> list[Path]:
    rows = (ROOT / "examples" / "labels.csv").read_text().splitlines()
    header, body = rows[0], rows[1:]
    parts = [folder / "part1.csv", folder / "part2.csv"]
    half = len(body) // 2
    for part, chunk in zip(parts, (body[:half], body[half:]), strict=True):
        part.write_text("\n".join([header, *chunk]) + "\n")
    return parts


@pytest.mark.parametrize("engine", ["duckdb", "auto"])
def test_contested_never_overwrites_a_file_a_glob_matched(tmp_path, engine, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parts = _two_parts(tmp_path)
    before = {p.name: p.read_bytes() for p in parts}
    os.link(parts[0], tmp_path / "hard.csv")
    spellings = ["part1.csv", "./part2.csv", str(parts[0]), f"../{tmp_path.name}/part2.csv",
                 "hard.csv", str(tmp_path / "." / "part1.csv")]  # fmt: skip
    for target in spellings:
        result = runner.invoke(
            app, ["agree", "part*.csv", "--engine", engine, "--positive", "unsupported",
                  "--contested", target, "--force", "--seed", "1"],
        )  # fmt: skip
        line = _one_line_error(result, 2)
        assert "is the input file (matched by part*.csv)" in line, line
    assert {p.name: p.read_bytes() for p in parts} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.csv", "part1.csv", "part2.csv"]


def test_contested_beside_a_glob_is_written_and_then_refused_as_an_input(tmp_path, monkeypatch):
    """A contested file the glob matches on the next run is an input of that run."""
    monkeypatch.chdir(tmp_path)
    _two_parts(tmp_path)
    args = ["agree", "part*.csv", "--positive", "unsupported", "--seed", "1", "--contested"]
    first = runner.invoke(app, [*args, "part3.csv"])
    assert first.exit_code == 0, first.output
    written = Path("part3.csv").read_bytes()
    again = runner.invoke(app, [*args, "part3.csv", "--force"])
    assert "is the input file (matched by part*.csv)" in _one_line_error(again, 2)
    assert Path("part3.csv").read_bytes() == written


def test_case_insensitive_spelling_of_an_input_is_refused(tmp_path, labels):
    upper = tmp_path / "LABELS.CSV"
    if not upper.exists():
        pytest.skip("this file system tells case apart")
    result = _agree(str(labels), "--contested", str(upper), "--force")
    assert "is the input file" in _one_line_error(result, 2)


def test_library_writers_refuse_their_inputs_too(tmp_path):
    from planner.data.engine_duckdb import copy_contested_items
    from planner.output.safe_output import write_csv_atomically, write_csv_from

    parts = _two_parts(tmp_path)
    before = [p.read_bytes() for p in parts]
    glob = str(tmp_path / "part*.csv")
    with pytest.raises(InvalidInput, match="is the input file"):
        write_csv_from(
            parts[1], lambda raw: copy_contested_items(glob, raw, wide_annotators=50), inputs=[glob]
        )
    with pytest.raises(InvalidInput, match="is the input file"):
        write_csv_atomically(parts[0], ["a"], [[1]], inputs=[tmp_path / "p*"])
    assert [p.read_bytes() for p in parts] == before


def test_report_never_replaces_a_folder_holding_its_own_scenario_or_pilot(tmp_path):
    out = tmp_path / "reports"
    first = runner.invoke(app, ["report", str(_scenario(tmp_path)), "--out", str(out)])
    assert first.exit_code == 0, first.output
    copy = out / "tiny" / "scenario.toml"
    before = _tree(out)
    result = runner.invoke(app, ["report", str(copy), "--out", str(out), "--force"])
    line = _one_line_error(result, 2)
    assert f"{copy} is an input of this run" in line and "would be replaced" in line
    pilot = tmp_path / "pilot.csv"
    os.link(out / "tiny" / "plan.json", pilot)  # the same file under a name a reader takes
    scenario = tmp_path / "piloted.toml"
    scenario.write_text(f'name = "tiny"\n[model]\npilot_file = "{pilot}"\n')
    result = runner.invoke(app, ["report", str(scenario), "--out", str(out), "--force"])
    assert "is an input of this run" in _one_line_error(result, 2)
    assert _tree(out) == before


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["agree", "--counts", "1,1,1,1", "--contested", "\x00", "--seed", "1"],
            "error: --contested '\\x00': a path cannot hold a NUL byte",
        ),
        (
            ["report", "unsupported-claims", "--out", "a\x00b", "--quiet"],
            "error: --out 'a\\x00b': a path cannot hold a NUL byte",
        ),
    ],
)
def test_a_path_with_a_nul_byte_is_refused_in_one_line(args, line, tmp_path, monkeypatch):
    # a NUL byte cannot reach argv from a shell, but it can from Python (the CLI fuzz found it)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [line]
    assert list(tmp_path.iterdir()) == []
