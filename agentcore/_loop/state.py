"""Configuration and immutable state of the agent-loop processor.

``LoopConfig`` is fixed for the life of an agent (tools, prompts, policies, hooks, default
limits); ``LoopState`` is the value the processor threads through. Both are frozen; the
history is a ``pvector`` so appending never copies what came before.

The hooks inside the config run inside the pure processor, so they must be pure functions
of their argument: ``convert_to_llm(history) -> provider messages`` (default: keep user,
assistant and tool-result messages, drop custom kinds) and then
``transform_context(provider messages) -> provider messages`` (pruning/injection for this
call only; the result is never written back to the history). With ``compaction`` set,
the history they get is what the state's context view sends (``compaction``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

import attrs

from .._core.caching import Cache, as_cache, cache_wire
from .._core.content import ZERO_USAGE, JSONValue, Usage
from .._core.driver import Message, ModelRequest, OutputSpec, ThinkingLevel, ToolSpec
from .._core.errors import ConfigurationError
from .._core.events import AssistantMessage, ToolResultMessage, UserMessage
from .._core.pricing import ModelPrice
from .._core.provider_tools import ProviderTool, as_provider_tool, provider_tool_wire
from .._core.vectors import pvector
from .compaction import Compaction, ContextView, Summarise, as_compaction
from .tools import Tool

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
    from pyrsistent import PVector
else:  # the same classes, built at a fifth of attrs' cost (see _core/records.py)
    from .._core.records import frozen

__all__ = [
    "AT_REST",
    "LIMIT_HINT",
    "Batch",
    "Limits",
    "LoopConfig",
    "LoopState",
    "PendingSummary",
    "QueueMode",
    "Run",
    "SteeringPolicy",
    "default_convert_to_llm",
    "initial_loop_state",
    "tool_declaration",
]

QueueMode: TypeAlias = Literal["one-at-a-time", "all"]
SteeringPolicy: TypeAlias = Literal["skip", "run"]
"""What happens to tool calls not yet started when a steering message is queued:
``skip`` answers them with an error result saying they were skipped; ``run`` runs them."""
ToolExecution: TypeAlias = Literal["parallel", "sequential"]
Phase: TypeAlias = Literal[
    "idle", "model", "compacting", "waiting", "tools", "approval", "elicitation", "checking"
]
"""``model``: a model call is in flight; ``compacting``: a summary of older history is
being written before it; ``waiting``: a failed call waits to be retried; ``tools``: tool
calls run; ``approval``: paused until calls are approved or rejected; ``elicitation``:
paused until the questions running calls asked the user are answered (those calls still
run); ``checking``: the final answer waits for the output guardrails."""

AT_REST: frozenset[str] = frozenset(("idle", "approval", "elicitation"))
"""Phases in which no run is active: it is over, or waits for the application."""


_PROVIDER_KINDS = (UserMessage, AssistantMessage, ToolResultMessage)
_PROVIDER_TYPES = frozenset(_PROVIDER_KINDS)


def default_convert_to_llm(messages: Sequence[Any]) -> tuple[Message, ...]:
    """Keep the messages providers understand; custom kinds stay in history only.

    Runs over the whole history before every model call, so it is kept lean: a history
    of provider messages only (the common case) is told by one pass in C over the types
    and copied whole (half the cost of the filter, which is the rest of each call of a
    long conversation); another is filtered by a list comprehension and a tuple of
    classes (a union in ``isinstance`` is ~3x slower).
    """
    if _PROVIDER_TYPES.issuperset(map(type, messages)):
        return tuple(messages)
    return tuple([m for m in messages if isinstance(m, _PROVIDER_KINDS)])


def _positive(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is None:
        return
    kinds: tuple[type, ...] = (int, float) if attribute.name == "max_cost" else (int,)
    if isinstance(value, bool) or not isinstance(value, kinds) or not value > 0:  # type: ignore[operator]
        kind = "a number" if attribute.name == "max_cost" else "an int"
        raise ConfigurationError(
            f"limit {attribute.name} must be {kind} > 0 or None, got {value!r}"
        )


LIMIT_HINT = "raise the limit or continue_() to go on"
"""How a caller goes on after a run stopped at a limit: the end of every limit's message
(for the caller; the answers the model gets for calls left unrun leave it out)."""


@frozen
class Limits:
    """Run limits. ``None`` means unlimited; ``timeout_ms`` is wall-clock time of a run
    (time paused for approval excluded); ``max_cost`` is in US dollars and needs a price."""

    max_iterations: int | None = attrs.field(default=10, validator=_positive)
    max_tokens: int | None = attrs.field(default=None, validator=_positive)
    max_cost: float | None = attrs.field(default=None, validator=_positive)
    timeout_ms: int | None = attrs.field(default=None, validator=_positive)

    def override(self, **values: Any) -> Limits:
        """These limits with every non-``None`` value in ``values`` replaced."""
        changes = {k: v for k, v in values.items() if v is not None}
        return attrs.evolve(self, **changes) if changes else self


def _tool_tuple(tools: Sequence[Tool]) -> tuple[Tool, ...]:
    return tuple(tools)


def _provider_tools(tools: Sequence[Any]) -> tuple[ProviderTool, ...]:
    return tuple(as_provider_tool(t) for t in tools)


def _price_table(prices: Mapping[str, ModelPrice] | None) -> Mapping[str, ModelPrice] | None:
    return None if prices is None else dict(prices)


def _non_negative_int(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"{attribute.name} must be an int >= 0, got {value!r}")


_DECLARATION_FLAGS = ("timeout", "sequential", "requires_approval", "idempotent")


def tool_declaration(tool: Tool) -> dict[str, Any]:
    """What the loop knows of ``tool``, as JSON: name, description, schema and flags."""
    declaration: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "parameters": dict(tool.parameters),
    }
    for flag in _DECLARATION_FLAGS:
        declaration[flag] = getattr(tool, flag)
    return declaration


async def _declared_only(args: Any, ctx: Any) -> Any:
    raise ConfigurationError(
        f"tool {ctx.tool_name!r} is known from a journal only; give the agent the tool "
        "itself to run it"
    )


def _declared(declaration: Mapping[str, Any]) -> Tool:
    values = dict(declaration)
    return Tool(
        values.pop("name"),
        values.pop("description"),
        values.pop("parameters"),
        _declared_only,
        **values,
    )


def _check_modes(config: LoopConfig, attribute: attrs.Attribute[Any], value: Any) -> None:
    allowed: dict[str, tuple[str, ...]] = {
        "steering_mode": ("one-at-a-time", "all"),
        "follow_up_mode": ("one-at-a-time", "all"),
        "steering_policy": ("skip", "run"),
        "tool_execution": ("parallel", "sequential"),
    }
    if value not in allowed[attribute.name]:
        raise ConfigurationError(
            f"{attribute.name} must be one of {allowed[attribute.name]}, got {value!r}"
        )


@frozen(eq=False)
class LoopConfig:
    """Everything the loop decides with that is not in the events.

    Raises ``ConfigurationError`` for unknown modes, duplicate tool names, or ``max_cost``
    without a ``price``.
    """

    system_prompt: str | None = None
    tools: tuple[Tool, ...] = attrs.field(default=(), converter=_tool_tuple)
    limits: Limits = attrs.field(factory=Limits)
    steering_mode: QueueMode = attrs.field(default="one-at-a-time", validator=_check_modes)
    follow_up_mode: QueueMode = attrs.field(default="one-at-a-time", validator=_check_modes)
    steering_policy: SteeringPolicy = attrs.field(default="skip", validator=_check_modes)
    tool_execution: ToolExecution = attrs.field(default="parallel", validator=_check_modes)
    convert_to_llm: Callable[[Sequence[Any]], Sequence[Message]] = default_convert_to_llm
    transform_context: Callable[[tuple[Message, ...]], Sequence[Message]] | None = None
    model: str | None = None
    thinking_level: ThinkingLevel | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    price: ModelPrice | None = None
    prices: Mapping[str, ModelPrice] | None = attrs.field(default=None, converter=_price_table)
    """Each model's own price (a ``FallbackDriver``'s chain): a model call is charged at
    its answering model's row, else at ``price`` (``call_cost``), by the loop's ledger,
    the turn tracker and the session tally alike."""
    compaction: Compaction | None = attrs.field(default=None, converter=as_compaction)
    model_retries: int = attrs.field(default=0, validator=_non_negative_int)
    retry_delay_ms: int = attrs.field(default=1000, validator=_non_negative_int)
    check_output: bool = False
    """Whether a final answer waits for ``output_passed`` (or ``guardrail_tripped``)
    before the run completes: the agent has guardrails to run on it."""
    cache: Cache | None = attrs.field(default=None, converter=as_cache)
    """Prompt caching for every model call (docs/caching.md); a run's own wins."""
    provider_tools: tuple[ProviderTool, ...] = attrs.field(default=(), converter=_provider_tools)
    """Tools the provider runs (``WebSearch``...), sent with every request."""
    tools_by_name: Mapping[str, Tool] = attrs.field(init=False)
    tool_specs: tuple[ToolSpec, ...] = attrs.field(init=False)
    """What every model request says about the tools (built once, not per call)."""

    def __attrs_post_init__(self) -> None:
        by_name: dict[str, Tool] = {}
        for t in self.tools:
            if t.name in by_name:
                raise ConfigurationError(f"two tools are named {t.name!r}; names must be unique")
            by_name[t.name] = t
        object.__setattr__(self, "tools_by_name", by_name)
        object.__setattr__(self, "tool_specs", tuple(t.spec for t in self.tools))
        if self.prices is not None and self.price is None:
            raise ConfigurationError(
                "prices needs a price too: the price of a model the table does not list, "
                "and what max_cost is checked with"
            )
        self.check_limits(self.limits)

    def __eq__(self, other: object) -> bool:
        """Two configs are equal when they decide the same: the same data (``to_wire``)
        and the same hooks."""
        if not isinstance(other, LoopConfig):
            return NotImplemented
        return (
            self.convert_to_llm == other.convert_to_llm
            and self.transform_context == other.transform_context
            and self.to_wire() == other.to_wire()
        )

    __hash__ = None  # type: ignore[assignment]

    def to_wire(self) -> dict[str, Any]:
        """What the loop decides with, as JSON values (journaled as ``agent_configured``).

        The hooks (``convert_to_llm``, ``transform_context``) are code, not data: they only
        shape the request of each model call, never a delivered output, so a replay with
        the default hooks delivers the same outputs.
        """
        wire: dict[str, Any] = {
            "system_prompt": self.system_prompt,
            "tools": [tool_declaration(t) for t in self.tools],
            "limits": attrs.asdict(self.limits),
            "steering_mode": self.steering_mode,
            "follow_up_mode": self.follow_up_mode,
            "steering_policy": self.steering_policy,
            "tool_execution": self.tool_execution,
            "model": self.model,
            "thinking_level": self.thinking_level,
            "max_output_tokens": self.max_output_tokens,
            "temperature": self.temperature,
            "price": None if self.price is None else self.price.to_wire(),
            "compaction": None if self.compaction is None else self.compaction.to_wire(),
            "model_retries": self.model_retries,
            "retry_delay_ms": self.retry_delay_ms,
            "check_output": self.check_output,
        }
        if self.prices is not None:  # only a per-model table is journaled (a fallback chain)
            wire["prices"] = {model: p.to_wire() for model, p in self.prices.items()}
        if self.cache is not None:
            wire["cache"] = cache_wire(self.cache)
        if self.provider_tools:
            wire["provider_tools"] = [provider_tool_wire(t) for t in self.provider_tools]
        return wire

    def from_wire(self, wire: Mapping[str, Any]) -> LoopConfig:
        """A config with the data of ``wire`` (``to_wire``'s form) and this config's hooks.

        Tools come back as declarations: what the loop needs to decide (name, schema,
        flags); running them is the runtime's, with the tools it was given. Raises
        ``ConfigurationError`` naming what is wrong in ``wire``.
        """
        try:
            values = dict(wire)
            tools = tuple(_declared(d) for d in values.pop("tools", ()))
            limits = Limits(**values.pop("limits", {}))
            price = values.pop("price", None)
            prices = values.pop("prices", None)
            compaction = values.pop("compaction", None)
            return LoopConfig(
                tools=tools,
                limits=limits,
                price=None if price is None else ModelPrice(**price),
                prices=None if prices is None else {m: ModelPrice(**p) for m, p in prices.items()},
                compaction=None if compaction is None else Compaction.from_wire(compaction),
                convert_to_llm=self.convert_to_llm,
                transform_context=self.transform_context,
                **values,
            )
        except (TypeError, ValueError) as exc:
            raise ConfigurationError(
                f"agent_configured carries a bad configuration: {exc}"
            ) from exc

    @property
    def context_window(self) -> int | None:
        """The tokens a request may hold: the compaction's, else the model's price row's."""
        window = None if self.compaction is None else self.compaction.context_window
        if window is None and self.price is not None:
            window = self.price.context_window
        return window

    def check_limits(self, limits: Limits) -> None:
        """Raise ``ConfigurationError`` when ``limits`` cannot be enforced with this config."""
        if limits.max_cost is not None and self.price is None:
            raise ConfigurationError(
                "max_cost needs the model's price: pass price=ModelPrice(...) "
                "(or use a model the price table knows)"
            )


