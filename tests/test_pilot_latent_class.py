"""A pilot of three annotators planned as three annotators, under the pilot's uncertainty.

The recommendation (items under uncertainty) is checked by an item-level numpy simulation
written here: each study is drawn under one of the pilot's bootstrap truths (a true class,
then each annotator's label from that truth's confusion matrix), its specific positive
agreement interval computed from the per-item positive counts
(tests/test_several_annotators_precision).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from planner.application.raters_options import raters_plan_from_options
from planner.cli.commands import plan_app
from planner.data.labels import ratings_from_matrix
from planner.errors import InvalidInput
from planner.output.jsonout import load_schema
from planner.sizing.pilot_latent_class import raters_pilot_from_ratings, read_raters_pilot
from planner.sizing.plan import PlanSettings
from planner.sizing.plan_under_pilot import plan_from_raters_pilot_file
from tests.test_several_annotators_precision import psa_half_widths

ROOT = Path(__file__).parent.parent
WIDE = str(ROOT / "examples" / "wide.csv")
READER = {"layout": "wide", "annotator_cols": ["alice", "bob", "carol"]}
WIDE_FLAGS = ["--layout", "wide", "--annotator-cols", "alice,bob,carol"]
runner = CliRunner()


SETTINGS = PlanSettings(width=0.05, assurance=0.8, replicates=1000)


@pytest.fixture(scope="module")
def plan():
    """The library's plan of the pilot file (checked below by an independent simulation)."""
    return plan_from_raters_pilot_file(WIDE, SETTINGS, reader=READER, positive="unsupported", rng=4)


@pytest.mark.slow
def test_the_library_function_gives_the_commands_plan_at_the_same_seed(plan):
    options = {
        "pilot": WIDE, "pilot_reader": READER, "positive": "unsupported", "width": 0.05,
        "assurance": 0.8, "replicates": 1000,
    }  # fmt: skip
    command = raters_plan_from_options(options, rng=4)  # what plan --pilot ... --seed 4 runs
    assert (plan.items, plan.sizing.items) == (command.items, command.sizing.items)
    assert plan.recommended == command.recommended and plan.uncertainty == command.uncertainty
    assert plan.notes == command.notes and plan.pilot.seed == command.pilot.seed


def _item_level(draws, n_items, n_studies, rng):
    """Per-item positive counts of studies, study ``r`` under truth ``r mod D``."""
    which = np.arange(n_studies) % len(draws)
    prevalence = np.array([d[0][1] for d in draws])[which]  # P(truly positive)
    confusion = np.array([d[1] for d in draws])[which]  # (S, M, 2, 2)
    truth = rng.random((n_studies, n_items)) < prevalence[:, None]
    says_positive = np.where(
        truth[..., None], confusion[:, None, :, 1, 1], confusion[:, None, :, 0, 1]
    )  # (S, N, M): P(label positive | truth)
    return (rng.random(says_positive.shape) < says_positive).sum(axis=-1)


@pytest.mark.slow
def test_recommendation_holds_under_the_pilots_truths_and_plug_in_falls_short(plan):
    u, draws = plan.uncertainty, plan.pilot.draws
    rng = np.random.default_rng(99)
    studies = 1200
    at_rec = np.mean(psa_half_widths(_item_level(draws, u.items, studies, rng), 3) <= 0.05)
    at_plug = np.mean(psa_half_widths(_item_level(draws, u.plug_in_items, studies, rng), 3) <= 0.05)
    se = math.sqrt(0.8 * 0.2 / studies)
    assert at_rec == pytest.approx(
        u.hybrid_assurance, abs=4 * math.hypot(se, u.hybrid_assurance_se)
    )
    assert at_rec >= 0.8 - 4 * se
    assert u.items > u.plug_in_items and u.plug_in_hybrid_assurance < 0.8
    assert at_plug == pytest.approx(u.plug_in_hybrid_assurance, abs=4 * math.hypot(se, se))
    assert plan.items == plan.recommended.items == u.items
    assert plan.budget.labels == 3 * u.items


@pytest.mark.slow
def test_plug_in_model_is_the_fit_and_the_plan_meets_it(plan):
    pilot = plan.pilot
    assert pilot.annotators == ("alice", "bob", "carol") and pilot.items == 600
    assert pilot.categories == ("supported", "unsupported") and pilot.positive == "unsupported"
    # each bootstrap truth is a model: prevalences sum to 1, confusion rows sum to 1
    for prevalence, confusion in pilot.draws:
        assert prevalence.sum() == pytest.approx(1) and np.allclose(confusion.sum(axis=-1), 1)
    assert plan.model.n_annotators == 3 and plan.sizing.items == plan.uncertainty.plug_in_items


def test_bootstrap_spread_of_the_prevalence_is_about_binomial(plan):
    # the positive class's prevalence is estimated from 600 items: its bootstrap SD is near
    # the binomial SD of a share of 600 (a little above it: the classes are latent)
    pilot = plan.pilot
    p = pilot.model.prevalences[1]
    sd = float(np.std([d[0][1] for d in pilot.draws]))
    binomial = math.sqrt(p * (1 - p) / pilot.items)
    assert 0.8 * binomial < sd < 1.6 * binomial


