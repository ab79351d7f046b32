"""Write errors are one line naming the target, exit 1, no traceback; replaced files keep
their mode; temporaries of a killed run are cleaned by the next one (only ours, only old)."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.output import report as report_module
from planner.output.safe_output import (
    STALE_AFTER,
    remove_stale_temporaries,
    write_text_atomically,
)

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent
LABELS = str(ROOT / "examples" / "labels.csv")
runner = CliRunner()

COMMANDS = {
    "plan": ["plan", "--prevalence", "0.08", "--seed", "1"],
    "plan --json": ["plan", "--prevalence", "0.08", "--seed", "1", "--json"],
    "agree": ["agree", LABELS, "--positive", "unsupported", "--seed", "1"],
    "agree --json": ["agree", LABELS, "--positive", "unsupported", "--seed", "1", "--json"],
    "schedule": ["schedule", "--items", "200", "--seed", "1"],
    "compat": ["compat", "kappasize", "PowerBinary", "--kappa0", "0.4", "--kappa1", "0.6",
               "--props", "0.3"],
}  # fmt: skip


def _planner(args: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "planner", *args], cwd=ROOT, env=env, text=True,
        capture_output=kwargs.pop("capture_output", "stdout" not in kwargs), timeout=300,
        **kwargs,
    )  # fmt: skip


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("name", list(COMMANDS))
def test_stdout_on_a_full_disk_is_one_line_naming_it(name):
    with open("/dev/full", "w") as full:
        result = _planner(COMMANDS[name], stdout=full, stderr=subprocess.PIPE)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if not line.startswith("note:")]
    assert errors == ["error: cannot write standard output (/dev/full): No space left on device"]


@pytest.mark.parametrize("name", ["plan", "agree", "plan --json"])
def test_closed_pipe_stops_quietly(name):
    """``plan | head -c1``: as Unix tools do, no message and no traceback."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = " ".join(f"'{a}'" for a in [sys.executable, "-m", "planner", *COMMANDS[name]])
    result = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {command} 2>err.txt | head -c1 >/dev/null; "
                       "echo $?; cat err.txt; rm err.txt"],
        cwd=ROOT, env=env, text=True, capture_output=True, timeout=300,
    )  # fmt: skip
    code, *errors = result.stdout.splitlines()
    assert code in ("0", "1")  # 0 when everything fit in the pipe before head left
    assert [e for e in errors if not e.startswith("note:")] == []


def _scenario(folder: Path) -> Path:
    path = folder / "tiny.toml"
    path.write_text(
        'name = "tiny"\n[model]\npilot_counts = [6, 21, 14, 459]\n[target]\nmetric = "psa"\n'
        "width = 0.2\n[simulation]\nseed = 3\nreplicates = 200\n[team]\nruns = 2\n"
    )
    return path


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*")
            if p.is_file()}  # fmt: skip


def test_full_disk_while_replacing_a_report_keeps_the_old_one(tmp_path, monkeypatch):
    scenario, out = str(_scenario(tmp_path)), tmp_path / "out"
    assert runner.invoke(app, ["report", scenario, "--out", str(out)]).exit_code == 0
    before = _tree(out)

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(report_module, "draw_figures", full)  # the disk fills mid-report
    result = runner.invoke(app, ["report", scenario, "--out", str(out), "--force"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.strip().splitlines() == [
        f"error: cannot write {out / 'tiny'}: No space left on device"
    ]
    assert _tree(out) == before
    assert sorted(p.name for p in out.iterdir()) == ["tiny"]


# --- a replaced file keeps its mode ------------------------------------------------------


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
@pytest.mark.parametrize("mode", [0o600, 0o640, 0o444])
def test_force_keeps_the_mode_of_the_replaced_contested_file(tmp_path, engine, mode):
    out = tmp_path / "contested.csv"
    out.write_text("old\n")
    out.chmod(mode)
    previous = os.umask(0o002)  # a umask that would give 0o664
    try:
        result = runner.invoke(
            app, ["agree", LABELS, "--engine", engine, "--contested", str(out), "--force",
                  "--seed", "1"],
        )  # fmt: skip
    finally:
        os.umask(previous)
    assert result.exit_code == 0, result.output
    assert out.read_text() != "old\n"
    assert stat.S_IMODE(out.stat().st_mode) == mode


def test_a_new_file_gets_the_umask_mode(tmp_path):
    previous = os.umask(0o077)
    try:
        write_text_atomically(tmp_path / "new.txt", "x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o600


# --- temporaries a killed run left -------------------------------------------------------


def _age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    for entry in [path, *path.rglob("*")]:
        os.utime(entry, (then, then), follow_symlinks=False)


def test_next_report_removes_old_temporaries_of_its_own_name_only(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    old_build = out / ".tiny.a1b2c3d4"  # a report folder being built when SIGKILL came
    (old_build / "figures").mkdir(parents=True)
    (old_build / "report.md").write_text("half")
    old_trash = out / ".tiny.old.zz_9yx8w"
    old_trash.mkdir()
    fresh = out / ".tiny.q1w2e3r4"  # another run building right now
    fresh.mkdir()
    kept = [out / ".tiny.notes", out / ".other.a1b2c3d4", out / "tiny.a1b2c3d4",
            out / ".tiny.a1b2c3d45"]  # fmt: skip
    for path in kept:
        path.write_text("mine")
    for path in (old_build, old_trash, *kept):
        _age(path, STALE_AFTER + 60)
    result = runner.invoke(app, ["report", str(_scenario(tmp_path)), "--out", str(out)])
    assert result.exit_code == 0, result.output
    left = sorted(p.name for p in out.iterdir())
    assert left == sorted(["tiny", fresh.name, *(p.name for p in kept)])


def test_a_temporary_with_a_recent_file_inside_is_kept(tmp_path):
    build = tmp_path / ".report.k2_x9a0q"
    build.mkdir()
    _age(build, STALE_AFTER + 60)
    (build / "report.md").write_text("being written")
    assert remove_stale_temporaries(tmp_path / "report") == []
    assert build.exists()


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_next_contested_write_removes_old_temporaries_of_that_file(tmp_path, engine):
    target = tmp_path / "c.csv"
    stale = [tmp_path / ".c.csv.abcd1234", tmp_path / ".c.csv.abcd1234.csv"]
    young = tmp_path / ".c.csv.wxyz9876"
    for path in (*stale, young):
        path.write_text("partial")
    for path in stale:
        _age(path, STALE_AFTER + 60)
    result = runner.invoke(
        app, ["agree", LABELS, "--engine", engine, "--contested", str(target), "--seed", "1"]
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [young.name, "c.csv"]
