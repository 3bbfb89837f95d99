"""What the coding agent's terminal shows, as a pure fold over the agent's outputs.

``present(view, output)`` returns the lines to print for one output and the new view:
streamed text is printed a line at a time as each line completes (the unfinished line
is ``view.partial``, shown live below the transcript), thinking is dimmed, each tool call
is one line (``● bash  $ pytest -q``), shown live while it runs and printed with a
compact result under it when it ends (``⎿`` and the last lines of a command's output,
the diff of an edit, a count for a search; ``⛔`` and why for a call an extension
blocked, such as the bash guard). What a sub-agent (the ``task`` tool's explorer) does
is ``view.child``, shown live, and its tokens count in ``view.usage``. ``history`` gives
the same lines for a conversation read back from its journal. A ``Line`` is a tuple of
``(text, style)`` segments with ``rich`` style names; the terminal renders them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ..._core.content import (
    Content,
    TextContent,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Usage,
)
from ..._core.errors import LimitExceededError, error_from_code
from ..._core.events import (
    AssistantMessage,
    ErrorMessage,
    MessageStop,
    TextDelta,
    ThinkingDelta,
    ToolResultMessage,
    UserMessage,
)
from ..._loop.events import AgentEnd, ModelCallRetry, ToolExecutionEnd, ToolExecutionStart
from ..._loop.lineage import SubagentEvent, TreeUsage, subagent_details
from ..._loop.policy import LIMIT_HINT

__all__ = [
    "Line",
    "View",
    "call_line",
    "call_summary",
    "history",
    "present",
    "result_lines",
    "text_lines",
]

Segment = tuple[str, str]
Line = tuple[Segment, ...]

USER = "bold"
THINKING = "dim italic"
TOOL = "bold cyan"
DIM = "dim"
ERROR = "red"
ADDED = "green"
REMOVED = "red"
NOTE = "yellow"

RESULT_LINES = 6
"""At most this many lines of a tool's result (the end of a command's output)."""
DIFF_LINES = 24
SUMMARY_CHARS = 100


class View(NamedTuple):
    """The block being streamed (``(kind, index)``), its unfinished line, the tokens the
    session's model calls used (its sub-agents' included), the calls running (id and
    line, shown live until their result is printed under their line), and the call a
    sub-agent runs now (``"Explorer: grep 'x'"``, or "")."""

    block: tuple[str, int] | None = None
    partial: str = ""
    usage: Usage = Usage()
    running: tuple[tuple[str, Line], ...] = ()
    child: str = ""


def text_lines(text: str, style: str = "", first: str = "", rest: str = "") -> list[Line]:
    """``text`` as lines in ``style``, the first prefixed by ``first``, the others by ``rest``."""
    return [
        ((first if i == 0 else rest, style), (line, style)) if (first or rest) else ((line, style),)
        for i, line in enumerate(text.split("\n"))
    ]


def _content_text(content: Content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(
        p.text if isinstance(p, TextContent) else f"[{p.media_type} image]" for p in content
    )


def _cut(text: str, limit: int = SUMMARY_CHARS) -> str:
    line, _, more = text.partition("\n")
    if len(line) > limit or more:
        return line[: limit - 1] + "…"
    return line


def call_summary(name: str, args: Mapping[str, Any]) -> str:
    """One short line saying what a call does: ``$ pytest -q``, ``calc.py:10``..."""
    path = str(args.get("path") or "")
    if name == "bash":
        return "$ " + _cut(str(args.get("command", "")))
    if name == "read":
        offset, limit = args.get("offset"), args.get("limit")
        where = f":{offset}" if offset else ""
        where += f" (+{limit})" if limit else ""
        return _cut(path + where)
    if name == "write":
        lines = str(args.get("content", "")).count("\n")
        return _cut(f"{path} ({lines} lines)")
    if name in ("edit", "ls"):
        return _cut(path or ".")
    if name in ("grep", "find"):
        scope = " ".join(str(args[k]) for k in ("path", "glob") if args.get(k))
        return _cut(f"{args.get('pattern', '')!r} {scope}".rstrip())
    if name == "todo_write":
        return f"{len(args.get('todos') or ())} items"
    if name == "webfetch":
        return _cut(str(args.get("url", "")))
    if name == "websearch":
        return _cut(repr(str(args.get("query", ""))))
    if name == "task":
        return _cut(f"{args.get('subagent_type', '')}: {args.get('description', '')}")
    return _cut(json.dumps(dict(args), ensure_ascii=False, sort_keys=True)) if args else ""


def call_line(name: str, args: Any) -> Line:
    """The line announcing a tool call."""
    summary = call_summary(name, args) if isinstance(args, Mapping) else _cut(str(args))
    return (("● ", TOOL), (name, TOOL), ("  " + summary, ""))


def _indented(lines: Sequence[str], style: str) -> list[Line]:
    return [(("  ⎿ " if i == 0 else "    ", DIM), (line, style)) for i, line in enumerate(lines)]


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def _diff_lines(diff: str) -> list[Line]:
    """An edit's unified diff as numbered, coloured lines (headers dropped)."""
    lines: list[Line] = []
    old = new = 0
    for raw in diff.split("\n"):
        hunk = _HUNK.match(raw)
        if hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
            if lines:
                lines.append((("    ⋮", DIM),))
            continue
        if raw.startswith(("---", "+++")) or not raw:
            continue
        mark, body = raw[0], raw[1:]
        if mark == "-":
            lines.append(((f"{old:>5} - ", REMOVED), (body, REMOVED)))
            old += 1
        elif mark == "+":
            lines.append(((f"{new:>5} + ", ADDED), (body, ADDED)))
            new += 1
        else:
            lines.append(((f"{new:>5}   ", DIM), (body, DIM)))
            old, new = old + 1, new + 1
    if len(lines) > DIFF_LINES:
        more = len(lines) - DIFF_LINES
        lines = [*lines[:DIFF_LINES], (("    … ", DIM), (f"{more} more lines", DIM))]
    return lines