_T = TypeVar("_T", bound=attrs.AttrsInstance)


def _replacer(cls: type[_T]) -> Callable[[_T, dict[str, Any]], _T]:
    """``attrs.evolve`` for one of the classes below, ~40% cheaper: the field names are
    read once, and the constructor gets every value positionally (so converters,
    validators and defaults behave exactly as under ``evolve``)."""
    fields = attrs.fields(cls)
    assert all(f.init and f.alias == f.name for f in fields), cls
    names = tuple(f.name for f in fields)
    read = operator.attrgetter(*names)
    index = {name: i for i, name in enumerate(names)}

    def replace(instance: _T, changes: dict[str, Any]) -> _T:
        values = list(read(instance))
        try:
            for name, value in changes.items():
                values[index[name]] = value
        except KeyError:
            unknown = next(name for name in changes if name not in index)
            raise TypeError(f"{cls.__name__} has no field {unknown!r}") from None
        return cls(*values)

    return replace


def _positions(calls: tuple[Any, ...]) -> Mapping[str, int]:
    positions: dict[str, int] = {}
    for i, call in enumerate(calls):
        positions.setdefault(call.tool_call_id, i)  # a repeated id shares its first slot
    return positions


@frozen
class Batch:
    """The tool calls of one assistant message, in the order the model asked.

    ``results`` holds one slot per call id, in ``calls`` order: its ``ToolResultMessage``,
    or ``None`` while unanswered (``positions`` maps call id -> slot; derived, never
    changed; read results with ``result_of``). ``groups`` are the runnable groups not
    started yet; ``running`` holds the ids in flight; ``pending`` lists the ids awaiting
    approval, with ``decisions`` made so far (id -> (approved, reason)).

    Containers are chosen for the per-result hot path: a ``pvector`` slot update and a
    small ``frozenset`` rebuilt cost a fraction of pyrsistent's Python-level ``pmap``.
    """

    calls: tuple[Any, ...]
    results: PVector[ToolResultMessage | None]
    runnable: tuple[Any, ...] = ()
    groups: tuple[tuple[Any, ...], ...] = ()
    running: frozenset[str] = frozenset()
    pending: tuple[str, ...] = ()
    decisions: Mapping[str, tuple[bool, str | None]] = attrs.field(factory=dict)
    positions: Mapping[str, int] = attrs.field(
        default=attrs.Factory(lambda self: _positions(self.calls), takes_self=True),
        eq=False,
        repr=False,
    )

    def replace(self, **changes: Any) -> Batch:
        """This batch with ``changes`` (same as ``attrs.evolve``, cheaper)."""
        return _replace_batch(self, changes)

    @classmethod
    def of(cls, calls: tuple[Any, ...]) -> Batch:
        """A batch of ``calls`` with no result yet."""
        return cls(calls, pvector([None] * len(calls)))

    def answered(self, results: Mapping[str, ToolResultMessage]) -> PVector[Any]:
        """``self.results`` with ``results`` (call id -> result) filled in."""
        if not results:
            return self.results
        slots = self.results.evolver()
        positions = self.positions
        for call_id, result in results.items():
            slots[positions[call_id]] = result
        return slots.persistent()

    def result_of(self, call_id: str) -> ToolResultMessage | None:
        """The result of call ``call_id``, ``None`` while it is unanswered."""
        return self.results[self.positions[call_id]]

    def answer(self, call_id: str, result: ToolResultMessage) -> Batch:
        """This batch with running call ``call_id`` answered by ``result`` (hot path: built
        directly, not evolved)."""
        return Batch(
            self.calls,
            self.results.set(self.positions[call_id], result),
            self.runnable,
            self.groups,
            self.running - {call_id},
            self.pending,
            self.decisions,
            self.positions,
        )

    def name_of(self, call_id: str) -> str:
        """The tool name of call ``call_id``."""
        name: str = self.calls[self.positions[call_id]].tool_name
        return name


