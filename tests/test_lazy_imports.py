"""``import agentcore`` loads no runtime: its re-exported names are imported on first use
(PEP 562), and each is the very object its defining module holds."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import agentcore


def _loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


@pytest.mark.parametrize("statement", ["import agentcore", "import agentcore.machine"])
def test_the_package_and_the_core_load_no_runtime(statement: str) -> None:
    loaded = _loaded_after(statement)
    assert not {"agentcore._runtime.agent", "agentcore._journal.journal", "jsonschema"} & loaded


def test_the_old_spellings_finder_loads_no_importlib_abc() -> None:
    """``importlib.abc`` brings ``importlib.resources``, ``tempfile`` and ``shutil``: a third
    of ``import agentcore``'s own time, for two base classes the import system never asks
    for (the old-spellings finder is duck-typed)."""
    assert not {"importlib.abc", "importlib.resources"} & _loaded_after("import agentcore")


def test_a_name_brings_what_it_needs() -> None:
    assert "agentcore._runtime.agent" in _loaded_after("from agentcore import Agent")


HEAVY = ("jsonschema", "referencing", "importlib.metadata", "rich", "httpx", "anyio", "yaml")
"""Modules a plain run does not use: imported on first use (a schema checked, a plugin
looked up, a console shown), never by ``from agentcore import Agent``."""


@pytest.mark.parametrize(
    "statement",
    [
        "from agentcore import Agent",
        "from agentcore import Agent, tool",
        "from agentcore.drivers.scripted import FunctionDriver",
    ],
)
def test_the_agent_path_loads_no_heavy_module(statement: str) -> None:
    loaded = _loaded_after(statement)
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY or m in HEAVY) == []


def test_a_tool_s_schema_is_checked_when_used() -> None:
    """A tool's validator is compiled on its first validation (``jsonschema`` comes then),
    and validates as before."""
    code = (
        "from agentcore import define_tool; "
        "t = define_tool('add', 'Add.', {'type': 'object', 'properties': "
        "{'a': {'type': 'integer'}}}, lambda args, ctx: 1); "
        "assert t.validation_errors({'a': 2.5}) == ['at $.a: 2.5 is not of type \\'integer\\''], "
        "t.validation_errors({'a': 2.5}); "
        "assert t.validation_errors({'a': 2}) == []"
    )
    assert "jsonschema" in _loaded_after(code)


@pytest.mark.parametrize("name", agentcore.__all__)
def test_each_name_is_its_source_s_object(name: str) -> None:
    source = importlib.import_module(agentcore._SOURCES[name], "agentcore")
    assert getattr(agentcore, name) is getattr(source, name)
    assert name in dir(agentcore)


def test_every_listed_name_has_a_source_and_no_more() -> None:
    assert set(agentcore._SOURCES) == set(agentcore.__all__)


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    with pytest.raises(AttributeError, match="'agentcore' has no attribute 'Nope'"):
        agentcore.Nope  # noqa: B018
