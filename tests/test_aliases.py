"""Aliases (a second public name for one object) live only in ``agentcore.engine``, the
seed's vocabulary; an alias reached elsewhere still works, with a warning."""

from __future__ import annotations

import importlib
import pathlib
import warnings
from collections import defaultdict

import pytest

import agentcore

PUBLIC = sorted(
    p.stem
    for p in pathlib.Path(agentcore.__file__).parent.glob("*.py")
    if not p.stem.startswith("_")
)


def _aliases() -> set[tuple[str, str]]:
    """Every (module, name) exporting an object that is exported under another name too,
    that name not being the object's own (its ``__name__``)."""
    modules = [("agentcore", agentcore)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        modules += [(name, importlib.import_module(f"agentcore.{name}")) for name in PUBLIC]
    by_object: dict[int, set[tuple[str, str]]] = defaultdict(set)
    objects: dict[int, object] = {}
    for module_name, module in modules:
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if callable(value):
                by_object[id(value)].add((module_name, name))
                objects[id(value)] = value
    aliases = set()
    for key, pairs in by_object.items():
        names = {name for _, name in pairs}
        if len(names) > 1:
            own = getattr(objects[key], "__name__", None)
            own = own if own in names else min(names)
            aliases |= {(module, name) for module, name in pairs if name != own}
    return aliases


def test_every_alias_is_exported_by_the_engine_module_only() -> None:
    aliases = _aliases()
    assert ("engine", "AgentEngine") in aliases  # the check sees the one it must allow
    assert {module for module, _ in aliases} == {"engine"}, sorted(aliases)


def test_the_top_level_alias_still_works_with_a_warning() -> None:
    from agentcore.engine import AgentEngine

    with pytest.warns(DeprecationWarning, match="agentcore.engine"):
        assert agentcore.AgentEngine is AgentEngine is agentcore.Agent
    assert "AgentEngine" not in agentcore.__all__
