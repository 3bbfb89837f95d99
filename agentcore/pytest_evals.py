"""The pytest plugin of ``agentcore.evals``: ``pytest -p agentcore.pytest_evals
--eval-config factory.py`` runs each case of every ``*.eval.json``/``*.eval.yaml`` file
as a test whose failure message is the diff (docs/evals.md)."""

from ._evals.pytest_plugin import pytest_addoption as pytest_addoption
from ._evals.pytest_plugin import pytest_collect_file as pytest_collect_file

__all__ = ["pytest_addoption", "pytest_collect_file"]
