"""What a case is re-run on: the ``Agent`` options a configuration names.

A configuration is a function returning ``Agent``'s keyword options as a mapping
(``{"model": ..., "system_prompt": ..., "tools": [...]}``), named ``"package.module:
function"`` or ``"path/to/file.py:function"`` (``config`` when the name is left out), or
an agent definition file (JSON, TOML, YAML: ``agentcore.agents.load_definitions``; its
first definition's model, prompts and limits). It returns options rather than an agent
so that the runner can put the recording in front of the model and give each case its
own journal. For a tree of sub-agents the options hold ``registry`` (an
``AgentRegistry``) and ``agent_type`` (the root's definition), and the registry builds
the root (``AgentRegistry.create``).
"""

from __future__ import annotations

import importlib
import importlib.util
import pathlib
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from .._agents.definition import load_definitions
from .._core.errors import ConfigurationError

__all__ = ["Config", "load_config", "options_of"]

Config: TypeAlias = Callable[[], Mapping[str, Any]] | Mapping[str, Any] | str
"""A function returning ``Agent`` options, the options themselves, or a reference to
either (module docstring)."""

_DEFINITION_FILES = (".json", ".toml", ".yaml", ".yml")


def _function(reference: str) -> Callable[..., Any]:
    target, _, name = reference.partition(":")
    name = name or "config"
    if target.endswith(".py"):
        path = pathlib.Path(target)
        if not path.exists():
            raise ConfigurationError(f"no configuration file {path}")
        spec = importlib.util.spec_from_file_location(f"_agentcore_eval_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    elif pathlib.Path(target).is_file():
        raise ConfigurationError(
            f"configuration {reference!r}: a file configuration is file.py[:function] or an "
            f"agent definition file ({', '.join(_DEFINITION_FILES)})"
        )
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise ConfigurationError(f"cannot import configuration {reference!r}: {exc}") from None
    found = getattr(module, name, None)
    if not callable(found):
        raise ConfigurationError(
            f"configuration {reference!r}: {target} has no function {name!r} returning "
            "Agent options"
        )
    return found  # type: ignore[no-any-return]


def load_config(reference: str) -> Callable[[], Mapping[str, Any]]:
    """The configuration ``reference`` names (module docstring), as a function."""
    if pathlib.Path(reference).suffix.lower() in _DEFINITION_FILES:
        definition = load_definitions(reference)[0]

        def from_definition() -> Mapping[str, Any]:
            prompt = "\n\n".join(
                p for p in (definition.system_prompt, definition.instructions_prompt) if p
            )
            return {
                "model": definition.model,
                "system_prompt": prompt or None,
                "agent_id": definition.id,
                **definition.limits(),
            }

        return from_definition
    return _function(reference)


def options_of(config: Config) -> dict[str, Any]:
    """Fresh ``Agent`` options from ``config`` (called once per case: tools may hold
    state). Raises ``ConfigurationError`` when they are not a mapping with a ``model``."""
    if isinstance(config, str):
        config = load_config(config)
    options = config() if callable(config) else config
    if not isinstance(options, Mapping) or not ("model" in options or "registry" in options):
        raise ConfigurationError(
            "a configuration gives Agent options as a mapping with a 'model' (or a "
            f"'registry' and the 'agent_type' of a tree's root), got {options!r}"
        )
    return dict(options)
