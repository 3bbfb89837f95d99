"""JSON as it streams: the value a prefix of a JSON text shows, and the JSON in a reply.

A structured answer (the text of a reply, or the arguments of a tool call) arrives in
chunks. ``PartialJson`` accumulates them and parses the text so far with ``jiter``'s
partial mode (``trailing-strings``: an unfinished string shows what it holds so far; an
unfinished key, literal or container entry is left out). Each value it shows is a
*prefix* of every later one (``is_prefix``): keys only appear, arrays only grow, a
string only gets longer, and a number or literal appears only once it is complete (the
trailing run of characters that could still be a number is cut before parsing: ``12``
might become ``123``). The value shown once the text is complete is the complete value.

Parsing the whole text again at every chunk would cost time in proportion to the square
of its length; ``PartialJson`` re-parses a text shorter than ``EAGER_CHARS`` at every
chunk and a longer one only once it has grown by an eighth, so the total cost stays in
proportion to the length (previews of a long text come less often, and its last chunks
may not be parsed yet: ``settled`` parses them).

``json_in_text`` finds the JSON object in a model's final text (a code fence or a
sentence around it is tolerated) and parses it strictly.

Pure: no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from .._core.content import JSONValue
from .._core.vectors import pvector
from .tool_json import NotJSONError, to_json_value

if TYPE_CHECKING:  # the attrs plugin types the classes
    from attrs import frozen
    from pyrsistent import PVector
else:  # the same classes, built at a fifth of attrs' cost (see _core/records.py)
    from .._core.records import frozen

__all__ = ["EAGER_CHARS", "PartialJson", "is_prefix", "json_in_text", "parse_partial"]

EAGER_CHARS = 1024
"""A text shorter than this is parsed again at every chunk."""

_NUMBER_CHARS = frozenset("0123456789+-.eE")


def parse_partial(text: str) -> JSONValue:
    """What the JSON text ``text`` (maybe cut short, maybe after some prose) shows so far.

    ``None`` when it shows nothing yet: no ``{``/``[`` yet, or not JSON at all.
    """
    start = _start(text)
    if start < 0:
        return None
    import jiter  # a C parser: imported by a structured answer, not by the Agent import

    end = len(text)
    while end > start and text[end - 1] in _NUMBER_CHARS:
        end -= 1  # a number (or a word in a string) that may go on
    try:
        value: JSONValue = jiter.from_json(
            text[start:end].encode("utf-8", "surrogatepass"), partial_mode="trailing-strings"
        )
    except ValueError:
        return None
    return value


def _start(text: str) -> int:
    """Where the JSON value starts: the first ``{`` or ``[`` (``-1`` when there is none)."""
    brace, bracket = text.find("{"), text.find("[")
    if brace < 0 or 0 <= bracket < brace:
        return bracket
    return brace


def json_in_text(text: str) -> JSONValue:
    """The JSON object in a reply's text, parsed strictly.

    Text before the first ``{`` and after the last ``}`` (a code fence, a sentence) is
    ignored. Raises ``ValueError`` with a message the model can act on when there is no
    object, when it is not valid JSON, or when it holds a value a journal cannot keep
    (a number out of range).
    """
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ValueError("the answer holds no JSON object")
    import jiter

    try:
        value = jiter.from_json(text[start : end + 1].encode("utf-8", "surrogatepass"))
    except ValueError as exc:
        raise ValueError(f"the answer is not valid JSON ({exc})") from None
    try:
        return to_json_value(value)
    except NotJSONError as exc:
        raise ValueError(f"the answer holds a value JSON cannot carry ({exc})") from None


def is_prefix(before: Any, after: Any) -> bool:
    """Whether the partial value ``before`` is a prefix of ``after`` (see the module
    docstring): what ``PartialJson`` promises of the values it shows one after another."""
    if before is None:
        return True
    if isinstance(before, str):
        return isinstance(after, str) and after.startswith(before)
    if isinstance(before, dict):
        if not isinstance(after, dict) or len(before) > len(after):
            return False
        keys = list(after)
        if list(before) != keys[: len(before)]:
            return False
        last = len(before) - 1
        return all(
            (is_prefix if i == last else _equal)(before[k], after[k]) for i, k in enumerate(before)
        )
    if isinstance(before, list):
        if not isinstance(after, list) or len(before) > len(after):
            return False
        last = len(before) - 1
        return all(
            (is_prefix if i == last else _equal)(b, a)
            for i, (b, a) in enumerate(zip(before, after, strict=False))
        )
    return _equal(before, after)


def _equal(a: Any, b: Any) -> bool:
    return type(a) is type(b) and bool(a == b)


@frozen
class PartialJson:
    """The chunks of a JSON text so far and the value they show (immutable).

    ``value`` is what the text showed when it was last parsed (``None``: nothing yet);
    ``extend`` returns the accumulator with one more chunk, parsed again when due (see
    the module docstring); ``settled`` with every chunk parsed. ``text`` joins the chunks.
    """

    chunks: PVector[str] = attrs.field(factory=pvector)
    size: int = 0
    parsed: int = 0
    value: JSONValue = None

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    def extend(self, chunk: str) -> PartialJson:
        """This text with ``chunk`` appended; ``value`` is updated when a parse is due."""
        chunks, size = self.chunks.append(chunk), self.size + len(chunk)
        if size >= EAGER_CHARS and size - self.parsed < size >> 3:
            return PartialJson(chunks, size, self.parsed, self.value)
        return PartialJson(chunks, size, size, parse_partial("".join(chunks)))

    def settled(self) -> PartialJson:
        """This text with every chunk parsed: ``value`` is what the whole text shows."""
        if self.parsed == self.size:
            return self
        return PartialJson(self.chunks, self.size, self.size, parse_partial(self.text))