def _tail(text: str, count: int = RESULT_LINES) -> list[str]:
    """The last ``count`` lines that are not blank (a command's output ends with its
    errors and its exit code, not with blank lines)."""
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) <= count:
        return lines
    return [f"… {len(lines) - count} lines above", *lines[-count:]]


def _head(text: str, count: int = RESULT_LINES) -> list[str]:
    lines = text.rstrip("\n").split("\n")
    if len(lines) <= count:
        return lines
    return [*lines[:count], f"… {len(lines) - count} more lines"]


_TODO_MARKS = {"completed": "☑ ", "in_progress": "◐ ", "cancelled": "☒ "}


def result_lines(message: ToolResultMessage) -> list[Line]:
    """A tool result in a few lines: what changed or what came back, errors in red."""
    text = _content_text(message.result)
    details = message.details if isinstance(message.details, Mapping) else {}
    name = message.tool_name
    if details.get("blocked"):  # an extension's verdict (the bash guard): its first sentence
        return _indented([f"⛔ {text.partition('. ')[0]}"], NOTE)
    if message.is_error:
        return _indented(_tail(text) if name == "bash" else _head(text, 3), ERROR)
    if name == "edit" and isinstance(details.get("diff"), str):
        return [*_indented([text.partition("\n")[0]], DIM), *_diff_lines(details["diff"])]
    if name == "read" and "total_lines" in details:
        shown = len(text.split("\n"))
        total = details["total_lines"]
        return _indented([f"{total} lines" if shown >= total else f"{shown} of {total} lines"], DIM)
    if name == "bash":
        return _indented(_tail(text) if text.strip() else ["(no output)"], DIM)
    if name.startswith("todo") and isinstance(details.get("todos"), list):
        todos = [
            _TODO_MARKS.get(str(t.get("status")), "☐ ") + str(t.get("content", ""))
            for t in details["todos"]
            if isinstance(t, Mapping)
        ]
        return _indented(todos or ["(no todos)"], DIM)
    if name == "task":  # the sub-agent's answer, without the note of its task id
        answer = text.rpartition("\n\n(task_id: ")[0] or text
        return _indented(_head(answer, 3), DIM)
    if name in ("write", "webfetch"):
        return _indented(_head(text, 1), DIM)
    return _indented(_head(text), DIM)


def _user_lines(message: UserMessage) -> list[Line]:
    return [((" ", ""),), *text_lines(_content_text(message.content), USER, "> ", "  ")]


def _flush(view: View) -> tuple[View, list[Line]]:
    """End the block being streamed: its unfinished line is printed."""
    if view.block is None:
        return view, []
    style = THINKING if view.block[0] == "thinking" else ""
    lines: list[Line] = [((view.partial, style),)] if view.partial else []
    return view._replace(block=None, partial=""), lines


def _delta(view: View, delta: TextDelta | ThinkingDelta) -> tuple[View, list[Line]]:
    thinking = type(delta) is ThinkingDelta
    block = ("thinking" if thinking else "text", delta.index)
    lines: list[Line] = []
    if view.block != block:
        view, lines = _flush(view)
        view = view._replace(block=block)
    if "\n" not in delta.text:
        return view._replace(partial=view.partial + delta.text), lines
    style = THINKING if thinking else ""
    *done, partial = (view.partial + delta.text).split("\n")
    return view._replace(partial=partial), [*lines, *(((line, style),) for line in done)]


