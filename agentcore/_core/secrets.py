"""Secrets never leave the engine: the patterns of API keys and tokens, and their scrubbing.

Any substring shaped like an API key of a provider agentcore reaches, or like an auth
header's token, is replaced by ``[REDACTED]``. Journals scrub every entry they record with
these functions, so one pattern list serves every path; drivers also scrub the exact keys
they hold (which catches keys of any shape, e.g. a local server's).

Shapes covered (a key starts at a word boundary, never inside a longer token):

=========================  =================================================
``sk-`` + 20 or more       OpenAI (``sk-proj-``, ``sk-svcacct-``, legacy), Anthropic
                           (``sk-ant-api03-``), OpenRouter (``sk-or-v1-``), DeepSeek
``sk-`` + 8 to 19          short keys (``sk-abc123XYZ``) when they hold a digit
``gsk_`` + 20 or more      Groq
``tgp_v1_`` + 20 or more   Together (its older keys are bare hex, as hashes are:
                           only the exact-key scrub of its driver catches those)
``AIza`` + 30 or more      Google
``Bearer`` + a token       8 or more token characters holding a digit (``Bearer``,
                           ``bearer`` or ``BEARER``)
=========================  =================================================

Ordinary text is left alone: ``task-force``, ``sk-learn``, ``bearer of news``, ``Bearer
instruments``, commit hashes and UUIDs do not match. The base64 ``data`` of a media part
(an image, a document, audio: ``media``) is binary, never text, and is never scrubbed: a
run of base64 may look like a key, and changing it would corrupt the file.
"""

from __future__ import annotations

import enum
import functools
import json
import operator
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Literal

import attrs

from .binary import MEDIA_CLASSES, is_media_wire
from .checks import is_checked
from .wire import from_dict, to_dict

__all__ = [
    "REDACTED",
    "SCANS",
    "SECRET_PATTERN",
    "has_secret",
    "holds_secret",
    "scrub",
    "scrub_bytes",
    "scrub_event",
    "scrub_wire",
]

REDACTED = "[REDACTED]"

_BEFORE = r"[A-Za-z0-9_\-]"
"""A character a key may not follow: a key starts at a word boundary."""

SECRET_PATTERN = (
    rf"s(?<!{_BEFORE}s)k-(?:[A-Za-z0-9_\-]{{20,}}|(?=[A-Za-z_\-]*[0-9])[A-Za-z0-9_\-]{{8,}})"
    rf"|g(?<!{_BEFORE}g)sk_[A-Za-z0-9]{{20,}}"
    rf"|t(?<!{_BEFORE}t)gp_v1_[A-Za-z0-9_\-]{{20,}}"
    rf"|A(?<!{_BEFORE}A)Iza[0-9A-Za-z_\-]{{30,}}"
    r"|(?:[Bb]earer|BEARER)\s+(?=[A-Za-z._~+/\-]*[0-9])[A-Za-z0-9._~+/\-]{8,}=*"
)
"""A regular expression matching every key or token shape agentcore scrubs (see above).

Each branch starts with a literal (the boundary is checked by a look-behind just after
it), so the regular expression engine can skip ahead; ``_may_hold`` skips it altogether
for text holding none of the branches' fixed parts, which is almost all text."""

SHORTEST_SECRET = 11
"""The length of the shortest text ``SECRET_PATTERN`` matches (``sk-`` and 8 characters)."""


@functools.cache
def _secret() -> re.Pattern[str]:
    """``SECRET_PATTERN`` compiled on the first text that may hold a key (``_may_hold``):
    compiling it and its bytes twin was 0.6 ms of the import."""
    return re.compile(SECRET_PATTERN)


@functools.cache
def _secret_bytes() -> re.Pattern[bytes]:
    return re.compile(SECRET_PATTERN.encode())


def _may_hold(text: str) -> bool:
    """False when ``text`` holds none of the fixed parts every match contains."""
    return (
        "sk-" in text
        or "sk_" in text
        or "tgp_" in text
        or "AIza" in text
        or "earer" in text
        or "EARER" in text
    )


def _may_hold_bytes(data: bytes) -> bool:
    return (
        b"sk-" in data
        or b"sk_" in data
        or b"tgp_" in data
        or b"AIza" in data
        or b"earer" in data
        or b"EARER" in data
    )


def scrub(text: str) -> str:
    """Replace every API-key-like or bearer-token substring of ``text`` with ``[REDACTED]``."""
    return _secret().sub(REDACTED, text) if _may_hold(text) else text


