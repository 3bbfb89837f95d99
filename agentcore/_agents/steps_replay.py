"""Reading a ``handle_steps`` generator back from its agent's journal lane.

``walk(entries, processor, state)`` folds the lane (``(seq, event)`` pairs) through a
``Conversation`` of the agent's own conversation processor and follows the
``StepsDriver``'s moves the way it made them live: a model call starts at each
``CallModel`` the fold emits; a ``StepsYield`` record says what the generator was sent
and what it yielded; the call ends with its
``message_stop`` (what the yield asked for is under way), or with an ``error_received``
or ``interrupt`` (the generator was ended, as the live driver ends it). A call that a
process stop cut off (an ``agent_resume`` or the lane's end comes before its end) is
left out: the resumed loop issues it again, and the driver makes it again from where it
stood before it. A new run begins a new generator; a ``STEP`` yielded after the model
ended its turn waits for the next run.

What it returns (``Found``) is the generator in use: each of its yields with what it was
sent (the agent state folded up to the record's ``state_seq``, and the reply that ended
the model's turn), the driver's mode once they have been acted on, and the run counters.
The generator is ``None`` (``asked`` empty) when there is none to rebuild: it returned,
failed, or its run is over.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal, TypeAlias

import attrs

from .._core.content import TextPart, Usage
from .._core.errors import ProtocolError
from .._core.events import (
    AssistantMessage,
    ErrorReceived,
    Interrupt,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
)
from .._core.processor import AnyProcessor
from .._journal.conversation import Conversation
from .._loop.conversation import AgentSnapshot, snapshot_of
from .._loop.events import AgentResume, AgentStart, CallModel
from .._loop.steps_record import StepsYield

__all__ = ["DONE", "Asked", "Found", "Mode", "reply_of", "walk"]

Mode: TypeAlias = Literal["idle", "tools", "step", "all", "restart", "done"]
"""What a ``StepsDriver`` does at its next model call (``steps.StepsDriver._call``)."""

DONE: Final = "DONE"
"""A record's ``action`` when the generator returned."""


def reply_of(
    start: MessageStart | None, texts: Mapping[int, Sequence[str]], usage: Usage
) -> AssistantMessage | None:
    """The reply a ``"complete"`` answer shows the generator: the model's message that
    ended the turn (its text blocks), before it is closed."""
    if start is None:
        return None
    parts = [TextPart("".join(texts[i])) for i in sorted(texts)]
    return AssistantMessage(start.message_id, start.model, parts, usage, "end_turn")


@attrs.define
class Asked:
    """One yield of the generator: its ``record`` and what it had been sent (``state``,
    and for a ``"complete"`` answer the ``reply``)."""

    record: StepsYield
    state: AgentSnapshot
    reply: AssistantMessage | None = None


@attrs.frozen
class Found:
    """The generator to rebuild (``asked``: its yields in order; empty for none), the
    driver's ``mode``, ``pending`` (a ``restart``'s action) and ``calls`` (the ids of
    the last tool yield), and its run counters ``runs`` and ``begun``."""

    asked: tuple[Asked, ...]
    mode: Mode
    pending: str
    calls: tuple[str, ...]
    runs: int
    begun: int


@attrs.define
class _Moves:
    """The driver's moves so far (copied at each call's start, to undo a cut call)."""

    mode: Mode = "idle"
    begun: int = 0
    pending: str = "STEP"
    calls: tuple[str, ...] = ()
    asked: list[Asked] = attrs.Factory(list)

    def copy(self) -> _Moves:
        return attrs.evolve(self, asked=list(self.asked))

    def took(self, record: StepsYield) -> None:
        """The yield ``record`` is acted on."""
        action = record.action
        if isinstance(action, list):
            self.mode, self.calls = "tools", tuple(c["tool_call_id"] for c in action)
        elif action == DONE:
            self.mode = "done"
        elif record.answer == "complete":
            self.mode, self.pending = "restart", action
        else:
            self.mode = "step" if action == "STEP" else "all"


def walk(entries: Iterable[tuple[int, Any]], processor: AnyProcessor, state: Any) -> Found:
    """The generator an agent's lane leaves in use (module docstring). Raises
    ``ProtocolError`` for a lane whose records do not follow each other."""
    moves, before = _Moves(), None
    conversation = Conversation(processor, state, agent_id="")
    runs = 0
    window: dict[int, Any] = {}  # seq -> the state after it, for the current model call
    start: MessageStart | None = None
    texts: dict[int, list[str]] = {}
    completing: Asked | None = None
    for seq, event in entries:
        outputs = conversation.replayed(event)
        window[seq] = state = conversation.state
        cls = type(event)
        if cls is StepsYield:
            if event.answer == "start":
                moves.asked, moves.begun = [], runs
            if event.position != len(moves.asked) or event.state_seq not in window:
                raise ProtocolError(
                    f"journal entry {seq}: handle_steps record #{event.position} "
                    f"(of state {event.state_seq}) does not follow the records before it"
                )
            asked = Asked(event, snapshot_of(window[event.state_seq]))
            if event.answer == "complete":
                asked.reply, completing = reply_of(start, texts, Usage()), asked
            moves.asked.append(asked)
            moves.took(event)
        elif cls is TextDelta:
            texts.setdefault(event.index, []).append(event.text)
        elif cls is MessageStart:
            start, texts = event, {}
        elif cls is MessageDelta and completing is not None:
            completing.reply = reply_of(start, texts, event.usage)
            completing = None
        elif before is not None and (cls is MessageStop or cls in _ENDED):
            if cls in _ENDED:
                moves.mode = "done"
            before = None
        elif cls is AgentResume and before is not None:  # the stop cut this call off
            moves, before = before, None
        for output in outputs:
            kind = type(output)
            if kind is AgentStart:
                runs += 1
            elif kind is CallModel:  # the states a record of this call may refer to start here
                before, start, texts, completing = moves.copy(), None, {}, None
                window = {seq: state}
                if moves.mode == "restart":
                    moves.mode, moves.begun = ("step" if moves.pending == "STEP" else "all"), runs
    if before is not None:
        moves = before
    alive = moves.mode == "restart" or (
        moves.mode in ("tools", "step", "all")
        and moves.begun == runs
        and state.loop.run is not None
    )
    return Found(
        tuple(moves.asked) if alive else (),
        moves.mode if alive else "done",
        moves.pending,
        moves.calls,
        runs,
        moves.begun,
    )


_ENDED = (ErrorReceived, Interrupt)
"""What ends a model call and, with it, the generator (a failure, an abort)."""
