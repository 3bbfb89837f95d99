"""The runs API of ``Agent``, mixed into it: start a run and wait for it (``prompt``,
``run``, ``stream``, ``continue_``), decide what a paused run waits for (``approve``,
``reject``, ``answer_elicitation``), and steer the active one (``steer``, ``follow_up``,
``abort``, ``reset``). Each feeds one command through ``RunFold``; the agent decides
nothing here (a command the processor rejects raises there)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

import attrs

from .._core.errors import AgentError
from .._loop.conversation import AgentSnapshot, run_error
from .._loop.events import (
    AgentAbort,
    AgentContinue,
    AgentFollowUp,
    AgentPrompt,
    AgentReset,
    AgentSteer,
    ElicitationAction,
    ElicitationAnswer,
    ToolApproval,
    ToolExecutionStart,
)
from .output_stream import OutputStream, build_output
from .run_fold import RunFold
from .run_result import AgentResult, run_callbacks
from .run_stream import RunStream
from .subscriptions import Handler, Unsubscribe

__all__ = ["RunsAPI"]


class RunsAPI(RunFold):
    """The runs API, over the fold (``RunFold``) and the members ``Agent`` defines."""

    if TYPE_CHECKING:

        def subscribe(
            self,
            target: Handler | str | Iterable[str] | Mapping[str, Handler],
            handler: Handler | None = None,
        ) -> Unsubscribe: ...
        @property
        def state(self) -> AgentSnapshot: ...

    async def prompt(
        self,
        message: str | Any | Sequence[Any],
        *,
        deps: Any = None,
        skip_memory_save: bool = False,
        **limits: Any,
    ) -> None:
        """Start a run with ``message`` and wait until it ends or pauses for approval.

        ``deps`` replaces the agent's ``deps`` as what this run's tools get in
        ``ToolContext.deps``. ``skip_memory_save``: once the run ends, a journaled
        ``run_forgotten`` input drops its exchange from the history (docs/sessions.md).
        Run errors do not raise here: they are in ``state.error``. Raises
        ``AgentBusyError`` while a run is active (steer or follow up instead); waits for an
        aborted run to wind down first. Cancelling the caller aborts the run and returns
        once the agent is idle.
        """
        command = AgentPrompt(
            self._messages(message), **self._limits(limits), timestamp=self._clock()
        )
        try:
            await self._run(command, deps, skip_memory_save)
        finally:
            self._end_unsaved()

    async def continue_(self, *, deps: Any = None, **limits: Any) -> None:
        """Run again from the history as it is (after an error, an abort, or with a
        queued message). A reply an error or abort cut off is dropped first, so the model
        answers again. Raises ``ProtocolError`` when there is nothing to continue."""
        await self._run(AgentContinue(**self._limits(limits)), deps)

    async def run(
        self,
        prompt: str | Any,
        *,
        output_type: Any = None,
        output_mode: str = "auto",
        output_retries: int = 1,
        on_token: Callable[[str], None] | None = None,
        on_tool_call: Callable[[ToolExecutionStart], None] | None = None,
        on_tool_result: Callable[[Any], None] | None = None,
        on_complete: Callable[[AgentResult[Any]], None] | None = None,
        on_error: Callable[[AgentError], None] | None = None,
        deps: Any = None,
        skip_memory_save: bool = False,
        **limits: Any,
    ) -> AgentResult[Any]:
        """Prompt, wait, and return an ``AgentResult``; raises the run's ``AgentError``
        (after calling ``on_error``) when it ended with an error or was aborted.
        ``skip_memory_save`` as for ``prompt``.

        With ``output_type`` (a JSON Schema dict, dataclass, attrs class, TypedDict or
        pydantic model) the answer must match it: ``output`` is the typed answer, and a
        run whose answers fail ``output_retries + 1`` times raises ``OutputParseError``.
        ``output_mode`` is ``auto`` (the driver's best), ``native``, ``tool`` or
        ``prompted``: see docs/structured-output.md."""

        answers: list[Any] = []
        spec, build = self._output(output_type, output_mode, output_retries)
        self._performer.build_output = build
        command = AgentPrompt(
            self._messages(prompt), **self._limits(limits), output=spec, timestamp=self._clock()
        )
        unsubscribe = None  # a relay only for a run that listens: typed answer or callbacks
        if spec is not None or on_token or on_tool_call or on_tool_result:
            relay = run_callbacks(answers, on_token, on_tool_call, on_tool_result)
            unsubscribe = self.subscribe(relay)
        try:
            _, result = await self._run(command, deps, skip_memory_save)
            error = run_error(self._shell.state.loop)
        finally:
            if unsubscribe is not None:
                unsubscribe()
            self._end_unsaved()
        if error is not None:
            if on_error is not None:
                on_error(error)
            raise error
        if spec is not None and build is not None:  # no answer while paused for approval
            typed = build_output(build, answers[-1]) if answers else None
            result = attrs.evolve(result, output=typed)
        if on_complete is not None:
            on_complete(result)
        return result

    @overload
    def stream(
        self, prompt: str | Any, *, output_type: None = None, **limits: Any
    ) -> RunStream: ...

    @overload
    def stream(
        self,
        prompt: str | Any,
        *,
        output_type: Any,
        output_mode: str = "auto",
        output_retries: int = 1,
        **limits: Any,
    ) -> OutputStream: ...

    def stream(
        self,
        prompt: str | Any,
        *,
        output_type: Any = None,
        output_mode: str = "auto",
        output_retries: int = 1,
        **limits: Any,
    ) -> RunStream | OutputStream:
        """The events of a run started with ``prompt``, ending with ``agent_end`` (or
        ``tool_approval_required`` / ``elicitation_request`` when it pauses). Leaving the
        loop early aborts the run.

        With ``output_type`` (see ``run``): an ``OutputStream`` of the answer parsed so
        far, each partial a JSON value that shows more than the one before, the last the
        validated answer; its ``output`` is then the typed answer."""
        spec, build = self._output(output_type, output_mode, output_retries)
        self._performer.build_output = build
        if spec is None:
            return RunStream(lambda: self.prompt(prompt, **limits), self.subscribe, self.abort)
        assert build is not None

        async def start() -> None:
            await self._run(
                AgentPrompt(self._messages(prompt), **self._limits(limits), output=spec)
            )

        events = RunStream(start, self.subscribe, self.abort)
        return OutputStream(events, spec, build, lambda: self.state.error)

    async def approve(self, tool_call_id: str) -> None:
        """Approve a pending call; once every pending call is decided the run resumes.
        Raises ``ProtocolError`` for an id that awaits no decision."""
        try:
            await self._run(ToolApproval(tool_call_id, True))
        finally:
            self._end_unsaved()

    async def reject(self, tool_call_id: str, reason: str | None = None) -> None:
        """Reject a pending call: the model gets an error result saying so (and why)."""
        try:
            await self._run(ToolApproval(tool_call_id, False, reason))
        finally:
            self._end_unsaved()

    async def answer_elicitation(
        self,
        elicitation_id: str,
        action: ElicitationAction = "accept",
        content: Mapping[str, Any] | None = None,
    ) -> None:
        """Answer a question a running tool asked (``state.pending_elicitations``):
        ``accept`` with ``content`` (the form's fields), ``decline`` or ``cancel``; once
        none waits the run goes on, and this returns when it ends or pauses again.
        Raises ``ProtocolError`` for an id nothing waits for, or content that does not
        fit the form (naming what is wrong); ``InvalidEventError`` for an unknown action."""
        await self._run(ElicitationAnswer(action, content, elicitation_id))

    async def wait(self) -> None:
        """Return once no run is active (at once when idle or paused for approval)."""
        while self._running():
            await self._wait_stretch()

    def steer(self, message: str | Any) -> None:
        """Queue a message for before the next model call (not-started tools per policy)."""
        self._command(AgentSteer(self._message(message)))

    def follow_up(self, message: str | Any) -> None:
        """Queue a message for when the agent would otherwise stop."""
        self._command(AgentFollowUp(self._message(message)))

    def abort(self, reason: str = "user") -> None:
        """Abort the active run (idempotent; a no-op when idle). The run ends with
        ``ABORTED``; partial output is kept and every tool call gets a result. Alias:
        ``interrupt``; queued ``receive`` messages still run afterwards."""
        if self._shell.state.loop.phase != "idle":
            self._shell.feed(AgentAbort(reason))

    def reset(self) -> None:
        """Forget the history and queues (raises ``AgentBusyError`` during a run)."""
        self._command(AgentReset(timestamp=self._clock()))
