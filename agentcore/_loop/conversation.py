"""The conversation processor: the core processors and the loop policy as ONE processor.

Built with ``route_processors``, the way a user builds theirs (docs/machine.md):

- ``core`` is ``agent_processor`` (message assembler, state events, turns, activity);
- ``loop`` is ``loop_processor`` (the agent-loop policy);
- a user's own processors join as *watchers*: each sees every input and every output of
  ``core`` and ``loop`` (effect requests excepted), in order, and its outputs are
  delivered after theirs. One that
  raises, or returns something that is not ``(state, outputs)``, keeps its state and
  emits an ``error_message`` (``PROCESSOR_ERROR``) instead: a broken plugin never stops
  the conversation.

Routing (every decision about who sees what lives here, none in the runtime):

- stream deltas (and ``message_stop``) go to the core only; ``message_start``,
  ``error_received`` and ``interrupt`` go to the core, then to the loop; the core's
  ``assistant_message`` is fed to the loop as soon as it is assembled, so the loop
  decides on the whole reply before it sees the event that completed it (a failure's
  flushed partial reply before the failure), with the cost the core's turn tracker
  charged its call at (``PricedReply``): each model call is priced once;
- a ``tool_result`` goes to the loop first, which lets it into the conversation (its
  first output, fed to the core) when it answers a running call, and drops a late one
  for a call it cancelled and answered itself, so the core never sees it; the core's
  ``tool_result_message`` goes back to the loop, which records it: one answer per call,
  one history entry per answer;
- commands (``agent_prompt``, ``agent_steer``, ``tool_approval``, ``clock_tick``,
  ``elicitation_request``, ``elicitation_answer``...) go to
  the loop only; so does anything unknown, which the loop rejects by name; a
  ``steps_yield`` (a ``handle_steps`` generator's record, ``steps_record``) goes nowhere;
- what the loop lets into the conversation is fed to the core: the ``user_message`` of a
  prompt or a queued message, the ``interrupt`` that flushes a reply cut off by a process
  stop, the ``conversation_close`` that ends the core's conversation with the run; and
  the ``tool_result`` of a call it answered itself goes to the core and back to the
  loop as its message, exactly the way a tool's own result does;
- every stream-layer input the conversation takes is also the first output of its step
  (a ``tool_result`` only when the loop lets it in), so the outputs of a fold are exactly
  what presenters receive, and ``replay`` reproduces them.

Effect requests (``CallModel``...; ``agentcore.loop.EFFECTS``) are outputs too: the
runtime performs them and never delivers them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from .._core.agent_processor import (
    TURNS,
    AgentEngineState,
    activity_of,
    agent_processor_with,
    create_initial_agent_engine_state,
    repriced,
)
from .._core.combinators import combine_initial_states
from .._core.content import ToolCallPart, Usage
from .._core.errors import AgentError, ConfigurationError, ErrorCode, error_from_code
from .._core.events import (
    AssistantMessage,
    ConversationClose,
    ErrorMessage,
    ErrorReceived,
    InputJsonDelta,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    RateLimited,
    TextDelta,
    ThinkingDelta,
    ToolResult,
    ToolResultMessage,
    ToolUseStart,
    ToolUseStop,
    UserMessage,
)
from .._core.machine import MealyMachine
from .._core.pricing import ModelPrice
from .._core.processor import AnyProcessor
from .._core.provider_tools import ProviderPartEvent
from .._core.route import route_processors
from .._core.state_machine import AgentState
from .._core.store import Store
from .._core.turns import call_closed
from .events import (
    EFFECTS,
    AgentAbort,
    AgentConfigured,
    AgentContinue,
    AgentFollowUp,
    AgentPrompt,
    AgentReset,
    AgentResume,
    AgentSteer,
    ClockTick,
    ContextSummary,
    ElicitationAnswer,
    ElicitationRequest,
    RunForgotten,
    ToolApproval,
    ToolProgress,
)
from .model_calls import PricedReply
from .policy import loop_processor
from .state import AT_REST, LoopConfig, LoopState, initial_loop_state
from .steps_record import StepsYield

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see records.py)
    from .._core.records import frozen

__all__ = [
    "AgentSnapshot",
    "ConversationState",
    "STREAM_INPUTS",
    "conversation_processor",
    "create_conversation",
    "create_conversation_machine",
    "create_initial_conversation_state",
    "run_error",
    "snapshot_of",
]

DELTAS: tuple[type[Any], ...] = (
    TextDelta,
    ThinkingDelta,
    ToolUseStart,
    InputJsonDelta,
    ToolUseStop,
    MessageDelta,
    MessageStop,
    ProviderPartEvent,
)
"""Stream events only the core needs: the loop decides on the message they assemble."""

STREAM_INPUTS: tuple[type[Any], ...] = (
    *DELTAS,
    MessageStart,
    ErrorReceived,
    Interrupt,
    ToolResult,
)
"""Every stream event a driver or the runtime feeds in."""

COMMANDS: tuple[type[Any], ...] = (
    AgentPrompt,
    AgentContinue,
    AgentSteer,
    AgentFollowUp,
    AgentAbort,
    AgentResume,
    AgentReset,
    RunForgotten,
    AgentConfigured,
    ToolApproval,
    ToolProgress,
    ClockTick,
    ElicitationRequest,
    ElicitationAnswer,
    ContextSummary,
)

ROUTES: Mapping[type[Any], tuple[str, ...]] = {
    **{cls: ("core", "loop") for cls in STREAM_INPUTS},
    **{cls: ("core",) for cls in DELTAS},
    ToolResult: ("loop",),
    UserMessage: ("core",),
    **{cls: ("loop",) for cls in COMMANDS},
    AgentConfigured: ("core", "loop"),  # its prices charge the core's turns
    StepsYield: (),
    RateLimited: (),  # a notice: echoed (journaled, shown), decided on by nobody
}
FEEDBACK: Mapping[type[Any], tuple[str, ...]] = {
    AssistantMessage: ("loop",),
    UserMessage: ("core",),
    ToolResult: ("core",),
    ToolResultMessage: ("loop",),
    Interrupt: ("core",),
    ConversationClose: ("core",),
}
ECHO = (*(cls for cls in STREAM_INPUTS if cls is not ToolResult), UserMessage, RateLimited)
"""A ``tool_result`` input is not echoed: the loop lets it in (its first output) or not."""

ConversationState = Any
"""A ``CombinedState`` named tuple: ``core``, ``loop``, then one field per user processor."""

_BUILT_IN = ("core", "loop")


def create_conversation(
    processors: Mapping[str, tuple[AnyProcessor, Callable[[], Any]]] | None = None,
) -> tuple[AnyProcessor, Callable[..., ConversationState]]:
    """The conversation processor with a user's ``processors`` (``{name: (processor,
    initial_state)}``) as watchers, and its initial-state factory
    ``(config, messages=(), prices=None) -> state``.

    Without processors it is the one ``conversation_processor`` (so that a fold can tell
    it by identity). Raises ``ConfigurationError`` for a name that clashes with
    ``core``/``loop`` or a pair that is not ``(processor, initial_state)``.
    """
    if not processors:
        return conversation_processor, create_initial_conversation_state
    return _build(dict(processors))


def _priced(state: AgentEngineState, event: AgentConfigured) -> tuple[Any, tuple[Any, ...]]:
    """The core's turns charged at the configuration's prices, as the loop's ledger is: a
    replay of the journal prices every turn as the live run did. A bad configuration
    leaves the core as it was (the loop reports it)."""
    try:
        config = LoopConfig().from_wire(event.config)
    except ConfigurationError:
        return state, ()
    return repriced(state, config.prices, config.price), ()


_core_processor = agent_processor_with({AgentConfigured: _priced})


def _reply_priced(states: list[Any], message: AssistantMessage) -> Any:
    """The core's reply as the loop is fed it: with the price the core's turn tracker
    charged its call at (``PricedReply``), so the loop's ledger never prices it again; the
    bare message when no call closed with it."""
    closed = call_closed(states[0][TURNS])
    if closed is None:
        return message
    cost = closed[0]
    return PricedReply(message, 0.0 if cost is None else cost)


def _build(
    extra: dict[str, tuple[AnyProcessor, Callable[[], Any]]],
) -> tuple[AnyProcessor, Callable[..., ConversationState]]:
    """The processor over core, loop and ``extra`` (checked), and its initial state."""
    for name, pair in extra.items():
        if name in _BUILT_IN:
            raise ConfigurationError(f"processor name {name!r} is taken by the built-in {name}")
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(callable(p) for p in pair)):
            raise ConfigurationError(
                f"processors[{name!r}] must be (processor, initial_state_factory), got {pair!r}"
            )
    guarded = {name: _guarded(name, p) for name, (p, _) in extra.items()}
    processor = route_processors(
        {"core": _core_processor, "loop": loop_processor, **guarded},
        ROUTES,
        feedback=FEEDBACK,
        echo=ECHO,
        default=("loop",),
        watchers=tuple(extra),
        watch=_delivered,
        feed_as={AssistantMessage: _reply_priced},
    )
    factories = {n: f for n, (_, f) in extra.items()}

    def initial_state(
        config: LoopConfig | None = None,
        messages: Sequence[Any] = (),
        prices: Mapping[str, ModelPrice] | None = None,
    ) -> ConversationState:
        config = config or LoopConfig()
        table = config.prices if prices is None else prices
        return combine_initial_states(
            core=lambda: create_initial_agent_engine_state(table, price=config.price),
            loop=lambda: initial_loop_state(config, messages),
            **factories,
        )()

    return processor, initial_state


def _delivered(output: Any) -> bool:
    return type(output) not in EFFECTS


def _guarded(name: str, processor: AnyProcessor) -> AnyProcessor:
    """``processor``, with a failure turned into an ``error_message`` output."""

    def guarded(state: Any, event: Any) -> tuple[Any, tuple[Any, ...]]:
        try:
            result = processor(state, event)
            new, outputs = result
            return new, tuple(outputs)
        except Exception as exc:
            kind = getattr(event, "type", type(event).__name__)
            message = f"processor {name!r} failed on {kind}: {type(exc).__name__}: {exc}"
            timestamp = getattr(event, "timestamp", 0)
            error = ErrorMessage(message, ErrorCode.PROCESSOR_ERROR.value, timestamp=timestamp)
            return state, (error,)

    guarded.__qualname__ = getattr(processor, "__qualname__", name)
    return guarded


conversation_processor, create_initial_conversation_state = _build({})
"""The conversation processor with no user processor, and its initial-state factory."""


@frozen
class AgentSnapshot:
    """What an agent is doing and holds, read from its conversation state.

    ``activity`` is the ``AgentState`` (idle, thinking, responding...); ``messages`` the
    history; ``is_streaming`` whether a run is active (not paused for approval or
    elicitation); ``pending_tool_calls`` the calls running; ``pending_approvals`` the
    calls still waiting for a decision; ``steering``/``follow_ups`` the queued messages;
    ``error`` the last run's error (``None`` after a clean run); ``iterations`` and
    ``turn`` the current run's model calls and turn number; ``pending_elicitations`` the
    ``ElicitationRequest``s waiting for the user's answer; ``usage`` and ``cost`` what
    every model call of the session used and cost (``cost`` is ``None`` without a price).
    """

    activity: AgentState
    messages: tuple[Any, ...]
    is_streaming: bool
    pending_tool_calls: tuple[ToolCallPart, ...]
    pending_approvals: tuple[ToolCallPart, ...]
    steering: tuple[Any, ...]
    follow_ups: tuple[Any, ...]
    error: AgentError | None
    iterations: int = 0
    turn: int = 0
    pending_elicitations: tuple[ElicitationRequest, ...] = ()
    usage: Usage = attrs.field(factory=Usage)
    cost: float | None = None


def run_error(loop: LoopState) -> AgentError | None:
    """The typed error the last run ended with (``AgentSnapshot.error``), or None."""
    if loop.error is None:
        return None
    code, message, retryable = loop.error
    return error_from_code(message, code, retryable=retryable)


def snapshot_of(state: ConversationState) -> AgentSnapshot:
    """The ``AgentSnapshot`` of a conversation state."""
    loop: LoopState = state.loop
    batch, run = loop.batch, loop.run
    running: tuple[ToolCallPart, ...] = ()
    approvals: tuple[ToolCallPart, ...] = ()
    if batch is not None:
        running = tuple(c for c in batch.calls if c.tool_call_id in batch.running)
        approvals = tuple(
            c
            for c in batch.calls
            if c.tool_call_id in batch.pending and c.tool_call_id not in batch.decisions
        )
    return AgentSnapshot(
        activity_of(state.core),
        tuple(loop.messages),
        loop.phase not in AT_REST,
        running,
        approvals,
        loop.steering,
        loop.follow_ups,
        run_error(loop),
        0 if run is None else run.iterations,
        0 if run is None else run.turn,
        () if run is None else run.elicitations,
        loop.usage,
        None if loop.config.price is None else loop.cost,
    )


def create_conversation_machine(
    prices: Mapping[str, ModelPrice] | None = None,
    *,
    config: LoopConfig | None = None,
    processors: Mapping[str, tuple[AnyProcessor, Callable[[], Any]]] | None = None,
    store: Store | None = None,
) -> MealyMachine:
    """A ``MealyMachine`` running the conversation processor for every agent: what
    ``replay`` folds a journal through by default. ``config`` supplies the hooks (the
    journal's ``agent_configured`` supplies the rest, the prices of the turns too);
    ``prices`` prices the turns before an ``agent_configured``."""
    processor, initial = create_conversation(processors)
    return MealyMachine(processor, lambda: initial(config, (), prices), store)