def scrub_bytes(data: bytes) -> bytes:
    """``scrub`` for UTF-8 bytes (a serialised journal line)."""
    return _secret_bytes().sub(REDACTED.encode(), data) if _may_hold_bytes(data) else data


def holds_secret(text: str) -> bool:
    """Whether ``text`` holds anything ``scrub`` would replace: ``_may_hold`` written
    inline (this runs for every streamed delta), then the regular expression. Text
    shorter than the shortest match (``sk-`` and 8 characters) holds none."""
    if len(text) >= SHORTEST_SECRET and (
        "sk-" in text
        or "sk_" in text
        or "tgp_" in text
        or "AIza" in text
        or "earer" in text
        or "EARER" in text
    ):
        return _secret().search(text) is not None
    return False


def has_secret(data: bytes) -> bool:
    """Whether ``data`` holds anything ``scrub_bytes`` would replace."""
    return _may_hold_bytes(data) and _secret_bytes().search(data) is not None


def _contains(value: Any) -> bool:
    if isinstance(value, str):
        return holds_secret(value)
    if isinstance(value, list):
        return any(_contains(v) for v in value)
    if isinstance(value, dict):
        binary = is_media_wire(value)
        return any(
            _contains(k) or (not (binary and k == "data") and _contains(v))
            for k, v in value.items()
        )
    return False


def _scrub_value(value: Any) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [_scrub_value(v) for v in value]
    if isinstance(value, dict):
        binary = is_media_wire(value)
        return {
            _scrub_value(k): v if binary and k == "data" else _scrub_value(v)
            for k, v in value.items()
        }
    return value


def scrub_wire(value: Any) -> Any:
    """A JSON value (an event's wire form, a journal record) with secrets redacted from
    every string, dict keys included, but for the base64 ``data`` of media parts."""
    return _scrub_value(value)


_NO_SECRET_TYPES = (int, float, type(None))
_FIELD_NAMES: dict[type[Any], tuple[str, ...] | None] = {}


def _field_names(cls: type[Any]) -> tuple[str, ...] | None:
    names = _FIELD_NAMES.get(cls, ())
    if names == ():
        names = _FIELD_NAMES[cls] = (
            tuple(f.name for f in attrs.fields(cls)) if attrs.has(cls) else None
        )
    return names


_GETTERS: dict[type[Any], Callable[[Any], Any] | None] = {}


def _getter(cls: type[Any]) -> Callable[[Any], Any] | None:
    names = _field_names(cls)
    if names is None:
        return None
    if not names:
        return lambda _value: ()
    return operator.attrgetter(*names)


def _values_of(value: Any) -> Any:
    """The field values of an attrs object (a tuple; the one value of a class of one
    field), for the JSON encoder's ``default``: a ``TypeError`` (the encoder's own
    signal) for any other object. Read by a getter made once per class."""
    cls = type(value)
    try:
        get = _GETTERS[cls]
    except KeyError:
        get = _GETTERS[cls] = _getter(cls)
    if get is None:
        raise TypeError(cls.__name__)
    return get(value)