def _result(view: View, call_id: str, result: ToolResultMessage) -> tuple[View, list[Line]]:
    """A finished call: its line, then its result (calls run in parallel end in any
    order, and each result sits under its own call)."""
    line = next((line for id_, line in view.running if id_ == call_id), None)
    running = tuple(r for r in view.running if r[0] != call_id)
    header = [line] if line is not None else [call_line(result.tool_name, {})]
    view = view._replace(running=running, usage=view.usage + _spawned(result), child="")
    return view, [*header, *result_lines(result)]


def _spawned(result: ToolResultMessage) -> Usage:
    """The tokens a spawn's sub-agents used (none for another tool's result)."""
    found = subagent_details(result.details)
    return TreeUsage.from_wire(found).usage if found is not None else Usage()


def _child(view: View, tagged: SubagentEvent) -> View:
    """A sub-agent's call starting is what it does now; its run ending clears it."""
    event = tagged.event
    if type(event) is ToolExecutionStart:
        name = tagged.lineage.name or tagged.lineage.agent_type
        return view._replace(
            child=f"{name}: {event.tool_name} {call_summary(event.tool_name, event.args)}"
        )
    return view._replace(child="") if type(event) is AgentEnd else view


def present(view: View, output: Any) -> tuple[View, list[Line]]:
    """The lines ``output`` adds to the transcript, and the new view (pure)."""
    kind = type(output)
    if kind is TextDelta or kind is ThinkingDelta:
        return _delta(view, output)
    if kind is MessageStop:
        return _flush(view)
    if kind is AssistantMessage:
        view, lines = _flush(view)
        return view._replace(usage=view.usage + output.usage), lines
    if kind is UserMessage:
        view, lines = _flush(view)
        return view, [*lines, *_user_lines(output)]
    if kind is ToolExecutionStart:
        view, lines = _flush(view)
        running = (*view.running, (output.tool_call_id, call_line(output.tool_name, output.args)))
        return view._replace(running=running), lines
    if kind is ToolExecutionEnd and isinstance(output.result, ToolResultMessage):
        return _result(view, output.tool_call_id, output.result)
    if kind is ErrorMessage:
        view, lines = _flush(view)
        return view, [*lines, *text_lines(output.message, ERROR, f"✗ {output.code}: ", "  ")]
    if kind is AgentEnd and output.reason == "aborted":
        view, lines = _flush(view)
        return view, [*lines, (("⏹ interrupted", NOTE),)]
    if kind is AgentEnd and output.code is not None and _limit(output.code):
        view, lines = _flush(view)
        return view, [*lines, *_stopped(output.code, output.message or "")]
    if kind is SubagentEvent:
        return _child(view, output), []
    if kind is ModelCallRetry:
        note = f"↻ {output.code}: retrying (attempt {output.attempt}) in {output.delay_ms} ms"
        return view, [((note, DIM),)]
    return view, []


def _limit(code: str) -> bool:
    return isinstance(error_from_code("", code), LimitExceededError)


def _stopped(code: str, message: str) -> list[Line]:
    """A run stopped at a limit: which, and how to go on in this app."""
    why = message.removesuffix(f"; {LIMIT_HINT}")
    raise_it = " (--max-iterations raises the limit)" if code == "MAX_ITERATIONS_EXCEEDED" else ""
    return [
        ((f"⏹ stopped: {why}", NOTE),),
        ((f"  /continue goes on from here{raise_it}; a new request starts over", DIM),),
    ]


def history(messages: Iterable[Any]) -> tuple[list[Line], Usage]:
    """A conversation read back (from a journal) as the lines ``present`` would have
    printed, and the tokens its model calls used."""
    lines: list[Line] = []
    usage = Usage()
    calls: dict[str, ToolCallPart] = {}
    for message in messages:
        if isinstance(message, UserMessage):
            lines += _user_lines(message)
        elif isinstance(message, AssistantMessage):
            usage += message.usage
            for part in message.parts:
                if isinstance(part, TextPart | ThinkingPart) and part.text:
                    style = THINKING if isinstance(part, ThinkingPart) else ""
                    streamed = part.text.split("\n")
                    if not streamed[-1]:  # as streamed: a last empty line is not printed
                        streamed.pop()
                    lines += [((line, style),) for line in streamed]
                elif isinstance(part, ToolCallPart):
                    calls[part.tool_call_id] = part
            if message.incomplete:
                lines.append((("⏹ interrupted", NOTE),))
        elif isinstance(message, ToolResultMessage):
            usage += _spawned(message)
            call = calls.get(message.tool_call_id)
            lines.append(call_line(message.tool_name, call.input if call else {}))
            lines += result_lines(message)
    return lines, usage
