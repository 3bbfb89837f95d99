"""One readable line per event, for the command line and the demo."""

from __future__ import annotations

from typing import Any

from .._core.binary import describe_part, is_media_wire
from .._core.content import to_content
from .._core.errors import InvalidEventError
from .._core.wire import to_dict
from .read import dumps as _dumps

__all__ = ["describe"]


def describe(output: Any) -> str:
    """One readable line for an event: its type and its most telling fields."""
    wire = to_dict(output)
    fields = []
    for key, value in wire["data"].items():
        if value in (None, "", [], {}, False):
            continue
        if isinstance(value, str):
            text = repr(str(value))  # an ErrorCode (a StrEnum) as its value, like any code
        elif isinstance(value, float):
            text = f"{value:.6g}"  # a summed cost, not 0.0025199999999999997
        else:
            text = _short(value)
        fields.append(f"{key}={text}")
    return f"{wire['type']:<24} {' '.join(fields)}".rstrip()


def _short(value: Any, limit: int = 80) -> str:
    text = _dumps(_sized(value)).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _part_of(value: dict[str, Any]) -> Any:
    """The content part of one wire dict (``InvalidEventError`` for a bad one)."""
    return to_content([value])[0]


def _sized(value: Any) -> Any:
    """``value`` with each media part (a wire dict) replaced by its one-line placeholder
    (``describe_part``): a line shows what a part is, never its bytes."""
    if isinstance(value, list):
        return [_sized(item) for item in value]
    if not isinstance(value, dict):
        return value
    if is_media_wire(value) and isinstance(value.get("data"), str):
        try:
            return describe_part(_part_of(value))
        except InvalidEventError:
            return f"[{value['type']}]"
    return {k: _sized(v) for k, v in value.items()}