@pytest.mark.slow
def test_positive_label_orders_the_categories():
    rng = np.random.default_rng(3)
    truth = rng.random(400) < 0.2
    labels = np.where(rng.random((400, 3)) < 0.9, truth[:, None], ~truth[:, None])
    matrix = np.where(labels, "yes", "no")
    ratings = ratings_from_matrix(matrix, annotators=["a", "b", "c"])
    yes = raters_pilot_from_ratings(ratings, positive="yes", draws=30, rng=1)
    no = raters_pilot_from_ratings(ratings, positive="no", draws=30, rng=1)
    assert yes.categories == ("no", "yes") and no.categories == ("yes", "no")
    assert yes.model.prevalences == pytest.approx(no.model.prevalences[::-1])
    assert yes.model.prevalences[1] == pytest.approx(truth.mean(), abs=0.05)
    with pytest.raises(InvalidInput, match="^positive is needed") as exc:
        raters_pilot_from_ratings(ratings, draws=30, rng=1)
    assert exc.value.parameter == "positive"
    with pytest.raises(InvalidInput, match="^positive 'maybe' is not a label"):
        raters_pilot_from_ratings(ratings, positive="maybe", draws=30, rng=1)


def test_two_annotators_are_refused_in_the_library(tmp_path):
    path = tmp_path / "two.csv"
    path.write_text(
        "item,annotator,label\n" + "".join(f"i{k},{w},{k % 2}\n" for k in range(20) for w in "xy")
    )
    with pytest.raises(InvalidInput, match="needs 3 to 6") as exc:
        read_raters_pilot(path, rng=1)
    assert exc.value.parameter == "pilot"


# --------------------------------------------------------------------------- the command


def _plan(*args):
    return runner.invoke(plan_app, ["--pilot", WIDE, *WIDE_FLAGS, *args, "--replicates", "300"])


@pytest.mark.slow
def test_command_prints_the_recommendation_and_json_validates():
    base = ("--annotators", "3", "--positive", "unsupported", "--width", "0.08", "--seed", "2")
    result = _plan(*base)
    assert result.exit_code == 0, result.output
    assert "Under pilot uncertainty (psa): the recommendation" in result.stdout
    assert "items under uncertainty" in result.stdout and "Pilot: " in result.stdout
    done = _plan(*base, "--json")
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    Draft202012Validator(load_schema()).validate(doc)
    assert doc["recommendation"]["items"] == doc["uncertainty"]["items"]
    assert doc["pilot"]["annotators"] == ["alice", "bob", "carol"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--annotators", "4", "--positive", "unsupported"], "--annotators 4 does not match"),
        (["--annotators", "3", "--positive", "unsupported", "--prevalence", "0.1"],
         "--pilot gives the annotators' model; it does not combine with --prevalence"),
        (["--annotators", "3"], "--positive is needed"),
        (["--annotators", "3", "--positive", "unsupported", "--pair", "alice,bob"],
         "--pair describes one pair"),
    ],
)  # fmt: skip
def test_bad_pilot_combinations_are_one_line(args, needle):
    result = _plan(*args, "--seed", "1")
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], result.stderr
    assert result.stdout == ""


def _perfect_pilot(folder: Path) -> Path:
    """Three annotators who agree on all 200 items (10 positive): a fit without errors."""
    path = folder / "perfect.csv"
    labels = ["yes" if k < 10 else "no" for k in range(200)]
    path.write_text("item,a,b,c\n" + "".join(f"i{k},{x},{x},{x}\n" for k, x in enumerate(labels)))
    return path


def test_a_pilot_whose_annotators_never_disagree_is_one_line_about_the_pilot(tmp_path):
    path = _perfect_pilot(tmp_path)
    args = ["--pilot", str(path), "--layout", "wide", "--annotator-cols", "a,b,c"]
    result = runner.invoke(plan_app, [*args, "--positive", "yes", "--annotators", "3"])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {path}: psa has an interval of zero width under the pilot's")
    assert "--" not in line  # nothing to change by a flag: the model is the pilot's fit
    pilot = read_raters_pilot(path, {"layout": "wide"}, positive="yes", draws=20, rng=1)
    from planner.sizing.plan_under_pilot import plan_from_raters_pilot

    with pytest.raises(InvalidInput, match="annotators never disagree") as exc:
        plan_from_raters_pilot(pilot, PlanSettings(width=0.1, replicates=200), rng=1)
    assert exc.value.parameter == "pilot"


def test_a_pilot_fit_that_does_not_converge_names_the_pilot_not_a_missing_option(monkeypatch):
    from planner.statistics import dawid_skene

    def stuck(*args, **kwargs):
        raise dawid_skene.FitDidNotConverge("did not converge in 1,000 iterations; raise max_iter")

    monkeypatch.setattr(dawid_skene, "fit_latent_classes", stuck)
    result = _plan("--annotators", "3", "--positive", "unsupported", "--seed", "1")
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert "the latent-class fit of the pilot did not converge in 1,000 iterations" in line
    assert "--max-iter" not in line  # plan has no such option
