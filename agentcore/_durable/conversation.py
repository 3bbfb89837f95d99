"""One advance of a durable agent: the body of the ``agentcore_advance`` DBOS workflow.

The workflow drives the same pure conversation processor as ``Agent`` and never keeps a
state of its own: it folds the agent's journal up to ``base`` (the journal's end when the
workflow first ran, recorded as its first step), then folds each input as it comes:

1. what each effect request produced, performed as one DBOS step whose name comes from
   the agent and the sequence number of the input that asked for it
   (``model:<agent>:<seq>``, ``tool:<agent>:<call id>``): stream events, tool results;
2. the commands it claims from the agent's inbox between two effects: at the end of the
   effect's own step (the last tool step of a batch), with the rule of a running agent,
   so a step costs one DBOS record; at the start in the ``base`` step (when the agent is
   at rest); in a step of their own (``claim``) otherwise: at the start of a resumed run,
   after a timer, after a claim that took something and left nothing to perform. An
   advance whose last step leaves the agent at rest with nothing claimed ends: a prompt
   queued meanwhile has its own advance, enqueued behind this one;
3. a ``clock_tick`` after a durable sleep, for a timer (a retry delay, the deadline);
4. a tool call's elicitation (``ctx.elicit``: an MCP server asking the user), fed while
   the call's step runs: its ``elicitation_request`` (numbered ``elicit_<call id>_<n>``,
   so the call run again on another worker asks under the same id), then the answers
   the step claims from the inbox (``Store.claim_answers``) until the fold hands one to
   the call (``AnswerElicitation``), or ``cancel`` when an abort waits. They are written
   to the ``events`` stream at once, so a client reads the question while the run is
   paused; the step records them with their sequence numbers, and a recovered workflow
   folds them again, in that order, before the batch's results.

Every input gets the next sequence number and is appended to the journal unless the
journal holds it already: DBOS replays recorded steps to a recovered workflow, so the
same inputs come back in the same order and only those past the journal's end are
written. The fold's outputs (every layer but effects) go to the workflow's ``events``
stream once per step, while the next step runs (a DBOS workflow write, itself recorded:
replayed, it is not written twice), so a reader sees exactly what replaying the journal
gives.

The workflow returns when the agent is at rest (idle, or paused for approval) and its
inbox holds nothing it can take: a paused run goes on in the advance its approval starts.
A step that cannot be replayed the same way (a definition whose tools changed under a
running workflow) makes DBOS raise; the next advance then resumes the run from the
journal by the documented resume policy (``agent_resume``).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from .._core.content import ToolCallPart
from .._core.errors import MessageRejectedError
from .._core.events import AssistantMessage
from .._core.wire import from_dict, to_dict
from .._journal import conversation as _conversation
from .._journal.resume import journal_events
from .._loop.events import (
    AgentConfigured,
    AgentPrompt,
    AgentResume,
    CallModel,
    CheckOutput,
    ClockTick,
    ExecuteTools,
    SummariseContext,
)
from .._loop.state import AT_REST
from .._runtime.outlet import Outlet
from .asking import EVENTS, Asking
from .definitions import Definition
from .effects import call_model, call_tool
from .lane import Lane, presenters_outlet
from .performer import DurablePerformer
from .services import Services
from .stepping import StepPerformer, preview

__all__ = ["Conversation"]

LIVE = "live"
"""The stream of live model events, written while a model call streams (may repeat a
call's start when a worker died mid-call: each batch names its call and attempt)."""


class Conversation(Asking):
    """One workflow execution's view of agent ``agent_id`` (module docstring)."""

    def __init__(self, services: Services, agent_id: str, definition: Definition) -> None:
        self.services = services
        self.agent_id = agent_id
        self.definition = definition
        self.journal = services.journal
        self.lane = Lane(services.journal)
        self.conversation: _conversation.Conversation | None = None
        self.performer = DurablePerformer(self.lane, self.feed)
        self.outputs: list[dict[str, Any]] = []
        self.delivered = 0
        """The last input whose outputs the presenters have (delivered live in a step)."""
        self.outlet = presenters_outlet(agent_id, definition)
        self._reports: Outlet | None = None

    @property
    def state(self) -> Any:
        """The conversation state folded so far."""
        assert self.conversation is not None, "the base step folds the journal first"
        return self.conversation.state

    @property
    def seq(self) -> int:
        return self.lane.seq

    # -- the workflow ---------------------------------------------------------------------

    async def advance(self) -> dict[str, Any]:
        """Fold, claim, perform, until at rest with nothing to claim; the result."""
        from dbos import DBOS

        await self.definition.connect()
        base, now, first = await DBOS.run_step_async({"name": "base"}, self._begin)
        if self.conversation is None:  # a recorded step: its body, which folds, did not run here
            self._fold(base, now)
        claimed = await self._claim_step() if first is None else first
        alone = True  # the last claim was a step of its own, with the agent's own rule
        while True:
            if claimed:
                await self._take_commands([from_dict(json.loads(c)) for c in claimed])
            pending = self.performer.pending
            if pending:
                claimed, alone = await self._perform(*pending.popleft()), False
                continue
            rest = self.state.loop.phase in AT_REST
            if claimed or not (alone or rest):
                claimed, alone = await self._claim_step(), True
            elif not rest and self.performer.timer is not None:
                await self._wait_timer(self.performer.timer)
                claimed = await self._claim_step()
            elif rest:
                break
            else:
                raise RuntimeError(
                    f"agent {self.agent_id!r} is in phase {self.state.loop.phase!r} with "
                    "nothing to perform (a bug in agentcore.durable)"
                )
        await self._flush_outputs()
        await DBOS.close_stream_async(EVENTS)
        await DBOS.close_stream_async(LIVE)
        if self.outlet is not None:  # async presenters get 5 s to finish, then are let go
            await self.outlet.drain(5.0)
            self.outlet.cancel()
        return self._result()

    async def _take_commands(self, commands: list[Any]) -> None:
        """Fold claimed commands. With plugins, a prompt goes through the ``loop_start``
        middleware first (a step: the prompt they leave, or none when one dropped it) and
        its input guardrails run as a step right after it is folded."""
        from dbos import DBOS

        if not self.definition.plugins:
            self.feed(commands)
            return
        for command in commands:
            if type(command) is not AgentPrompt:
                self.feed([command])
                continue
            prompt = command
            if self.definition.starts_through_middleware:
                name = f"start:{self.agent_id}:{self.seq + 1}"
                started = await DBOS.run_step_async({"name": name}, self._loop_start, command)
                if started is None:
                    continue
                prompt = from_dict(started)
            self.feed([prompt])
            if self.definition.options.get("input_guardrails"):
                name = f"guard:{self.agent_id}:{self.seq}"
                trips = await DBOS.run_step_async(
                    {"name": name}, self._check_input, prompt.messages
                )
                self.feed(from_dict(t) for t in trips)

    # -- folding --------------------------------------------------------------------------

    def feed(self, events: Any) -> None:
        """Number, journal (when new), fold each event (``Conversation``); keep outputs
        and effects; then write what was appended (one transaction)."""
        assert self.conversation is not None, "the base step folds the journal first"
        self.conversation.feed_all(events)
        self.journal.flush()

    congested = False
    """As a ``Sink`` of the fold: a step's outputs never make it wait."""

    def send(self, output: Any) -> None:
        """An output of the fold: for the ``events`` stream, and for the presenters when
        its input was journaled just now and not delivered live in a step."""
        self.outputs.append(to_dict(output))
        lane = self.lane
        if self.outlet is not None and lane.fresh and lane.seq > self.delivered:
            self.outlet.send(output)

    # -- effects as steps -----------------------------------------------------------------

    async def _perform(self, seq: int, effect: Any) -> list[str]:
        """Perform ``effect`` as DBOS steps while the outputs folded so far go to the
        ``events`` stream (the write's step id is drawn first, so a replay draws the same
        ids), then fold what it produced; the commands its (last) step claimed."""
        done: tuple[list[dict[str, Any]], list[str]]
        _, done = await asyncio.gather(self._flush_outputs(), self._steps(seq, effect))
        events, claimed = done
        for event in events:  # a call's elicitations: fed live unless this is a replay
            at = event.pop("seq", None)
            if at is None or at > self.seq:
                self.feed([from_dict(event)])
        return claimed

    async def _steps(self, seq: int, effect: Any) -> tuple[list[dict[str, Any]], list[str]]:
        from dbos import DBOS

        cls = type(effect)
        if cls is CallModel:
            name = f"model:{self.agent_id}:{seq}"
            done: tuple[list[dict[str, Any]], list[str]] = await DBOS.run_step_async(
                {"name": name}, self._call_model, effect, seq
            )
            return done
        if cls is SummariseContext or cls is CheckOutput:
            kind = "summary" if cls is SummariseContext else "check"
            name = f"{kind}:{self.agent_id}:{seq}"
            done = await DBOS.run_step_async({"name": name}, self._bent_step, effect)
            return done
        calls: tuple[ToolCallPart, ...] = effect.tool_calls
        last = len(calls) - 1
        if effect.parallel:
            results = await asyncio.gather(
                *(self._tool_step(c, i == last) for i, c in enumerate(calls))
            )
        else:
            results = [await self._tool_step(c, i == last) for i, c in enumerate(calls)]
        fed = [e for events, _ in results for e in events]
        asked = sorted((e for e in fed if "seq" in e), key=lambda e: int(e["seq"]))
        return asked + [e for e in fed if "seq" not in e], results[-1][1]

    async def _tool_step(
        self, call: ToolCallPart, claim: bool
    ) -> tuple[list[dict[str, Any]], list[str]]:
        from dbos import DBOS

        name = f"tool:{self.agent_id}:{call.tool_call_id}"
        done: tuple[list[dict[str, Any]], list[str]] = await DBOS.run_step_async(
            {"name": name}, self._call_tool, call, claim
        )
        return done

    async def _call_model(
        self, effect: CallModel, seq: int
    ) -> tuple[list[dict[str, Any]], list[str]]:
        from dbos import DBOS

        services = self.services
        attempt = services.clock()
        live = None
        if services.live:
            # ``after``: the journal's end; the call's first event will be input after + 1
            record = {"agent_id": self.agent_id, "call": seq, "attempt": attempt, "after": self.seq}

            async def live(batch: list[Any]) -> None:
                events = [to_dict(e) for e in batch]
                await DBOS.write_stream_async(LIVE, {**record, "events": events})

        async def aborted() -> bool:
            store, agent_id = services.store, self.agent_id
            return await asyncio.to_thread(store.has_open, agent_id, ["agent_abort"])

        outlet = self.outlet
        ahead = None
        if outlet is not None or self.definition.plugins:
            send = None if outlet is None else outlet.send
            ahead = preview(self.definition, self.state, self.seq, send)
        if self.definition.plugins:
            assert ahead is not None
            stepper = StepPerformer(
                self.definition, ahead, self._performer_outlet(), services.clock, live, aborted
            )
            events, _cut = await stepper.perform(effect)
        else:
            publish = live
            if ahead is not None:
                fold = ahead.feed

                async def publish(batch: list[Any]) -> None:
                    for event in batch:
                        fold(event)
                    if live is not None:
                        await live(batch)

            events, _cut = await call_model(
                self.definition.driver, effect.request, services.clock, publish, aborted
            )
        if ahead is not None and outlet is not None:
            self.delivered = ahead.seq
        return [to_dict(e) for e in events], await self._claim_in_step(False)

    async def _bent_step(self, effect: Any) -> tuple[list[dict[str, Any]], list[str]]:
        """A summary call or an output check as a step: what it fed, and the commands
        the step claimed at its end."""
        events, _cut = await self._bent(effect)
        return events, await self._claim_in_step(False)

    async def _bent(self, effect: Any, key: str | None = None) -> tuple[list[dict[str, Any]], bool]:
        """A summary call, an output check or (with plugins) a tool call, performed by
        the runtime's performer (``stepping``); what it fed."""
        stepper = StepPerformer(
            self.definition,
            preview(self.definition, self.state, self.seq, None),
            self._performer_outlet(),
            self.services.clock,
        )
        events, cut = await stepper.perform(effect, key)
        return [to_dict(e) for e in events], cut

    async def _loop_start(self, prompt: AgentPrompt) -> dict[str, Any] | None:
        try:
            started = await self.definition.template.start_through_middleware(prompt)
        except MessageRejectedError:
            return None
        return to_dict(started)

    async def _check_input(self, messages: tuple[Any, ...]) -> list[dict[str, Any]]:
        stepper = StepPerformer(
            self.definition,
            preview(self.definition, self.state, self.seq, None),
            self._performer_outlet(),
            self.services.clock,
        )
        return [to_dict(e) for e in await stepper.check_input(messages)]

    def _performer_outlet(self) -> Outlet:
        """Where an equipped performer reports plugin failures (and waits for presenters):
        the presenters' outlet, or one with none (failures are logged)."""
        if self.outlet is not None:
            return self.outlet
        if self._reports is None:
            self._reports = Outlet(self.agent_id, (), 1)
        return self._reports

    async def _call_tool(
        self, call: ToolCallPart, claim: bool
    ) -> tuple[list[dict[str, Any]], list[str]]:
        """What the call fed: its elicitations (with their ``seq``), then its
        ``tool_result`` (with plugins, then a tool guardrail's trip, if one tripped);
        and, for the last call of a batch (``claim``), the commands the step claimed at
        its end."""
        key = f"{self.agent_id}/{call.tool_call_id}"
        if self.definition.plugins:  # through the middleware, hooks and tool guardrails
            events, _cut = await self._bent(ExecuteTools((call,), False), key)
        else:
            messages = tuple(self.state.loop.messages)
            asked: list[dict[str, Any]] = []
            elicit = self._asker(call.tool_call_id, asked)
            result = await call_tool(
                self.definition.tools, call, key, self.services.clock, messages, elicit=elicit
            )
            events = [*asked, to_dict(result)]
        return events, await self._claim_in_step(False) if claim else []

    async def _wait_timer(self, at_ms: int) -> None:
        from dbos import DBOS

        now: int = await DBOS.run_step_async({"name": "clock"}, self.services.clock)
        await DBOS.sleep_async(max(0, at_ms - now) / 1000)
        tick: int = await DBOS.run_step_async({"name": "clock"}, self.services.clock)
        self.performer.timer = None
        self.feed([ClockTick(timestamp=max(tick, at_ms))])

    # -- small steps and helpers ----------------------------------------------------------

    async def _begin(self) -> tuple[int, int, list[str] | None]:
        """The ``base`` step: the journal's end and the clock when the workflow first ran;
        it folds the journal up to there and, when the agent is at rest, claims the inbox
        (what a ``claim`` step would do next: one DBOS record instead of two). The claim
        is ``None`` when the agent is not at rest (an advance before this one failed)."""
        services = self.services
        base = await asyncio.to_thread(services.store.journal_end, self.agent_id)
        now = services.clock()
        self._fold(base, now)
        if self.state.loop.phase not in AT_REST:
            return base, now, None
        return base, now, await self._claim_in_step(True)

    def _fold(self, base: int, now: int) -> None:
        """The state: the journal folded up to ``base``, then the configuration (a new
        agent) or a resume (an agent left mid-run by a failed advance)."""
        self.journal.forget(self.agent_id)
        lane = self.lane
        lane.written, lane.seq = self.journal.last_seq(self.agent_id), base
        definition = self.definition
        conversation = _conversation.Conversation(
            definition.processor,
            definition.initial_state(),
            agent_id=self.agent_id,
            clock=lambda: lane.now,
            journal=lane,
            outlet=self,
            perform=self.performer.perform,
        )
        conversation.catch_up(itertools.islice(journal_events(self.journal, self.agent_id), base))
        self.conversation = conversation
        if base == 0:
            self.feed([AgentConfigured(self.definition.config.to_wire(), timestamp=now)])
        elif self.state.loop.phase not in AT_REST:
            self.feed([AgentResume(timestamp=now)])

    async def _claim_step(self) -> list[str]:
        """A step that claims the inbox with the rule of the agent's phase now."""
        from dbos import DBOS

        rest = self.state.loop.phase in AT_REST
        claimed: list[str] = await DBOS.run_step_async({"name": "claim"}, self._claim_in_step, rest)
        return claimed

    async def _claim_in_step(self, at_rest: bool) -> list[str]:
        """Claim the inbox under the running step's key (``Store.claim``)."""
        from dbos import DBOS

        key = f"{DBOS.workflow_id}#{DBOS.step_id}"
        return await asyncio.to_thread(self.services.store.claim, self.agent_id, key, at_rest)

    async def _flush_outputs(self) -> None:
        from dbos import DBOS

        if self.outputs:
            outputs, self.outputs = self.outputs, []
            await DBOS.write_stream_async(EVENTS, outputs)

    def _result(self) -> dict[str, Any]:
        loop = self.state.loop
        reply = next((m for m in reversed(loop.messages) if type(m) is AssistantMessage), None)
        error = None if loop.error is None else {"code": loop.error[0], "message": loop.error[1]}
        status = (  # loop.error is the run's own: reset when a run starts
            "awaiting_approval"
            if loop.phase == "approval"
            else "completed"
            if error is None
            else "aborted"
            if error["code"] == "ABORTED"
            else "failed"
        )
        return {
            "agent_id": self.agent_id,
            "status": status,
            "seq": self.seq,
            "text": "" if reply is None else reply.text,
            "error": error,
        }
