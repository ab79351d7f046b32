"""``alt-test``, ``compat`` and ``fit`` at the command line.

Errors that name real flags, tables readable at 80 columns, short reprs of big results.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.data.reader_settings import ReaderSettings
from planner.statistics.dawid_skene_settings import LatentClassSettings

runner = CliRunner()

CIBINARY = "compat kappasize CIBinary --kappa0 0.4 --kappaL 0.3 --kappaU 0.5 --props 0.3"


def _modules_after(arguments: list[str]) -> set[str]:
    """The modules a whole ``planner ARGUMENTS`` process has imported when it ends."""
    code = (
        "import sys\n"
        "from planner.cli.commands import app\n"
        "import typer\n"
        "try:\n"
        f"    typer.main.get_command(app)({arguments!r}, prog_name='planner')\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write('\\n'.join(sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return set(done.stderr.splitlines())


@pytest.mark.parametrize("sub", ["kappasize", "irr"])
def test_compat_subcommand_help_shows_help_as_a_flag(sub):
    # regression: `planner compat kappasize --help` listed "--help <bool>"
    result = runner.invoke(app, ["compat", sub, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    assert "--help" in result.stdout
    assert "<bool>" not in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    "line",
    [CIBINARY, "compat kappasize PowerBinary --kappa0 0.4 --kappa1 0.6 --props 0.3"],
)
def test_compat_kappasize_process_keeps_heavy_modules_off(line):
    # regression: scipy.stats (~0.4 s of start-up) was imported for a chi-squared
    # quantile and a binomial pmf; the other heavy libraries are not wanted either
    modules = _modules_after([*line.split(), "--seed", "1", "--json"])
    assert "planner.sizing.compat_kappasize" in modules  # the command did run
    for heavy in ("scipy.stats", "pandas", "matplotlib", "duckdb", "simpy"):
        assert heavy not in modules, heavy


def test_compat_kappasize_json_still_reproduces_r():
    # kappaSize's documented CIBinary example (R: 397 items), through the changed quantile
    result = runner.invoke(app, [*CIBINARY.split(), "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["n"] == 397


# ------------------------------------------------------------ flags named in error messages


def _options_of(*command: str) -> set[str]:
    """Every option name (``--items``, ``-h``) of ``planner COMMAND``."""
    import typer.main

    cli = typer.main.get_command(app)
    for name in command:
        cli = cli.commands[name]  # type: ignore[attr-defined]
    return {opt for param in cli.params for opt in param.opts}


def _one_line_error(arguments: list[str], code: int = 2) -> str:
    result = runner.invoke(app, arguments)
    assert result.exit_code == code, result.output
    lines = [line for line in result.stderr.splitlines() if not line.startswith("note:")]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def _flags_exist(message: str, *command: str) -> None:
    """Every ``--flag`` a message names is an option of the command; no parameter leaks."""
    flags = set(re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", message))
    assert flags <= _options_of(*command), (flags - _options_of(*command), message)
    prose = re.sub(r"\S*/\S*", "", message)  # file paths may have underscores
    assert not re.search(r"(?<![\w-])[a-z]+_[a-z_]+", prose), message


PLAN = ["alt-test", "--plan", "--epsilon", "0.1", "--seed", "1"]


@pytest.mark.parametrize(
    ("extra", "needles"),
    [
        (["--humans", "3", "--categories", "2", "--human-error", "0.1,0.2", "--llm-error",
          "0.2"], ["--humans is 3", "--human-error lists 2"]),
        (["--humans", "3", "--categories", "3", "--prevalences", "0.5,0.5"],
         ["--categories is 3", "--prevalences lists 2"]),
    ],
)  # fmt: skip
def test_alt_test_plan_count_and_list_that_disagree_name_both_flags(extra, needles):
    # regression: the list's length silently won over an explicit count
    message = _one_line_error([*PLAN, *extra])
    for needle in needles:
        assert needle in message
    _flags_exist(message, "alt-test")


def test_alt_test_plan_list_alone_sets_the_count():
    result = runner.invoke(
        app, [*PLAN, "--human-error", "0.1,0.2", "--prevalences", "0.3,0.3,0.4", "--items",
              "30", "--replicates", "100", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    description = json.loads(result.stdout)["model"]
    assert "2 humans" in description and "3 categories" in description


def test_alt_test_model_count_conflicts_raise_in_parameter_names():
    from planner.errors import InvalidInput
    from planner.sizing.alt_test_plan import alt_test_model

    with pytest.raises(InvalidInput, match=r"^humans is 3 but human_error lists 2"):
        alt_test_model(humans=3, human_error=[0.1, 0.2])
    with pytest.raises(InvalidInput, match=r"^categories is 3 but prevalences lists 2"):
        alt_test_model(categories=3, prevalences=[0.5, 0.5])
    agreed = alt_test_model(humans=2, human_error=[0.1, 0.2], categories=2, prevalences=[0.4, 0.6])
    assert agreed.n_humans == 2 and agreed.n_categories == 2
    default = alt_test_model()
    assert default.n_humans == 3 and default.n_categories == 2


@pytest.mark.slow
@pytest.mark.parametrize(
    ("extra", "needle", "code"),
    [
        (["--items", "0"], "--items must be", 2),
        (["--items", "10"], "lower --min-items", 2),
        (["--max-items", "10"], "--max-items must be at least --min-items", 2),
        (["--replicates", "5"], "--replicates must be", 2),
        (["--error-draw", "x"], "--error-draw must be", 2),
        (["--llm-error", "1.2"], "--llm-error must be", 2),
        (["--human-error", "1.3"], "--human-error must be", 2),
        (["--human-error", "0.3,0.3", "--prevalences", "0.5,0.6"], "--prevalences must sum", 2),
        (["--humans", "8", "--categories", "10"], "--humans 8 with 10 categories", 2),
        (["--seconds-per-item", "-1"], "--seconds-per-item must be", 2),
        (["--hourly-rate", "-1"], "--hourly-rate must be", 2),
        (["--human-error", "0.3", "--llm-error", "0.2", "--max-items", "40", "--replicates",
          "100"], "within --max-items 40", 1),
    ],
)  # fmt: skip
def test_alt_test_plan_errors_name_real_flags(extra, needle, code):
    # regression: "--n-items must be ..." (the flag is --items), "lower min_items"
    message = _one_line_error([*PLAN, *extra], code)
    assert needle in message
    _flags_exist(message, "alt-test")


@pytest.fixture
def judged(tmp_path):
    """Three humans and an LLM on 20 items (wide), and the same with an empty LLM column."""
    rows = ["item,h1,h2,h3,gpt"]
    empty = ["item,h1,h2,h3,gpt"]
    for i in range(20):
        a, b = "ab"[i % 2], "ab"[(i // 3) % 2]
        rows.append(f"{i},{a},{a},{b},{a}")
        empty.append(f"{i},{a},{a},{b},")
    full, blank = tmp_path / "few.csv", tmp_path / "empty.csv"
    full.write_text("\n".join(rows) + "\n")
    blank.write_text("\n".join(empty) + "\n")
    return str(full), str(blank)


WIDE = ["--layout", "wide", "--annotators", "h1,h2,h3,gpt", "--epsilon", "0.1"]


def test_alt_test_too_few_items_names_min_items_flag(judged):
    # regression: "lower min_items" (the flag is --min-items)
    message = _one_line_error(["alt-test", judged[0], *WIDE, "--llm", "gpt"])
    assert "the most is 20" in message and "lower --min-items" in message
    _flags_exist(message, "alt-test")


def test_alt_test_empty_llm_column_says_so(judged):
    # regression: an LLM column without labels was reported as too few items
    message = _one_line_error(["alt-test", judged[1], *WIDE, "--llm", "gpt"])
    assert "gpt has no labels" in message and "min-items" not in message


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--llm", "zz"], "--llm: 'zz' is not an annotator"),
        (["--llm", "gpt", "--llm", "gpt"], "--llm names 'gpt' twice"),
        (["--llm", "gpt", "--min-items", "1"], "--min-items must be"),
        (["--llm", "gpt", "--q", "2"], "--q must be"),
        (["--llm", "gpt", "--scoring", "neg-rmse"], "--scoring 'neg-rmse' needs numeric"),
    ],
)
def test_alt_test_file_errors_name_real_flags(judged, extra, needle):
    message = _one_line_error(["alt-test", judged[0], *WIDE, *extra])
    assert needle in message
    _flags_exist(message, "alt-test")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sub", "arguments", "needle"),
    [
        ("kappasize", "CIBinary --kappa0 0.4 --kappaL 0.5 --props 0.3", "below --kappa0 (0.4)"),
        ("kappasize", "CIBinary --kappa0 0.4 --kappaL 0.3 --kappaU 0.35 --props 0.3",
         "above --kappa0 (0.4)"),
        ("kappasize", "PowerBinary --kappa0 0.4 --kappa1 0.4 --props 0.3",
         "--kappa1 must differ from --kappa0"),
        ("kappasize", "CIBinary --kappa0 0.4 --kappaL 0.3", "--props is required"),
        ("kappasize", "CIBinary --kappa0 0.4 --kappaL 0.3 --props 0.3 --replicates 2",
         "--replicates must be"),
        ("irr", "N.cohen.kappa --rate1 0.5 --rate2 0.5 --k1 0.7 --k0 0.7",
         "--k1 must differ from --k0"),
        ("irr", "N2.cohen.kappa --mrg 0.5,0.6 --k1 0.7 --k0 0.85", "--mrg must sum to 1"),
    ],
)  # fmt: skip
def test_compat_errors_name_real_flags(sub, arguments, needle):
    # regression: R's argument names inside a sentence ("below kappa0") are flags
    message = _one_line_error(["compat", sub, *arguments.split(), "--seed", "1"])
    assert needle in message
    _flags_exist(message, "compat", sub)


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--n-boot", "-1"], "--n-boot must be"),
        (["--max-iter", "0"], "--max-iter must be"),
        (["--confidence", "2"], "--confidence must be"),
        (["--positive", "zzz"], "--positive must be one of"),
    ],
)
def test_fit_errors_name_real_flags(judged, extra, needle):
    arguments = ["fit", judged[0], "--layout", "wide", "--annotators", "h1,h2,h3,gpt"]
    message = _one_line_error([*arguments, *extra, "--seed", "1"])
    assert needle in message
    _flags_exist(message, "fit")


# ------------------------------------------------------------ the per-human table at 80 columns


def test_alt_test_table_keeps_every_number_readable_at_80_columns(tmp_path):
    # regression: at COLUMNS=80 the p column showed "0.00…" and the domain "doma…"
    rows = ["item,annotator,label,domain"]
    for i in range(160):
        truth = "abc"[i % 3]
        domain = "domain-medicine" if i % 2 else "domain-legal-texts"
        for j, name in enumerate(["alice_long_name", "bob", "carol", "gpt-4o"]):
            label = truth if (i + j) % 5 else "abc"[(i + 1) % 3]
            rows.append(f"{i},{name},{label},{domain}")
    path = tmp_path / "long.csv"
    path.write_text("\n".join(rows) + "\n")
    arguments = ["alt-test", str(path), "--llm", "gpt-4o", "--epsilon", "0.1", "--by", "domain"]
    shown = runner.invoke(app, arguments, env={"COLUMNS": "80"})
    doc = runner.invoke(app, [*arguments, "--json"])
    assert shown.exit_code == 0 and doc.exit_code == 0, shown.output
    assert "…" not in shown.stdout
    assert max(len(line) for line in shown.stdout.splitlines()) <= 80
    tests = json.loads(doc.stdout)["llms"][0]["tests"]
    assert len(tests) == 6
    for test in tests:
        assert f"{test['p_value']:.2g}" in shown.stdout
        assert f"{test['rho_llm']:.2f}" in shown.stdout


# ------------------------------------------------------------ short reprs of results


def _labels(n_items: int, seed: int) -> np.ndarray:
    """``(n_items, 4)`` labels 0..2 of four annotators who mostly agree with a truth."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    noise = rng.integers(0, 3, (n_items, 4))
    return np.where(rng.random((n_items, 4)) < 0.8, truth[:, None], noise)


