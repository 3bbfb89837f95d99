"""What a worker can run: agent definitions, by name.

A definition is the keyword arguments of ``Agent`` (the model, the tools, the system
prompt, the limits, presenters, middleware...). Every worker process imports the same
``Definitions`` (``agentcore worker --agents module:attribute``) and a client names the
definition a conversation runs with. A worker builds one template ``Agent`` per
definition: its loop configuration (what is journaled as ``agent_configured``), its
conversation processor, a fresh state to fold a journal into, and the middleware,
extension hooks and guardrails its steps are performed with (``Agent.equip``); the
model and the tools perform the effects. ``presenters`` are the worker's: each
conversation the worker advances delivers to them (docs/durable.md, "Presenters").

``toolsets`` (MCP servers) are connected by each worker: entered and listed once, before
the definition's first advance on that worker (``Definition.connect``); their tools join
the definition's. Refused, with the reason in the error (``_REFUSED``): what names or
stores one conversation (a durable agent's id, journal and history come from the client
and the database), and the clock and ids (the worker's steps stamp).
"""

from __future__ import annotations

import asyncio
import keyword
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .._core.errors import ConfigurationError
from .._edges.driver import Driver
from .._loop.tools import Tool
from .._runtime.agent import Agent

__all__ = ["Definition", "Definitions", "load_definitions"]

_PER_CONVERSATION = (
    "belongs to one conversation: a durable agent's id, journal and history come from "
    "the client and the database"
)
_REFUSED: Mapping[str, str] = {
    "journal": _PER_CONVERSATION,
    "snapshots": _PER_CONVERSATION,
    "session": _PER_CONVERSATION,
    "session_id": _PER_CONVERSATION,
    "agent_id": _PER_CONVERSATION,
    "messages": _PER_CONVERSATION,
    "clock": "is the worker's: each step stamps what it records",
    "id_factory": "is the worker's: each step stamps what it records",
}
"""``Agent`` options a durable definition refuses, and why (module docstring)."""

_PLUGINS = ("middleware", "extensions", "input_guardrails", "output_guardrails", "tool_guardrails")


class Definition:
    """One named agent definition as a worker runs it: the template ``Agent`` (built once,
    with no journal and no presenter), its driver, its tools by name, its presenters,
    and whether its steps go through middleware, hooks or guardrails (``plugins``)."""

    def __init__(self, name: str, options: Mapping[str, Any]) -> None:
        self.name = name
        self.options = dict(options)
        self.presenters: tuple[Any, ...] = tuple(self.options.pop("presenters", ()))
        self.plugins = any(self.options.get(option) for option in _PLUGINS)
        self.starts_through_middleware = bool(
            self.options.get("middleware") or self.options.get("extensions")
        )
        """Whether a prompt goes through ``loop_start`` middleware (an extension may be
        one: ``Agent.use`` tells them apart)."""
        self.template = Agent(**self.options)
        self.agent_config = self.template.agent_config
        """The options, checked once by the template agent (shared with it)."""
        self.config = self.template.config
        self.processor = self.template.processor
        self.tools: dict[str, Tool] = {t.name: t for t in self.config.tools}
        model = self.agent_config.model
        self._driver: Driver | None = None if isinstance(model, str) else model
        self._listed = not self.options.get("toolsets")
        self._listing: asyncio.Lock | None = None

    async def connect(self) -> None:
        """Enter the definition's toolsets and add their tools (once per worker process,
        before its first advance; a no-op without toolsets). The listing is not followed
        afterwards: a server whose tools change is listed again when the worker restarts."""
        if self._listed:
            return
        if self._listing is None:
            self._listing = asyncio.Lock()
        async with self._listing:  # advances of the definition started side by side
            if not self._listed:
                await self.template.list_toolsets()
                self.config = self.template.config
                self.tools = {t.name: t for t in self.config.tools}
                self._listed = True

    def initial_state(self) -> Any:
        """A fresh conversation state (nothing folded yet)."""
        return self.template.initial_state()

    @property
    def driver(self) -> Driver:
        """The definition's driver (a ``"provider/model"`` name is resolved on first use);
        one driver serves every conversation of the definition in a worker."""
        if self._driver is None:
            self._driver = self.agent_config.resolve_driver()
        return self._driver


class Definitions:
    """Agent definitions by name: ``define(name, model=..., tools=..., **options)``.

    ``define`` checks the options at once (``ConfigurationError`` naming a bad or refused
    option); the template agents are built when a worker first needs them.
    """

    def __init__(self) -> None:
        self._options: dict[str, dict[str, Any]] = {}
        self._built: dict[str, Definition] = {}

    def define(self, name: str, **options: Any) -> None:
        """Add (or replace) definition ``name``: ``Agent``'s keyword arguments."""
        if not isinstance(name, str) or not name or not name.replace("-", "_").isidentifier():
            raise ConfigurationError(
                f"a definition name is a non-empty identifier (letters, digits, _ and -), "
                f"got {name!r}"
            )
        if keyword.iskeyword(name):
            raise ConfigurationError(f"a definition name cannot be the keyword {name!r}")
        if "model" not in options:
            raise ConfigurationError(f"definition {name!r} needs a model=")
        refused = sorted(_REFUSED.keys() & options.keys())
        if refused:
            why = "; ".join(f"{option} {_REFUSED[option]}" for option in refused)
            raise ConfigurationError(
                f"definition {name!r} cannot take {', '.join(refused)}: {why} (docs/durable.md)"
            )
        Definition(name, options)  # check the options now, not on a worker
        self._options[name] = dict(options)
        self._built.pop(name, None)

    def get(self, name: str) -> Definition:
        """Definition ``name`` (built once); ``KeyError`` naming the known ones."""
        built = self._built.get(name)
        if built is None:
            if name not in self._options:
                known = ", ".join(sorted(self._options)) or "none"
                raise KeyError(f"no agent definition {name!r} (known: {known})")
            built = self._built[name] = Definition(name, self._options[name])
        return built

    def __contains__(self, name: object) -> bool:
        return name in self._options

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._options))


def load_definitions(spec: str) -> Definitions:
    """The ``Definitions`` named ``module:attribute`` (or a zero-argument callable
    returning one); ``ConfigurationError`` says what is wrong with ``spec``."""
    import importlib

    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ConfigurationError(f"--agents takes module:attribute, got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(f"cannot import {module_name!r}: {exc}") from exc
    found: Any = getattr(module, attribute, None)
    if found is None:
        raise ConfigurationError(f"module {module_name!r} has no {attribute!r}")
    if callable(found) and not isinstance(found, Definitions):
        maker: Callable[[], Any] = found
        try:
            found = maker()
        except TypeError as exc:
            raise ConfigurationError(
                f"{spec} is not agentcore.durable.Definitions nor a function of no "
                f"argument returning them: {exc}"
            ) from exc
    if not isinstance(found, Definitions):
        raise ConfigurationError(f"{spec} is not agentcore.durable.Definitions: {found!r}")
    return found
