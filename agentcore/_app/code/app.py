"""The coding agent's controller: prompts, steering, approvals, commands, interrupts.

``CodeApp`` sits between a front end (the terminal of ``terminal.py``, or plain lines
when input is not a terminal) and an ``Agent``. The front end calls ``submit(text)`` for
each line typed, ``interrupt()`` for Ctrl-C, ``answer(choice)`` when a question is open,
``quit()``; it shows ``screen.print``-ed lines as the transcript and redraws the live
part (``status()``) when ``screen.changed()`` is called.

A line typed while the agent works steers it (delivered before its next model call). A
call needing approval is asked about (``asking``) unless ``approval_reason`` lets it
through (``guard``: the bash guard is on and blocks what it flags, unasked); ``a``
approves it and every later call of that tool. The first Ctrl-C aborts
the run (or a question); a second one in a row quits.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

import attrs

from ..._core.content import TextContent, ToolCallPart, Usage
from ..._core.errors import AgentError
from ..._core.pricing import cost_of
from ..._core.secrets import scrub
from ..._runtime.agent import Agent
from .sessions import Session, SessionStore
from .setup import APPROVAL_MODES, ApprovalMode, approval_reason, close_agent
from .view import DIM, ERROR, NOTE, Line, View, call_line, history, present, text_lines

__all__ = ["HELP", "Ask", "CodeApp", "Screen"]

HELP = (
    "Type a request and press Enter; type again while the agent works to steer it.\n"
    "Alt-Enter: new line · ↑/↓: history · Ctrl-C: interrupt (twice: quit) · Ctrl-D: quit\n"
    "/help  this help          /cost     tokens and cost of the session\n"
    "/clear clear the screen   /reset    forget the conversation\n"
    "/continue  go on with a run stopped at a limit (or after an error)\n"
    "/model [provider/model]   show or switch the model\n"
    "/approval [destructive|all|none]    which calls need your approval\n"
    "/session  the session and how to resume it      /quit  leave"
)


class Screen(Protocol):
    """What the app needs from a front end."""

    def print(self, lines: Sequence[Line]) -> None: ...

    def changed(self) -> None: ...

    def clear(self) -> None: ...


@attrs.frozen(slots=True)
class Ask:
    """A call waiting for the user's decision, and why."""

    call: ToolCallPart
    reason: str
    answer: asyncio.Future[str | None] = attrs.field(eq=False)


ResumeAgent = Callable[[str], Awaitable[Agent]]
"""Rebuilds the agent from the session's journal with another model (``/model``)."""


