"""The pytest plugin: each case of a dataset file is a test, failing with its layer diff.

Enabled with ``-p agentcore.pytest_evals`` (or ``pytest_plugins`` in a conftest) and
given a configuration (``--eval-config file.py:config``, or the ``eval_config`` ini
option), pytest collects every ``*.eval.json``, ``*.eval.yaml`` and ``*.eval.yml`` file
as a dataset and each of its cases as a test item (``--eval-mode`` replay, live or
replay-then-live). A failing case's report is ``CaseResult.failure()``: the failed
scores and the diff of every layer. Without a configuration nothing is collected.
"""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from .._core.errors import ConfigurationError
from .cases import Case, load_dataset
from .report import assert_case
from .rerun import MODES

__all__ = ["pytest_addoption", "pytest_collect_file"]

_SUFFIXES = (".eval.json", ".eval.yaml", ".eval.yml")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentcore evals")
    group.addoption("--eval-config", help="the configuration cases run on (docs/evals.md)")
    group.addoption(
        "--eval-mode",
        choices=MODES,
        default=None,
        help="replay (default), live or replay-then-live",
    )
    parser.addini("eval_config", "the configuration eval cases run on")
    parser.addini("eval_mode", "replay, live or replay-then-live", default="replay")


def _setting(config: pytest.Config, name: str) -> Any:
    value = config.getoption(f"--{name.replace('_', '-')}")
    return value if value is not None else config.getini(name)


def pytest_collect_file(file_path: pathlib.Path, parent: pytest.Collector) -> Any:
    if file_path.name.endswith(_SUFFIXES) and _setting(parent.config, "eval_config"):
        return EvalFile.from_parent(parent, path=file_path)
    return None


class EvalFile(pytest.File):
    """A dataset file: one item per case."""

    def collect(self) -> Any:
        for case in load_dataset(self.path):
            yield EvalItem.from_parent(self, name=case.name, case=case)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> str:  # type: ignore[override]
        if isinstance(excinfo.value, ConfigurationError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))


class EvalItem(pytest.Item):
    """One case, re-run and judged when the test runs."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        config = self.config
        assert_case(self.case, _setting(config, "eval_config"), mode=_setting(config, "eval_mode"))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, AssertionError | ConfigurationError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[pathlib.Path, int, str]:
        return self.path, 0, f"eval case {self.case.name!r}"
