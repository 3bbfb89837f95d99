"""One readable line per event, for the command line and the demo."""

from __future__ import annotations

from typing import Any

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
    text = _dumps(value).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"
