"""Diffs on every layer between a recorded run and a new one (or any two sessions).

``diff_traces(recorded, new)`` walks both lanes' steps in order (user inputs, model
calls, tool results) and names the first that differs: a user input, a model request
(which fields), a model answer ("answered differently"), a tool call or its result.
Then it compares each layer as a whole: ``messages`` (the message layer's outputs),
``tools`` (the trajectory: names, order, arguments, results), ``state`` (the state
layer's transitions), ``turns`` (tokens and cost per turn; durations are shown, never
a change) and ``outcome`` (each run's end reason and the final answer). Timestamps are
never a difference; ids are compared (a replay keeps them).

``RunDiff.text()`` is the readable form (a unified diff per layer that changed);
``to_dict()`` the structured one.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from typing import Any

import attrs

from .._journal.describe import describe
from .._journal.journal import JournalEntry
from .rerun import Divergence, _plain, request_changes
from .trace import ModelStep, ToolStep, Trace

__all__ = ["LAYERS", "LayerDiff", "RunDiff", "diff_traces", "journal_changes"]

LAYERS = ("messages", "tools", "state", "turns", "outcome")


@attrs.frozen
class LayerDiff:
    """One layer's lines in the recorded run and in the new one, and whether they differ
    (``changed``); ``note`` says what differs without being a change (durations)."""

    layer: str
    recorded: tuple[str, ...]
    new: tuple[str, ...]
    note: str = ""

    @property
    def changed(self) -> bool:
        return self.recorded != self.new

    def text(self) -> str:
        lines = difflib.unified_diff(self.recorded, self.new, "recorded", "new", lineterm="", n=1)
        return "\n".join(lines)


@attrs.frozen
class RunDiff:
    """The first divergence and every layer's diff (module docstring)."""

    divergence: Divergence | None
    layers: tuple[LayerDiff, ...]

    @property
    def same(self) -> bool:
        return self.divergence is None and not any(layer.changed for layer in self.layers)

    def layer(self, name: str) -> LayerDiff:
        return next(layer for layer in self.layers if layer.layer == name)

    @property
    def changed_layers(self) -> list[str]:
        return [layer.layer for layer in self.layers if layer.changed]

    def text(self) -> str:
        if self.same:
            return "no difference on any layer"
        out = [f"first divergence: {self.divergence}" if self.divergence else "no divergence"]
        for layer in self.layers:
            if layer.changed:
                out += [f"--- layer {layer.layer} ---", layer.text()]
            if layer.note:
                out.append(f"({layer.layer}: {layer.note})")
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        divergence = None
        if self.divergence is not None:
            divergence = attrs.asdict(self.divergence) | {"text": str(self.divergence)}
        return {
            "divergence": divergence,
            "changed_layers": self.changed_layers,
            "layers": {
                layer.layer: {
                    "changed": layer.changed,
                    "recorded": list(layer.recorded),
                    "new": list(layer.new),
                    "note": layer.note,
                }
                for layer in self.layers
            },
        }


# -- the first divergence ----------------------------------------------------------------


