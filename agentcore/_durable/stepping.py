"""Performing one effect inside a DBOS step as the in-process runtime performs it.

A definition with middleware, extension hooks, guardrails or ``compaction`` has its model
calls, summary calls, tool calls and output checks performed by the runtime's own
``LocalPerformer``, equipped by the template agent (``Agent.equip``): the same middleware
onion, the same hooks, the same guardrail verdicts, the same summary reading. Nothing of
that is written twice. The performer's ``feed`` is this step's: what it feeds (stream
events, a ``tool_result``, a ``context_summary``, a ``guardrail_tripped``, an
``output_passed``) is stamped and becomes the step's recorded output, which the workflow
then folds and journals. So the plugins' decisions are inputs, as in one process, and a
recovered workflow replays them without running the plugins again.

While the step runs, each fed event is folded into a scratch copy of the conversation
state (the processor is pure and the state immutable), so the middleware see the
outputs they wait for (the assembled reply), and a ``preview`` (a scratch
``Conversation``) delivers them to the worker's presenters live. A tool call that asks
the user (``ctx.elicit``) is answered ``cancel`` at once: nobody can answer inside such
a step (the workflow answers the calls it performs itself, ``conversation``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .._core.events import Interrupt
from .._edges.clock import stamped
from .._journal.conversation import Conversation
from .._loop.events import (
    AnswerElicitation,
    CheckOutput,
    ContextSummary,
    ElicitationAnswer,
    ElicitationRequest,
    GuardrailTripped,
    OutputPassed,
    SummariseContext,
    ToolProgress,
)
from .._runtime.outlet import Outlet
from .._runtime.perform import LocalPerformer
from .definitions import Definition
from .effects import keyed

__all__ = ["StepPerformer", "preview"]


class _Delivered:
    """A ``Sink`` over a preview's ``deliver`` (the worker's presenters)."""

    congested = False

    def __init__(self, deliver: Callable[[Any], None]) -> None:
        self.send = deliver


class _Numbered:
    """A preview's journal: keeps nothing, numbers each input as the workflow's journal
    will."""

    def __init__(self, seq: int) -> None:
        self.seq = seq

    def append(self, agent_id: str, event: Any) -> int:
        self.seq += 1
        return self.seq


def preview(
    definition: Definition, state: Any, seq: int, deliver: Callable[[Any], None] | None
) -> Conversation:
    """A scratch ``Conversation`` from ``state`` at ``seq``: the outputs of inputs not
    journaled yet, folded as the workflow will fold them (secrets scrubbed, nothing
    journaled, effects left to the workflow) and delivered (``deliver``) at once;
    its ``seq`` is the sequence number the last one will have."""
    outlet = None if deliver is None else _Delivered(deliver)
    return Conversation(
        definition.processor, state, agent_id="", journal=_Numbered(seq), outlet=outlet, seq=seq
    )


class StepPerformer:
    """One effect performed by an equipped ``LocalPerformer`` (module docstring). ``publish``
    gets the fed events in batches (the ``live`` stream), at most every ``publish_every``
    seconds; ``aborted()`` is asked every ``check_every`` seconds during a model call."""

    def __init__(
        self,
        definition: Definition,
        preview: Conversation,
        outlet: Outlet,
        clock: Callable[[], int],
        publish: Callable[[list[Any]], Awaitable[None]] | None = None,
        aborted: Callable[[], Awaitable[bool]] | None = None,
        *,
        publish_every: float = 0.05,
        check_every: float = 0.25,
    ) -> None:
        self.preview = preview
        self.clock = clock
        self.events: list[Any] = []
        self._batch: list[Any] = []
        self._fed = asyncio.Event()
        self.publish, self.aborted = publish, aborted
        self.publish_every, self.check_every = publish_every, check_every
        self.performer = definition.template.equip(
            LocalPerformer(
                self._feed,
                lambda: definition.driver,
                definition.tools,
                outlet,
                clock,
                lambda: preview.state.loop.messages,
                _ignore,
                preview.collect,
                preview.stop_collecting,
            )
        )

    def _feed(self, event: Any) -> None:
        if type(event) is ToolProgress:
            return  # a durable step records its result, not its progress (as ``call_tool``)
        event = stamped(event, self.clock())
        self.events.append(event)
        self._batch.append(event)
        self.preview.feed(event)
        self._fed.set()
        if type(event) is ElicitationRequest:  # nobody can answer inside this step
            cancel = ElicitationAnswer("cancel", None, event.elicitation_id)
            self._feed(cancel)
            self.performer.perform(AnswerElicitation(cancel))

    async def perform(self, effect: Any, key: str | None = None) -> tuple[list[Any], bool]:
        """Perform ``effect``; the events fed for it, and whether an abort cut it (the
        call's events so far, with no ``interrupt``: the workflow folds the abort).
        ``key`` is what ``idempotency_key()`` answers meanwhile."""
        performer, answers = self.performer, _ANSWERS.get(type(effect), ())
        cut = False
        with keyed(key):
            try:
                performer.perform(effect)
                published = checked = time.monotonic()
                while performer.in_flight or (answers and not self._answered(answers)):
                    self._fed.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._fed.wait(), 0.005)
                    now = time.monotonic()
                    if self.publish is not None and now - published >= self.publish_every:
                        await self._publish()
                        published = now
                    if self.aborted is not None and now - checked >= self.check_every:
                        checked = now
                        if await self.aborted():
                            cut = True
                            break
            finally:
                await performer.aclose()
        if cut and self.events and type(self.events[-1]) is Interrupt:
            self.events.pop()
        await self._publish()
        return self.events, cut

    async def check_input(self, messages: tuple[Any, ...]) -> list[Any]:
        """Run the input guardrails on a run's prompt; the ``guardrail_tripped`` fed, if
        one tripped. Every input guardrail is blocking on a worker: the check is one step
        before the run's first model call is performed."""
        performer = self.performer
        performer.check_input(messages)
        guards = performer.guards
        for check in (guards.blocking, guards.parallel):
            if check is not None:
                await asyncio.wait([check])  # registered after the trip's callback
        return self.events

    def _answered(self, answers: tuple[type, ...]) -> bool:
        return any(type(e) in answers for e in self.events)

    async def _publish(self) -> None:
        if self.publish is not None and self._batch:
            batch, self._batch = self._batch, []
            await self.publish(batch)


_ANSWERS: dict[type, tuple[type, ...]] = {
    SummariseContext: (ContextSummary, Interrupt),
    CheckOutput: (OutputPassed, GuardrailTripped),
}
"""Effects answered after the performer's task ends (or by no task): what answers them."""


def _ignore(_effect: Any) -> None:
    """A paused run: the workflow sees it in its own fold."""
