"""What a tool returns, made JSON: text for the model, ``details`` for the journal.

A tool may return anything; what reaches the model and the journal must be JSON that
every writer accepts and every reader gives back unchanged. ``to_json_value`` is the one
normaliser, in two modes:

- ``strict`` (``details``, which are journaled as they are): NaN and ±Infinity, strings
  holding a surrogate code point (not UTF-8) and integers outside the signed/unsigned 64-bit range
  (orjson, the journal's writer, rejects them) are errors.
- lenient (a result's content, which the model reads as JSON text): NaN and ±Infinity
  become the strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"``; a surrogate pair
  becomes the character it encodes and a lone surrogate U+FFFD.

In both modes the result is JSON-native: ``list`` for lists and tuples, ``str`` keys
(``int``/``float``/``bool``/``None`` keys converted as ``json.dumps`` does; two keys that
convert to the same string are an error), plain ``str``/``int``/``float`` for subclasses
(``StrEnum``, ``IntEnum``), nesting at most ``MAX_DEPTH`` containers deep (deeper, or
circular, is an error). Anything else (a set, a datetime, ``object()``) is an error:
``NotJSONError`` says where (``at $.rows[2]``) and what.

Pure: no I/O.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from .._core.content import JSONValue

__all__ = ["MAX_DEPTH", "NotJSONError", "json_path", "to_json_text", "to_json_value"]

MAX_DEPTH = 200
"""Containers nested deeper than this are refused: orjson writes at most 254 levels, and
a journal line wraps ``details`` in a few more."""

_INT_MIN = -(2**63)
_INT_MAX = 2**64 - 1
_NON_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}


class NotJSONError(TypeError):
    """A value is not JSON. ``path`` is where (keys and indices), ``reason`` what is wrong.

    ``str()`` reads ``at $.rows[2]: set is not a JSON value``.
    """

    def __init__(self, reason: str, path: tuple[str | int, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path

    def __str__(self) -> str:
        where = json_path(self.path[:8]) + ("..." if len(self.path) > 8 else "")
        return f"at {where}: {self.reason}"


def json_path(path: Sequence[str | int]) -> str:
    """``("a", 1, "b")`` -> ``$.a[1].b``."""
    out = "$"
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else f".{key}"
    return out


def to_json_value(value: Any, *, strict: bool = True) -> JSONValue:
    """``value`` as JSON-native data (see the module docstring for the two modes).

    Idempotent: normalising a result again gives it back equal, with the same types.
    Raises ``NotJSONError`` naming the path of the first value that is not JSON.
    """
    return _native(value, strict, 0)


def to_json_text(value: Any) -> str:
    """``value`` as JSON text for the model: lenient mode, sorted keys, UTF-8 (not escaped).

    The text is always accepted by ``json.dumps(..., allow_nan=False)``'s parser, i.e. it
    is standard JSON. Raises ``NotJSONError``.
    """
    return _ENCODER.encode(_native(value, False, 0))


_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, allow_nan=False)
"""What ``json.dumps`` with these options builds on each call, built once (stateless)."""


def _native(value: Any, strict: bool, depth: int) -> JSONValue:
    kind = type(value)
    if kind is str:
        return value if value.isascii() else _text(value, strict)
    if value is None or kind is bool:
        return value
    if kind is int:
        if strict and not _INT_MIN <= value <= _INT_MAX:
            raise NotJSONError(f"integer {value} is outside the 64-bit range a journal holds")
        return value
    if kind is float:
        return value if math.isfinite(value) else _non_finite(value, strict)
    if isinstance(value, dict | list | tuple):
        if depth >= MAX_DEPTH:
            raise NotJSONError(f"nested more than {MAX_DEPTH} levels deep (or circular)")
        if isinstance(value, dict):
            return _object(value, strict, depth + 1)
        out = []
        for index, item in enumerate(value):
            try:
                out.append(_native(item, strict, depth + 1))
            except NotJSONError as exc:
                exc.path = (index, *exc.path)
                raise
        return out
    if isinstance(value, str):  # a subclass (StrEnum): the plain string
        return _native(str.__str__(value), strict, depth)
    if isinstance(value, int):
        return _native(int(value), strict, depth)
    if isinstance(value, float):
        return _native(float(value), strict, depth)
    raise NotJSONError(f"{kind.__name__} is not a JSON value")


def _object(value: dict[Any, Any], strict: bool, depth: int) -> dict[str, JSONValue]:
    out: dict[str, JSONValue] = {}
    for key, item in value.items():
        name = key if type(key) is str else _key(key, strict)
        if name in out:
            raise NotJSONError(f"key {key!r} becomes {name!r}, which another key already is")
        try:
            out[name] = _native(item, strict, depth)
        except NotJSONError as exc:
            exc.path = (name, *exc.path)
            raise
    return out


def _key(key: Any, strict: bool) -> str:
    """A dict key as ``json.dumps`` writes it; other keys are errors."""
    if isinstance(key, str):
        return str(_native(key, strict, 0))
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, int | float):
        number = _native(key, strict, 0)
        return str(number) if isinstance(number, str) else json.dumps(number)
    raise NotJSONError(f"a key of type {type(key).__name__} is not a JSON key")


def _text(value: str, strict: bool) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        if strict:
            reason = f"string {value[:40]!r} holds a surrogate, which is not UTF-8"
            raise NotJSONError(reason) from None
        # pairs become the character they encode; a lone surrogate becomes U+FFFD
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value


def _non_finite(value: float, strict: bool) -> str:
    name = _NON_FINITE.get(value, "NaN")
    if strict:
        raise NotJSONError(f"{name} is not a JSON number")
    return name
