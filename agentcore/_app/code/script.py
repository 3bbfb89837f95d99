"""A scripted model for ``agentcore code``: the offline demo, and tests of the app.

A script is JSON::

    {"delay": 0.02,
     "replies": [{"when": ["fix", "test"],
                  "steps": [{"text": "Running the tests.",
                             "tools": [{"name": "bash", "args": {"command": "make test"}}]},
                            {"text": "Done."}]}],
     "otherwise": "Try: fix the failing test."}

The model answers the latest user message of the request (a prompt or a steering
message): the first reply whose ``when`` (a string or a list of them; empty matches
anything) occurs in that message, ignoring case, and within it the step numbered by how
many assistant messages follow that user message. A step streams ``thinking`` and
``text`` and asks for its ``tools``; ``pause`` waits before the step, ``delay`` between
streamed chunks (default: the script's). With no reply left, it answers ``otherwise``.

The answer is a function of the request alone, so a conversation resumed in another
process goes on exactly as it would have: tool call ids are numbered by the assistant
messages before them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from ..._core.content import TextContent, Usage
from ..._core.driver import ModelRequest
from ..._core.errors import ConfigurationError
from ..._core.events import AssistantMessage, UserMessage

__all__ = ["DEMO_SCRIPT", "SAMPLE_PROJECT", "Script", "Step", "load_script", "script_driver"]

DATA = Path(__file__).resolve().parent / "data"
DEMO_SCRIPT = DATA / "demo.json"
SAMPLE_PROJECT = DATA / "sample.json"
"""The demo's sample project: ``{file name: content}``."""

NO_REPLY = "(the script has no reply to this)"
_STEP_KEYS = frozenset({"text", "thinking", "tools", "pause", "delay"})


@attrs.frozen(slots=True)
class Step:
    """One model call of a reply."""

    text: str = ""
    thinking: str = ""
    tools: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    pause: float = 0.0
    delay: float | None = None


@attrs.frozen(slots=True)
class Script:
    """Replies as ``(when, steps)``, the reply when none is left, the chunk delay."""

    replies: tuple[tuple[tuple[str, ...], tuple[Step, ...]], ...]
    otherwise: str = NO_REPLY
    delay: float = 0.0


def _fail(where: str, problem: str) -> ConfigurationError:
    return ConfigurationError(f"script {where}: {problem}")


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise _fail(where, f"expected a number of seconds >= 0, got {value!r}")
    return float(value)


def _step(data: Any, where: str) -> Step:
    if not isinstance(data, Mapping):
        raise _fail(where, f"a step is an object, got {data!r}")
    unknown = set(data) - _STEP_KEYS
    if unknown:
        raise _fail(where, f"unknown key(s) {sorted(unknown)}; a step has {sorted(_STEP_KEYS)}")
    tools = []
    for i, call in enumerate(data.get("tools") or ()):
        if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
            raise _fail(
                f"{where}.tools[{i}]", f'expected {{"name": ..., "args": {{}}}}, got {call!r}'
            )
        args = call.get("args", {})
        if not isinstance(args, Mapping):
            raise _fail(f"{where}.tools[{i}].args", f"expected an object, got {args!r}")
        tools.append((call["name"], dict(args)))
    for key in ("text", "thinking"):
        if not isinstance(data.get(key, ""), str):
            raise _fail(f"{where}.{key}", f"expected a string, got {data[key]!r}")
    if not (data.get("text") or data.get("thinking") or tools):
        raise _fail(where, "a step needs text, thinking or tools")
    if data.get("thinking") and tools:
        raise _fail(where, "thinking goes in a step without tools")
    delay = data.get("delay")
    return Step(
        data.get("text", ""),
        data.get("thinking", ""),
        tuple(tools),
        _number(data.get("pause", 0), f"{where}.pause"),
        None if delay is None else _number(delay, f"{where}.delay"),
    )