def test_latent_class_fit_repr_is_one_short_line_whatever_the_items():
    # regression: the repr dumped every array (hundreds of lines on the
    # anaesthesia fit); now the shapes, the prevalences, the log-likelihood, the iterations
    from planner import fit_latent_classes, ratings_from_matrix

    small = fit_latent_classes(
        ratings_from_matrix(_labels(60, 1)), LatentClassSettings(n_boot=0), rng=1
    )
    large = fit_latent_classes(
        ratings_from_matrix(_labels(20_000, 2)), LatentClassSettings(n_boot=0), rng=1
    )
    for fit in (small, large):
        text = repr(fit)
        assert "\n" not in text and len(text) < 800, text
        assert text.startswith("LatentClassFit(") and "log_likelihood=" in text
        assert f"iterations={fit.iterations}" in text
        assert f"{float(fit.prevalence[0]):.4}"[:5] in text  # the prevalences themselves
        assert f"posterior=<array {fit.posterior.shape} float64>" in text
    assert abs(len(repr(large)) - len(repr(small))) < 40  # not the number of items


def test_anaesthesia_fit_repr_is_short():
    from pathlib import Path

    from planner import fit_latent_classes, read_labels

    data = Path(__file__).parent / "data" / "dawid_skene_anesthesia.csv"
    settings = ReaderSettings(
        item_col="patient", annotator_col="observer", label_col="rating", repeats="keep"
    )
    ratings = read_labels(str(data), settings)
    text = repr(fit_latent_classes(ratings, LatentClassSettings(n_boot=0), rng=1))
    assert "\n" not in text and len(text) < 800
    assert "confusion=<array (5, 4, 4) float64>" in text