@frozen
class PendingSummary:
    """A compaction waiting for its summary: why (``reason``, at ``tokens``), the
    ``view`` to adopt once the summary is in, starting at history index ``cut``, and the
    ``strategy`` asking for it."""

    reason: str
    tokens: int
    view: ContextView
    cut: int
    strategy: Summarise


@frozen
class Run:
    """One run, from prompt/continue to ``agent_end``.

    ``inflight`` holds queued messages delivered for the current model call but not yet
    answered (``(queue, message)``): they join the history when the reply arrives, and go
    back to the front of their queue if the run ends first, so none is ever lost
    (whether the open call's reply is streaming is the state's ``streaming``);
    ``partial`` holds a reply cut off by an error until that error arrives
    (``awaiting_error``); ``retries`` counts the retries of the current model call and
    ``retry_at`` is when the next one is due; ``resuming`` is true while a reply
    interrupted by a process stop is being flushed; ``discarded`` holds the tool calls of
    a reply dropped for a retry or a resume, until their answers (made by the loop, so
    every layer sees them closed) come back. ``stopping`` is ``(reason, code,
    message, retryable)``, how the run will end,
    once an abort or timeout is under way. ``paused_at`` is when a pause for approval or
    elicitation began; ``elicitations`` the ``ElicitationRequest``s awaiting an answer.

    ``usage``/``cost`` sum the run's model calls, ``step_usage``/``step_cost`` those of
    the current turn. ``overflowed`` is true once the current model call was refused with
    ``CONTEXT_OVERFLOW`` and compacted (it is retried once); ``summary`` is the compaction
    waiting for its summary (phase ``compacting``). ``output`` is the structured
    answer the run must end with (``None``: any text), ``output_retries`` how many answers
    failed its schema so far, ``output_value`` the valid answer once a call to the
    final-answer tool gave it (the run ends when that call's turn closes).
    """

    limits: Limits
    started_at: int
    deadline: int | None = None
    iterations: int = 0
    turn: int = 0
    turn_open: bool = False
    usage: Usage = ZERO_USAGE
    cost: float = 0.0
    inflight: tuple[tuple[str, Any], ...] = ()
    awaiting_error: bool = False
    partial: Any = None
    retries: int = 0
    retry_at: int | None = None
    resuming: bool = False
    discarded: frozenset[str] = frozenset()
    stopping: tuple[str, str, str, bool] | None = None
    paused_at: int | None = None
    elicitations: tuple[Any, ...] = ()
    step_usage: Usage = ZERO_USAGE
    step_cost: float = 0.0
    overflowed: bool = False
    summary: PendingSummary | None = None
    output: OutputSpec | None = None
    output_retries: int = 0
    output_value: JSONValue = None
    cache: Cache | None = None
    """The run's prompt caching (``agent_prompt``'s ``cache``), ``None``: the config's."""

    def replace(self, **changes: Any) -> Run:
        """This run with ``changes`` (same as ``attrs.evolve``, cheaper)."""
        return _replace_run(self, changes)