def load_script(source: str | Path | Mapping[str, Any]) -> Script:
    """A script from a JSON file or an already parsed object; ``ConfigurationError``
    saying where and what when it is malformed."""
    name = str(source) if not isinstance(source, Mapping) else "object"
    if isinstance(source, Mapping):
        data: Any = source
    else:
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except OSError as exc:
            raise _fail(name, f"cannot read it ({exc.strerror or exc})") from None
        except ValueError as exc:
            raise _fail(name, f"not JSON ({exc})") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("replies", []), list):
        raise _fail(name, 'expected {"replies": [...], "otherwise": "...", "delay": 0.02}')
    replies = []
    for i, reply in enumerate(data.get("replies", [])):
        where = f"{name}: replies[{i}]"
        if not isinstance(reply, Mapping) or not isinstance(reply.get("steps"), list):
            raise _fail(where, f'expected {{"when": ..., "steps": [...]}}, got {reply!r}')
        when = reply.get("when", "")
        words = (when,) if isinstance(when, str) else tuple(when)
        if not all(isinstance(w, str) for w in words):
            raise _fail(f"{where}.when", f"expected a string or a list of them, got {when!r}")
        steps = tuple(_step(s, f"{where}.steps[{j}]") for j, s in enumerate(reply["steps"]))
        replies.append((tuple(w.lower() for w in words), steps))
    otherwise = data.get("otherwise", NO_REPLY)
    if not isinstance(otherwise, str):
        raise _fail(f"{name}: otherwise", f"expected a string, got {otherwise!r}")
    return Script(tuple(replies), otherwise, _number(data.get("delay", 0), f"{name}: delay"))


def _text(message: UserMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "\n".join(p.text for p in content if isinstance(p, TextContent))


def next_step(script: Script, messages: Sequence[Any]) -> tuple[Step, int]:
    """The step that answers ``messages``, and how many assistant messages they hold
    (which numbers the step's tool calls). Pure."""
    last_user = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=-1)
    replies = sum(isinstance(m, AssistantMessage) for m in messages)
    if last_user < 0:
        return Step(script.otherwise), replies
    said = _text(messages[last_user]).lower()
    index = sum(isinstance(m, AssistantMessage) for m in messages[last_user + 1 :])
    for words, steps in script.replies:
        if any(w in said for w in words) or not words:
            return (steps[index] if index < len(steps) else Step(script.otherwise)), replies
    return Step(script.otherwise), replies


def _estimate(chars: int) -> int:
    return max(1, chars // 4)


def script_driver(script: Script) -> Any:
    """A driver playing ``script`` (a ``agentcore.drivers.scripted.FunctionDriver``; the drivers
    package is a plugin, loaded only here)."""
    from agentcore.drivers.scripted import FunctionDriver, Pause, text_turn, tool_turn

    def reply(request: ModelRequest) -> list[Any]:
        step, count = next_step(script, request.messages)
        seen = sum(len(json.dumps(str(m), ensure_ascii=False)) for m in request.messages)
        said = len(step.text) + len(step.thinking) + len(json.dumps([t[1] for t in step.tools]))
        usage = Usage(_estimate(seen), _estimate(said))
        model, message_id = "scripted", f"msg_{count + 1}"
        if step.tools:
            calls = [(f"call_{count + 1}_{i}", n, a) for i, (n, a) in enumerate(step.tools)]
            events = tool_turn(
                calls, text=step.text, message_id=message_id, model=model, usage=usage
            )
        else:
            thinking = step.thinking or None
            events = text_turn(
                step.text, thinking=thinking, message_id=message_id, model=model, usage=usage
            )
        delay = script.delay if step.delay is None else step.delay
        items: list[Any] = [Pause(step.pause)] if step.pause else []
        for event in events:
            items.append(event)
            if delay:
                items.append(Pause(delay))
        return items

    return FunctionDriver(reply, name="scripted")