def test_result_reprs_with_big_arrays_are_short(tmp_path):
    # regression: Ratings, AgreementReport, Pilot, Plan, RatersPlan, AltTestResult
    import planner as p

    labels = _labels(5_000, 3)
    ratings = p.ratings_from_matrix(labels, ["h1", "h2", "h3", "llm"])
    pair = np.column_stack([labels[:, 0] == 0, labels[:, 1] == 0]).astype(int)
    pilot_file = tmp_path / "pilot.csv"
    pilot_file.write_text("item,a,b\n" + "".join(f"{i},{x},{y}\n" for i, (x, y) in enumerate(pair)))
    model = p.raters_model([0.2, 0.3, 0.5], 4)
    results = {
        "Ratings": ratings,
        "AgreementReport": p.measure_agreement(ratings, rng=1),
        "AltTestResult": p.alt_test(ratings, ["llm"], epsilon=0.1),
        "Pilot": p.read_pilot(str(pilot_file), positive="1"),
        "Plan": p.make_plan(p.pair_from_annotators(0.08), p.PlanSettings(replicates=500), rng=1),
        # several annotators' plan is the same Plan type
        "Plan ": p.make_plan(
            model, p.PlanSettings(metric="fleiss", width=0.1, replicates=500), rng=1
        ),
    }
    for name, result in results.items():
        text = repr(result)
        assert text.startswith(name.strip() + "("), text[:80]
        assert "\n" not in text and len(text) < 2000, (name, len(text))
        assert "..., " not in text  # numpy's elided array print: no array printed whole


