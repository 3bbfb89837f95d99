"""A terminal view of conversations, built on ``rich`` (the ``console`` extra).

What it shows, per output:

- ``user_message``: the user's text after ``>`` (unless ``show_user=False``);
- ``thinking_delta`` / ``text_delta``: streamed as they arrive, thinking dimmed (hidden
  with ``show_thinking=False``); each delta prints only itself, never the whole message;
- ``tool_call_message``: a panel with the tool's name and its arguments as JSON;
- ``tool_result_message``: a panel with the result, red and titled ``error`` on failure;
- ``error_message``: a red panel with the code and message;
- ``conversation_interrupted``: a yellow note;
- ``cache_bust``: a dim yellow note saying why the provider's prompt cache was missed;
- ``provider_part``: a dim cyan line for what a provider-side tool did (its call and
  input, its result, a cited source);
- ``agent_end`` of a run stopped by a limit (iterations, tokens, cost, time): a yellow
  note saying which, and how to go on;
- ``turn_response``: a footer with tokens (in/out, cache), cost or "cost unknown", duration.

A spinner runs while the model is awaited (from the user message or ``message_start`` to
the first delta) and while tools run (``tool_executing`` to their ``tool_completed`` /
``tool_failed``); it is stopped before anything prints, so it never garbles text. It only
runs on a terminal console. Every other output (the raw ``tool_result``, state events,
later layers) is ignored. ``encode`` is the pure part: (view, output) -> (view, ops);
``ConsolePresenter`` applies the ops to a ``rich.console.Console``.
"""

from __future__ import annotations

import json
from typing import Any, TypeAlias

import attrs

try:
    from rich.console import Console, RenderableType
    from rich.json import JSON
    from rich.panel import Panel
    from rich.status import Status
    from rich.text import Text
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "agentcore.presenters.console needs rich; install it with: "
        "pip install 'agentcore-engine[console]'"
    ) from exc

from agentcore.errors import LimitExceededError, error_from_code
from agentcore.events import (
    Content,
    ConversationEnd,
    ConversationInterrupted,
    ErrorMessage,
    MessageStart,
    MessageStop,
    RateLimited,
    TextDelta,
    ThinkingDelta,
    ToolCallMessage,
    ToolCompleted,
    ToolExecuting,
    ToolFailed,
    ToolResultMessage,
    ToolUseStart,
    TurnResponse,
    Usage,
    UserMessage,
    describe_part,
)
from agentcore.loop import AgentEnd, CacheBust
from agentcore.provider_tools import (
    CitationPart,
    ProviderPart,
    ProviderPartEvent,
    ServerToolCallPart,
)

__all__ = [
    "Block",
    "ConsolePresenter",
    "EndLine",
    "Op",
    "Options",
    "Spin",
    "Stream",
    "View",
    "cache_bust_note",
    "encode",
    "footer",
    "provider_part_note",
]

THINKING_STYLE = "dim italic"


# -- the pure part ---------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Stream:
    """Append streamed text; ``new_block`` starts it on a fresh line."""

    text: str
    style: str
    new_block: bool


@attrs.frozen(slots=True)
class Block:
    """Print a whole renderable on its own lines."""

    renderable: RenderableType


@attrs.frozen(slots=True)
class Spin:
    """Show the spinner with ``message``, or stop it when ``message`` is None."""

    message: str | None


@attrs.frozen(slots=True)
class EndLine:
    """End the current streamed line, if one is open."""


Op: TypeAlias = Stream | Block | Spin | EndLine


@attrs.frozen(slots=True)
class Options:
    """What the view shows; ``max_result_chars`` truncates long tool results."""

    show_thinking: bool = True
    show_user: bool = True
    max_result_chars: int = 2000


@attrs.frozen(slots=True)
class View:
    """Per-agent view state: the block being streamed and the tools running."""

    block: tuple[str, int] | None = None
    running: tuple[tuple[str, str], ...] = ()


EMPTY = View()
DEFAULT_OPTIONS = Options()


_ESCAPES = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0)) if c not in (0x09, 0x0A)}


def safe(text: str) -> str:
    """``text`` with every control character but tab and newline shown escaped
    (``\\x1b``): model text, tool output or a model name can never move the cursor,
    clear the screen or retitle the terminal."""
    return text.translate(_ESCAPES)


