"""_evals: cases from journals, re-runs in replay or live mode, diffs on every layer,
evaluators and reports; see docs/evals.md."""