def _steps(trace: Trace) -> list[tuple[int, str, Any]]:
    items: list[tuple[int, str, Any]] = [(i, "input", command) for i, command in trace.inputs]
    items += [(step.at, "model", step) for step in trace.model_steps]
    items += [(step.index, "tool", step) for step in trace.tool_steps if step.result is not None]
    rank = {"input": 0, "tool": 1, "model": 2}  # a call asked for at the result it follows
    return sorted(items, key=lambda item: (item[0], rank[item[1]]))


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(_plain(value), default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _model_change(old: ModelStep, new: ModelStep) -> Divergence | None:
    if old.request is not None and new.request is not None:
        changed = request_changes(old.request, new.request)
        if changed:
            return Divergence(
                new.number, "request", "request changed: " + ", ".join(changed), changed
            )
    if old.events != new.events and _plain(old.events) != _plain(new.events):
        was = old.reply.text if old.reply else (old.error.message if old.error else "")
        now = new.reply.text if new.reply else (new.error.message if new.error else "")
        why = f"the model answered differently: {_short(was)!r} -> {_short(now)!r}"
        return Divergence(new.number, "model", why)
    return None


def _tool_change(old: ToolStep, new: ToolStep, step: int) -> Divergence | None:
    a, b = old.call, new.call
    if (a.tool_name, a.input) != (b.tool_name, b.input):
        was, now = f"{a.tool_name}({_short(a.input)})", f"{b.tool_name}({_short(b.input)})"
        why = f"tool call {b.tool_call_id}: {was} -> {now}"
        return Divergence(step, "tool", why)
    assert old.result is not None and new.result is not None
    if old.result != new.result and _plain(old.result) != _plain(new.result):
        why = (
            f"result of {b.tool_name} ({b.tool_call_id}) changed: "
            f"{_short(old.result.result)!r} -> {_short(new.result.result)!r}"
        )
        return Divergence(step, "tool", why)
    return None


def first_divergence(recorded: Trace, new: Trace) -> Divergence | None:
    """The first step (module docstring) where ``new`` departs from ``recorded``."""
    step = 0
    old_steps, new_steps = _steps(recorded), _steps(new)
    for (_, kind_a, a), (_, kind_b, b) in zip(old_steps, new_steps, strict=False):
        if kind_b == "model":
            step = b.number
        if kind_a != kind_b:
            return Divergence(
                step, _layer_of(kind_b), f"recorded a {_what(kind_a, a)}, now a {_what(kind_b, b)}"
            )
        if kind_a == "input" and _plain(a) != _plain(b):
            return Divergence(step, "inputs", f"{a.type} differs")
        if kind_a == "model":
            found = _model_change(a, b)
            if found is not None:
                return found
        if kind_a == "tool":
            found = _tool_change(a, b, step)
            if found is not None:
                return found
    if len(old_steps) != len(new_steps):
        longer = old_steps if len(old_steps) > len(new_steps) else new_steps
        _, kind, item = longer[min(len(old_steps), len(new_steps))]
        side = "the recording goes on with" if longer is old_steps else "the new run goes on with"
        return Divergence(
            step + (kind == "model"), _layer_of(kind), f"{side} a {_what(kind, item)}"
        )
    return None


def _layer_of(kind: str) -> str:
    return {"input": "inputs", "model": "model", "tool": "tool"}[kind]


def _what(kind: str, item: Any) -> str:
    if kind == "model":
        return f"model call ({item.number})"
    if kind == "tool":
        return f"tool result for {item.call.tool_name}"
    return str(item.type)


# -- the layers ----------------------------------------------------------------------------


def _lines(outputs: Sequence[Any]) -> tuple[str, ...]:
    return tuple(describe(o) for o in outputs)


def _tool_lines(trace: Trace) -> tuple[str, ...]:
    return tuple(
        f"{s.call.tool_name}({_short(s.call.input)}) -> "
        + (
            repr(_short(s.result.result)) + (" [error]" if s.result.is_error else "")
            if s.result
            else "no result"
        )
        for s in trace.tool_steps
    )


def _turn_lines(trace: Trace) -> tuple[str, ...]:
    return tuple(
        f"turn {i + 1}: {t.usage.input_tokens} in / {t.usage.output_tokens} out, "
        + ("cost unknown" if t.cost is None else f"${t.cost:.6f}")
        + (f", {t.model}" if t.model else "")
        for i, t in enumerate(trace.turns)
    )


def _outcome_lines(trace: Trace) -> tuple[str, ...]:
    ends = [
        f"run {i + 1} ended: {e.reason}" + (f" ({e.code})" if e.code else "")
        for i, e in enumerate(trace.ends)
    ]
    return (*ends, f"final answer: {trace.final_text!r}")


def diff_traces(recorded: Trace, new: Trace) -> RunDiff:
    """The first divergence and every layer's diff between two traced runs."""
    durations = f"{recorded.duration_ms} ms recorded, {new.duration_ms} ms now"
    turns_a = [t.duration_ms for t in recorded.turns]
    turns_b = [t.duration_ms for t in new.turns]
    layers = (
        LayerDiff("messages", _lines(recorded.layer("message")), _lines(new.layer("message"))),
        LayerDiff("tools", _tool_lines(recorded), _tool_lines(new)),
        LayerDiff("state", _lines(recorded.layer("state")), _lines(new.layer("state"))),
        LayerDiff(
            "turns",
            _turn_lines(recorded),
            _turn_lines(new),
            f"turn durations {turns_a} ms recorded, {turns_b} ms now",
        ),
        LayerDiff("outcome", _outcome_lines(recorded), _outcome_lines(new), durations),
    )
    return RunDiff(first_divergence(recorded, new), layers)


def journal_changes(a: Sequence[JournalEntry], b: Sequence[JournalEntry]) -> list[str]:
    """Where two journals differ, timestamps aside: ``[]`` when equal."""
    changes = []
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if (x.agent_id, x.seq) != (y.agent_id, y.seq) or _plain(x.event) != _plain(y.event):
            was = f"{x.agent_id}#{x.seq} {describe(x.event)}"
            changes.append(f"entry {i + 1}: {was} != {y.agent_id}#{y.seq} {describe(y.event)}")
    if len(a) != len(b):
        changes.append(f"{len(a)} entries, {len(b)} entries")
    return changes
