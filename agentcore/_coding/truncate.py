"""Keeping tool output within what a model's context can take: by lines and by UTF-8 bytes.

Pure functions. ``truncate_head`` keeps the beginning (file reads, search results: the
caller continues from an offset); ``truncate_tail`` keeps the end (command output: the
error is usually last). Both cut at line boundaries and never return more than
``max_lines`` lines or ``max_bytes`` bytes; the ``Truncation`` they return says what was cut,
and goes into a tool's ``details`` as ``Truncation.as_details()``.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "GREP_MAX_LINE_CHARS",
    "Truncation",
    "format_size",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_CHARS = 500


@attrs.frozen(slots=True)
class Truncation:
    """What a truncation kept: ``content``, and the counts a notice or a UI needs.

    ``truncated_by`` is ``"lines"`` or ``"bytes"`` (whichever limit was hit first) or None;
    ``first_line_too_long`` is set by ``truncate_head`` when the first line alone is over
    ``max_bytes`` (``content`` is then empty); ``partial_last_line`` by ``truncate_tail``
    when it had to keep only the end of a single over-long last line.
    """

    content: str
    truncated_by: Literal["lines", "bytes"] | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    max_lines: int
    max_bytes: int
    first_line_too_long: bool = False
    partial_last_line: bool = False

    @property
    def truncated(self) -> bool:
        return self.truncated_by is not None

    def as_details(self) -> dict[str, Any]:
        """The JSON form for a tool's ``details``."""
        return attrs.asdict(self, filter=lambda a, _: a.name != "content") | {
            "truncated": self.truncated
        }


def _lines(text: str) -> list[str]:
    """Lines without their ``\\n``; a trailing newline does not make an extra empty line."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def truncate_head(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> Truncation:
    """Keep whole lines from the start while both limits hold."""
    lines = _lines(text)
    total_bytes = _utf8_len(text)
    kept = 0
    size = 0
    by: Literal["lines", "bytes"] | None = None
    for line in lines:
        if kept == max_lines:
            by = "lines"
            break
        cost = _utf8_len(line) + (1 if kept else 0)
        if size + cost > max_bytes:
            by = "bytes"
            break
        size += cost
        kept += 1
    if by is None:
        return Truncation(
            text, None, len(lines), total_bytes, len(lines), total_bytes, max_lines, max_bytes
        )
    content = "\n".join(lines[:kept])
    return Truncation(
        content,
        by,
        len(lines),
        total_bytes,
        kept,
        _utf8_len(content),
        max_lines,
        max_bytes,
        first_line_too_long=kept == 0 and by == "bytes",
    )


def truncate_tail(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> Truncation:
    """Keep whole lines from the end while both limits hold; if even the last line is
    over ``max_bytes``, keep its last ``max_bytes`` bytes (at a character boundary)."""
    lines = _lines(text)
    total_bytes = _utf8_len(text)
    kept = 0
    size = 0
    by: Literal["lines", "bytes"] | None = None
    for line in reversed(lines):
        if kept == max_lines:
            by = "lines"
            break
        cost = _utf8_len(line) + (1 if kept else 0)
        if size + cost > max_bytes:
            by = "bytes"
            break
        size += cost
        kept += 1
    if by is None:
        return Truncation(
            text, None, len(lines), total_bytes, len(lines), total_bytes, max_lines, max_bytes
        )
    partial = False
    if kept == 0:
        tail = lines[-1].encode("utf-8")[-max_bytes:].decode("utf-8", errors="ignore")
        content, kept, partial = tail, 1, True
    else:
        content = "\n".join(lines[len(lines) - kept :])
    return Truncation(
        content,
        by,
        len(lines),
        total_bytes,
        kept,
        _utf8_len(content),
        max_lines,
        max_bytes,
        partial_last_line=partial,
    )


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_CHARS) -> tuple[str, bool]:
    """``(line, False)``, or its first ``max_chars`` characters and a marker, and True."""
    if len(line) <= max_chars:
        return line, False
    return line[:max_chars] + "... [line truncated]", True


def format_size(size: int) -> str:
    """``512 B``, ``50.0 KB``, ``5.0 MB``: sizes as notices show them."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
