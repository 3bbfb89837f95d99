"""Context compaction: what the model is sent, kept under its context window (pure).

``Compaction`` (``LoopConfig.compaction``) names the strategies, in the order they are
tried, and when they run: before a model call whose context has reached ``threshold`` of
the model's context window (``context_window``, else the window of the model's row in the
price table), and when the provider answers a call with ``CONTEXT_OVERFLOW`` (the call is
then made once more). Each strategy runs only while the context is still over the line:

- ``ClearToolResults(keep_turns)``: tool results older than the last ``keep_turns`` turns
  are sent with their content replaced by a short placeholder;
- ``KeepLastTurns(turns)``: only the last ``turns`` turns are sent, after a note saying
  how many messages were left out;
- ``Summarise(keep_turns)``: what comes before the last ``keep_turns`` turns is summarised
  by a model call and sent as that summary. The call is I/O: the loop asks for it with a
  ``SummariseContext`` effect and gets the summary back as a journaled
  ``context_summary`` input, so replay and resume never call the model for it.

A *turn* is the loop's: the messages delivered for one model call, its reply, and the
results of the tool calls it asked for. Cuts are made only at the start of a turn where
no tool call is on one side and its result on the other (``turn_starts``), so no strategy
ever sends an orphan tool call or result, and what is sent after a cut starts with a user
message (the note, or the summary).

The history itself is never rewritten. The loop keeps a ``ContextView`` (where requests
start, which tool results they send cleared, the summary of what they leave out), which
changes only when compaction runs; each request is rendered through it (``render_view``), when
the request is first read, before the config's ``transform_context``. The size that
decides is ``context_tokens``: what the provider reported for the last reply (its input
and output tokens), plus an estimate of what came after it (``estimate_tokens``, about
four characters a token); without a reported usage since the view changed, the estimate
of everything sent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

import attrs

from .._core.content import TextContent, TextPart, ThinkingPart, ToolCallPart
from .._core.driver import Message, ModelRequest
from .._core.errors import ConfigurationError
from .._core.events import AssistantMessage, ToolResultMessage, UserMessage
from .._core.provider_tools import PROVIDER_PART_TYPES

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
else:  # the same classes, built at a fifth of attrs' cost (see _core/records.py)
    from .._core.records import frozen

__all__ = [
    "PLACEHOLDER",
    "SUMMARY_INSTRUCTIONS",
    "SUMMARY_LEAD",
    "SUMMARY_SYSTEM_PROMPT",
    "ClearToolResults",
    "Compaction",
    "ContextView",
    "KeepLastTurns",
    "Strategy",
    "Summarise",
    "as_compaction",
    "context_tokens",
    "estimate_tokens",
    "plan_compaction",
    "render_view",
    "summary_request",
    "turn_starts",
]

SUMMARY_SYSTEM_PROMPT = (
    "You condense long conversations between a user and an AI assistant into the working "
    "notes the assistant needs to carry on. You never continue the conversation yourself."
)
"""The system prompt of every summary call (a model double can tell them by it)."""

SUMMARY_INSTRUCTIONS = (
    "The conversation above is about to be replaced by your summary of it. Write that "
    "summary for the assistant, who will carry on from it alone. Keep the user's goals and "
    "requests (in their own words where the wording matters), the decisions taken and why, "
    "what was done and found (files, commands, results, errors and their fixes), and what "
    "is in progress or still to do. Leave out greetings, dead ends that no longer matter, "
    "and anything a later message replaced. No preamble: start with the summary."
)

SUMMARY_LEAD = (
    "The earlier part of this conversation was summarised to fit the context window:\n\n"
    "<summary>\n{summary}\n</summary>"
)

PLACEHOLDER = "[This tool result was cleared to save context.]"

_PROVIDER_PARTS = frozenset(PROVIDER_PART_TYPES.values())
_CHARS_PER_TOKEN = 4
_IMAGE_TOKENS = 1_600
_MESSAGE_TOKENS = 4


def _at_least_one(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{attribute.name} must be an int >= 1, got {value!r}")


def _text(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"{attribute.name} must be a non-empty str, got {value!r}")


@frozen
class ClearToolResults:
    """Send tool results older than the last ``keep_turns`` turns as ``placeholder``."""

    kind: ClassVar[str] = "clear_tool_results"
    keep_turns: int = attrs.field(default=3, validator=_at_least_one)
    placeholder: str = attrs.field(default=PLACEHOLDER, validator=_text)


@frozen
class KeepLastTurns:
    """Send only the last ``turns`` turns, after a note that earlier ones were left out."""

    kind: ClassVar[str] = "keep_last_turns"
    turns: int = attrs.field(default=8, validator=_at_least_one)


@frozen
class Summarise:
    """Send what comes before the last ``keep_turns`` turns as a summary the model writes
    (following ``instructions``, in at most ``max_tokens`` tokens)."""

    kind: ClassVar[str] = "summarise"
    keep_turns: int = attrs.field(default=4, validator=_at_least_one)
    instructions: str = attrs.field(default=SUMMARY_INSTRUCTIONS, validator=_text)
    max_tokens: int = attrs.field(default=4_096, validator=_at_least_one)


Strategy: TypeAlias = ClearToolResults | KeepLastTurns | Summarise
_STRATEGIES: dict[str, type[Strategy]] = {
    c.kind: c for c in (ClearToolResults, KeepLastTurns, Summarise)
}
_CUTS = (KeepLastTurns, Summarise)


def _strategies(value: Any) -> tuple[Strategy, ...]:
    if isinstance(value, ClearToolResults | KeepLastTurns | Summarise):
        return (value,)
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise ConfigurationError(f"compaction strategies must be a sequence, got {value!r}")
    return tuple(value)  # checked by the validator


def _check_strategies(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    kinds = tuple(_STRATEGIES.values())
    for s in value:
        if not isinstance(s, kinds):
            raise ConfigurationError(
                f"{s!r} is not a compaction strategy; use ClearToolResults, KeepLastTurns "
                "or Summarise"
            )
    if not value:
        raise ConfigurationError("compaction needs at least one strategy")
    cuts = [s for s in value if isinstance(s, _CUTS)]
    clears = [s for s in value if isinstance(s, ClearToolResults)]
    if len(cuts) > 1 or len(clears) > 1 or (cuts and value[-1] is not cuts[0]):
        raise ConfigurationError(
            "compaction strategies are an optional ClearToolResults, then at most one of "
            f"KeepLastTurns or Summarise, in that order; got {list(value)!r}"
        )


def _fraction(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
        raise ConfigurationError(f"threshold must be a number in (0, 1], got {value!r}")


def _window(_: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value is not None:
        _at_least_one(_, attribute, value)


@frozen
class Compaction:
    """How the loop keeps the context under the model's window (module docstring).

    ``strategies``: an optional ``ClearToolResults``, then at most one of
    ``KeepLastTurns`` or ``Summarise`` (one strategy alone is accepted too).
    ``threshold``: the fraction of the window at which compaction starts.
    ``context_window``: tokens a request may hold; ``None`` takes the model's from the
    price table, and without either compaction runs only on ``CONTEXT_OVERFLOW``.
    Raises ``ConfigurationError`` naming what is wrong.
    """

    strategies: tuple[Strategy, ...] = attrs.field(
        converter=_strategies, validator=_check_strategies
    )
    threshold: float = attrs.field(default=0.8, validator=_fraction)
    context_window: int | None = attrs.field(default=None, validator=_window)

    def to_wire(self) -> dict[str, Any]:
        """This compaction as JSON values (part of ``LoopConfig.to_wire``)."""
        return {
            "strategies": [{"kind": s.kind, **attrs.asdict(s)} for s in self.strategies],
            "threshold": self.threshold,
            "context_window": self.context_window,
        }

    @classmethod
    def from_wire(cls, wire: Mapping[str, Any]) -> Compaction:
        """The compaction ``to_wire`` gave; ``ConfigurationError`` for a bad one."""
        try:
            values = dict(wire)
            strategies = []
            for s in values.pop("strategies"):
                fields = dict(s)
                strategies.append(_STRATEGIES[fields.pop("kind")](**fields))
            return cls(tuple(strategies), **values)
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigurationError(f"bad compaction configuration {wire!r}: {exc!r}") from exc


def as_compaction(value: Compaction | Strategy | Sequence[Strategy] | None) -> Compaction | None:
    """``value`` as a ``Compaction``: a strategy or a sequence of them gets the defaults."""
    if value is None or isinstance(value, Compaction):
        return value
    return Compaction(value)


@frozen
class ContextView:
    """What requests send of the history: from index ``start`` on (after a lead message:
    ``summary``, or a note that earlier messages were left out), with the tool results
    below index ``cleared`` sent as ``placeholder``. ``since`` is the history's length
    when the view was made: replies before it measured another context."""

    start: int = 0
    cleared: int = 0
    placeholder: str = PLACEHOLDER
    summary: str | None = None
    since: int = 0


# -- sizes ----------------------------------------------------------------------------------


def _content_chars(content: Any) -> tuple[int, int]:
    if type(content) is str:
        return len(content), 0
    chars = images = 0
    for block in content:
        if type(block) is TextContent:
            chars += len(block.text)
        else:  # an image, a document, audio or a file: counted as one image
            images += 1
    return chars, images


def estimate_tokens(message: Any) -> int:
    """About how many tokens ``message`` takes in a request: a token per four characters,
    1,600 per image, 4 per message. Message kinds providers are not sent count 0."""
    cls = type(message)
    images = 0
    if cls is AssistantMessage:
        chars = 0
        for part in message.parts:
            kind = type(part)
            if kind is TextPart or kind is ThinkingPart:
                chars += len(part.text)
            elif kind is ToolCallPart:
                raw = part.raw_input or repr(part.input)
                chars += len(part.tool_name) + len(raw)
            elif kind in _PROVIDER_PARTS:  # a provider-side tool's call, result, citation
                chars += len(repr(part))
    elif cls is ToolResultMessage:
        chars, images = _content_chars(message.result)
    elif cls is UserMessage:
        chars, images = _content_chars(message.content)
    else:
        return 0
    return _MESSAGE_TOKENS + -(-chars // _CHARS_PER_TOKEN) + images * _IMAGE_TOKENS


def _estimate_all(messages: Iterable[Any]) -> int:
    return sum(map(estimate_tokens, messages))


def context_tokens(view: ContextView | None, messages: Sequence[Any], extra: Sequence[Any]) -> int:
    """The tokens of the next request's messages (``view`` of ``messages``, then
    ``extra``): the last reply's reported input and output tokens plus the estimate of
    what follows it, or, with no usage reported since the view was made, the estimate of
    everything sent. Costs in proportion to the messages after that reply."""
    tail = _estimate_all(extra)
    since = 0 if view is None else min(view.since, len(messages))
    for i in range(len(messages) - 1, since - 1, -1):
        m = messages[i]
        if type(m) is AssistantMessage:
            u = m.usage
            prompt = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens
            if prompt:
                return prompt + u.output_tokens + tail
        tail += estimate_tokens(m)
    return _estimate_all(render_view(view, messages[:since])) + tail


# -- where cuts may go ----------------------------------------------------------------------


def _pairs(messages: Sequence[Any], lo: int) -> Iterable[tuple[int, int]]:
    """``(call, result)`` index pairs in ``messages[lo:]``: each result answers the latest
    call with its id before it that is not answered yet (the way providers pair them)."""
    open_calls: dict[str, list[int]] = {}  # per id, the messages whose call is unanswered
    for i in range(lo, len(messages)):
        m = messages[i]
        cls = type(m)
        if cls is AssistantMessage:
            for call in m.tool_calls:
                asking = open_calls.setdefault(call.tool_call_id, [])
                if not asking or asking[-1] != i:  # an id repeated in one message asks once
                    asking.append(i)
        elif cls is ToolResultMessage:
            unanswered = open_calls.get(m.tool_call_id)
            if unanswered:
                yield unanswered.pop(), i


def turn_starts(messages: Sequence[Any], lo: int = 0) -> list[int]:
    """The indices in ``[lo, len(messages))`` where a turn starts and a cut is safe.

    A turn starts at any message that is not a tool result and is the first (from
    ``lo``) or follows an assistant message or a tool result. A cut is safe where it
    parts no tool call from its result (``_pairs``), in any history, well-formed or not:
    a call or a result without its other half stays so on whichever side it falls.
    """
    n = len(messages)
    spans = [0] * (n - lo + 1)  # +1 past a call that is answered later, -1 past its answer
    for asked, answered in _pairs(messages, lo):
        if answered > asked:
            spans[asked + 1 - lo] += 1
            spans[answered + 1 - lo] -= 1
    starts: list[int] = []
    depth = 0
    previous: type[Any] = AssistantMessage
    for i in range(lo, n):
        depth += spans[i - lo]
        cls = type(messages[i])
        if (
            cls is not ToolResultMessage
            and depth == 0
            and (i == lo or previous is AssistantMessage or previous is ToolResultMessage)
        ):
            starts.append(i)
        previous = cls
    return starts


def _nth_last(starts: list[int], n: int) -> int | None:
    return starts[-n] if len(starts) >= n else None


# -- what is sent ---------------------------------------------------------------------------


def _lead(view: ContextView, start: int) -> UserMessage:
    if view.summary is not None:
        text = SUMMARY_LEAD.format(summary=view.summary)
    else:
        text = (
            f"[The first {start} messages of this conversation were left out to fit the "
            "context window.]"
        )
    return UserMessage(f"compaction-{start}", text)


def _cleared(message: ToolResultMessage, placeholder: str) -> ToolResultMessage:
    return ToolResultMessage(
        message.tool_call_id,
        message.tool_name,
        placeholder,
        message.is_error,
        message.details,
        timestamp=message.timestamp,
    )


def render_view(view: ContextView | None, messages: Sequence[Any]) -> list[Any]:
    """The history ``messages`` as ``view`` sends it: the lead message when anything is
    left out, then the messages from ``view.start``, tool results below ``view.cleared``
    cleared. Costs in proportion to the messages sent."""
    if view is None:
        return list(messages)
    n = len(messages)
    start, cleared = min(view.start, n), min(view.cleared, n)
    out: list[Any] = [_lead(view, start)] if start or view.summary is not None else []
    if cleared > start:
        placeholder = view.placeholder
        out.extend(
            _cleared(m, placeholder) if type(m) is ToolResultMessage else m
            for m in messages[start:cleared]
        )
        out.extend(messages[cleared:])
    else:
        out.extend(messages[start:])
    return out


# -- deciding -------------------------------------------------------------------------------


def _kept_turns(strategy: Strategy) -> int:
    return strategy.turns if isinstance(strategy, KeepLastTurns) else strategy.keep_turns


def plan_compaction(
    compaction: Compaction,
    view: ContextView | None,
    messages: Sequence[Any],
    tokens: int,
    window: int | None,
    *,
    overflow: bool,
) -> tuple[ContextView, Summarise | None, int] | None:
    """The compaction to make now, or ``None`` (nothing is over the line, or nothing is
    left to compact).

    Returns ``(view, summarise, cut)``: the view after the strategies that need no model
    call; and, when a summary is still needed, the ``Summarise`` strategy and the history
    index where the view will start once the summary is in (``None`` and ``view.start``
    otherwise). ``tokens`` is the context's size (``context_tokens``); ``overflow`` says
    the provider refused it, so it counts as at least ``window`` (and every strategy runs
    when the window is unknown). A strategy runs while the estimate is at the line
    (``threshold`` of ``window``) or over it. Costs in proportion to the messages sent.
    """
    limit = None if window is None else compaction.threshold * window
    if overflow:
        tokens = tokens if window is None else max(tokens, window)
    elif limit is None or tokens < limit:
        return None
    current = view or ContextView()
    new = current
    starts = turn_starts(messages, current.start)
    for strategy in compaction.strategies:
        if limit is not None and tokens < limit:
            break
        cut = _nth_last(starts, _kept_turns(strategy))
        if isinstance(strategy, ClearToolResults):
            if cut is None or cut <= max(new.cleared, new.start):
                continue
            old = [
                m
                for m in messages[max(new.cleared, new.start) : cut]
                if type(m) is ToolResultMessage
            ]
            each = estimate_tokens(ToolResultMessage("", "", strategy.placeholder))
            tokens -= _estimate_all(old) - each * len(old)
            new = attrs.evolve(new, cleared=cut, placeholder=strategy.placeholder)
        elif cut is not None and cut > new.start:
            if isinstance(strategy, Summarise):
                return attrs.evolve(new, since=len(messages)), strategy, cut
            tokens -= _estimate_all(render_view(new, messages[:cut]))
            new = attrs.evolve(new, start=cut, summary=None)
    if new == current:
        return None
    return attrs.evolve(new, since=len(messages)), None, new.start


def _fitted(view: ContextView, part: Sequence[Any], budget: int) -> ContextView:
    """``view`` of ``part``, its start moved to the earliest turn start from which what it
    sends fits ``budget`` tokens (to the last turn start when none does)."""
    rendered = render_view(view, part)
    sizes = [estimate_tokens(m) for m in rendered]
    if sum(sizes) <= budget:
        return view
    start = min(view.start, len(part))
    lead = len(rendered) - (len(part) - start)  # 1 with a lead message, else 0
    after = [0] * (len(sizes) + 1)  # after[j]: the size of the rendered messages from j on
    for j in range(len(sizes) - 1, -1, -1):
        after[j] = after[j + 1] + sizes[j]
    starts = turn_starts(part, start)[1:]
    for s in starts:  # the lead names how many messages it leaves out, so it is sized per start
        if estimate_tokens(_lead(view, s)) + after[lead + s - start] <= budget:
            return attrs.evolve(view, start=s)
    return attrs.evolve(view, start=starts[-1]) if starts else view


def summary_request(
    view: ContextView | None,
    messages: Sequence[Any],
    cut: int,
    strategy: Summarise,
    convert: Callable[[Sequence[Any]], Sequence[Message]],
    model: str | None,
    window: int | None,
) -> ModelRequest:
    """The request that asks the model to summarise what ``view`` sends of
    ``messages[:cut]`` (the summary so far included), converted with ``convert``, then
    the strategy's instructions.

    When ``window`` is known and that is too long for one request, its oldest turns are
    left out of it, so that the summary call itself fits.
    """
    current = view or ContextView()
    part = messages[:cut]
    if window is not None:
        current = _fitted(current, part, window - strategy.max_tokens)
    asked = UserMessage("compaction-request", strategy.instructions)
    context = (*convert(render_view(current, part)), asked)
    return ModelRequest(context, SUMMARY_SYSTEM_PROMPT, (), model, None, strategy.max_tokens)