def test_alt_test_plan_too_many_error_rates_names_the_list():
    # regression: 13 --human-error values said "humans must be a whole number in [2, 12]"
    message = _one_line_error([*PLAN, "--human-error", ",".join(["0.1"] * 13)])
    assert message.startswith("error: --human-error must list one value per human")
    assert "got 13 values" in message
    _flags_exist(message, "alt-test")


# --- review: plan-only options with a FILE, and the seed note before validation --------------


def test_alt_test_file_mode_refuses_plan_only_options(tmp_path):
    result = runner.invoke(
        app,
        ["alt-test", str(Path(__file__).resolve().parents[1] / "examples" / "wide.csv"),
         "--layout", "wide", "--llm", "carol", "--epsilon", "0.1", "--power", "0.9"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == "error: --power applies to --plan only (testing a FILE does not use it)"
    )


def test_alt_test_plan_error_is_one_line_without_the_seed_note():
    result = runner.invoke(
        app,
        ["alt-test", "--plan", "--human-error", "0.3", "--llm-error", "0.2", "--epsilon", "0.1",
         "--power", "1.2"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error: --power must be a number in (0, 1), got 1.2"
    ]


def test_alt_test_plan_refuses_table_with_items():
    result = runner.invoke(
        app,
        ["alt-test", "--plan", "--human-error", "0.3", "--llm-error", "0.2", "--epsilon", "0.1",
         "--items", "50", "--table"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "--table" in result.stderr and "--items" in result.stderr
