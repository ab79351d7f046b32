"""Text from files, flags and scenarios never reaches a terminal, a CSV or report.md raw.

ESC (the start of CSI and OSC sequences), other C0 and C1 control characters, DEL and the
bidirectional overrides are written out as ``\\xNN`` / ``\\uNNNN`` in tables, notes and
error messages; the contested CSV also defuses spreadsheet formulas; report.md escapes
Markdown (a ``|`` never shifts a column, no HTML tag passes).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.output.report_sections import markdown, markdown_text
from planner.output.safe_output import csv_cell, visible

runner = CliRunner()
ROOT = Path(__file__).parent.parent
OSC = "\x1b]0;PWNED\x07"  # sets the terminal's title
CSI = "\x1b[2J"  # clears the screen
C1 = "\x9b31m"  # the one-byte CSI of C1
RLO = "\u202e"  # right-to-left override
# every control character but the newline that ends lines
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
ANNOTATORS = [f"alice{CSI}", f"bob{C1}", f"carol{RLO}x", "llm"]


@pytest.fixture(scope="module")
def evil(tmp_path_factory) -> Path:
    """A long file whose annotator names, labels, item ids and groups carry escapes."""
    folder = tmp_path_factory.mktemp("evil")
    rows = ["item,annotator,label,week"]
    for i in range(60):
        truth = "yes" if i % 3 else "no"
        for j, name in enumerate(ANNOTATORS):
            label = truth if (i + j) % 7 else ("no" if truth == "yes" else "yes")
            label = f"{label}{OSC}" if label == "yes" else label
            item = f"id{i}{CSI}" if i == 4 else f"id{i}"
            rows.append(f"{item},{name},{label},w{i % 2}{OSC if i % 2 else ''}")
    path = folder / "evil.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _output(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert "Traceback" not in result.output
    return result.stdout + result.stderr


COMMANDS = {
    "agree": ["agree", "{f}", "--seed", "1"],
    "agree --by": ["agree", "{f}", "--seed", "1", "--by", "week"],
    "agree --positive": ["agree", "{f}", "--seed", "1", "--positive", f"yes{OSC}"],
    "agree bad --positive": ["agree", "{f}", "--seed", "1", "--positive", f"nope{CSI}"],
    "agree bad --by": ["agree", "{f}", "--seed", "1", "--by", f"wk{OSC}"],
    "fit": ["fit", "{f}", "--seed", "1", "--n-boot", "0"],
    "alt-test": ["alt-test", "{f}", "--llm", "llm", "--epsilon", "0.2", "--seed", "1"],
    "alt-test --by": ["alt-test", "{f}", "--llm", "llm", "--epsilon", "0.2", "--by", "week",
                      "--min-items", "5", "--seed", "1"],
    "alt-test bad --llm": ["alt-test", "{f}", "--llm", f"x{C1}", "--epsilon", "0.2"],
    "plan --pilot": ["plan", "--pilot", "{f}", "--pair", f"{ANNOTATORS[0]},{ANNOTATORS[1]}",
                     "--positive", f"yes{OSC}", "--seed", "1", "--replicates", "200"],
    "bad flag": ["agree", "{f}", f"--nope{CSI}"],
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("name", list(COMMANDS))
def test_no_control_character_reaches_the_terminal(evil, name):
    args = [a.replace("{f}", str(evil)) for a in COMMANDS[name]]
    shown = _output(args)
    assert not RAW.findall(shown), RAW.findall(shown)
    assert "\\x1b" in shown or "\\x9b" in shown  # the text is there, written out


def test_tables_show_each_name_label_id_and_group_written_out(evil):
    shown = _output(["agree", str(evil), "--seed", "1", "--by", "week"])
    for text in ("alice\\x1b[2J", "bob\\x9b31m", "carol\\u202ex", "yes\\x1b]0;PWNED\\x07",
                 "w1\\x1b]0;PWNED\\x07"):  # fmt: skip
        assert text in shown


@pytest.mark.slow
def test_a_real_terminal_gets_no_raw_escape_either(evil, monkeypatch):
    """Through a pseudo-terminal (colours on), only planner's own SGR styles are sent."""
    pty = pytest.importorskip("pty")
    import os

    out = []

    def read(fd: int) -> bytes:
        data = os.read(fd, 65536)
        out.append(data)
        return data

    for key, value in {"PYTHONPATH": str(ROOT), "COLUMNS": "120", "TERM": "xterm"}.items():
        monkeypatch.setenv(key, value)
    pty.spawn([sys.executable, "-m", "planner", "agree", str(evil), "--seed", "1", "--quiet"], read)
    text = b"".join(out).decode("utf-8", "replace")
    styles = re.sub(r"\x1b\[[0-9;]*m", "", text)  # Rich's colours (SGR) are planner's own
    assert "\x1b" not in styles and "\x07" not in styles and "\x9b" not in styles
    assert "alice\\x1b[2J" in styles


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_contested_csv_is_written_out_and_defuses_formulas(tmp_path, engine):
    source = tmp_path / "labels.csv"
    source.write_text(
        "item,annotator,label\n"
        f'=HYPERLINK("http://x"),a,yes{OSC}\n=HYPERLINK("http://x"),b,no\n'
        "@SUM(A1),a,+cmd\n@SUM(A1),b,-1\n"
        "plain,a,-2.5\nplain,b,=1+1\n"
        "same,a,no\nsame,b,no\n"
    )
    out = tmp_path / "contested.csv"
    result = runner.invoke(
        app, ["agree", str(source), "--engine", engine, "--contested", str(out), "--seed", "1"]
    )
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert not RAW.findall(text)
    cells = [c for line in text.splitlines() for c in line.split(",")]
    assert "yes\\x1b]0;PWNED\\x07" in text
    assert not [c for c in cells if c.lstrip('"')[:1] in ("=", "+", "@")]
    assert "'+cmd" in cells and "'=1+1" in cells and "'@SUM(A1)" in cells
    assert '"\'=HYPERLINK(""http://x"")"' in cells
    assert "-1" in cells and "-2.5" in cells  # numbers stay numbers


