"""The web Agree page's bootstrap and weights fields measure as ``planner agree`` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import InvalidInput
from planner.web.page import parse_values
from planner.web.pages import agree

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# three annotators rating 1..3: weighted kappa, AC2 and Conger take the weights
SCORES = "item,annotator,label\n" + "".join(
    f"{i},{a},{(i + (a == 'c') * (i % 3 == 0) + (a == 'b') * (i % 5 == 0)) % 3 + 1}\n"
    for i in range(60)
    for a in "abc"
)


def _page(query: dict[str, str]):
    values = parse_values(agree.PAGE, {"seed": "3", "n_boot": "200", **query})
    return agree.PAGE.compute(values, {"labels": SCORES.encode()}, None)


def _cli(tmp_path: Path, *args: str) -> dict:
    path = tmp_path / "scores.csv"
    path.write_text(SCORES)
    result = CliRunner().invoke(
        app, ["agree", str(path), "--seed", "3", "--n-boot", "200", "--json", *args]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["coefficients"]


def test_bootstrap_and_linear_weights_on_the_page_are_agrees(tmp_path):
    result = _page({"level": "ordinal", "weights": "linear", "bootstrap": "1"})
    cli = _cli(tmp_path, "--level", "ordinal", "--weights", "linear", "--bootstrap")
    assert result.document["coefficients"] == cli
    assert "fleiss_kappa_linear" in cli and "conger_kappa_linear" in cli
    assert all(c["interval"]["method"].startswith("bootstrap") for c in cli.values())


def test_the_page_without_the_fields_keeps_quadratic_weights_and_analytic_intervals(tmp_path):
    result = _page({"level": "ordinal"})
    cli = _cli(tmp_path, "--level", "ordinal")
    assert result.document["coefficients"] == cli
    assert "fleiss_kappa_quadratic" in cli
    assert not cli["fleiss_kappa_quadratic"]["interval"]["method"].startswith("bootstrap")


def test_the_reproducing_command_names_the_bootstrap_and_the_weights():
    values = parse_values(agree.PAGE, {"weights": "linear", "bootstrap": "on", "seed": "3"})
    options = agree.cli_options(values, 3)
    assert options["bootstrap"] is True and options["weights"] == "linear"


def test_bad_weights_are_refused_on_their_field():
    with pytest.raises(InvalidInput) as caught:
        _page({"level": "ordinal", "weights": "cubic"})
    assert caught.value.parameter == "weights"
