"""Events of the loop layer (registered with ``event_type(name, "loop")``) and effect requests.

Inputs are what the runtime feeds the loop processor besides the stream and message events
it already knows (``assistant_message``, ``tool_result``, ``error_received``, deltas).
Outputs are lifecycle events for presenters and subscribers.

Message lifecycle events are named ``agent_message_start/update/end`` because
``message_start`` is already the stream-layer event of a driver, and wire names must be
unique across layers. They cover every message that enters the conversation (prompt,
steering, follow-up, assistant, tool result), not only the model's.

Effect requests (``CallModel``, ``SummariseContext``, ``CancelModel``, ``ExecuteTools``,
``CancelTools``, ``SetTimer``, ``CheckOutput``, ``AwaitApproval``, ``AwaitElicitation``,
``AnswerElicitation``, ``Finish``) are outputs for the runtime, not events: they are
never journaled or presented, because replaying the inputs produces them again.

Usage and cost are reported at four levels: each model call (``model_usage``), each
step (``turn_end``), each run (``agent_end``, and the ``Finish``/``AwaitApproval``
effects), and the session (the loop state's ``usage`` and ``cost``). A cost is in US
dollars at the configured price, ``None`` without one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self, TypeAlias

import attrs

from .._core.caching import Cache, as_cache
from .._core.checks import checked
from .._core.content import JSONValue, ToolCallPart, Usage, to_tool_call, to_usage
from .._core.driver import ModelRequest, OutputSpec, as_output_spec
from .._core.events import EVENT_TYPES, event_type, is_event
from .._core.wire import from_dict

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see _core/records.py)
    from .._core.records import frozen

__all__ = [
    "AgentAbort",
    "AgentConfigured",
    "AgentContinue",
    "AgentEnd",
    "AgentFollowUp",
    "AgentMessageEnd",
    "AgentMessageStart",
    "AgentOutput",
    "AgentPrompt",
    "AgentReset",
    "AgentResume",
    "AgentStart",
    "AgentSteer",
    "AnswerElicitation",
    "AwaitApproval",
    "AwaitElicitation",
    "CacheBust",
    "CallModel",
    "CancelModel",
    "CancelTools",
    "CheckOutput",
    "ClockTick",
    "ContextCompacted",
    "ContextSummary",
    "EFFECTS",
    "Effect",
    "ElicitationAction",
    "ElicitationAnswer",
    "ElicitationMode",
    "ElicitationRequest",
    "ExecuteTools",
    "Finish",
    "GuardrailTripped",
    "InputRejected",
    "ModelCallRetry",
    "OutputPassed",
    "ModelUsage",
    "OutputRetry",
    "RunEndReason",
    "RunForgotten",
    "SetTimer",
    "SummariseContext",
    "ToolApproval",
    "ToolApprovalRequired",
    "ToolExecutionEnd",
    "ToolExecutionStart",
    "ToolExecutionUpdate",
    "ToolProgress",
    "TurnEnd",
    "TurnStart",
]

RunEndReason: TypeAlias = Literal["completed", "aborted", "error"]
ElicitationMode: TypeAlias = Literal["form", "url"]
ElicitationAction: TypeAlias = Literal["accept", "decline", "cancel"]


def _ts() -> Any:
    return attrs.field(default=0, kw_only=True)


def to_message(value: Any) -> Any:
    """Accept a message (any registered event or a custom object) or its wire form."""
    if is_event(value):
        return value  # the common case, five times per tool call
    if (
        isinstance(value, Mapping)
        and value.get("type") in EVENT_TYPES
        and isinstance(value.get("data"), Mapping)
    ):
        return from_dict(value)
    return value


def _json_mapping(value: Any) -> Mapping[str, JSONValue]:
    if not isinstance(value, Mapping):
        raise TypeError(f"config must be a mapping, got {type(value).__name__}")
    return dict(value)


def _messages(value: Any) -> tuple[Any, ...]:
    return tuple([to_message(v) for v in value])  # a list is cheaper to fill than a generator


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(value)


def _calls(value: Any) -> tuple[ToolCallPart, ...]:
    return tuple(to_tool_call(v) for v in value)


# -- inputs ---------------------------------------------------------------------------------


@event_type("agent_prompt", "loop")
@frozen
class AgentPrompt:
    """Start a run with these messages; limits set here override the agent's for this run.
    ``output`` asks for a structured answer (see ``OutputSpec``): the run ends with an
    ``agent_output`` carrying it, or with ``OUTPUT_PARSE_ERROR``."""

    type: ClassVar[str] = "agent_prompt"
    messages: tuple[Any, ...] = attrs.field(converter=_messages)
    max_iterations: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None
    timeout_ms: int | None = None
    output: OutputSpec | None = attrs.field(default=None, converter=as_output_spec)
    cache: Cache | None = attrs.field(default=None, converter=as_cache)
    """The run's prompt caching, instead of the agent's (``None``: the agent's)."""
    timestamp: int = _ts()


@event_type("agent_continue", "loop")
@frozen
class AgentContinue:
    """Start a run from the history as it is (the last message is a user or tool message);
    ``cache`` as for ``agent_prompt``."""

    type: ClassVar[str] = "agent_continue"
    max_iterations: int | None = None
    max_tokens: int | None = None
    max_cost: float | None = None
    timeout_ms: int | None = None
    cache: Cache | None = attrs.field(default=None, converter=as_cache)
    timestamp: int = _ts()


@event_type("agent_steer", "loop")
@frozen
class AgentSteer:
    """Queue a message to deliver before the next model call."""

    type: ClassVar[str] = "agent_steer"
    message: Any = attrs.field(converter=to_message)
    timestamp: int = _ts()


@event_type("agent_follow_up", "loop")
@frozen
class AgentFollowUp:
    """Queue a message to deliver when the agent would otherwise stop."""

    type: ClassVar[str] = "agent_follow_up"
    message: Any = attrs.field(converter=to_message)
    timestamp: int = _ts()


@event_type("agent_abort", "loop")
@frozen
class AgentAbort:
    """Abort the run: cancel what runs, close every open tool call, end with ``ABORTED``."""

    type: ClassVar[str] = "agent_abort"
    reason: str = "user"
    timestamp: int = _ts()


@event_type("tool_approval", "loop")
@frozen
class ToolApproval:
    """A decision on a tool call that requires approval."""

    type: ClassVar[str] = "tool_approval"
    tool_call_id: str
    approved: bool
    reason: str | None = None
    timestamp: int = _ts()


@event_type("tool_progress", "loop")
@frozen
class ToolProgress:
    """A running tool reported progress (via ``ctx.on_update``)."""

    type: ClassVar[str] = "tool_progress"
    tool_call_id: str
    progress: JSONValue = None
    timestamp: int = _ts()


@event_type("agent_resume", "loop")
@frozen
class AgentResume:
    """The agent was rebuilt from its journal in a new process: re-perform what was in
    flight, by the documented policy (docs/journal.md, "Resume")."""

    type: ClassVar[str] = "agent_resume"
    reason: str = "resumed"
    timestamp: int = _ts()


@event_type("run_forgotten", "loop")
@frozen
class RunForgotten:
    """Forget the last run's exchange (only while idle): the history goes back to its
    first ``keep`` messages (its length before the run), and a compaction view made
    during the run is dropped. What the run spent stays counted, and the journal keeps
    the run: ``skip_memory_save`` is this input, fed once the run has ended."""

    type: ClassVar[str] = "run_forgotten"
    keep: int
    timestamp: int = _ts()


@event_type("agent_reset", "loop")
@frozen
class AgentReset:
    """Forget the history and the queues (only while idle), and start again from
    ``messages`` (an agent's initial history is journaled this way)."""

    type: ClassVar[str] = "agent_reset"
    messages: tuple[Any, ...] = attrs.field(default=(), converter=_messages)
    timestamp: int = _ts()


@event_type("agent_configured", "loop")
@frozen
class AgentConfigured:
    """What the loop decides with: tools (name, description, JSON Schema, flags), limits,
    modes, model options and price, in their wire form (``LoopConfig.to_wire``). The
    first input of every agent's journal, and again whenever the configuration changes,
    so a journal alone replays every decision."""

    type: ClassVar[str] = "agent_configured"
    config: Mapping[str, JSONValue] = attrs.field(converter=_json_mapping)
    timestamp: int = _ts()


@event_type("elicitation_request", "loop")
@frozen
@checked
class ElicitationRequest:
    """A running tool call asks the user something: an MCP server's
    ``elicitation/create``, or a tool's ``ctx.elicit``. The run pauses (phase
    ``elicitation``) until the application answers it.

    ``source`` names who asks (the MCP server, or the tool). ``mode="form"``: ``schema`` is
    a flat JSON Schema object of the fields wanted; ``mode="url"``: the user should visit
    ``url`` (``schema`` is ``None``). The runtime feeds it with ``elicitation_id`` and the
    asking ``tool_call_id`` filled in; the loop delivers it when it accepts it.
    """

    type: ClassVar[str] = "elicitation_request"
    source: str
    message: str
    mode: ElicitationMode = "form"
    schema: JSONValue = None
    url: str | None = None
    elicitation_id: str = ""
    tool_call_id: str = ""
    timestamp: int = _ts()


@event_type("elicitation_answer", "loop")
@frozen
@checked
class ElicitationAnswer:
    """The user's answer to elicitation ``elicitation_id``: ``accept`` (with ``content``, a
    mapping of the form's fields, for a form), ``decline`` or ``cancel``. Fed by
    ``Agent.answer_elicitation`` (or by the runtime: ``cancel`` when the asking call ended
    first); delivered when the loop accepts it."""

    type: ClassVar[str] = "elicitation_answer"
    action: ElicitationAction
    content: JSONValue = None
    elicitation_id: str = ""
    timestamp: int = _ts()


@event_type("clock_tick", "loop")
@frozen
class ClockTick:
    """The current time, fed by the runtime so the processor can check the deadline."""

    type: ClassVar[str] = "clock_tick"
    timestamp: int = _ts()


@event_type("guardrail_tripped", "loop")
@frozen
class GuardrailTripped:
    """A guardrail tripped: end the run with ``GUARDRAIL_TRIPPED`` (what runs is cancelled
    and every tool call answered, as for an abort). ``stage`` is ``input``, ``output``,
    ``tool_input`` or ``tool_output``."""

    type: ClassVar[str] = "guardrail_tripped"
    guardrail: str
    stage: str
    reason: str
    timestamp: int = _ts()


@event_type("output_passed", "loop")
@frozen
class OutputPassed:
    """Every guardrail passed the final answer a ``CheckOutput`` asked about."""

    type: ClassVar[str] = "output_passed"
    timestamp: int = _ts()


@event_type("context_summary", "loop")
@frozen
class ContextSummary:
    """The answer to ``SummariseContext``: the ``summary`` the model wrote, the call's
    ``usage`` and ``model``; or, when the call failed, its error ``code``, ``message``
    and ``retryable`` (and ``summary`` is empty)."""

    type: ClassVar[str] = "context_summary"
    summary: str = ""
    usage: Usage = attrs.field(factory=Usage, converter=to_usage)
    model: str = ""
    code: str | None = None
    message: str | None = None
    retryable: bool = False
    timestamp: int = _ts()


# -- outputs --------------------------------------------------------------------------------


@event_type("agent_start", "loop")
@frozen
class AgentStart:
    """A run began."""

    type: ClassVar[str] = "agent_start"
    timestamp: int = _ts()


@event_type("agent_end", "loop")
@frozen
class AgentEnd:
    """A run ended; ``code``/``message`` say why when ``reason`` is not ``completed``.
    ``usage`` and ``cost`` sum every model call of the run (``cost`` is ``None`` without
    a price)."""

    type: ClassVar[str] = "agent_end"
    reason: str
    code: str | None = None
    message: str | None = None
    usage: Usage = attrs.field(factory=Usage, converter=to_usage)
    cost: float | None = None
    timestamp: int = _ts()


@event_type("turn_start", "loop")
@frozen
class TurnStart:
    """A turn (one model call and the tool calls it asked for) began; ``turn`` counts from 1."""

    type: ClassVar[str] = "turn_start"
    turn: int
    timestamp: int = _ts()


@event_type("turn_end", "loop")
@frozen
class TurnEnd:
    """A turn ended, with the tool results it produced in the order the model asked, and
    the ``usage`` and ``cost`` of its model calls (a retried call's, and a summary's for
    compaction, included)."""

    type: ClassVar[str] = "turn_end"
    turn: int
    tool_results: tuple[Any, ...] = attrs.field(default=(), converter=_messages)
    usage: Usage = attrs.field(factory=Usage, converter=to_usage)
    cost: float | None = None
    timestamp: int = _ts()


@event_type("model_usage", "loop")
@frozen
class ModelUsage:
    """What one model call of turn ``turn`` used and cost: a reply (``purpose`` is
    ``reply``, cut-off ones included) or a summary for compaction (``summary``)."""

    type: ClassVar[str] = "model_usage"
    turn: int
    model: str
    usage: Usage = attrs.field(factory=Usage, converter=to_usage)
    cost: float | None = None
    purpose: str = "reply"
    timestamp: int = _ts()


@event_type("context_compacted", "loop")
@frozen
class ContextCompacted:
    """The context sent to the model was compacted (docs/compaction.md), because it had
    reached the threshold (``reason`` ``threshold``, at ``tokens``, an estimate) or the
    provider refused it (``overflow``). From now on requests send the history from index
    ``start`` (after ``summary``, or a note), with the tool results before index
    ``cleared`` replaced by a placeholder. The history itself is unchanged."""

    type: ClassVar[str] = "context_compacted"
    reason: str
    tokens: int
    start: int
    cleared: int
    summary: str | None = None
    timestamp: int = _ts()


@event_type("cache_bust", "loop")
@frozen
class CacheBust:
    """With prompt caching on, this model call's request no longer starts with the one
    before it, so the provider cannot read that one's cache: ``reason`` is
    ``compaction`` (the context was compacted since), ``model``, ``thinking``, ``tools``,
    ``system_prompt`` or ``messages`` (the history sent was rewritten), ``index`` the
    first message that differs (0 when it is not the messages), ``previous`` how many
    messages the request before sent. Emitted right before the call's effect."""

    type: ClassVar[str] = "cache_bust"
    reason: str
    index: int
    previous: int
    timestamp: int = _ts()


@event_type("agent_message_start", "loop")
@frozen
class AgentMessageStart:
    """A message enters the conversation; ``message`` is ``None`` for a streaming reply."""

    type: ClassVar[str] = "agent_message_start"
    role: str
    message: Any = attrs.field(default=None, converter=to_message)
    timestamp: int = _ts()


@event_type("agent_message_end", "loop")
@frozen
class AgentMessageEnd:
    """A message is complete (and, unless it is an empty reply, in the history)."""

    type: ClassVar[str] = "agent_message_end"
    role: str
    message: Any = attrs.field(converter=to_message)
    timestamp: int = _ts()


@event_type("tool_execution_start", "loop")
@frozen
class ToolExecutionStart:
    """A tool call is being handled (run, or answered at once with an error)."""

    type: ClassVar[str] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: JSONValue = None
    timestamp: int = _ts()


@event_type("tool_execution_update", "loop")
@frozen
class ToolExecutionUpdate:
    """Progress of a running tool call; or, from ``tool_previews``, its arguments as the
    model streams them (``args``, a prefix of the final arguments; ``progress`` is then
    ``None``)."""

    type: ClassVar[str] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    progress: JSONValue = None
    args: JSONValue = None
    timestamp: int = _ts()


@event_type("tool_execution_end", "loop")
@frozen
class ToolExecutionEnd:
    """A tool call has its result (``result`` is a ``tool_result_message``)."""

    type: ClassVar[str] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: Any = attrs.field(converter=to_message)
    is_error: bool = False
    timestamp: int = _ts()


@event_type("model_call_retry", "loop")
@frozen
class ModelCallRetry:
    """A model call failed with a retryable error after it had streamed; it is issued
    again after ``delay_ms`` (attempt ``attempt`` of the configured ``model_retries``).
    The partial reply was delivered as an incomplete ``assistant_message`` and is not
    kept in the history."""

    type: ClassVar[str] = "model_call_retry"
    attempt: int
    delay_ms: int
    code: str
    message: str
    timestamp: int = _ts()


@event_type("input_rejected", "loop")
@frozen
class InputRejected:
    """The loop refused ``input`` (its wire type): it does not fit the phase, or names a
    call or question nobody waits for. The state did not change. Emitted beside the
    ``error_message`` that shows the refusal; the shell raises from this one, rather
    than guessing a refusal from the outputs a command caused."""

    type: ClassVar[str] = "input_rejected"
    input: str
    message: str
    code: str
    timestamp: int = _ts()


@event_type("output_retry", "loop")
@frozen
class OutputRetry:
    """The model's answer did not match the run's output schema (``errors``, one line
    each); it is asked again (attempt ``attempt`` of the spec's ``retries``)."""

    type: ClassVar[str] = "output_retry"
    attempt: int
    errors: tuple[str, ...] = attrs.field(converter=_strings)
    timestamp: int = _ts()


@event_type("agent_output", "loop")
@frozen
class AgentOutput:
    """The run's structured answer, valid against its output schema (JSON); delivered
    right before the ``agent_end`` of a run that completed."""

    type: ClassVar[str] = "agent_output"
    output: JSONValue
    timestamp: int = _ts()


@event_type("tool_approval_required", "loop")
@frozen
class ToolApprovalRequired:
    """The run is paused until every call listed here is approved or rejected."""

    type: ClassVar[str] = "tool_approval_required"
    tool_calls: tuple[ToolCallPart, ...] = attrs.field(converter=_calls)
    timestamp: int = _ts()


# -- effect requests ------------------------------------------------------------------------


class CallModel:
    """Call the model with ``request``; answer with stream deltas, then one assistant
    message and/or one ``error_received``.

    ``CallModel.deferred(make)`` builds the request on first read: converting the whole
    history costs time in proportion to it, and a replay or a resume, which performs no
    effect, then never pays it (quadratic over a long conversation). ``make`` must be a
    pure function of values that do not change (the loop's immutable state).
    """

    __slots__ = ("_make", "_request")

    def __init__(self, request: ModelRequest) -> None:
        self._request: ModelRequest | None = request
        self._make: Callable[[], ModelRequest] | None = None

    @classmethod
    def deferred(cls, make: Callable[[], ModelRequest]) -> Self:
        effect = cls.__new__(cls)
        effect._request, effect._make = None, make
        return effect

    @property
    def request(self) -> ModelRequest:
        request = self._request
        if request is None:
            assert self._make is not None
            request = self._request = self._make()
            self._make = None
        return request

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.request == other.request

    __hash__ = None  # type: ignore[assignment]  # equal by a request built on demand

    def __repr__(self) -> str:
        return f"{type(self).__name__}(request={self.request!r})"


class SummariseContext(CallModel):
    """Ask the model for a summary of older history with ``request`` (built on first read,
    like ``CallModel``'s); answer with one ``context_summary``, never with stream events,
    which would enter the conversation."""

    __slots__ = ()


@frozen
class CancelModel:
    """Stop the current model call; still answer it (with a partial message or an error)."""


@frozen
class ExecuteTools:
    """Run these calls (together when ``parallel``); answer each with one ``tool_result``."""

    tool_calls: tuple[ToolCallPart, ...]
    parallel: bool


@frozen
class CancelTools:
    """Cancel these running calls; still answer each with one ``tool_result``."""

    tool_call_ids: tuple[str, ...]


@frozen
class SetTimer:
    """Feed a ``clock_tick`` at ``at_ms`` (the run's deadline, or the end of a retry
    delay), replacing the timer set before."""

    at_ms: int


@frozen
class CheckOutput:
    """Run the output guardrails on the final answer ``message`` (on a structured-output
    run, on ``output``, its validated answer); answer with ``output_passed`` or
    ``guardrail_tripped`` (the run waits, phase ``checking``)."""

    message: Any
    output: JSONValue = None


@frozen
class AwaitApproval:
    """The run is paused: nothing is in flight until these calls are approved or rejected.
    ``usage`` and ``cost``: what the run spent so far."""

    tool_calls: tuple[ToolCallPart, ...]
    usage: Usage = attrs.field(factory=Usage)
    cost: float | None = None


@frozen
class AwaitElicitation:
    """The run is paused until these elicitations are answered; the tool calls that asked
    are still running (they wait for the answers)."""

    elicitations: tuple[ElicitationRequest, ...]


@frozen
class AnswerElicitation:
    """Hand ``answer`` to the tool call waiting for it (nothing, when none waits)."""

    answer: ElicitationAnswer


@frozen
class Finish:
    """The run is over and nothing is in flight; ``usage`` and ``cost``: what it spent."""

    reason: RunEndReason
    code: str | None = None
    message: str | None = None
    usage: Usage = attrs.field(factory=Usage)
    cost: float | None = None


Effect: TypeAlias = (
    CallModel
    | SummariseContext
    | CancelModel
    | ExecuteTools
    | CancelTools
    | SetTimer
    | CheckOutput
    | AwaitApproval
    | AwaitElicitation
    | AnswerElicitation
    | Finish
)

EFFECTS: frozenset[type[Any]] = frozenset(
    (
        CallModel,
        SummariseContext,
        CancelModel,
        ExecuteTools,
        CancelTools,
        SetTimer,
        CheckOutput,
        AwaitApproval,
        AwaitElicitation,
        AnswerElicitation,
        Finish,
    )
)
"""The effect request classes (exact classes: the loop builds them)."""
