"""Evals from the journal: record sessions as cases, re-run them on a new model, prompt or
code (``replay``, ``live``, ``replay-then-live``), diff every layer, score, report. See
docs/evals.md."""

from ._evals.cases import Case as Case
from ._evals.cases import case_data as case_data
from ._evals.cases import inputs_of as inputs_of
from ._evals.cases import load_dataset as load_dataset
from ._evals.cases import record_case as record_case
from ._evals.cases import save_case as save_case
from ._evals.config import load_config as load_config
from ._evals.diff import LayerDiff as LayerDiff
from ._evals.diff import RunDiff as RunDiff
from ._evals.diff import diff_traces as diff_traces
from ._evals.diff import journal_changes as journal_changes
from ._evals.evaluators import Judge as Judge
from ._evals.evaluators import Score as Score
from ._evals.evaluators import budget as budget
from ._evals.evaluators import contains as contains
from ._evals.evaluators import equals as equals
from ._evals.evaluators import evaluator_of as evaluator_of
from ._evals.evaluators import json_schema as json_schema
from ._evals.evaluators import regex as regex
from ._evals.evaluators import trajectory as trajectory
from ._evals.report import CaseResult as CaseResult
from ._evals.report import Comparison as Comparison
from ._evals.report import Report as Report
from ._evals.report import assert_case as assert_case
from ._evals.report import judge_case as judge_case
from ._evals.report import run_dataset as run_dataset
from ._evals.rerun import MODES as MODES
from ._evals.rerun import Divergence as Divergence
from ._evals.rerun import Mode as Mode
from ._evals.rerun import Run as Run
from ._evals.rerun import run_case as run_case
from ._evals.rerun import trace_of as trace_of
from ._evals.trace import Trace as Trace

__all__ = [
    "Case",
    "CaseResult",
    "Comparison",
    "Divergence",
    "Judge",
    "LayerDiff",
    "MODES",
    "Mode",
    "Report",
    "Run",
    "RunDiff",
    "Score",
    "Trace",
    "assert_case",
    "budget",
    "case_data",
    "contains",
    "diff_traces",
    "equals",
    "evaluator_of",
    "inputs_of",
    "journal_changes",
    "json_schema",
    "judge_case",
    "load_config",
    "load_dataset",
    "record_case",
    "regex",
    "run_case",
    "run_dataset",
    "save_case",
    "trace_of",
    "trajectory",
]