def _safe_values(value: Any) -> Any:
    """``safe`` applied to every string (keys too) of a JSON value: rich renders the
    decoded JSON, so escapes in its source would come back as raw characters."""
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, dict):
        return {safe(str(k)): _safe_values(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_safe_values(v) for v in value]
    return value


def encode(view: View, output: Any, options: Options = DEFAULT_OPTIONS) -> tuple[View, list[Op]]:
    """What to display for ``output`` given the agent's ``view``; pure, no I/O."""
    if isinstance(output, TextDelta | ThinkingDelta):
        return _delta(view, output, options)
    if isinstance(output, UserMessage):
        ops: list[Op] = [Spin("waiting for the model")]
        if options.show_user:
            ops.insert(0, Block(Text("> " + safe(_content_text(output.content)), style="bold")))
        return EMPTY, ops
    if isinstance(output, MessageStart):
        return attrs.evolve(view, block=None), [Spin(f"waiting for {safe(output.model)}")]
    if isinstance(output, ToolUseStart):
        return attrs.evolve(view, block=("tool", output.index)), [
            Spin(f"{safe(output.tool_name)}: reading arguments")
        ]
    if isinstance(output, MessageStop):
        return attrs.evolve(view, block=None), [Spin(None), EndLine()]
    if isinstance(output, ToolCallMessage):
        return view, [Block(_tool_call_panel(output))]
    if isinstance(output, ToolExecuting):
        return _running(view, (*view.running, (output.tool_call_id, output.tool_name)))
    if isinstance(output, ToolCompleted | ToolFailed):
        return _running(view, tuple(r for r in view.running if r[0] != output.tool_call_id))
    if isinstance(output, ToolResultMessage):
        return view, [Block(_tool_result_panel(output, options.max_result_chars))]
    if isinstance(output, ErrorMessage):
        title = f"error {safe(output.code)}" + (" (retryable)" if output.retryable else "")
        panel = Panel(Text(safe(output.message)), title=title, border_style="red", style="red")
        return view, [Block(panel)]
    if isinstance(output, AgentEnd) and _limit_stop(output):
        note = Text(f"[stopped: {safe(output.message or output.code or '')}]", style="yellow")
        return view, [Spin(None), EndLine(), Block(note)]
    if isinstance(output, ProviderPartEvent):
        return view, [EndLine(), Block(Text(provider_part_note(output.part), style="dim cyan"))]
    if isinstance(output, CacheBust):
        return view, [EndLine(), Block(Text(cache_bust_note(output), style="dim yellow"))]
    if isinstance(output, ConversationInterrupted):
        return view, [Block(Text(f"[interrupted: {safe(output.reason)}]", style="yellow"))]
    if isinstance(output, RateLimited):
        wait = f"{output.wait_ms / 1000:.1f}s"
        said = f"[rate limited: waiting {wait} for {safe(output.scope)} {safe(output.limit)}]"
        return view, [Block(Text(said, style="yellow")), Spin(f"rate limited ({wait})")]
    if isinstance(output, TurnResponse):
        return EMPTY, [Spin(None), Block(footer(output))]
    if isinstance(output, ConversationEnd):
        return EMPTY, [Spin(None), EndLine()]
    return view, []


_BUST_REASONS = {
    "compaction": "the context was compacted",
    "model": "the model changed",
    "thinking": "the thinking level changed",
    "tools": "the tools changed",
    "system_prompt": "the system prompt changed",
}


def provider_part_note(part: ProviderPart) -> str:
    """One line for a provider-side tool's call, result or cited source."""
    if isinstance(part, CitationPart):
        return f"[source: {safe(part.title or part.url)} {safe(part.url)}]"
    if isinstance(part, ServerToolCallPart):
        args = json.dumps(part.input, ensure_ascii=False)
        return f"[{safe(part.tool_name)} {safe(args[:200])}]"
    state = "failed" if part.is_error else "done"
    return f"[{safe(part.tool_name)} {state}]"


def cache_bust_note(bust: CacheBust) -> str:
    """``[cache bust: why]``: what made this request miss the prompt cache."""
    why = _BUST_REASONS.get(bust.reason) or (
        f"the history sent changed at message {bust.index} of {bust.previous}"
    )
    return f"[cache bust: {safe(why)}; the cached prefix cannot be read]"


def _limit_stop(end: AgentEnd) -> bool:
    """Whether the run ended at one of its limits (no error panel said so before)."""
    code = end.code
    return code is not None and isinstance(error_from_code("", code), LimitExceededError)


def _delta(view: View, delta: TextDelta | ThinkingDelta, options: Options) -> tuple[View, list[Op]]:
    thinking = isinstance(delta, ThinkingDelta)
    block = ("thinking" if thinking else "text", delta.index)
    new_block = view.block != block
    view = attrs.evolve(view, block=block) if new_block else view
    if thinking and not options.show_thinking:
        return view, [Spin("thinking")] if new_block else []
    if not delta.text:  # a signature or redacted block: nothing readable to print
        return view, []
    return view, [Stream(safe(delta.text), THINKING_STYLE if thinking else "", new_block)]


def _running(view: View, running: tuple[tuple[str, str], ...]) -> tuple[View, list[Op]]:
    names = ", ".join(safe(name) for _, name in running)
    return attrs.evolve(view, running=running), [Spin(f"running {names}" if running else None)]


def _content_text(content: Content) -> str:
    """Text as it is; each media part a one-line placeholder, never its bytes."""
    if isinstance(content, str):
        return content
    return "\n".join(describe_part(p) for p in content)


def _tool_call_panel(message: ToolCallMessage) -> Panel:
    call = message.tool_call
    body: RenderableType
    if call.input_error is not None:
        body = Text(safe(f"invalid arguments: {call.input_error}\n{call.raw_input}"), style="red")
    else:
        body = JSON(json.dumps(_safe_values(dict(call.input)), ensure_ascii=False))
    return Panel(
        body, title=f"tool call: {safe(call.tool_name)}", title_align="left", border_style="cyan"
    )


def _tool_result_panel(message: ToolResultMessage, max_chars: int) -> Panel:
    text = safe(_content_text(message.result))
    if len(text) > max_chars:
        text = f"{text[:max_chars]}... ({len(text) - max_chars} more characters)"
    if message.is_error:
        return Panel(
            Text(text, style="red"),
            title=f"error: {safe(message.tool_name)}",
            title_align="left",
            border_style="red",
        )
    return Panel(
        Text(text),
        title=f"result: {safe(message.tool_name)}",
        title_align="left",
        border_style="green",
    )


def footer(turn: TurnResponse) -> Text:
    """The turn footer: tokens in/out (and cache, reasoning), cost, duration, model."""
    usage: Usage = turn.usage
    tokens = f"tokens {usage.input_tokens:,} in / {usage.output_tokens:,} out"
    if usage.cache_read_tokens or usage.cache_write_tokens:
        tokens += f", cache {usage.cache_read_tokens:,} read / {usage.cache_write_tokens:,} write"
        if usage.cache_write_1h_tokens:
            tokens += f" ({usage.cache_write_1h_tokens:,} for 1h)"
    if usage.reasoning_tokens:
        tokens += f", {usage.reasoning_tokens:,} reasoning"
    cost = "cost unknown" if turn.cost is None else f"${turn.cost:.4f}"
    parts = [tokens, cost, f"{turn.duration_ms / 1000:.2f} s"]
    if turn.model:
        parts.append(safe(turn.model))
    return Text(" · ".join(parts), style="dim")


# -- the sink -------------------------------------------------------------------------------


class ConsolePresenter:
    """Renders outputs on a ``rich`` console (see the module docstring for what it shows).

    ``agent_prefix=True`` labels lines and blocks with ``[agent_id]`` when several agents
    share the console; a line being streamed by one agent is ended before another writes.
    ``spinner=False`` disables the spinner. ``present`` is synchronous; ``close()`` stops the
    spinner and ends any open line (idempotent; the presenter can still be used after).
    """

    def __init__(
        self,
        console: Console | None = None,
        show_thinking: bool = True,
        *,
        show_user: bool = True,
        spinner: bool = True,
        agent_prefix: bool = False,
        max_result_chars: int = 2000,
    ) -> None:
        self.console = console if console is not None else Console()
        self.options = Options(show_thinking, show_user, max_result_chars)
        self._spinner = spinner
        self._prefix = agent_prefix
        self._views: dict[str, View] = {}
        self._line: str | None = None  # the agent whose streamed line is open
        self._status: Status | None = None

    @property
    def spinning(self) -> bool:
        """Whether the spinner is currently shown."""
        return self._status is not None

    def present(self, agent_id: str, output: Any) -> None:
        view, ops = encode(self._views.get(agent_id, EMPTY), output, self.options)
        if view == EMPTY:  # forget idle agents
            self._views.pop(agent_id, None)
        else:
            self._views[agent_id] = view
        for op in ops:
            self._apply(agent_id, op)

    def close(self) -> None:
        self._spin(None)
        self._end_line()

    def _apply(self, agent_id: str, op: Op) -> None:
        if isinstance(op, Spin):
            if op.message is not None:
                self._end_line()
            self._spin(op.message if not self._prefix else f"[{agent_id}] {op.message}")
        elif isinstance(op, Stream):
            self._spin(None)
            if op.new_block or self._line != agent_id:
                self._end_line()
            self._write(agent_id, op.text, op.style)
        elif isinstance(op, Block):
            self._spin(None)
            self._end_line()
            if self._prefix:
                self.console.print(Text(f"[{agent_id}]", style="bold blue"))
            self.console.print(op.renderable)
        else:
            self._end_line()

    def _write(self, agent_id: str, text: str, style: str) -> None:
        for i, chunk in enumerate(text.split("\n")):
            if i:  # the text's own line break (a blank line if none was open)
                self.console.print()
                self._line = None
            if chunk:
                if self._line is None and self._prefix:
                    self._out(f"[{agent_id}] ", "bold blue")
                self._out(chunk, style)
                self._line = agent_id

    def _out(self, text: str, style: str) -> None:
        self.console.print(
            text, style=style or None, end="", markup=False, highlight=False, soft_wrap=True
        )

    def _end_line(self) -> None:
        if self._line is not None:
            self.console.print()
            self._line = None

    def _spin(self, message: str | None) -> None:
        if message is None or not self._spinner or not self.console.is_terminal:
            status, self._status = self._status, None
            if status is not None:
                status.stop()
        elif self._status is None:
            self._status = Status(message, console=self.console)
            self._status.start()
        else:
            self._status.update(message)
