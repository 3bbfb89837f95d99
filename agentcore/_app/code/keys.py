"""Keys from a terminal's bytes, and the line editor they drive; both pure.

``decode(pending, data)`` turns the bytes a terminal in cbreak mode sends into ``Key``s.
Bytes that may be the start of something longer (a UTF-8 character, an escape sequence,
a bracketed paste) stay in ``pending`` until the rest arrives, so the keys do not depend
on how the input was split into reads. A lone ``ESC`` can only be told from the start of
a sequence by waiting: ``flush(pending)`` (called after a short silence) makes it the
Escape key.

``edit(editor, key)`` folds a key into an ``Editor`` (the line being typed, its cursor,
the history of submitted lines) and says what the key asks the application for:
``SUBMIT``, ``INTERRUPT``, ``END`` (Ctrl-D on an empty line) or ``REDRAW`` (Ctrl-L).
"""

from __future__ import annotations

from typing import Literal, NamedTuple

__all__ = [
    "END",
    "INTERRUPT",
    "REDRAW",
    "SUBMIT",
    "Action",
    "Decoder",
    "Editor",
    "Key",
    "decode",
    "edit",
    "flush",
]


class Key(NamedTuple):
    """One key: ``name`` is ``char`` (``text`` holds it), ``paste`` (``text`` holds what
    was pasted), or a named key (``enter``, ``backspace``, ``left``, ``ctrl-c``...)."""

    name: str
    text: str = ""


class Decoder(NamedTuple):
    """Bytes not yet decoded, and the text of a bracketed paste in progress."""

    pending: bytes = b""
    paste: str | None = None


ESC = 0x1B
PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"

_CONTROL = {
    0x01: "home",
    0x02: "left",
    0x03: "ctrl-c",
    0x04: "ctrl-d",
    0x05: "end",
    0x06: "right",
    0x08: "backspace",
    0x09: "tab",
    0x0A: "enter",
    0x0B: "ctrl-k",
    0x0C: "ctrl-l",
    0x0D: "enter",
    0x0E: "down",
    0x10: "up",
    0x15: "ctrl-u",
    0x17: "ctrl-w",
    0x7F: "backspace",
}
_CSI_FINAL = {"A": "up", "B": "down", "C": "right", "D": "left", "H": "home", "F": "end"}
_CSI_TILDE = {"1": "home", "7": "home", "4": "end", "8": "end", "3": "delete"}


def _utf8_length(lead: int) -> int:
    """How many bytes the UTF-8 character starting with ``lead`` has (1 for an invalid
    lead byte, which decodes to U+FFFD)."""
    if lead >= 0xF0 and lead <= 0xF4:
        return 4
    if lead >= 0xE0:
        return 3 if lead <= 0xEF else 1
    if lead >= 0xC2:
        return 2
    return 1


def _escape(data: bytes, at: int) -> tuple[Key | None, int] | None:
    """The key of the escape sequence at ``data[at]`` and its length; ``None`` when the
    sequence is not complete yet. ``(None, n)``: ``n`` bytes of a sequence to ignore."""
    if at + 1 >= len(data):
        return None
    second = data[at + 1]
    if second == ord("["):  # CSI: parameters, then one final byte in 0x40..0x7E
        end = at + 2
        while end < len(data) and not 0x40 <= data[end] <= 0x7E:
            end += 1
        if end >= len(data):
            return None
        params, final = data[at + 2 : end].decode("latin-1"), chr(data[end])
        length = end + 1 - at
        if final == "~":
            name = _CSI_TILDE.get(params.split(";")[0])
            return (Key(name) if name else None), length
        name = _CSI_FINAL.get(final)
        if name is None:
            return None, length
        modifier = params.split(";")[1] if ";" in params else ""
        if modifier in ("3", "5") and name in ("left", "right"):  # alt/ctrl + arrow
            name = f"word-{name}"
        return Key(name), length
    if second == ord("O"):  # SS3: arrows in application mode
        if at + 2 >= len(data):
            return None
        name = _CSI_FINAL.get(chr(data[at + 2]))
        return (Key(name) if name else None), 3
    if second in (0x0D, 0x0A):
        return Key("alt-enter"), 2
    if second == 0x7F:
        return Key("ctrl-w"), 2
    if second == ESC:  # ESC ESC: the first is the Escape key
        return Key("escape"), 1
    return Key("escape"), 1  # an Escape key followed by a key of its own


def decode(state: Decoder, data: bytes) -> tuple[Decoder, list[Key]]:
    """Fold ``data`` into the decoder: the keys it completes, and what stays pending."""
    data = state.pending + data
    paste = state.paste
    keys: list[Key] = []
    at = 0
    while at < len(data):
        if paste is not None:
            end = data.find(PASTE_END, at)
            if end < 0:  # keep a possible partial end marker pending
                keep = _partial_suffix(data, PASTE_END)
                paste += data[at : len(data) - keep].decode("utf-8", "replace")
                return Decoder(data[len(data) - keep :], paste), keys
            text = paste + data[at:end].decode("utf-8", "replace")
            keys.append(Key("paste", text.replace("\r\n", "\n").replace("\r", "\n")))
            paste, at = None, end + len(PASTE_END)
            continue
        byte = data[at]
        if byte == ESC:
            if data.startswith(PASTE_START, at):
                paste, at = "", at + len(PASTE_START)
                continue
            if PASTE_START.startswith(data[at:]) and len(data) - at < len(PASTE_START):
                return Decoder(data[at:], None), keys
            found = _escape(data, at)
            if found is None:
                return Decoder(data[at:], None), keys
            key, length = found
            if key is not None:
                keys.append(key)
            at += length
            continue
        if byte < 0x20 or byte == 0x7F:
            name = _CONTROL.get(byte)
            if name is not None:
                keys.append(Key(name))
            at += 1
            continue
        length = _utf8_length(byte)
        following = data[at + 1 : at + length]
        if any(not 0x80 <= b <= 0xBF for b in following):  # cut short by a non-continuation
            length = 1
        elif at + length > len(data):  # the rest has not arrived yet
            return Decoder(data[at:], None), keys
        text = data[at : at + length].decode("utf-8", "replace")
        keys.extend(Key("char", c) for c in text)
        at += length
    return Decoder(b"", paste), keys


