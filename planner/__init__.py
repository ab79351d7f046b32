"""planner: study planning and sample-size simulation for inter-annotator agreement.

The statistics work on small integer count tables with a leading batch axis: a stack of
``R`` simulated 2x2 tables has shape ``(R, 2, 2)`` and an observed table ``(2, 2)``.
Row index is annotator A's category and column index annotator B's; for binary labels
category 0 is *positive*, so ``table[..., 0, 0]`` is ``a`` (both positive),
``table[..., 0, 1]`` is ``b`` (A only), ``table[..., 1, 0]`` is ``c`` (B only) and
``table[..., 1, 1]`` is ``d`` (neither).

The public API is listed in ``__all__``; the names load on first use, so that
``import planner`` (and the ``plan`` command) stays fast:

>>> from planner import PlanSettings, make_plan, pair_from_annotators
>>> plan = make_plan(pair_from_annotators(0.08), PlanSettings(width=0.08), rng=1)
>>> plan.results["psa"].items
1280
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> the module that defines it
_PUBLIC = {
    # describing the annotator pair
    "PairModel": "planner.sizing.model",
    "pair_from_annotators": "planner.sizing.model",
    "pair_from_union_rate": "planner.sizing.model",
    "pair_from_counts": "planner.sizing.model",
    # planning a study
    "PlanSettings": "planner.sizing.plan_settings",
    "TeamPricing": "planner.sizing.team_cost",
    "LabelCosts": "planner.sizing.items_bought",
    "PersonPrice": "planner.sizing.team_cost",
    "team_pricing": "planner.sizing.team_cost",
    "Person": "planner.operations.team",
    "Plan": "planner.sizing.plan",
    "PairPlan": "planner.sizing.plan",
    "PrecisionRow": "planner.sizing.plan",
    "Recommendation": "planner.sizing.plan",
    "Budget": "planner.operations.budget",
    "make_plan": "planner.sizing.plan",
    "SampleSizeResult": "planner.sizing.search",
    "StopRule": "planner.sizing.sampling_rules",
    "WorstCase": "planner.sizing.sampling_rules",
    "SearchSettings": "planner.sizing.search",
    "find_sample_size": "planner.sizing.search",
    "Scenario": "planner.data.scenario",
    "Stratum": "planner.data.scenario",
    "load_scenario": "planner.data.scenario",
    "scenario_from_dict": "planner.data.scenario",
    "Comparison": "planner.sizing.compare",
    "DesignCost": "planner.sizing.compare",
    "DesignResult": "planner.sizing.design",
    "compare_designs": "planner.sizing.compare",
    "compare_strata_designs": "planner.sizing.compare",
    "PatternStrata": "planner.sizing.pattern_strata",
    "PairStrata": "planner.sizing.pair_strata",
    "pilot_strata": "planner.sizing.strata_file",
    "PilotStrata": "planner.sizing.strata_file",
    "StrataPilotUncertainty": "planner.sizing.strata_pilot_uncertainty",
    "weighted_under_pilot": "planner.sizing.strata_pilot_uncertainty",
    "RatersStrata": "planner.sizing.raters_strata",
    "StrataOptions": "planner.sizing.compare",
    "raters_strata": "planner.sizing.raters_strata",
    "stratum_raters_models": "planner.sizing.raters_strata",
    "compare_raters_designs": "planner.sizing.compare",
    "raters_comparison_from_options": "planner.application.raters_strata_options",
    # measuring agreement
    "Ratings": "planner.data.labels",
    "ratings_from_matrix": "planner.data.labels",
    "ratings_from_counts": "planner.data.labels",
    "ReaderSettings": "planner.data.reader_settings",
    "read_labels": "planner.data.reading",
    "ratings_from_long": "planner.data.reading",
    "ratings_from_wide": "planner.data.reading",
    "ratings_from_vector_counts": "planner.data.vector_counts",
    "ratings_from_category_counts": "planner.data.vector_counts",
    "AgreementReport": "planner.measuring.measure",
    "Decision": "planner.measuring.decision",
    "Coefficient": "planner.measuring.measure",
    "Interval": "planner.measuring.coefficient",
    "measure_agreement": "planner.measuring.measure",
    "MeasureSettings": "planner.measuring.measure_settings",
    "measure_category_counts": "planner.measuring.category_counts",
    "StratifiedReport": "planner.measuring.stratified",
    "StratumRow": "planner.measuring.stratified",
    "WeightedCoefficient": "planner.measuring.stratified",
    "measure_stratified": "planner.measuring.stratified",
    # fitting annotators to a pilot (Dawid & Skene, fit)
    "LatentClassFit": "planner.statistics.dawid_skene",
    "BinaryAnnotators": "planner.statistics.dawid_skene",
    "LatentClassSettings": "planner.statistics.dawid_skene_settings",
    "fit_latent_classes": "planner.statistics.dawid_skene",
    "pair_model_from_fit": "planner.sizing.fitted_pair",
    # compatibility with R's kappaSize and irr
    "kappasize": "planner.sizing.compat_kappasize",
    "irr": "planner.sizing.compat_irr",
    "check_kappasize": "planner.sizing.compat_check",
    "check_irr": "planner.sizing.compat_check",
    "CIResult": "planner.sizing.compat_kappasize",
    "FixedNResult": "planner.sizing.compat_kappasize",
    "PowerResult": "planner.sizing.compat_kappasize",
    "KappaSizeSetting": "planner.sizing.compat_kappasize",
    "IrrResult": "planner.sizing.compat_irr",
    "CompatVerdict": "planner.sizing.compat_check",
    # the alternative annotator test: testing an LLM judge, and planning the test
    "alt_test": "planner.measuring.alt_test",
    "AltTestResult": "planner.measuring.alt_test",
    "LLMVerdict": "planner.measuring.alt_test",
    "HumanTest": "planner.measuring.alt_test",
    "DomainVerdict": "planner.measuring.alt_test",
    "alt_test_model": "planner.sizing.alt_test_plan",
    "plan_alt_test": "planner.sizing.alt_test_plan",
    "pass_probability": "planner.sizing.alt_test_plan",
    "alt_test_plan_summary": "planner.sizing.alt_test_plan",
    "AltTestPlanSettings": "planner.sizing.alt_test_settings",
    "AltTestModel": "planner.sizing.alt_test_model",
    "AltTestPlan": "planner.sizing.alt_test_plan",
    "PassProbability": "planner.sizing.alt_test_plan",
    "AltTestPlanSummary": "planner.sizing.alt_test_plan",
    # multi-rater sizing: M annotators per item
    "RatersModel": "planner.sizing.annotator_model",
    "raters_model": "planner.sizing.annotator_model",
    "RatersPlan": "planner.sizing.plan",
    "RatersPilot": "planner.sizing.pilot_latent_class",
    "RatersUncertainty": "planner.sizing.uncertainty_refits",
    "read_raters_pilot": "planner.sizing.pilot_latent_class",
    "plan_from_raters_pilot_file": "planner.sizing.plan_under_pilot",
    "plan_from_raters_pilot": "planner.sizing.plan_under_pilot",
    "with_pilot_uncertainty": "planner.sizing.plan_under_pilot",
    # planning from a pilot: its file, its uncertainty, what a fixed size buys
    "Pilot": "planner.sizing.pilot",
    "PilotCoefficient": "planner.sizing.pilot",
    "read_pilot": "planner.sizing.pilot",
    "pilot_from_ratings": "planner.sizing.pilot",
    "PilotUncertainty": "planner.sizing.uncertainty",
    "items_under_uncertainty": "planner.sizing.uncertainty",
    "Precision": "planner.sizing.precision",
    "MetricPrecision": "planner.sizing.precision",
    "fixed_size_precision": "planner.sizing.precision",
    "RatersPrecision": "planner.sizing.precision",
    "assurance_curve": "planner.sizing.assurance_curve",
    "pair_from_agreement": "planner.sizing.model_targets",
    # a study in progress: its labels so far are the first stage (an internal pilot)
    "RemainingPlan": "planner.sizing.midstudy_result",
    "RemainingSettings": "planner.sizing.midstudy_settings",
    "BoughtItems": "planner.sizing.midstudy_budget",
    "plan_remaining": "planner.sizing.midstudy",
    "plan_remaining_from_file": "planner.sizing.midstudy",
    "plan_remaining_from_ratings": "planner.sizing.midstudy",
    "read_labels_in_hand": "planner.sizing.midstudy",
    "BatchProcedure": "planner.sizing.midstudy_procedure",
    "batch_procedure": "planner.sizing.midstudy_procedure",
    "batches_for_plan": "planner.sizing.midstudy_procedure",
    "RatersRemaining": "planner.sizing.midstudy_latent_class",
    "plan_remaining_raters": "planner.sizing.midstudy_latent_class",
    "StratifiedRemaining": "planner.sizing.midstudy_strata",
    "SharesCheck": "planner.sizing.midstudy_strata",
    "StratumRemaining": "planner.sizing.midstudy_strata",
    "plan_remaining_strata": "planner.sizing.midstudy_strata",
    "StrataStage": "planner.sizing.midstudy_strata",
    "StrataAnalysis": "planner.sizing.midstudy_strata",
    "plan_remaining_strata_from_file": "planner.sizing.strata_file",
    "remaining_strata_from_file": "planner.application.strata_in_progress",
    "remaining_from_file": "planner.application.in_progress",
    "raters_batch_procedure": "planner.sizing.midstudy_procedure",
    "strata_batch_procedure": "planner.sizing.midstudy_strata_procedure",
    # operations and reports
    "Operation": "planner.operations.workload",
    "ScheduleResult": "planner.operations.workload",
    "RunRecord": "planner.operations.workload",
    "TeamOutcome": "planner.operations.team_outcome",
    "PersonRow": "planner.operations.team_outcome",
    "simulate_schedule": "planner.operations.workload",
    "write_report": "planner.output.report",
    "write_progress_report": "planner.output.report_in_progress",
    "ProgressSettings": "planner.output.report_in_progress",
    # errors
    "PlannerError": "planner.errors",
    "InvalidInput": "planner.errors",
    "TargetUnreachable": "planner.errors",
    "shown_note": "planner.errors",
    "parameters_named": "planner.errors",
}
__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'planner' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