@frozen
class LoopState:
    """The loop processor's state: config, history, queues, and the active run if any.

    ``context`` is what requests send of the history once it was compacted (``None``:
    all of it); ``usage`` and ``cost`` sum every model call of the session (the agent's
    life, resets of the history included); ``cancelled`` (below) the calls whose late
    results are dropped. ``cached`` is the last request sent with prompt caching on
    (without its plan) and the context view it was rendered through: what the next one is
    compared with (``cache_bust``).
    """

    config: LoopConfig
    messages: PVector[Any] = attrs.field(factory=pvector)
    steering: tuple[Any, ...] = ()
    follow_ups: tuple[Any, ...] = ()
    phase: Phase = "idle"
    run: Run | None = None
    batch: Batch | None = None
    error: tuple[str, str, bool] | None = None
    """``(code, message, retryable)`` of the last run's failure, ``None`` after a clean run."""
    context: ContextView | None = None
    usage: Usage = ZERO_USAGE
    cost: float = 0.0
    cancelled: frozenset[str] = frozenset()
    """The running tool calls stopped runs cancelled and answered themselves
    (``ABORTED``): a real result that arrives for one later, whenever it does, is dropped
    (journaled, without effect), and the id leaves the set; so every call keeps exactly
    one answer. Ids whose result never comes (an in-process tool's task is abandoned, so
    it never does) stay: a few per aborted batch."""
    cached: tuple[ModelRequest, ContextView | None] | None = None
    streaming: bool = False
    """Whether the open model call's reply is streaming: true from its ``message_start``
    to its assembled message (a run's, kept here rather than in its ``Run``: a
    ``message_start`` then makes one new state, not a new ``Run`` too)."""

    def replace(self, **changes: Any) -> LoopState:
        """This state with ``changes`` (same as ``attrs.evolve``, cheaper)."""
        return _replace_state(self, changes)

    def with_batch(self, batch: Batch | None) -> LoopState:
        """This state with ``batch`` (hot path: built directly, not evolved)."""
        return LoopState(
            self.config,
            self.messages,
            self.steering,
            self.follow_ups,
            self.phase,
            self.run,
            batch,
            self.error,
            self.context,
            self.usage,
            self.cost,
            self.cancelled,
            self.cached,
            self.streaming,
        )

    def with_run(self, run: Run | None) -> LoopState:
        """This state with ``run`` (built directly, not evolved)."""
        return LoopState(
            self.config,
            self.messages,
            self.steering,
            self.follow_ups,
            self.phase,
            run,
            self.batch,
            self.error,
            self.context,
            self.usage,
            self.cost,
            self.cancelled,
            self.cached,
            self.streaming,
        )


_replace_batch = _replacer(Batch)
_replace_run = _replacer(Run)
_replace_state = _replacer(LoopState)


def initial_loop_state(config: LoopConfig, messages: Sequence[Any] = ()) -> LoopState:
    """A fresh, idle state holding ``messages`` as the history."""
    return LoopState(config, pvector(messages))
