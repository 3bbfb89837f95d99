"""What every presenter shares: choosing outputs by layer or type, and calling ``present``.

A presenter is any object with ``present(agent_id, output)`` (see ``agentcore.Presenter``);
it may return ``None`` or an awaitable. The presenters in this package split into a pure
``encode(output)`` (what to show or write) and a sink that does the I/O.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

import attrs

from agentcore import Presenter
from agentcore.events import EVENT_TYPES, LAYERS

__all__ = ["Filter", "output_type", "present"]


def output_type(output: Any) -> str:
    """The wire name of ``output`` (``"text_delta"``...), or its class name if it has none."""
    name = getattr(output, "type", None)
    return name if isinstance(name, str) else type(output).__name__


def _names(value: Iterable[str] | str | None, known: Iterable[str], what: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    names = frozenset([value] if isinstance(value, str) else value)
    unknown = names - set(known)
    if unknown:
        raise ValueError(f"unknown {what}(s) {sorted(unknown)}; known: {sorted(set(known))}")
    return names


def _to_layers(value: Iterable[str] | str | None) -> frozenset[str]:
    return _names(value, LAYERS.values(), "layer")


def _to_types(value: Iterable[str] | str | None) -> frozenset[str]:
    return _names(value, EVENT_TYPES, "event type")


@attrs.frozen(slots=True)
class Filter:
    """Select outputs by layer and/or wire type; an empty selector matches everything.

    ``Filter(layers={"message", "turn"})`` keeps message and turn outputs;
    ``Filter(types={"text_delta"})`` keeps text deltas; given both, an output passes when
    its layer *or* its type is selected. Names are checked against the registry when the
    filter is built, so a typo fails at once rather than silently dropping everything.
    Outputs of unregistered types pass only an empty filter.
    """

    layers: frozenset[str] = attrs.field(default=None, converter=_to_layers)
    types: frozenset[str] = attrs.field(default=None, converter=_to_types)

    def __call__(self, output: Any) -> bool:
        if not self.layers and not self.types:
            return True
        name = output_type(output)
        return name in self.types or LAYERS.get(name) in self.layers


async def present(presenter: Presenter, agent_id: str, output: Any) -> None:
    """Call ``presenter.present`` and await its result when it returned an awaitable."""
    result = presenter.present(agent_id, output)
    if inspect.isawaitable(result):
        await result
