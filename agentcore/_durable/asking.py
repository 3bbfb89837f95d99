"""A durable tool call's elicitations (``ctx.elicit``), mixed into the workflow's
``Conversation``: the question is fed inside the call's step, then the answers the step
claims from the inbox until the fold hands one to the call, or ``cancel`` when an abort
waits (point 4. of ``conversation``'s docstring)."""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import attrs

from .._core.wire import from_dict, to_dict
from .._loop.events import ElicitationAnswer, ElicitationRequest
from .performer import DurablePerformer
from .services import Services

__all__ = ["ANSWER_POLL", "EVENTS", "Asking"]

EVENTS = "events"
"""The workflow's stream of outputs (wire dicts, one list per step)."""
ANSWER_POLL = 0.1
"""Seconds between two looks for an elicitation's answer in the inbox."""


class Asking:
    """Asking the user for a durable tool call, over the members ``Conversation`` defines."""

    services: Services
    agent_id: str
    performer: DurablePerformer
    outputs: list[dict[str, Any]]

    if TYPE_CHECKING:

        def feed(self, events: Any) -> None: ...
        @property
        def seq(self) -> int: ...

    def _asker(
        self, call_id: str, asked: list[dict[str, Any]]
    ) -> Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]:
        """Call ``call_id``'s ``ctx.elicit`` (module docstring, 4.); ``asked`` collects
        what it fed. It runs in a copy of the step's context (an MCP server's question
        arrives on the session's own task), so it writes to the step's stream."""
        from dbos import DBOS

        key = f"{DBOS.workflow_id}#{DBOS.step_id}:elicit"
        step = contextvars.copy_context()
        numbers = itertools.count(1)

        async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
            if type(request) is not ElicitationRequest:
                raise TypeError(f"ctx.elicit() takes an ElicitationRequest, got {request!r}")
            request = attrs.evolve(
                request,
                elicitation_id=f"elicit_{call_id}_{next(numbers)}",
                tool_call_id=call_id,
                timestamp=self.services.clock(),
            )
            ask = self._ask(request, key, asked)
            return await asyncio.get_running_loop().create_task(ask, context=step.copy())

        return elicit

    async def _ask(
        self, request: ElicitationRequest, key: str, asked: list[dict[str, Any]]
    ) -> ElicitationAnswer:
        """Feed ``request``, then the answers claimed for it until one is handed to the
        call (``DurablePerformer.asked``); ``cancel`` when an abort waits first."""
        store, agent_id, elicitation_id = self.services.store, self.agent_id, request.elicitation_id
        waiting: asyncio.Future[ElicitationAnswer] = asyncio.get_running_loop().create_future()
        self.performer.asked[elicitation_id] = waiting
        try:
            await self._feed_asked([request], asked)
            while not waiting.done():
                answers = await asyncio.to_thread(
                    store.claim_answers, agent_id, key, elicitation_id
                )
                if answers:
                    await self._feed_asked([from_dict(json.loads(a)) for a in answers], asked)
                elif await asyncio.to_thread(store.has_open, agent_id, ["agent_abort"]):
                    break
                else:
                    await asyncio.sleep(ANSWER_POLL)
        finally:
            if self.performer.asked.pop(elicitation_id, None) is not None:  # unanswered
                cancel = ElicitationAnswer("cancel", None, elicitation_id)
                cancel = attrs.evolve(cancel, timestamp=self.services.clock())
                self._fed_asked(cancel, asked)
                if not waiting.done():  # the fold found it waiting no more
                    waiting.set_result(cancel)
        return waiting.result()

    def _fed_asked(self, event: Any, asked: list[dict[str, Any]]) -> None:
        self.feed([event])
        asked.append({**to_dict(event), "seq": self.seq})

    async def _feed_asked(self, events: list[Any], asked: list[dict[str, Any]]) -> None:
        """Feed a call's elicitation events inside its step, and write their outputs to
        the ``events`` stream now (a step's write: a step run again writes them again)."""
        from dbos import DBOS

        for event in events:
            self._fed_asked(event, asked)
        if self.outputs:
            outputs, self.outputs = self.outputs, []
            await DBOS.write_stream_async(EVENTS, outputs)