def _encoder() -> Callable[[Any], str]:
    """``JSONEncoder(ensure_ascii=False, default=_values_of).encode``, by the C encoder
    called directly when there is one (half the cost: no Python frames around it)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    quote = json.encoder.encode_basestring
    if make is None:
        return json.JSONEncoder(ensure_ascii=False, default=_values_of).encode
    chunks = make(None, _values_of, quote, None, ":", ",", False, False, True)
    return lambda value: "".join(chunks(value, 0))


_encode = _encoder()


def _may_contain(value: Any) -> bool:
    """Whether ``value`` may hold a secret, read from the objects themselves (no wire form
    is built): False for what holds none, True for a string that does and for any value
    of a kind not looked into, which ``scrub_event`` then checks on its wire form.

    Most values are first written as JSON text by the C encoder (an attrs object as the
    list of its field values) and that one text looked at: every string appears in it
    with the fixed parts of the patterns unchanged (they hold no character JSON escapes),
    so a text holding none of them proves that no string does. Only a text that may
    hold one, or a value the encoder cannot write, is walked field by field."""
    if isinstance(value, str):
        return holds_secret(value)
    if isinstance(value, _NO_SECRET_TYPES):
        return False
    if value.__class__ is tuple:
        return _any_may_contain(value)
    try:
        if not _may_hold(_encode(value)):
            return False
    except (TypeError, ValueError, RecursionError):
        pass
    return _walk(value)


def _any_may_contain(items: tuple[Any, ...]) -> bool:
    """``_may_contain`` of a tuple (a prompt's messages, content blocks): each event or
    value in it by the scan of its class (``SCANS``), strings by ``holds_secret``, without
    writing any of it out."""
    for item in items:
        cls = item.__class__
        if cls is str:
            if holds_secret(item):
                return True
        elif cls in _PLAIN:
            continue
        elif _field_names(cls) is not None:
            scan = SCANS[cls]
            if scan is not None and scan(item):
                return True
        elif _may_contain(item):
            return True
    return False


def _walk(value: Any) -> bool:
    if isinstance(value, str):
        return holds_secret(value)
    if isinstance(value, _NO_SECRET_TYPES):
        return False
    if isinstance(value, tuple | list):
        return any(_walk(item) for item in value)
    if isinstance(value, dict):
        return any(_walk(k) or _walk(v) for k, v in value.items())
    names = _field_names(type(value))
    if names is None:
        return True
    binary = type(value) in MEDIA_CLASSES
    return any(not (binary and name == "data") and _walk(getattr(value, name)) for name in names)


def scrub_event(event: Any) -> Any:
    """``event`` with secrets redacted from every string, dict keys included (``event``
    itself when it holds none: found without building its wire form, most of the time)."""
    if not _may_contain(event):
        return event
    wire = to_dict(event)
    if not _contains(wire):
        return event
    return from_dict(_scrub_value(wire))


Scan: typing.TypeAlias = Callable[[Any], bool]
"""``scan(event)``: False when ``event`` holds no secret; True when it may (then
``scrub_event`` decides)."""

_TEXTLESS_TYPES = (int, float, bool, type(None))
_PLAIN = frozenset(_TEXTLESS_TYPES)
"""The classes of values a scan passes over without a call."""


def _textless(tp: Any, seen: frozenset[type[Any]] = frozenset()) -> bool:
    """Whether a field annotated ``tp`` can never hold text: a number, a bool, ``None``,
    an enum (its members are fixed by the class), an attrs class of only such fields, or
    a union of those. Anything else (``str``, a ``Literal``, a tuple, a mapping, ``Any``)
    may hold a caller's text."""
    if tp in _TEXTLESS_TYPES:
        return True
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        return all(_textless(arg, seen) for arg in typing.get_args(tp))
    if origin is Literal or not isinstance(tp, type):
        return False
    if issubclass(tp, enum.Enum):
        return True
    if attrs.has(tp) and tp not in seen:
        names = _text_fields(tp, seen | {tp})
        return names is not None and not names
    return False


def _text_fields(
    cls: type[Any], seen: frozenset[type[Any]] = frozenset()
) -> tuple[str, ...] | None:
    """The fields of attrs class ``cls`` that may hold text, read from their annotations
    when its construction checks them (``checked``): every field of a class that does not
    (its values may be of any type) or whose annotations cannot be resolved; ``None`` when
    ``cls`` is not an attrs class."""
    names = _field_names(cls)
    if names is None or not is_checked(cls):
        return names
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # an annotation naming what only type checkers import
        return names
    return tuple(n for n in names if n not in hints or not _textless(hints[n], seen))


def _always(_event: Any) -> bool:
    """The scan of an object whose fields are not known: ``scrub_event`` looks."""
    return True


def _scan(cls: type[Any]) -> Scan | None:
    """The scan of ``cls``'s instances: ``None`` when no field can hold text; else a test
    of those fields alone, strings by the fixed parts of the patterns written inline (no
    call), numbers and ``None`` passed over, any other value by ``_may_contain``."""
    names = _text_fields(cls)
    if names is None:
        return _always
    if not names:
        return None
    get, many = operator.attrgetter(*names), len(names) > 1

    def scan(event: Any) -> bool:
        for value in get(event) if many else (get(event),):
            if value.__class__ is str:
                if (
                    "sk-" in value
                    or "sk_" in value
                    or "tgp_" in value
                    or "AIza" in value
                    or "earer" in value
                    or "EARER" in value
                ):
                    return True
            elif value.__class__ not in _PLAIN and _may_contain(value):
                return True
        return False

    return scan


class _Scans(dict[type[Any], Scan | None]):
    def __missing__(self, cls: type[Any]) -> Scan | None:
        scan = self[cls] = _scan(cls)
        return scan


SCANS: typing.Mapping[type[Any], Scan | None] = _Scans()
"""Class -> its ``Scan`` (``None``: its instances can hold no text), made on first use.

The secret scan limited to where secrets can be: an input is given to ``scrub_event``
only when the scan of its class says it may hold one (``SCANS[type(e)]``, a lookup
without a call), so inputs of numbers, enums and stop reasons cost one test of a
string or nothing at all."""
