"""Finding the one place an edit applies, exactly or after normalisation, and diffing it.

Pure functions. Models often send ``old_text`` that differs from the file only in
typography: curly quotes for straight ones, a Unicode dash, a no-break space, trailing
spaces, fullwidth letters, a precomposed accent where the file has a decomposed one.
``locate`` tries the exact text first; if it is absent, it compares both sides in a
normalised form and maps the match back to a span of the *original* text, so the file is
changed only inside that span and every other byte stays as it was.

Normalisation (``normalise``), applied per character cluster (a character with its
combining marks) so that every normalised character knows where it came from:

- ``\\r\\n`` counts as ``\\n``;
- NFKC (fullwidth forms, ligatures, composed accents);
- single quotes U+2018..U+201B to ``'``, double quotes U+201C..U+201F to ``"``;
- dashes U+2010..U+2015 and U+2212 to ``-``;
- spaces U+00A0, U+2002..U+200A, U+202F, U+205F, U+3000 to `` ``;
- whitespace at the end of each line dropped.
"""

from __future__ import annotations

import difflib
import re
import unicodedata

import attrs

__all__ = ["EditError", "Match", "apply_edit", "locate", "normalise", "unified_diff"]

_TABLE = {
    **{c: "'" for c in range(0x2018, 0x201C)},
    **{c: '"' for c in range(0x201C, 0x2020)},
    **{c: "-" for c in (*range(0x2010, 0x2016), 0x2212)},
    **{c: " " for c in (0x00A0, *range(0x2002, 0x200B), 0x202F, 0x205F, 0x3000)},
}


class EditError(ValueError):
    """An edit that cannot be applied; the message says why and what to send instead."""


@attrs.frozen(slots=True)
class Match:
    """The span ``[start, end)`` of the original text that ``old_text`` designates."""

    start: int
    end: int
    fuzzy: bool