def _partial_suffix(data: bytes, marker: bytes) -> int:
    """The length of the longest end of ``data`` that is a proper start of ``marker``."""
    for size in range(min(len(marker) - 1, len(data)), 0, -1):
        if marker.startswith(data[-size:]):
            return size
    return 0


def flush(state: Decoder) -> tuple[Decoder, list[Key]]:
    """After a silence: a pending lone ``ESC`` is the Escape key, then what follows it is
    decoded again; an unfinished character becomes U+FFFD. A paste stays open."""
    if state.paste is not None or not state.pending:
        return state, []
    if state.pending[0] == ESC:
        rest, keys = decode(Decoder(), state.pending[1:])
        return rest, [Key("escape"), *keys]
    return Decoder(), [Key("char", state.pending.decode("utf-8", "replace")[0])]


Action = Literal["submit", "interrupt", "end", "redraw"]
SUBMIT: Action = "submit"
INTERRUPT: Action = "interrupt"
END: Action = "end"
REDRAW: Action = "redraw"


class Editor(NamedTuple):
    """The line being typed (``cursor`` is an index into ``text``) and the history of
    submitted lines; ``browsing`` is the history entry shown, ``draft`` the line that was
    being typed before browsing started."""

    text: str = ""
    cursor: int = 0
    history: tuple[str, ...] = ()
    browsing: int | None = None
    draft: str = ""


def _put(editor: Editor, text: str, cursor: int) -> Editor:
    return editor._replace(text=text, cursor=cursor, browsing=None)


def _word_start(text: str, cursor: int) -> int:
    at = cursor
    while at > 0 and text[at - 1].isspace():
        at -= 1
    while at > 0 and not text[at - 1].isspace():
        at -= 1
    return at


def _word_end(text: str, cursor: int) -> int:
    at = cursor
    while at < len(text) and text[at].isspace():
        at += 1
    while at < len(text) and not text[at].isspace():
        at += 1
    return at


def _browse(editor: Editor, step: int) -> Editor:
    history = editor.history
    if not history:
        return editor
    current = len(history) if editor.browsing is None else editor.browsing
    target = max(0, min(len(history), current + step))
    draft = editor.text if editor.browsing is None else editor.draft
    text = draft if target == len(history) else history[target]
    browsing = None if target == len(history) else target
    return Editor(text, len(text), history, browsing, draft)


def edit(editor: Editor, key: Key) -> tuple[Editor, Action | None]:
    """Fold ``key`` into ``editor``. ``SUBMIT`` leaves the submitted line as
    ``editor.history[-1]`` and an empty line (a blank line submits nothing);
    ``INTERRUPT`` (Ctrl-C) clears the line."""
    text, cursor, name = editor.text, editor.cursor, key.name
    if name in ("char", "paste"):
        insert = key.text if name == "paste" else key.text.replace("\t", " ")
        return _put(editor, text[:cursor] + insert + text[cursor:], cursor + len(insert)), None
    if name == "enter":
        if not text.strip():
            return editor, None
        history = editor.history
        if not history or history[-1] != text:
            history = (*history, text)
        return Editor(history=history), SUBMIT
    if name == "alt-enter":
        return _put(editor, text[:cursor] + "\n" + text[cursor:], cursor + 1), None
    if name == "ctrl-c":
        return Editor(history=editor.history), INTERRUPT
    if name == "ctrl-d":
        if not text:
            return editor, END
        return _put(editor, text[:cursor] + text[cursor + 1 :], cursor), None
    if name == "ctrl-l":
        return editor, REDRAW
    moved = {
        "left": max(0, cursor - 1),
        "right": min(len(text), cursor + 1),
        "home": 0,
        "end": len(text),
        "word-left": _word_start(text, cursor),
        "word-right": _word_end(text, cursor),
    }.get(name)
    if moved is not None:
        return editor._replace(cursor=moved), None
    if name == "backspace" and cursor > 0:
        return _put(editor, text[: cursor - 1] + text[cursor:], cursor - 1), None
    if name == "delete":
        return _put(editor, text[:cursor] + text[cursor + 1 :], cursor), None
    if name == "ctrl-u":
        return _put(editor, text[cursor:], 0), None
    if name == "ctrl-k":
        return _put(editor, text[:cursor], cursor), None
    if name == "ctrl-w":
        start = _word_start(text, cursor)
        return _put(editor, text[:start] + text[cursor:], start), None
    if name in ("up", "down"):
        return _browse(editor, -1 if name == "up" else 1), None
    return editor, None
