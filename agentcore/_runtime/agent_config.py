"""``AgentConfig``: what ``Agent`` was given, checked once and frozen.

``Agent``'s constructor validates its keyword arguments into one (``AgentConfig.of``);
every bad option raises ``ConfigurationError`` naming the option and the value, before
the agent opens a session or claims a journal lane. The agent, a durable ``Definition``
(through its template agent) and anything else that builds from the same options read
this one object: the loop configuration a conversation starts with (``loop``), the model
and how a name becomes a driver (``resolve_driver``), prices, plugins and the shell's
settings. What changes while an agent lives (its tools, as toolsets list theirs) is the
agent's ``config``, not this.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._core.errors import ConfigurationError
from .._core.pricing import ModelPrice
from .._core.processor import AnyProcessor
from .._core.provider_tools import is_provider_tool
from .._edges.driver import Driver
from .._journal.journal import Journal
from .._loop.state import LoopConfig
from .._loop.tools import as_tool
from .actions import Middleware
from .continuing import SessionRef
from .extensions import Extension
from .guardrails import Guardrail, Guards, guardrails_of
from .options import (
    as_model_driver,
    check_options,
    limits_of,
    no_price,
    positive_int,
    prices_for,
    seconds_to_ms,
)
from .plugins import resolve_model
from .toolsets import Toolset

if TYPE_CHECKING:  # the attrs plugin types the class
    from attrs import frozen

    from .._journal.snapshots import SnapshotStore
else:
    from .._core.records import frozen

__all__ = ["AgentConfig", "checked_middleware"]


@frozen(kw_only=True)
class AgentConfig:
    """An agent's options, validated (see the module docstring). ``model`` is the
    ``"provider/model"`` name still to resolve, or the driver (a list of them already
    made a ``FallbackDriver``); ``owns_driver``: the agent built it, so it closes it."""

    model: str | Driver
    owns_driver: bool
    driver_factory: Callable[[str], Driver] | None
    driver_options: Mapping[str, str]
    loop: LoopConfig
    prices: dict[str, ModelPrice] | None
    input_guardrails: tuple[Guardrail, ...]
    output_guardrails: tuple[Guardrail, ...]
    tool_guardrails: tuple[Guardrail, ...]
    middleware: tuple[Middleware, ...]
    extensions: tuple[Extension, ...]
    toolsets: tuple[Toolset, ...]
    processors: Mapping[str, tuple[AnyProcessor, Callable[[], Any]]] | None
    presenters: tuple[Any, ...]
    messages: tuple[Any, ...]
    journal: Journal | None
    snapshots: SnapshotStore | None
    snapshot_every: int
    session: SessionRef | None
    session_id: str | None
    agent_id: str | None
    clock: Callable[[], int]
    id_factory: Callable[[], str]
    max_pending: int
    close_timeout: float
    deps: Any

    @classmethod
    def of(cls, model: Any, **options: Any) -> AgentConfig:
        """Check ``Agent(model, **options)``'s arguments (every one of them given, as the
        constructor passes them) into an ``AgentConfig``."""
        o = options
        check_options(o)
        guards = {
            name: guardrails_of(name, o[name])
            for name in ("input_guardrails", "output_guardrails", "tool_guardrails")
        }
        driver_options = {k: o[k] for k in ("base_url", "api_key") if o[k] is not None}
        if driver_options and not isinstance(model, str):
            raise ConfigurationError(
                f"{' and '.join(driver_options)} apply to a 'provider/model' string; "
                f"give them to the driver itself, got model={model!r}"
            )
        factory = o["driver_factory"]
        resolved = model if isinstance(model, str) else as_model_driver(model, factory)
        price, prices = prices_for(resolved, o["price"])
        if o["max_cost"] is not None and price is None:
            raise no_price(resolved)
        loop = LoopConfig(
            system_prompt=o["system_prompt"],
            tools=tuple(as_tool(t) for t in o["tools"] if not is_provider_tool(t)),
            provider_tools=tuple(t for t in o["tools"] if is_provider_tool(t)),
            limits=limits_of(o["max_iterations"], o["max_tokens"], o["max_cost"], o["timeout"]),
            steering_mode=o["steering_mode"],
            follow_up_mode=o["follow_up_mode"],
            steering_policy=o["steering_policy"],
            tool_execution=o["tool_execution"],
            convert_to_llm=o["convert_to_llm"],
            transform_context=o["transform_context"],
            thinking_level=o["thinking_level"],
            max_output_tokens=o["max_output_tokens"],
            temperature=o["temperature"],
            price=price,
            prices=None if prices is None or all(p == price for p in prices.values()) else prices,
            compaction=o["compaction"],
            cache=o["cache"],
            model_retries=o["model_retries"],
            retry_delay_ms=seconds_to_ms("retry_delay", o["retry_delay"], allow_zero=True) or 0,
            check_output=bool(guards["input_guardrails"] or guards["output_guardrails"]),
        )
        return cls(
            model=resolved,
            owns_driver=isinstance(model, str | list | tuple),
            driver_factory=factory,
            driver_options=driver_options,
            loop=loop,
            prices=prices,
            **guards,
            middleware=tuple(checked_middleware(m) for m in o["middleware"]),
            extensions=tuple(o["extensions"]),
            toolsets=tuple(o["toolsets"]),
            processors=o["processors"],
            presenters=tuple(o["presenters"]),
            messages=tuple(o["messages"]),
            journal=o["journal"],
            snapshots=o["snapshots"],
            snapshot_every=positive_int("snapshot_every", o["snapshot_every"]),
            session=o["session"],
            session_id=o["session_id"],
            agent_id=o["agent_id"],
            clock=o["clock"],
            id_factory=o["id_factory"],
            max_pending=o["max_pending"],
            close_timeout=o["close_timeout"],
            deps=o["deps"],
        )

    def guards(self) -> Guards:
        """A fresh ``Guards`` (it holds the input checks of one performer's runs)."""
        return Guards(self.input_guardrails, self.output_guardrails, self.tool_guardrails)

    def resolve_driver(self) -> Driver:
        """The driver ``model`` names: the driver itself, or a new one built from the
        ``"provider/model"`` string by ``driver_factory`` (default: the
        ``agentcore.drivers`` entry points) with ``base_url`` and ``api_key``."""
        if not isinstance(self.model, str):
            return self.model
        factory = self.driver_factory or resolve_model
        return as_model_driver(factory(self.model, **self.driver_options))


def checked_middleware(middleware: Any) -> Middleware:
    """``middleware`` if it is an async function of ``(action, next)``; else ``TypeError``."""
    is_async = inspect.iscoroutinefunction(middleware) or inspect.iscoroutinefunction(
        getattr(middleware, "__call__", None)  # noqa: B004  (an object's async __call__)
    )
    if _arity(middleware) != 2 or not is_async:
        raise TypeError(f"a middleware is an async function (action, next), got {middleware!r}")
    return middleware  # type: ignore[no-any-return]


def _arity(plugin: Any) -> int:
    """How many positional parameters ``plugin`` takes (``-1`` when it is not callable)."""
    if not callable(plugin):
        return -1
    try:
        params = inspect.signature(plugin).parameters.values()
    except (TypeError, ValueError):
        return -1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in params if p.kind in kinds)