def normalise(text: str) -> tuple[str, list[int], list[int]]:
    """``(normalised, starts, ends)``: character ``i`` of ``normalised`` comes from
    ``text[starts[i]:ends[i]]``. Lines that are already normal (ASCII, or NFKC with none
    of the mapped characters) take a fast path: they only lose trailing whitespace."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    offset = 0
    segments = text.split("\n")
    for number, line in enumerate(segments):
        last = number == len(segments) - 1
        body = line[:-1] if line.endswith("\r") and not last else line
        if body.isascii() or _invariant(body):
            kept = body.rstrip()
            out.append(kept)
            starts.extend(range(offset, offset + len(kept)))
            ends.extend(range(offset + 1, offset + len(kept) + 1))
        else:
            _normalise_line(body, offset, out, starts, ends)
        offset += len(line)
        if not last:
            out.append("\n")
            starts.append(offset - (len(line) - len(body)))
            ends.append(offset + 1)
            offset += 1
    return "".join(out), starts, ends


def _invariant(line: str) -> bool:
    """Whether normalising ``line`` would only drop trailing whitespace (checked in C)."""
    return unicodedata.is_normalized("NFKC", line) and line.translate(_TABLE) == line


def _normalise_line(
    body: str, offset: int, out: list[str], starts: list[int], ends: list[int]
) -> None:
    chars: list[str] = []
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(body):
        j = i + 1
        while j < len(body) and unicodedata.combining(body[j]):
            j += 1
        for c in unicodedata.normalize("NFKC", body[i:j]).translate(_TABLE):
            chars.append(c)
            spans.append((offset + i, offset + j))
        i = j
    while chars and chars[-1].isspace():
        chars.pop()
        spans.pop()
    out.append("".join(chars))
    starts.extend(s for s, _ in spans)
    ends.extend(e for _, e in spans)


def locate(content: str, old_text: str) -> Match:
    """Where ``old_text`` is in ``content``: exactly (with ``\\n`` or ``\\r\\n`` line ends),
    else once in normalised form. Raises ``EditError`` when it is empty, absent, or found
    more than once (the count is in the message)."""
    old = old_text.replace("\r\n", "\n")
    if not old:
        raise EditError("old_text is empty; give the exact text to replace")
    variants = [old]
    if "\r\n" in content and "\n" in old:
        variants.append(old.replace("\n", "\r\n"))
    for variant in variants:
        count = content.count(variant)
        if count == 1:
            start = content.find(variant)
            return Match(start, start + len(variant), fuzzy=False)
        if count > 1:
            raise _several(count)
    norm_content, starts, ends = normalise(content)
    norm_old = normalise(old)[0]
    if not norm_old.strip():
        raise EditError("old_text is only whitespace; include the text around the change")
    count = norm_content.count(norm_old)
    if count == 0:
        raise EditError(
            "old_text was not found, not even after normalising quotes, dashes, spaces, "
            "Unicode forms and trailing whitespace; read the file again and copy the "
            "exact text"
        )
    if count > 1:
        raise _several(count)
    k = norm_content.find(norm_old)
    return Match(starts[k], ends[k + len(norm_old) - 1], fuzzy=True)


def _several(count: int) -> EditError:
    return EditError(
        f"found {count} occurrences of old_text; it must match exactly one place, so "
        "include more surrounding lines to make it unique"
    )


def apply_edit(content: str, old_text: str, new_text: str) -> tuple[str, Match, int]:
    """``(new_content, match, end_of_replacement)``: ``content`` with the located span
    replaced by ``new_text``, whose line ends follow the file's (CRLF if the file uses it
    for most lines). Raises ``EditError`` as ``locate`` does, or when nothing changes."""
    match = locate(content, old_text)
    replacement = new_text.replace("\r\n", "\n")
    crlf = content.count("\r\n")
    if crlf and crlf * 2 >= content.count("\n"):
        replacement = replacement.replace("\n", "\r\n")
    result = content[: match.start] + replacement + content[match.end :]
    if result == content:
        raise EditError("new_text is the same as the text it replaces; nothing was changed")
    return result, match, match.start + len(replacement)


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def unified_diff(
    old: str,
    new: str,
    start: int,
    old_end: int,
    new_end: int,
    path: str,
    context: int = 3,
) -> tuple[str, int | None]:
    """``(diff, first_changed_line)`` of a change confined to ``old[start:old_end]`` ->
    ``new[start:new_end]``: a unified diff with real line numbers in its hunk headers,
    computed on a window around the change (cost independent of the file's size beyond
    splitting it). ``first_changed_line`` is 1-based in the new text."""
    first = old.count("\n", 0, start)
    lo = max(0, first - context)
    old_lines = _lines(old)
    new_lines = _lines(new)
    window_old = [x.removesuffix("\r") for x in old_lines[lo : old.count("\n", 0, old_end) + 1]]
    window_new = [x.removesuffix("\r") for x in new_lines[lo : new.count("\n", 0, new_end) + 1]]
    after = [x.removesuffix("\r") for x in old_lines[lo + len(window_old) :][:context]]
    lines = difflib.unified_diff(
        window_old + after,
        window_new + after,
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
        n=context,
        lineterm="",
    )
    out: list[str] = []
    first_changed: int | None = None
    new_no = 0
    for line in lines:
        hunk = _HUNK.match(line)
        if hunk:
            a, b, c, d = hunk.groups()
            new_no = int(c) + lo
            out.append(
                f"@@ -{int(a) + lo}{'' if b is None else ',' + b} "
                f"+{new_no}{'' if d is None else ',' + d} @@"
            )
            if d == "0":  # pure deletion: the header points at the line before
                new_no += 1
            continue
        out.append(line)
        if line.startswith(("---", "+++")) and len(out) <= 2:
            continue
        if line.startswith(("-", "+")) and first_changed is None:
            first_changed = new_no
        if not line.startswith("-"):
            new_no += 1
    return "\n".join(out), first_changed
