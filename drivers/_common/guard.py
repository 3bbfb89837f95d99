"""What a driver emits is safe to store and to send back: valid Unicode, free of its keys.

Pure functions (no I/O, no clock) that every vendor normaliser applies to the strings it
emits. Two hazards cross delta boundaries, so a block's text may be held back a little:

- A surrogate pair split across two deltas (``"smile \\ud83d"`` then ``"\\ude00!"``, legal
  JSON escapes) decodes to two lone surrogates, which no UTF-8 encoder accepts: one such
  string in the history makes every later request fail. A trailing high surrogate is held
  until the next delta of its block and joined with it; a lone surrogate anywhere else,
  or one still held when its block ends, becomes U+FFFD.
- A key the model echoes in small pieces passes any per-delta scrub. Every exact key the
  driver holds becomes ``[REDACTED]``, and a suffix that could be the start of a key is
  held until it can no longer match: the next delta of its block decides, or the block's
  end releases it as it is.

Held text is released in order and never lost: ``close_block`` at the end of a block, ``flush_held``
at the end of the message (or when the stream fails or is interrupted). Keys shorter than
``MIN_KEY_LENGTH`` are not scrubbed: they would eat ordinary text, and no provider issues
them (a placeholder such as ``"k"`` in a test is not a secret).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agentcore.events import InputJsonDelta, TextDelta, ThinkingDelta
from agentcore.journal import scrub

__all__ = [
    "DeltaClass",
    "Held",
    "MIN_KEY_LENGTH",
    "REDACTED",
    "clean",
    "clean_error",
    "close_block",
    "flush_held",
    "guard",
    "secret_keys",
    "valid",
]

REDACTED = "[REDACTED]"
"""What an exact key is replaced with (the same marker as the journals' pattern scrub)."""

MIN_KEY_LENGTH = 8
"""Shorter keys are not scrubbed (see the module docstring)."""

DeltaClass = type[TextDelta] | type[ThinkingDelta] | type[InputJsonDelta]
"""The events whose text may be held back: each is built as ``cls(text, index, timestamp=)``."""

Held = tuple[tuple[int, DeltaClass, str], ...]
"""Text held back, per block: ``(index, event class, text)``; empty almost always."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH_FIRST, _HIGH_LAST = "\ud800", "\udbff"
_REPLACEMENT = "\ufffd"


def secret_keys(candidates: Iterable[str | None]) -> tuple[str, ...]:
    """The distinct keys worth scrubbing among ``candidates``, in order (see ``MIN_KEY_LENGTH``)."""
    keys: list[str] = []
    for key in candidates:
        if key and len(key) >= MIN_KEY_LENGTH and key not in keys:
            keys.append(key)
    return tuple(keys)


def valid(text: str) -> str:
    """``text`` with surrogate pairs joined and every lone surrogate replaced by U+FFFD."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _redact(text: str, keys: tuple[str, ...]) -> str:
    for key in keys:
        if key in text:
            text = text.replace(key, REDACTED)
    return text


def clean(text: str, keys: tuple[str, ...]) -> str:
    """A whole string (an id, a name, a model) made valid and free of ``keys``."""
    return _redact(valid(text), keys) if keys else valid(text)


def clean_error(text: str, keys: tuple[str, ...]) -> str:
    """An error message made valid, free of ``keys`` and of anything shaped like a key."""
    return scrub(clean(text, keys))


def _hold_from(text: str, keys: tuple[str, ...]) -> int:
    """Where the longest suffix of ``text`` that is a proper prefix of a key starts."""
    size = len(text)
    cut = size
    for key in keys:
        first = key[0]
        i = text.find(first, max(size - len(key) + 1, 0))
        while 0 <= i < cut:
            if key.startswith(text[i:]):
                cut = i
                break
            i = text.find(first, i + 1)
    return cut


def _find(held: Held, index: int) -> str | None:
    for block, _, text in held:
        if block == index:
            return text
    return None


def _without(held: Held, index: int) -> Held:
    return tuple(entry for entry in held if entry[0] != index)


def guard(
    held: Held, keys: tuple[str, ...], cls: DeltaClass, index: int, text: str
) -> tuple[Held, str]:
    """``(held, text to emit now)`` for a delta of block ``index``.

    The block's held text goes first; what may still join the next delta (a trailing high
    surrogate, the start of a key) is held instead of emitted. ``held`` is returned as is
    when nothing changes, so callers can test it by identity.
    """
    if held:
        prior = _find(held, index)
        if prior is not None:
            text = prior + text
            held = _without(held, index)
    elif text.isascii():  # the usual delta: can it hold, or end with, any part of a key?
        for key in keys:
            first = key[0]
            if first in text and (text.endswith(first) or key[:2] in text):
                break
        else:
            return held, text
    if not text.isascii() and _SURROGATE.search(text) is not None:
        if _HIGH_FIRST <= text[-1] <= _HIGH_LAST:
            body = _redact(valid(text[:-1]), keys) if keys else valid(text[:-1])
            return (*held, (index, cls, text[-1])), body
        text = valid(text)
    if keys:
        text = _redact(text, keys)
        cut = _hold_from(text, keys)
        if cut < len(text):
            return (*held, (index, cls, text[cut:])), text[:cut]
    return held, text


def _released(text: str) -> str:
    """Held text at the end of its block: a high surrogate that found no pair is U+FFFD."""
    return text[:-1] + _REPLACEMENT if _HIGH_FIRST <= text[-1] <= _HIGH_LAST else text


def close_block(
    held: Held, index: int, timestamp: int
) -> tuple[Held, tuple[TextDelta | ThinkingDelta | InputJsonDelta, ...]]:
    """Block ``index`` ended: release what it held, as one delta (none when it held nothing)."""
    for block, cls, text in held:
        if block == index:
            return _without(held, index), (cls(_released(text), index, timestamp=timestamp),)
    return held, ()


def flush_held(
    held: Held, timestamp: int
) -> tuple[Held, tuple[TextDelta | ThinkingDelta | InputJsonDelta, ...]]:
    """The message ended (or failed, or was interrupted): release every block's held text."""
    return (), tuple(cls(_released(text), index, timestamp=timestamp) for index, cls, text in held)