@pytest.mark.slow
def test_both_engines_write_the_same_escaped_contested_bytes(tmp_path, evil):
    files = {}
    for engine in ("pandas", "duckdb"):
        out = tmp_path / f"{engine}.csv"
        args = ["agree", str(evil), "--engine", engine, "--contested", str(out), "--seed", "1"]
        assert runner.invoke(app, args).exit_code == 0
        files[engine] = out.read_bytes()
    assert files["pandas"] == files["duckdb"]


@pytest.mark.slow
def test_report_md_escapes_stratum_names_and_keeps_html_escaped(tmp_path):
    scenario = (ROOT / "scenarios" / "clinical-chart-review.toml").read_text()
    evil_name = "high | risk <img src=x onerror=alert(1)> \\u001b[31m"
    scenario = scenario.replace('name = "high risk score"', f'name = "{evil_name}"')
    scenario = re.sub(r'^name = ".*"', 'name = "evil"', scenario, count=1, flags=re.M)
    path = tmp_path / "evil.toml"
    path.write_text(scenario)
    out = tmp_path / "out"
    result = runner.invoke(app, ["report", str(path), "--out", str(out), "--seed", "1"])
    assert result.exit_code == 0, result.output
    md = (out / "evil" / "report.md").read_text()
    page = (out / "evil" / "report.html").read_text()
    assert "<img src=x" not in md and "\x1b" not in md
    assert "<img src=x" not in page and "\x1b" not in page
    strata = [line for line in md.splitlines() if line.startswith("| high")]
    assert strata and all(_columns(line) == 7 for line in strata)


def _columns(row: str) -> int:
    """The cells of a Markdown table row (GFM: an escaped ``\\|`` is no separator)."""
    return len(re.split(r"(?<!\\)\|", row.strip().strip("|")))


# --- the escaping functions themselves ---------------------------------------------------


@given(st.text())
def test_visible_leaves_no_control_character_and_keeps_the_rest(text):
    shown = visible(text)
    assert not RAW.search(shown.replace("\n", "\x00"))
    kept = RAW.sub("", text.replace("\n", "\x00"))
    assert RAW.sub("", shown) == shown
    assert all(ch in shown for ch in kept)  # printable text, any script, is unchanged


@given(st.lists(st.text(), min_size=1, max_size=4), st.lists(st.text(), min_size=1, max_size=4))
def test_markdown_table_keeps_its_columns_whatever_the_cells(header, row):
    width = max(len(header), len(row))
    header = (header + [""] * width)[:width]
    row = (row + [""] * width)[:width]
    lines = markdown([("table", header, [row])]).splitlines()
    assert len(lines) == 3  # header, rule, row: no cell breaks a line
    assert _columns(lines[0]) == width and _columns(lines[2]) == width
    assert "<" not in lines[2] and ">" not in lines[2]


@given(st.text())
def test_csv_cell_never_starts_a_formula_unless_a_number(text):
    cell = csv_cell(text)
    if cell[:1] in ("=", "+", "-", "@"):
        float(cell)  # only plain numbers such as -1 or +5 keep their sign
    assert not RAW.search(cell)


def test_markdown_text_examples():
    assert markdown_text("a|b") == "a\\|b"
    assert markdown_text("[x](javascript:alert(1))") == "\\[x\\](javascript:alert(1))"
    assert markdown_text("&lt;b&gt;") == "&amp;lt;b&amp;gt;"


@pytest.mark.slow
def test_error_messages_from_the_top_level_handler_are_written_out(tmp_path):
    missing = tmp_path / f"no{CSI}such.csv"
    result = subprocess.run(
        [sys.executable, "-m", "planner", "agree", str(missing)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert result.returncode in (1, 2)
    assert not RAW.findall(result.stderr) and "no\\x1b[2Jsuch.csv" in result.stderr