class CodeApp:
    """See the module docstring. ``agent`` is attached with ``attach`` once built (the
    app is its presenter, so it exists first)."""

    def __init__(
        self,
        screen: Screen,
        session: Session,
        store: SessionStore,
        *,
        approval: ApprovalMode = "destructive",
        guard: bool = True,
        switch_model: ResumeAgent | None = None,
    ) -> None:
        self.screen = screen
        self.session = session
        self.store = store
        self.approval: ApprovalMode = approval
        self.guard = guard
        self.agent: Agent | None = None
        self.view = View()
        self.asking: Ask | None = None
        self.always: set[str] = set()
        self.armed = False
        self.finished = asyncio.Event()
        self._switch_model = switch_model
        self._task: asyncio.Task[None] | None = None
        self._held: list[Any] | None = []

    # -- the agent's presenter ------------------------------------------------------------

    def present(self, agent_id: str, output: Any) -> None:
        """Fold an agent output into the view and print what it adds (held until the
        history of a resumed session is shown)."""
        if self._held is not None:
            self._held.append(output)
            return
        self.view, lines = present(self.view, output)
        if lines:
            self.screen.print(lines)
        self.screen.changed()

    def attach(self, agent: Agent, *, resumed: bool) -> None:
        """Show the history of a resumed session, then what the agent has done since;
        go on with a run that was active or waiting for approval when it stopped."""
        self.agent = agent
        if resumed:
            lines, usage = history(agent.state.messages)
            self.view = self.view._replace(usage=usage)
            self.screen.print(lines)
            note = f"(resumed session {self.session.info.id})"
            self.screen.print([((note, DIM),)])
        held, self._held = self._held or [], None
        for output in held:
            self.present(agent.agent_id, output)
        state = agent.state
        if state.is_streaming or state.pending_approvals:
            self._start(agent.wait())

    # -- what the front end calls ---------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def submit(self, text: str) -> None:
        """A line typed: a command, a prompt, or (while the agent works) a steer."""
        self.armed = False
        text = text.strip()
        if not text:
            return
        if text.startswith("/"):
            self._command(text)
        elif self.running:
            self._agent.steer(text)
        else:
            self._title(text)
            self._start(self._agent.prompt(text))
        self.screen.changed()

    def answer(self, choice: str | None) -> None:
        """The user's decision on the open question: ``y``, ``n``, ``a`` (always this
        tool), or ``None`` (abort the run)."""
        ask = self.asking
        if ask is not None and not ask.answer.done():
            ask.answer.set_result(choice)

    def interrupt(self) -> None:
        """Ctrl-C: abort the run or the question; a second one in a row quits."""
        if self.asking is not None:
            self.answer(None)
        elif self.running:
            self._agent.abort("interrupted by the user")
        elif self.armed:
            self.quit()
            return
        self.armed = True
        self.screen.changed()

    def disarm(self) -> None:
        """Any key but Ctrl-C: a later Ctrl-C starts over."""
        if self.armed:
            self.armed = False
            self.screen.changed()

    def quit(self) -> None:
        self.finished.set()

    async def close(self) -> None:
        """Abort what runs, wait for it to wind down, close the agent (its journal is
        synced); the session can be resumed."""
        self.answer(None)
        agent = self.agent
        if agent is not None:
            agent.abort("the app was closed")
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._task), 5)
        if agent is not None:
            await close_agent(agent)

    # -- the live part --------------------------------------------------------------------

    def status(self) -> tuple[str, str]:
        """``(activity, footer)``: what the agent is doing, and model · tokens · cost."""
        agent = self._agent
        state = agent.state
        if self.asking is not None:
            activity = "waiting for your decision"
        elif self.running:
            names = sorted({c.tool_name for c in state.pending_tool_calls})
            activity = f"running {', '.join(names)}" if names else str(state.activity.value)
            activity = activity.replace("_", " ")
            if self.view.child:  # what the sub-agent of a task call does now
                activity += f" · {self.view.child}"
        else:
            activity = ""
        return activity, " · ".join([self.session.info.model, self.usage_text()])

    def usage_text(self) -> str:
        usage: Usage = self.view.usage
        text = f"{usage.input_tokens:,} in / {usage.output_tokens:,} out"
        price = self._agent.config.price
        return text + (" · cost unknown" if price is None else f" · ${cost_of(usage, price):.4f}")

    def queued(self) -> list[str]:
        """Messages typed while the agent works, not delivered yet."""
        return [_text(m) for m in self._agent.state.steering]

    # -- runs -----------------------------------------------------------------------------

    @property
    def _agent(self) -> Agent:
        if self.agent is None:
            raise RuntimeError("CodeApp.attach(agent) first")
        return self.agent

    def _start(self, first: Awaitable[None]) -> None:
        self._task = asyncio.create_task(self._drive(first))
        self._task.add_done_callback(lambda _: self.screen.changed())

    async def _drive(self, first: Awaitable[None]) -> None:
        """Run until the agent is idle: answer each pause for approval, asking the user
        about the calls ``approval_reason`` does not let through."""
        agent = self._agent
        try:
            await first
            while agent.state.pending_approvals:
                for call in agent.state.pending_approvals:
                    choice = await self._decide(call)
                    if choice is None:
                        agent.abort("interrupted by the user")
                        return
                    if choice == "n":
                        await agent.reject(call.tool_call_id, "the user said no.")
                    else:
                        await agent.approve(call.tool_call_id)
        except AgentError as exc:  # a rejected command: say why, stay usable
            self.screen.print(text_lines(str(exc), ERROR, "✗ "))
        finally:
            self.asking = None

    async def _decide(self, call: ToolCallPart) -> str | None:
        reason = approval_reason(self.approval, call, guarded=self.guard)
        if reason is None or call.tool_name in self.always:
            return "y"
        answer: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self.asking = Ask(call, reason, answer)
        self.screen.changed()
        try:
            choice = await answer
        finally:
            self.asking = None
        if choice == "a":
            self.always.add(call.tool_name)
        verdict = {"y": "approved", "a": f"approved (and every {call.tool_name} call)"}
        note = verdict.get(choice or "", "rejected" if choice == "n" else "aborted")
        self.screen.print([(*call_line(call.tool_name, call.input), (f"  [{note}]", NOTE))])
        return choice

    def _title(self, text: str) -> None:
        info = self.session.info
        if not info.title:  # scrubbed as the journal is: a key pasted in stays out
            info = attrs.evolve(info, title=scrub(text.split("\n")[0])[:80])
            self.session = attrs.evolve(self.session, info=info)
            self.store.update(info)

    # -- commands -------------------------------------------------------------------------

    def _command(self, line: str) -> None:
        name, _, arg = line.partition(" ")
        arg = arg.strip()
        if name in ("/quit", "/exit"):
            self.quit()
        elif name == "/help":
            self._say(HELP)
        elif name == "/clear":
            self.screen.clear()
        elif name == "/cost":
            self._say(f"session {self.session.info.id}: {self.usage_text()}")
        elif name == "/session":
            info, log = self.session.info, self.session.log
            self._say(
                f"session {info.id} in {info.cwd} ({info.model})\n"
                + (f"tool calls logged to {log}\n" if log is not None else "")
                + f"resume it with: agentcore code --session {info.id}"
            )
        elif name == "/approval":
            if arg in APPROVAL_MODES:
                self.approval = arg
                self.always.clear()
            elif arg:
                self._say(f"unknown approval mode {arg!r}; one of {', '.join(APPROVAL_MODES)}")
                return
            self._say(f"approval: {self.approval}")
        elif self.running and name in ("/reset", "/model", "/continue"):
            self._say(f"{name} waits until the agent is idle (Ctrl-C interrupts it)")
        elif name == "/continue":
            self._start(self._agent.continue_())
        elif name == "/reset":
            self._agent.reset()
            self._say("(conversation forgotten; the session's journal keeps it)")
        elif name == "/model":
            if not arg:
                self._say(f"model: {self.session.info.model}")
            elif self._switch_model is not None:
                self._task = asyncio.create_task(self._switch(arg))
        else:
            self._say(f"unknown command {name}; /help lists them")

    async def _switch(self, model: str) -> None:
        assert self._switch_model is not None
        try:
            self.agent = await self._switch_model(model)
        except AgentError as exc:
            self.screen.print(text_lines(str(exc), ERROR, "✗ "))
            return
        info = attrs.evolve(self.session.info, model=model)
        self.session = attrs.evolve(self.session, info=info)
        self.store.update(info)
        self._say(f"model: {model}")

    def _say(self, text: str) -> None:
        self.screen.print(text_lines(text, DIM))


def _text(message: Any) -> str:
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    return " ".join(p.text for p in content if isinstance(p, TextContent))
